# cython: language_level=3
"""The whole-chain enumeration's interface (implemented in ``_chain_engine.pyx``):
the outcomes' stop tags, the memory bound per position held, and the entry
point ``_chains`` calls without the GIL."""

from libc.stdint cimport uint8_t, uint64_t

from gulbara.chains._tables cimport KeySet, Shared
from gulbara.core._types cimport Pos, Step, Key96

# The outcomes' tags (why and where a chain stopped: RULES §5.1).
from gulbara.chains._outcome_tags cimport (STOP_COMPLETE, STOP_STALLED, STOP_UNSTARTED, STOP_GAME_OVER,
                                    make_tag, key_k1, retag_game_over, game_over_k1)

# Peak memory of a chain enumeration per distinct position held at once, in
# bytes. With ``max_ends`` set, the tables are held to max_ends *
# BYTES_PER_HELD + BASE_BYTES (CHAIN_TOO_MANY past it), which the usual
# layout stays under: 16-byte slots at least a quarter full (at most 64 bytes
# a position), the next stage's table sized from the frontier, a doubling
# table briefly held twice.
cdef enum:
    BYTES_PER_HELD = 128
    BASE_BYTES = 1 << 20      # the smallest tables of every part and thread


cdef int chain_enumerate(const Pos* start, int seat, const uint8_t* numbers,
                         const uint8_t* counts, int n_stages, bint is_chain, int threads,
                         int keep_lo, int keep_hi, bint may_diagram, Shared* sh,
                         KeySet* result) noexcept nogil
cdef Py_ssize_t chain_count_enumerate(const Pos* start, int seat, const uint8_t* numbers,
                                      const uint8_t* counts, int n_stages, int threads,
                                      Shared* sh) noexcept nogil
