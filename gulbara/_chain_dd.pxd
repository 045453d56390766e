# cython: language_level=3
"""Whole chains by a decision diagram (implemented in ``_chain_dd.pyx``): the
sets of a chain's positions held as reduced ordered decision diagrams over the
mover's count of checkers per point, for chains in which no position can bear
off (``_chain_engine`` enumerates the others stage by stage)."""

from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t

from gulbara._tables cimport Meter, Shared, KeySet
from gulbara._interrupt cimport Interrupt
from gulbara._types cimport Pos

cdef enum:
    DD_VALUES = 16            # a point's count of checkers, 0..15: one child each
    DD_MAX_ROOTS = 32         # outcome sets: 4 stall sets a stage, 6 stages, the complete set
    DD_DONE = 0
    DD_NOT_APPLICABLE = 1     # a position could bear off, or the diagram grew past its bound
    DD_NO_MEMORY = 2
    DD_INTERRUPTED = 3        # a signal handler raised (Ctrl-C)

# A node: the sets of the points below its level, one per count of checkers on
# its level's point (0: the empty set). Levels 0..23 are the mover's points
# 24..1; node 1 is the terminal (the set holding the empty suffix), node 0 the
# empty set.
ctypedef struct DDNode:
    uint32_t child[DD_VALUES]

# A node's run of nodes with one child each, followed down: the node where it
# ends (the terminal, or a node with two or more children), its level, and the
# counts of the points passed on the way, packed as in a position's key.
ctypedef struct DDJump:
    uint64_t lo
    uint64_t hi
    uint32_t node
    uint32_t level

ctypedef struct DDCacheEntry:
    uint64_t key
    uint32_t op
    uint32_t result

ctypedef struct Diagram:
    DDNode* nodes
    uint8_t* level
    uint64_t* paths           # the paths below each node (dd_count_paths)
    uint16_t* children        # which children of each node are not empty (bit v: value v)
    DDJump* jump              # where each node's run of one-child nodes ends (dd_count_paths)
    uint32_t n
    uint32_t cap
    uint32_t* unique          # node ids by hash (0: a free slot)
    uint32_t unique_mask
    DDCacheEntry* cache       # the operations' results, direct mapped (a miss recomputes)
    uint32_t cache_mask
    uint32_t generation       # tells the results of the current stage's operations
    Meter* meter
    size_t nbytes             # counted in the meter
    Py_ssize_t* held          # the positions held by the enumeration: a node of room counts
    Py_ssize_t max_held       # as one (past max_held, not applicable)
    Py_ssize_t counted        # the nodes counted in held
    Interrupt* intr           # counted at every dd_make call (NULL: never looked at)
    int failed                # DD_NOT_APPLICABLE or DD_NO_MEMORY once an operation failed
    # the current stage (dd_set_die)
    int die
    uint8_t run[25]           # steps a checker on point p can take in a row, at most 4
    uint8_t source_ok[25]     # a step from p lands on an open point (no bearing off)

# One set of outcomes: its root, the stage where the chain stopped (or its last
# stage) and the dice played in that stage (its count: every stage in full).
ctypedef struct DDRoot:
    uint32_t root
    int stage
    int played

cdef int dd_chain(Diagram* dd, Meter* meter, Py_ssize_t* held, Py_ssize_t max_held,
                  Interrupt* intr, const Pos* start, int seat, uint64_t start_lo,
                  uint64_t start_hi, uint32_t blocked, const uint8_t* numbers,
                  const uint8_t* counts, int n_stages, bint is_chain, DDRoot* roots,
                  int* n_roots, int* game_over_stage) noexcept nogil
cdef void dd_free(Diagram* dd) noexcept nogil
cdef int dd_write_outcomes(const Diagram* dd, const DDRoot* roots, const uint64_t* tags,
                           int n_roots, bint extra, uint64_t extra_k1, int threads,
                           int keep_lo, int keep_hi, Shared* sh, KeySet* result) noexcept nogil
cdef int chain_by_diagram(const Pos* start, int seat, const uint8_t* numbers,
                          const uint8_t* counts, int n_stages, bint is_chain, uint32_t blocked,
                          int threads, Py_ssize_t threaded_from, int keep_lo, int keep_hi,
                          Shared* sh, KeySet* result) noexcept nogil
cdef Py_ssize_t chain_count_by_diagram(const Pos* start, int seat, const uint8_t* numbers,
                                       const uint8_t* counts, int n_stages, uint32_t blocked,
                                       Shared* sh) noexcept nogil
