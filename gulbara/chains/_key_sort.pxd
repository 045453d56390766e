# cython: language_level=3
"""The sort of the chains' keys by hash (implemented in ``_key_sort.pyx``):
``sort_part`` sorts (k0, k1) pairs on the calling thread, ``sort_dense`` a
compacted set's keys on several threads, part by part. Both order by hash,
ties by k1, then k0, and report a result code of ``_status.pxd``."""

from libc.stdint cimport uint64_t

from gulbara.chains._memory cimport Meter
from gulbara.chains._shared cimport Shared
from gulbara.chains._keysets cimport KeySet

cdef int sort_part(uint64_t* keys, Py_ssize_t n, int part_bits, Meter* meter) noexcept nogil
cdef void sort_dense(KeySet* result, int threads, Shared* sh) noexcept nogil
