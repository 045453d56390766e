# cython: language_level=3
"""The outcomes of a chain's decision diagram (implemented in ``_chain_dd_out.pyx``):
its paths counted, written by threads at their ranks and sorted as the
stage-by-stage enumeration sorts them."""

from libc.stdint cimport uint8_t, uint32_t, uint64_t

from gulbara.chains._shared cimport Shared
from gulbara.chains._keysets cimport KeySet
from gulbara.core._types cimport Pos
from gulbara.chains._chain_dd cimport Diagram, DDRoot

cdef int dd_write_outcomes(const Diagram* dd, const DDRoot* roots, const uint64_t* tags,
                           int n_roots, bint extra, uint64_t extra_k1, int threads,
                           int keep_lo, int keep_hi, Shared* sh, KeySet* result) noexcept nogil
cdef int chain_by_diagram(const Pos* start, int seat, const uint8_t* numbers,
                          const uint8_t* counts, int n_stages, bint is_chain, uint32_t blocked,
                          int threads, Py_ssize_t threaded_from, int keep_lo, int keep_hi,
                          Shared* sh, KeySet* result) noexcept nogil
cdef Py_ssize_t chain_count_by_diagram(const Pos* start, int seat, const uint8_t* numbers,
                                       const uint8_t* counts, int n_stages, uint32_t blocked,
                                       int threads, Shared* sh) noexcept nogil
