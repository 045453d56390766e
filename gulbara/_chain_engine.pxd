# cython: language_level=3
"""The whole-chain enumeration's interface (implemented in ``_chain_engine.pyx``):
the outcomes' stop tags, the memory bound per position held, and the two entry
points ``_chains`` calls without the GIL."""

from libc.stdint cimport uint8_t, uint64_t

from gulbara._tables cimport KeySet, Shared
from gulbara._types cimport Pos, Step, Key96

# Why and where a chain stopped: an outcome's tag is (stop, number, played),
# make_tag below; it determines the remainder (RULES §5.1).
cdef enum:
    STOP_COMPLETE = 0     # every stage played in full (or the remainder played out)
    STOP_STALLED = 1      # a stage not played in full: the chain stops (RULES §4.4)
    STOP_UNSTARTED = 2    # not even one die of the first stage (RULES §5.2)
    STOP_GAME_OVER = 3    # the mover bore off its last checker (RULES §5.5)

# Peak memory of a chain enumeration per distinct position held at once, in
# bytes. With ``max_ends`` set, the tables are held to max_ends *
# BYTES_PER_HELD + BASE_BYTES (CHAIN_TOO_MANY past it), which the usual
# layout stays under: 16-byte slots at least a quarter full (at most 64 bytes
# a position), the next stage's table sized from the frontier, a doubling
# table briefly held twice.
cdef enum:
    BYTES_PER_HELD = 128
    BASE_BYTES = 1 << 20      # the smallest tables of every part and thread


cdef inline uint64_t make_tag(int stop, int number, int played) noexcept nogil:
    return <uint64_t>(stop | (number << 4) | (played << 8))


cdef inline uint64_t key_k1(Key96 key, uint64_t tag) noexcept nogil:
    return <uint64_t>key.hi | (tag << 32)


cdef int chain_enumerate(const Pos* start, int seat, const uint8_t* numbers,
                         const uint8_t* counts, int n_stages, bint is_chain, int threads,
                         int keep_lo, int keep_hi, Shared* sh, KeySet* result) noexcept nogil
cdef int chain_recover(Pos* q, int seat, const uint8_t* numbers, const uint8_t* counts,
                       int n_stages, bint is_chain, int stage, Key96 target,
                       uint64_t target_tag, Step* path, int* stage_steps,
                       KeySet* failed, int* last_stage) noexcept nogil
