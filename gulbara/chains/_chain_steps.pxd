# cython: language_level=3
"""The steps of one outcome of a chain (implemented in ``_chain_steps.pyx``)."""

from libc.stdint cimport uint8_t, uint64_t

from gulbara.chains._keysets cimport KeySet
from gulbara.core._types cimport Pos, Step, Key96


cdef int chain_recover(Pos* q, int seat, const uint8_t* numbers, const uint8_t* counts,
                       int n_stages, bint is_chain, int stage, Key96 target,
                       uint64_t target_tag, Step* path, int* stage_steps,
                       KeySet* failed, int* last_stage) noexcept nogil
