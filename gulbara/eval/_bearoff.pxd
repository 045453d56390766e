# The one-sided bear-off database's native lookups (_bearoff.pyx; gulbara.eval.bearoff is
# its API).

cdef int rank_counts(const int* c) noexcept nogil
cdef void race_chances(const double* dist, const double* first_dist, int length, int roller,
                       int other, double* out) noexcept nogil
cdef double race_points(const double* dist, const double* first_dist, int length, int roller,
                        int other, bint mars) noexcept nogil
