# cython: language_level=3
"""The whole-chain enumeration's interface (implemented in ``_chain_engine.pyx``):
the outcomes' stop tags, the memory bound per position held, the plan of an
enumeration, and the entry points ``_chains`` calls without the GIL."""

from libc.stdint cimport uint8_t, uint64_t

from gulbara.chains._shared cimport Shared
from gulbara.chains._keysets cimport KeySet
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



# How an enumeration goes about its work: which way it takes (decision diagram
# or stage by stage) and the sizes from which it shares, buckets and layers a
# stage. Only its speed depends on the plan, never its outcomes or their order.
# Every call is given one (default_plan(): the one measured best on the
# suites, docs/dev/performance.md) and reads it once; gulbara.chains.ChainPlan
# is its Python face, with the same fields and defaults.
ctypedef struct ChainPlan:
    bint diagrams                    # chains and remainders may go by decision diagram
                                     # (_chain_dd) where one applies (True)
    Py_ssize_t small_chain           # ... but first go stage by stage while they hold at
                                     # most this many positions at once (30,000: a
                                     # diagram costs more than a small chain)
    int diagram_contact              # ... and never with more of the opponent's points in
                                     # the mover's way than this (3: points_in_the_way)
    Py_ssize_t threaded_frontier     # stages of fewer frontier positions run on the calling
                                     # thread alone (2,048)
    Py_ssize_t bucket_frontier       # stages of at least this many frontier positions put
                                     # their full plays into buckets (4,096)
    Py_ssize_t layered_frontier      # stages of at least this many may be expanded a step
                                     # at a time (chain_layers) (4,096) ...
    Py_ssize_t layered_duplication   # ... when the stage before made more than this many
                                     # ends per distinct position (10)
    Py_ssize_t layered_probe         # a bucketed stage not layered measures the ends per
                                     # distinct end of each thread's first buckets, on this
                                     # many positions or a sixteenth of the frontier (1,024)
    Py_ssize_t turn_duplication      # ... and turns to layers past this many (12)


cdef ChainPlan default_plan() noexcept nogil
cdef int chain_enumerate(const Pos* start, int seat, const uint8_t* numbers,
                         const uint8_t* counts, int n_stages, bint is_chain, int threads,
                         int keep_lo, int keep_hi, bint may_diagram, const ChainPlan* plan,
                         Shared* sh, KeySet* result) noexcept nogil
cdef Py_ssize_t chain_count_enumerate(const Pos* start, int seat, const uint8_t* numbers,
                                      const uint8_t* counts, int n_stages, int threads,
                                      const ChainPlan* plan, Shared* sh) noexcept nogil
