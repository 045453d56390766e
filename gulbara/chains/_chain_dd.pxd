# cython: language_level=3
"""Whole chains by a decision diagram (implemented in ``_chain_dd.pyx``): the
sets of a chain's positions held as reduced ordered decision diagrams over the
mover's count of checkers per point, for chains in which no position can bear
off (``_chain_engine`` enumerates the others stage by stage). Their outcomes
are counted and written by ``_chain_dd_out``."""

from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t

from gulbara.chains._memory cimport Meter
from gulbara.chains._shared cimport Shared
from gulbara.chains._keysets cimport KeySet
from gulbara.core._interrupt cimport Interrupt
from gulbara.core._types cimport Pos

cdef enum:
    DD_LEVELS = 24
    DD_EMPTY = 0              # the node of the empty set
    DD_ONE = 1                # the terminal
    DD_DEAD = DD_LEVELS + 2   # the level of a node made twice at once by a team (the copy
                              # never used) or of an id of a block left unused
    DD_VALUES = 16            # a point's count of checkers, 0..15: one child each
    DD_MAX_ROOTS = 32         # outcome sets: 4 stall sets a stage, 6 stages, the complete set
    DD_DONE = 0
    DD_NOT_APPLICABLE = 1     # a position could bear off, or the diagram grew past its bound
    DD_NO_MEMORY = 2
    DD_INTERRUPTED = 3        # a signal handler raised (Ctrl-C)
    DD_STOPPED = 4            # (a helper thread: told to stop)
    DD_TEAM_STAGES = 8        # stages whose expansions a team shares

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

# A cached result, packed in one word (read and written whole, so two threads
# can share the cache): the operation's kind (3 bits), its operands (20 and 21
# bits) and its result (20 bits): node ids stay below DD_MAX_NODES = 2**20.
ctypedef uint64_t DDCacheEntry

# A diagram built by two threads at once (dd_chain with threads > 1): the
# calling thread's and a helper's, which runs the same operations with the
# children taken in reverse order, so that each mostly finds the other's
# results made. The tables are shared (nodes are added with atomic
# operations); only the calling thread grows them, while the helper waits.
# A stage's positions that may bear off, expanded one by one by the team
# (expand_shared): the positions, the chunks taken, and the result.
ctypedef struct ExpandJob:
    int state                 # JOB_FREE, JOB_LISTING, JOB_OPEN, JOB_JOINING, JOB_DONE
    int next                  # the next chunk of positions to expand (atomic)
    int joined                # threads expanding (under the team's lock)
    int finished              # those done
    int err
    int game_over
    uint64_t* keys            # the positions, (lo, hi) pairs
    Py_ssize_t count
    uint32_t part[5]          # the ends of the thread that finished first
    uint32_t result[5]        # the ends of the positions that play k dice

ctypedef struct DDTeam:
    uint32_t n                # the nodes made (both take new ids from it)
    char line0[60]            # (n alone on its cache line: it changes at every new node)
    void* home                # the calling thread's Diagram (whose tables grow)
    int signal                # TEAM_RUN, TEAM_PAUSE (the tables are growing) or TEAM_STOP
    int epoch                 # the pauses asked for
    int acked                 # the last pause the helper is waiting out
    int finished              # the helper has returned
    int lock                  # (a spin lock for the jobs' counts)
    char line1[36]
    ExpandJob jobs[DD_TEAM_STAGES]

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
    Meter* meter
    size_t nbytes             # counted in the meter
    Py_ssize_t* held          # the positions held by the enumeration: a node of room counts
    Py_ssize_t max_held       # as one (past max_held, not applicable)
    Py_ssize_t counted        # the nodes counted in held
    Interrupt* intr           # counted at every dd_make call (NULL: never looked at)
    int failed                # DD_NOT_APPLICABLE or DD_NO_MEMORY once an operation failed
    DDTeam* team              # shared with a helper thread (NULL: built on one thread)
    uint32_t block_next       # (with a team: the ids of this thread's block still to use)
    uint32_t block_end
    bint built_by_team        # (a helper thread ran beside the calling one)
    uint32_t flip             # the helper's: 15, the children in reverse order (else 0)
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
                  const uint8_t* counts, int n_stages, bint is_chain, int threads,
                  DDRoot* roots, int* n_roots, int* game_over_stage) noexcept nogil
cdef void dd_free(Diagram* dd) noexcept nogil
cdef size_t node_bytes(uint32_t cap) noexcept nogil


cdef inline uint32_t point_of(int level) noexcept nogil:
    """The mover's point of a level (level 0: point 24)."""
    return 24 - level
