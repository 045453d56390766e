# cython: language_level=3
"""Whole chains by a decision diagram.

A chain's frontiers are sets of the mover's positions, and in real games they
are huge (millions of positions) but very regular: a set of positions is held
here as a reduced ordered decision diagram over the mover's count of checkers
on each point (points 24 down to 1), where equal sets of the points below a
level are one node. The frontier after a stage of a 2-2 chain of 8.6 million
outcomes is a diagram of a few hundred nodes a level.

A stage is applied to the whole set at once. While no position can bear off
(every position has at least four checkers outside its home board, so none
can bear off in a stage of four dice, RULES §2.3), a step of die ``d`` moves one
checker from a point ``p`` to ``p - d`` when that point is open (RULES §2.2),
and the mover's own checkers never block: each checker can take ``run(p)``
steps in a row from its point, whatever the others do. So a position can play
``min(4, sum of its checkers' runs)`` dice of the stage, every maximal play
plays that many (RULES §3.4), and:

* the positions that play all four dice end in ``step(step(step(step(S))))``,
  where ``step`` moves one checker of one position by ``d`` in every way;
* those that play ``k < 4`` (the chain stops, RULES §4.4) end in
  ``step^k`` of their set: every checker takes its whole run, one end each.

``step`` and the split by dice playable are recursive operations on the
diagram, their results cached. Positions with fewer than four checkers
outside (they may bear off) are listed, expanded one by one with the stage
rules (``stage_generate``) and built back into the diagram. The outcomes are
the paths of a few root diagrams (one per stage and dice played), counted and
written by ``_chain_dd_out``.

A remainder (RULES §5.3: stages of 1 to 4 dice, dice that cannot be played are
lost) is the same with ``c`` dice a stage: the positions that play ``k < c``
dice go on to the next stage instead of stopping, and its outcomes are the
last stage's set.

A chain or remainder that starts near home, one with more than
``DD_MAX_RISKY`` positions that may bear off in a stage, or a diagram that
grows past ``DD_MAX_NODES`` nodes, ``max_ends`` or the memory budget is not
applicable (``DD_NOT_APPLICABLE``): the caller enumerates it stage by stage.

On two or more threads the diagram is built by two (a team, DDTeam): the
calling thread and a helper run the same stages on the same tables, the
helper taking every node's children in reverse order, so that each mostly
finds the other's results made rather than making them again (the work
splits about evenly; the nodes one thread makes are read by the other from
its cache, so the pair is about a third faster than one thread, not twice as
fast). Nodes are added with atomic operations, each thread taking its ids 64
at a time; only the calling thread grows the tables, the helper waiting at
its next operation. The positions that may bear off are shared out by chunks
(expand_shared). The diagram is the same set whoever made each node, so the
outcomes and their order do not depend on the threads.
"""

from libc.stdint cimport uint8_t, uint32_t, uint64_t
from libc.stdlib cimport malloc, calloc, realloc, free
from libc.string cimport memcpy, memset

from gulbara.core._keys cimport mix64, key_count, key_add_count, pos_set_mover_key
from gulbara.chains._atomics cimport atomic_add, atomic_next, load_acquire, store_release
from gulbara.chains._threads cimport Thread, start_thread, join_thread
from gulbara.chains._memory cimport Meter, atomic_meter_take, meter_sub, prefetch, prefetch_read
from gulbara.core._interrupt cimport Interrupt, interrupted
from gulbara.core._types cimport Pos, Key96, StageEnd, STAGE_CAPACITY
from gulbara.core._movegen cimport stage_generate

cdef extern from "<stdlib.h>" nogil:
    void* aligned_alloc(size_t alignment, size_t size)

cdef enum:
    DD_FIRST_NODES = 1 << 10
    DD_MAX_NODES = 1 << 20    # 1M nodes: about 100 MB with the tables; past it, stage by stage
    DD_CACHE_PER_NODE = 2     # cached results per node of room (8 bytes each)
    DD_MAX_CACHE_SLOTS = 1 << 21
    DD_MAX_RISKY = 100000     # positions that may bear off, expanded one by one, in a stage

    OP_UNION = 1
    OP_STEP = 2
    OP_SPLIT = 3
    OP_SPLIT_OUTSIDE = 4
    OP_COUNT = 5

    STATE_SOURCE = 0          # step: the checker that moves is still to be chosen
    STATE_DONE = 7            # it has moved; states 1..6: it lands that many levels below


# A checker outside the home board (points 7..24) counts 1 (dd_split: may it bear off?).
cdef uint8_t OUTSIDE_HOME[25]
for _p in range(25):
    OUTSIDE_HOME[_p] = _p >= 7


cdef size_t node_bytes(uint32_t cap) noexcept nogil:
    """The bytes of room for ``cap`` nodes: the nodes, their levels, the unique table."""
    return <size_t>cap * (sizeof(DDNode) + sizeof(uint8_t)) + <size_t>2 * cap * sizeof(uint32_t)


cdef bint dd_hold(Diagram* dd, Py_ssize_t nodes) noexcept nogil:
    """Count ``nodes`` more of room as positions held; False past max_held."""
    if dd.held == NULL:
        return True
    dd.counted += nodes
    return atomic_add(dd.held, nodes) <= dd.max_held


cdef int dd_init(Diagram* dd, Meter* meter, Py_ssize_t* held,
                 Py_ssize_t max_held) noexcept nogil:
    memset(dd, 0, sizeof(Diagram))
    dd.meter = meter
    dd.held = held
    dd.max_held = max_held
    if not dd_hold(dd, DD_FIRST_NODES):
        return DD_NOT_APPLICABLE
    dd.cap = DD_FIRST_NODES
    dd.nbytes = node_bytes(dd.cap) + DD_CACHE_PER_NODE * dd.cap * sizeof(DDCacheEntry)
    if meter != NULL and atomic_meter_take(&meter.held, &meter.peak, meter.budget,
                                           dd.nbytes) != 0:
        dd.nbytes = 0
        return DD_NOT_APPLICABLE
    dd.nodes = <DDNode*>aligned_alloc(sizeof(DDNode), dd.cap * sizeof(DDNode))
    dd.level = <uint8_t*>aligned_alloc(DD_BLOCK, dd.cap * sizeof(uint8_t))
    dd.unique = <uint32_t*>calloc(2 * dd.cap, sizeof(uint32_t))
    dd.unique_mask = 2 * dd.cap - 1
    dd.cache = <DDCacheEntry*>calloc(DD_CACHE_PER_NODE * dd.cap, sizeof(DDCacheEntry))
    dd.cache_mask = DD_CACHE_PER_NODE * dd.cap - 1
    if dd.nodes == NULL or dd.level == NULL or dd.unique == NULL or dd.cache == NULL:
        dd_free(dd)
        return DD_NO_MEMORY
    memset(&dd.nodes[0], 0, 2 * sizeof(DDNode))
    dd.level[0] = DD_LEVELS + 1
    dd.level[1] = DD_LEVELS
    dd.n = 2
    return DD_DONE


cdef void dd_free(Diagram* dd) noexcept nogil:
    free(dd.nodes)
    free(dd.level)
    free(dd.paths)
    free(dd.children)
    free(dd.jump)
    free(dd.unique)
    free(dd.cache)
    dd.nodes = NULL
    dd.level = NULL
    dd.paths = NULL
    dd.children = NULL
    dd.jump = NULL
    dd.unique = NULL
    dd.cache = NULL
    if dd.meter != NULL and dd.nbytes:
        meter_sub(dd.meter, dd.nbytes)
    dd.nbytes = 0
    if dd.held != NULL and dd.counted:
        atomic_add(dd.held, -dd.counted)
    dd.counted = 0


cdef inline uint64_t node_hash(int level, const uint32_t* child) noexcept nogil:
    """A node's hash: its children two at a time, each pair times its own odd
    constant (independent multiplies), summed and mixed."""
    cdef const uint64_t* w = <const uint64_t*>child
    cdef uint64_t h = (w[0] * <uint64_t>0x9E3779B97F4A7C15ULL + w[1] * <uint64_t>0xC2B2AE3D27D4EB4FULL
                       + w[2] * <uint64_t>0x165667B19E3779F9ULL + w[3] * <uint64_t>0xD6E8FEB86659FD93ULL
                       + w[4] * <uint64_t>0xFF51AFD7ED558CCDULL + w[5] * <uint64_t>0xC4CEB9FE1A85EC53ULL
                       + w[6] * <uint64_t>0x2545F4914F6CDD1DULL + w[7] * <uint64_t>0x94D049BB133111EBULL)
    return mix64(h ^ <uint64_t>level)


cdef int dd_grow(Diagram* dd) noexcept nogil:
    """Twice the room for nodes (and the unique table rebuilt): DD_DONE or why not."""
    cdef uint32_t cap = dd.cap * 2, i, j, mask = 2 * cap - 1
    cdef size_t more = node_bytes(cap) - node_bytes(dd.cap)
    cdef uint32_t slots = min(DD_CACHE_PER_NODE * cap, DD_MAX_CACHE_SLOTS)
    cdef DDCacheEntry* cache
    cdef DDNode* nodes
    cdef uint8_t* level
    cdef uint32_t* unique
    if cap > DD_MAX_NODES or not dd_hold(dd, cap - dd.cap):
        return DD_NOT_APPLICABLE

    if slots > dd.cache_mask + 1:
        more += (slots - dd.cache_mask - 1) * sizeof(DDCacheEntry)
    if dd.meter != NULL and atomic_meter_take(&dd.meter.held, &dd.meter.peak,
                                              dd.meter.budget, more) != 0:
        return DD_NOT_APPLICABLE
    dd.nbytes += more
    if slots > dd.cache_mask + 1:         # a bigger cache, empty (its results are recomputed)
        cache = <DDCacheEntry*>calloc(slots, sizeof(DDCacheEntry))
        if cache == NULL:
            return DD_NO_MEMORY
        free(dd.cache)
        dd.cache = cache
        dd.cache_mask = slots - 1
    nodes = <DDNode*>aligned_alloc(sizeof(DDNode), cap * sizeof(DDNode))   # (a node a line)
    if nodes == NULL:
        return DD_NO_MEMORY
    memcpy(nodes, dd.nodes, dd.n * sizeof(DDNode))
    free(dd.nodes)
    dd.nodes = nodes
    level = <uint8_t*>aligned_alloc(DD_BLOCK, cap * sizeof(uint8_t))   # (see DD_BLOCK)
    if level == NULL:
        return DD_NO_MEMORY
    memcpy(level, dd.level, dd.n * sizeof(uint8_t))
    free(dd.level)
    dd.level = level
    unique = <uint32_t*>calloc(2 * cap, sizeof(uint32_t))
    if unique == NULL:
        return DD_NO_MEMORY
    for i in range(2, dd.n):
        if dd.level[i] == DD_DEAD:
            continue
        j = <uint32_t>(node_hash(dd.level[i], dd.nodes[i].child) & mask)
        while unique[j] != 0:
            j = (j + 1) & mask
        unique[j] = i
    free(dd.unique)
    dd.unique = unique
    dd.unique_mask = mask
    dd.cap = cap
    return DD_DONE


cdef extern from *:
    """
    #include <time.h>
    static inline uint32_t gulbara_load_id(const uint32_t* p) {
        return __atomic_load_n(p, __ATOMIC_ACQUIRE);
    }
    /* Put ``id`` in an empty slot of the unique table: 1, or 0 if it was taken. */
    static inline int gulbara_claim_slot(uint32_t* p, uint32_t id) {
        uint32_t empty = 0;
        return __atomic_compare_exchange_n(p, &empty, id, 0, __ATOMIC_RELEASE, __ATOMIC_ACQUIRE);
    }
    static inline uint32_t gulbara_next_block(uint32_t* p) {
        return __atomic_fetch_add(p, 64, __ATOMIC_RELAXED);
    }
    static inline void gulbara_store_id(uint32_t* p, uint32_t v) {
        __atomic_store_n(p, v, __ATOMIC_RELEASE);
    }
    static void gulbara_nap(void) { struct timespec t = {0, 20000}; nanosleep(&t, NULL); }
    static inline void gulbara_spin_lock(int* p) {
        int free_ = 0;
        while (!__atomic_compare_exchange_n(p, &free_, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
            free_ = 0;
    #if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
    #endif
        }
    }
    static inline void gulbara_spin_unlock(int* p) { __atomic_store_n(p, 0, __ATOMIC_RELEASE); }
    """
    uint32_t load_id "gulbara_load_id"(const uint32_t* p) noexcept nogil
    bint claim_slot "gulbara_claim_slot"(uint32_t* p, uint32_t id) noexcept nogil
    uint32_t next_block "gulbara_next_block"(uint32_t* p) noexcept nogil
    void store_id "gulbara_store_id"(uint32_t* p, uint32_t v) noexcept nogil
    void nap "gulbara_nap"() noexcept nogil
    void spin_lock "gulbara_spin_lock"(int* p) noexcept nogil
    void spin_unlock "gulbara_spin_unlock"(int* p) noexcept nogil


cdef inline void team_lock(DDTeam* team) noexcept nogil:
    spin_lock(&team.lock)


cdef inline void team_unlock(DDTeam* team) noexcept nogil:
    spin_unlock(&team.lock)


cdef enum:
    JOB_FREE = 0
    JOB_LISTING = 1
    JOB_OPEN = 2
    JOB_JOINING = 3
    JOB_DONE = 4
    DD_EXPAND_CHUNK = 256     # positions a thread expands at a time

cdef enum:
    TEAM_RUN = 0
    TEAM_PAUSE = 1
    TEAM_STOP = 2
    DD_BLOCK = 64             # ids a thread takes at a time (its nodes' levels on its own
                              # cache line)


cdef void view_refresh(Diagram* dd) noexcept nogil:
    """The helper's view: the tables' addresses and sizes after they grew."""
    cdef const Diagram* home = <const Diagram*>dd.team.home
    dd.nodes = home.nodes
    dd.level = home.level
    dd.unique = home.unique
    dd.unique_mask = home.unique_mask
    dd.cache = home.cache
    dd.cache_mask = home.cache_mask
    dd.cap = home.cap


cdef bint helper_hold(Diagram* dd) noexcept nogil:
    """The helper, holding no address in the tables, told to pause or stop: stop
    (True, ``dd.failed`` set), or wait out the pause (the tables growing) and take
    their new addresses (False)."""
    cdef DDTeam* team = dd.team
    cdef int signal
    while True:
        signal = load_acquire(&team.signal)
        if signal == TEAM_STOP:
            dd.failed = DD_STOPPED
            return True
        if signal == TEAM_RUN:
            view_refresh(dd)
            return False
        store_release(&team.acked, load_acquire(&team.epoch))
        nap()


cdef inline bint dd_halted(Diagram* dd) noexcept nogil:
    """Whether an operation is to return at once: a failure, or (the helper) told
    to stop. The helper told to pause waits here for the tables to grow."""
    if dd.failed:
        return True
    if dd.flip and load_acquire(&dd.team.signal) != TEAM_RUN:
        return helper_hold(dd)
    return False


cdef int team_grow(Diagram* dd) noexcept nogil:
    """The calling thread's dd_grow while a helper shares the tables: the helper
    paused first (at its next dd_halted), the nodes it could not add dropped."""
    cdef DDTeam* team = dd.team
    cdef int epoch = team.epoch + 1, err
    store_release(&team.epoch, epoch)
    store_release(&team.signal, TEAM_PAUSE)
    while load_acquire(&team.acked) != epoch and not load_acquire(&team.finished):
        nap()
    dd.n = min(team.n, dd.cap)       # (ids past the room were never written)
    err = dd_grow(dd)
    store_id(&team.n, dd.n)
    store_release(&team.signal, TEAM_RUN if err == DD_DONE else TEAM_STOP)
    return err


cdef uint32_t dd_make(Diagram* dd, int level, const uint32_t* child) noexcept nogil:
    """The node of ``level`` with these children (one made only if new); 0 when
    every child is empty, or on failure (``dd.failed`` set)."""
    cdef int v, err
    cdef bint empty = True
    cdef uint32_t j, id
    for v in range(DD_VALUES):
        if child[v] != DD_EMPTY:
            empty = False
            break
    if empty or dd_halted(dd):
        return DD_EMPTY
    if dd.intr != NULL and interrupted(dd.intr, 1):     # (every call: most find their node)
        dd.failed = DD_INTERRUPTED
        return DD_EMPTY
    if dd.team != NULL:
        return dd_make_shared(dd, level, child)
    id = find_node(dd, level, child, &j)
    if id:
        return id
    if dd.n == dd.cap:
        err = dd_grow(dd)
        if err != DD_DONE:
            dd.failed = err
            return DD_EMPTY
        j = <uint32_t>(node_hash(level, child) & dd.unique_mask)
        while dd.unique[j] != 0:
            j = (j + 1) & dd.unique_mask
    id = dd.n
    dd.n += 1
    memcpy(dd.nodes[id].child, child, sizeof(DDNode))
    dd.level[id] = <uint8_t>level
    dd.unique[j] = id
    return id


cdef inline bint is_node(const Diagram* dd, uint32_t id, int level,
                         const uint32_t* child) noexcept nogil:
    return dd.level[id] == level and memcmp_children(dd.nodes[id].child, child)


cdef inline uint32_t find_node(const Diagram* dd, int level, const uint32_t* child,
                               uint32_t* slot) noexcept nogil:
    """The node of ``level`` with these children, or 0 and (``slot``) the free slot of
    the unique table where it would go. (Its slots read with acquire loads, which
    cost nothing on one thread: a node the other thread of a team put there is
    seen whole.)"""
    cdef uint32_t id, j = <uint32_t>(node_hash(level, child) & dd.unique_mask)
    while True:
        id = load_id(&dd.unique[j])
        if id == 0:
            slot[0] = j
            return 0
        if is_node(dd, id, level, child):
            return id
        j = (j + 1) & dd.unique_mask


cdef uint32_t dd_make_shared(Diagram* dd, int level, const uint32_t* child) noexcept nogil:
    """dd_make while two threads add nodes: a new node's id taken from the shared
    count, the node written, then put in its slot of the unique table with a
    compare-and-swap; a thread that finds the slot taken by the same node (made at
    the same moment by the other) uses that one and marks its own dead."""
    cdef uint32_t j, id, mine
    cdef int err
    while True:
        id = find_node(dd, level, child, &j)
        if id:
            return id
        if dd.block_next < dd.block_end:
            break
        mine = next_block(&dd.team.n)
        if mine < dd.cap:            # (cap is a multiple of DD_BLOCK)
            memset(&dd.level[mine], DD_DEAD, DD_BLOCK)
            dd.block_next = mine
            dd.block_end = mine + DD_BLOCK
            break
        if dd.flip:                   # the helper: wait for the calling thread to grow them
            while load_acquire(&dd.team.signal) == TEAM_RUN:
                nap()
            if helper_hold(dd):
                return DD_EMPTY
        else:
            err = team_grow(dd)
            if err != DD_DONE:
                dd.failed = err
                return DD_EMPTY
    mine = dd.block_next
    dd.block_next += 1
    memcpy(dd.nodes[mine].child, child, sizeof(DDNode))
    dd.level[mine] = <uint8_t>level
    # The next node's line fetched for writing now: the compare-and-swap below waits
    # for the node's stores, and a node whose line is not yet held would make it
    # wait for memory (the team's diagrams took about 7% longer without it).
    if dd.block_next < dd.block_end:
        prefetch(&dd.nodes[dd.block_next])
    while True:
        if claim_slot(&dd.unique[j], mine):
            return mine
        while True:                   # (taken: the node, or the next empty slot)
            id = load_id(&dd.unique[j])
            if is_node(dd, id, level, child):
                dd.level[mine] = DD_DEAD
                return id
            j = (j + 1) & dd.unique_mask
            if load_id(&dd.unique[j]) == 0:
                break


cdef inline bint memcmp_children(const uint32_t* a, const uint32_t* b) noexcept nogil:
    cdef int v
    for v in range(DD_VALUES):
        if a[v] != b[v]:
            return False
    return True


cdef extern from *:
    """
    static inline uint64_t gulbara_load_entry(const uint64_t* p) {
        return __atomic_load_n(p, __ATOMIC_ACQUIRE);
    }
    static inline void gulbara_store_entry(uint64_t* p, uint64_t v) {
        __atomic_store_n(p, v, __ATOMIC_RELEASE);
    }
    """
    uint64_t load_entry "gulbara_load_entry"(const uint64_t* p) noexcept nogil
    void store_entry "gulbara_store_entry"(uint64_t* p, uint64_t v) noexcept nogil


cdef inline uint64_t cache_key(uint32_t op, uint32_t a, uint32_t b) noexcept nogil:
    """An operation's key: its kind (``op``'s low 3 bits, 1..5), ``a`` (a node: 20
    bits) and ``b`` (21 bits: a node, or a step's state or a split's parameter with
    the stage's die above it)."""
    return ((<uint64_t>(op & 7) << 41) | (<uint64_t>a << 21)
            | ((<uint64_t>b | (<uint64_t>(op >> 3) << (3 if (op & 7) == OP_STEP else 7)))
               & 0x1FFFFF))


cdef inline DDCacheEntry* cache_slot(Diagram* dd, uint64_t key) noexcept nogil:
    return &dd.cache[mix64(key) & dd.cache_mask]


cdef inline bint cache_get(Diagram* dd, uint32_t op, uint32_t a, uint32_t b,
                           uint32_t* result) noexcept nogil:
    cdef uint64_t key = cache_key(op, a, b)
    cdef uint64_t e = load_entry(cache_slot(dd, key))
    if (e >> 20) == key:
        result[0] = <uint32_t>(e & 0xFFFFF)
        return True
    return False


cdef inline void cache_put(Diagram* dd, uint32_t op, uint32_t a, uint32_t b,
                           uint32_t result) noexcept nogil:
    cdef uint64_t key = cache_key(op, a, b)
    store_entry(cache_slot(dd, key), (key << 20) | result)


cdef inline uint32_t die_op(const Diagram* dd, uint32_t op) noexcept nogil:
    """An operation code for the stage's die: a step's or a split's result by the
    die's runs depends on nothing else while the opponent's points stay put (all
    the chain), so it holds for every stage of that die, and a stage's later steps
    find the results of its earlier ones, which share most of their nodes."""
    return op | (<uint32_t>dd.die << 3)


cdef uint32_t dd_union(Diagram* dd, uint32_t a, uint32_t b) noexcept nogil:
    """The union of two sets of the same level."""
    cdef uint32_t t, r
    cdef uint32_t ca[DD_VALUES]
    cdef uint32_t cb[DD_VALUES]
    cdef uint32_t out[DD_VALUES]
    cdef int v, i
    if dd_halted(dd):
        return DD_EMPTY               # (unwind at once: nothing is cached after a failure)
    if a == DD_EMPTY:
        return b
    if b == DD_EMPTY or a == b:
        return a
    if a > b:
        t = a
        a = b
        b = t
    prefetch_read(&dd.nodes[a])       # (read while the cache is looked at)
    prefetch_read(&dd.nodes[b])
    if cache_get(dd, OP_UNION, a, b, &r):
        return r
    memcpy(ca, dd.nodes[a].child, sizeof(DDNode))
    memcpy(cb, dd.nodes[b].child, sizeof(DDNode))
    for i in range(DD_VALUES):
        v = i ^ dd.flip
        out[v] = dd_union(dd, ca[v], cb[v])
    r = dd_make(dd, dd.level[a], out)
    if not dd.failed:
        cache_put(dd, OP_UNION, a, b, r)
    return r


cdef uint32_t dd_step(Diagram* dd, uint32_t n, uint32_t state) noexcept nogil:
    """Every position of ``n`` (the points from its level down) with one checker
    moved one step of the stage's die (RULES §2.2), in every way: a source still
    to choose (STATE_SOURCE), a checker landing ``state - 1`` levels below the
    next (1..6), or done (STATE_DONE)."""
    cdef uint32_t r, x, op
    cdef uint32_t c[DD_VALUES]
    cdef uint32_t out[DD_VALUES]
    cdef int v, level, i
    cdef uint32_t p
    if dd_halted(dd):
        return DD_EMPTY
    if state == STATE_DONE or n == DD_EMPTY:
        return n
    if n == DD_ONE:
        return DD_EMPTY              # (no checker moved, or it would land below point 1)
    op = die_op(dd, OP_STEP)
    prefetch_read(&dd.nodes[n])       # (read while the cache is looked at)
    if cache_get(dd, op, n, state, &r):
        return r
    level = dd.level[n]
    p = point_of(level)
    memcpy(c, dd.nodes[n].child, sizeof(DDNode))
    memset(out, 0, sizeof(out))
    for i in range(DD_VALUES):
        v = i ^ dd.flip
        if c[v] == DD_EMPTY:
            continue
        if state == STATE_SOURCE:
            x = dd_step(dd, c[v], STATE_SOURCE)
            out[v] = dd_union(dd, out[v], x)
            if v >= 1 and dd.source_ok[p]:
                x = dd_step(dd, c[v], <uint32_t>dd.die)   # it lands d - 1 levels below the next
                out[v - 1] = dd_union(dd, out[v - 1], x)
        elif state == 1:             # it lands here
            if v + 1 < DD_VALUES:
                out[v + 1] = dd_union(dd, out[v + 1], c[v])
        else:
            x = dd_step(dd, c[v], state - 1)
            out[v] = dd_union(dd, out[v], x)
    r = dd_make(dd, level, out)
    if not dd.failed:
        cache_put(dd, op, n, state, r)
    return r


cdef uint32_t dd_split(Diagram* dd, uint32_t n, int acc, int lo, int hi, const uint8_t* weight,
                       uint32_t op) noexcept nogil:
    """The positions of ``n`` (its points) whose sum over the points of count times
    ``weight[point]``, plus ``acc`` from the points above, capped at 4, is in
    lo..hi; ``op`` names the weights in the cache. With the stage's runs, the
    positions that play that many dice of the stage; with the points outside the
    home board, those that may bear off (0..3) or not (4)."""
    cdef uint32_t r
    cdef uint32_t c[DD_VALUES]
    cdef uint32_t out[DD_VALUES]
    cdef int v, level, now, i
    cdef uint32_t p
    if n == DD_EMPTY or acc > hi or dd_halted(dd):
        return DD_EMPTY
    if acc == 4:
        return n                     # (hi is 4: the sum stays at its cap)
    if n == DD_ONE:
        return DD_ONE if lo <= acc else DD_EMPTY
    if cache_get(dd, op, n, <uint32_t>(acc * 25 + lo * 5 + hi), &r):
        return r
    level = dd.level[n]
    p = point_of(level)
    memcpy(c, dd.nodes[n].child, sizeof(DDNode))
    for i in range(DD_VALUES):
        v = i ^ dd.flip
        now = acc + v * weight[p]
        out[v] = dd_split(dd, c[v], now if now < 4 else 4, lo, hi, weight, op)
    r = dd_make(dd, level, out)
    if not dd.failed:
        cache_put(dd, op, n, <uint32_t>(acc * 25 + lo * 5 + hi), r)
    return r


cdef void dd_set_die(Diagram* dd, int die, uint32_t blocked) noexcept nogil:
    """The stage's die: each point's run and whether a step from it is open
    (``blocked``: bit p - 1 for the mover's point p held by the opponent)."""
    cdef int p, q, r
    dd.die = die
    for p in range(1, 25):
        q = p
        r = 0
        while r < 4 and q - die >= 1 and not (blocked >> (q - die - 1)) & 1:
            q -= die
            r += 1
        dd.run[p] = <uint8_t>r
        dd.source_ok[p] = q < p
    dd.run[0] = 0
    dd.source_ok[0] = 0


cdef uint32_t dd_steps(Diagram* dd, uint32_t n, int steps) noexcept nogil:
    cdef int i
    for i in range(steps):
        n = dd_step(dd, n, STATE_SOURCE)
    return n


cdef uint32_t dd_count_capped(Diagram* dd, uint32_t n, uint32_t cap) noexcept nogil:
    """The paths of ``n``, or cap + 1 if there are more than ``cap``. (It makes no
    node, so it cannot fail, and needs no ``dd.failed`` check: a failed operation
    returns DD_EMPTY, whose count is 0.)"""
    cdef uint32_t r, total = 0
    cdef int v
    if n <= DD_ONE:
        return n
    if cache_get(dd, OP_COUNT, n, cap, &r):
        return r
    for v in range(DD_VALUES):
        total += dd_count_capped(dd, dd.nodes[n].child[v], cap)
        if total > cap:
            total = cap + 1
            break
    cache_put(dd, OP_COUNT, n, cap, total)
    return total


cdef uint32_t dd_path(Diagram* dd, uint64_t lo, uint64_t hi) noexcept nogil:
    """The set of the one position (lo, hi)."""
    cdef uint32_t child[DD_VALUES]
    cdef uint32_t node = DD_ONE
    cdef int level, p, v
    for level in range(DD_LEVELS - 1, -1, -1):
        p = point_of(level)
        memset(child, 0, sizeof(child))
        child[key_count(lo, hi, p)] = node
        node = dd_make(dd, level, child)
    return node


cdef void dd_list(const Diagram* dd, uint32_t n, int level, uint64_t lo, uint64_t hi,
                  uint64_t* out, Py_ssize_t* count) noexcept nogil:
    """Append the positions of ``n`` (its level ``level``) to ``out`` as (lo, hi) pairs."""
    cdef int v
    cdef uint32_t p
    cdef uint64_t klo, khi
    if n == DD_ONE:
        out[2 * count[0]] = lo
        out[2 * count[0] + 1] = hi
        count[0] += 1
        return
    p = point_of(level)
    for v in range(DD_VALUES):
        if dd.nodes[n].child[v] != DD_EMPTY:
            klo = lo
            khi = hi
            key_add_count(&klo, &khi, p, v)
            dd_list(dd, dd.nodes[n].child[v], level + 1, klo, khi, out, count)


ctypedef struct KeyList:
    uint64_t* keys            # (lo, hi) pairs
    Py_ssize_t n
    Py_ssize_t room


cdef bint keylist_add(KeyList* l, uint64_t lo, uint64_t hi) noexcept nogil:
    cdef uint64_t* grown
    cdef Py_ssize_t room
    if l.n == l.room:
        room = max(1024, 2 * l.room)
        grown = <uint64_t*>realloc(l.keys, <size_t>room * 2 * sizeof(uint64_t))
        if grown == NULL:
            return False
        l.keys = grown
        l.room = room
    l.keys[2 * l.n] = lo
    l.keys[2 * l.n + 1] = hi
    l.n += 1
    return True


cdef uint32_t dd_build(Diagram* dd, uint64_t* keys, uint64_t* spare, Py_ssize_t n,
                       int level) noexcept nogil:
    """The set of the ``n`` positions of ``keys`` ((lo, hi) pairs, in any order, equal
    ones allowed; reordered, with ``spare`` as room), from ``level`` down."""
    cdef uint32_t child[DD_VALUES]
    cdef Py_ssize_t count[DD_VALUES + 1]
    cdef Py_ssize_t at[DD_VALUES]
    cdef Py_ssize_t i
    cdef int v
    cdef uint32_t p
    if n == 0:
        return DD_EMPTY
    if level == DD_LEVELS:
        return DD_ONE
    p = point_of(level)
    memset(count, 0, sizeof(count))
    for i in range(n):
        v = key_count(keys[2 * i], keys[2 * i + 1], p)
        count[v + 1] += 1
    for v in range(DD_VALUES):
        count[v + 1] += count[v]
        at[v] = count[v]
    for i in range(n):
        v = key_count(keys[2 * i], keys[2 * i + 1], p)
        spare[2 * at[v]] = keys[2 * i]
        spare[2 * at[v] + 1] = keys[2 * i + 1]
        at[v] += 1
    memcpy(keys, spare, <size_t>n * 2 * sizeof(uint64_t))
    for v in range(DD_VALUES):
        child[v] = dd_build(dd, keys + 2 * count[v], spare, count[v + 1] - count[v], level + 1)
    return dd_make(dd, level, child)


cdef int expand_keys(Diagram* dd, const uint64_t* keys, Py_ssize_t first, Py_ssize_t last,
                     const Pos* start, int seat, int number, int n_dice, StageEnd* ends,
                     KeyList* lists, int* game_over) noexcept nogil:
    """Expand the positions keys[first:last] ((lo, hi) pairs) with the stage rules
    (``stage_generate``: RULES §3) for ``n_dice`` dice of ``number``: the ends of
    the ones that play k dice appended to ``lists[k]`` (``lists[0]``: the positions
    that cannot move), ``game_over`` set when a play bears off the last checker.
    DD_DONE or DD_NO_MEMORY (or stopped: ``dd.failed``)."""
    cdef Py_ssize_t i
    cdef Pos q = start[0]
    cdef Key96 key
    cdef uint8_t dice[4]
    cdef int n_ends, playable, j, err = DD_DONE
    dice[0] = dice[1] = dice[2] = dice[3] = <uint8_t>number
    for i in range(first, last):
        key.lo = keys[2 * i]
        key.hi = <uint32_t>keys[2 * i + 1]
        pos_set_mover_key(&q, seat, key)
        stage_generate(&q, seat, dice, n_dice, ends, STAGE_CAPACITY, &n_ends, &playable)
        if playable == 0:            # nothing moves: RULES §5.2, a stall (§4.4) or dice lost
            if not keylist_add(&lists[0], key.lo, key.hi):
                err = DD_NO_MEMORY
            continue
        for j in range(n_ends):
            if ends[j].ends_game:
                game_over[0] = 1      # RULES §5.5, §5.6: one outcome, tagged by the caller
            elif not keylist_add(&lists[playable], ends[j].key.lo, ends[j].key.hi):
                err = DD_NO_MEMORY
        if dd.intr != NULL and interrupted(dd.intr, n_ends):
            dd.failed = DD_INTERRUPTED
        if err != DD_DONE or dd_halted(dd):
            break
    return err


cdef int build_lists(Diagram* dd, KeyList* lists, uint32_t* sets) noexcept nogil:
    """Add the positions of ``lists[k]`` to ``sets[k]`` (k = 0..4) and free the
    lists: DD_DONE or DD_NO_MEMORY (or failed: ``dd.failed``)."""
    cdef uint64_t* spare
    cdef int k, err = DD_DONE
    for k in range(5):
        if lists[k].n and err == DD_DONE and not dd.failed:
            spare = <uint64_t*>malloc(<size_t>lists[k].n * 2 * sizeof(uint64_t))
            if spare == NULL:
                err = DD_NO_MEMORY
            else:
                sets[k] = dd_union(dd, sets[k], dd_build(dd, lists[k].keys, spare,
                                                         lists[k].n, 0))
                free(spare)
        free(lists[k].keys)
        lists[k].keys = NULL
        lists[k].n = lists[k].room = 0
    return err


cdef int list_risky(Diagram* dd, uint32_t risky, uint64_t** keys,
                    Py_ssize_t* count) noexcept nogil:
    """The positions of ``risky`` as (lo, hi) pairs (freed by the caller): DD_DONE,
    DD_NOT_APPLICABLE (more than DD_MAX_RISKY) or DD_NO_MEMORY."""
    cdef uint32_t n_risky = dd_count_capped(dd, risky, DD_MAX_RISKY)
    count[0] = 0
    keys[0] = NULL
    if n_risky > DD_MAX_RISKY:
        return DD_NOT_APPLICABLE
    keys[0] = <uint64_t*>malloc(<size_t>n_risky * 2 * sizeof(uint64_t) + 16)
    if keys[0] == NULL:
        return DD_NO_MEMORY
    dd_list(dd, risky, 0, 0, 0, keys[0], count)
    return DD_DONE


cdef int dd_expand_one_by_one(Diagram* dd, int stage, uint32_t risky, const Pos* start,
                              int seat, int number, int n_dice, StageEnd* ends,
                              uint32_t* extra, int* game_over) noexcept nogil:
    """Expand the positions of ``risky`` (they may bear off) one by one with the stage
    rules (expand_keys) for ``n_dice`` dice of ``number``, into ``extra[k]``, the
    ends of the ones that play k dice (``extra[n_dice]``: in full), and
    ``game_over`` (1 when a play bears off the last checker). With a team, the
    threads share the positions (expand_shared). DD_DONE, DD_NOT_APPLICABLE (too
    many) or DD_NO_MEMORY."""
    cdef uint64_t* keys
    cdef Py_ssize_t count
    cdef KeyList lists[5]
    cdef int err
    if dd.team != NULL and stage < DD_TEAM_STAGES:
        return expand_shared(dd, &dd.team.jobs[stage], risky, start, seat, number, n_dice,
                             ends, extra, game_over)
    err = list_risky(dd, risky, &keys, &count)
    if err != DD_DONE:
        return err
    memset(lists, 0, sizeof(lists))
    err = expand_keys(dd, keys, 0, count, start, seat, number, n_dice, ends, lists, game_over)
    free(keys)
    if err == DD_DONE:
        return build_lists(dd, lists, extra)
    free_lists(lists)
    return err


cdef void free_lists(KeyList* lists) noexcept nogil:
    cdef int k
    for k in range(5):
        free(lists[k].keys)
        lists[k].keys = NULL
        lists[k].n = lists[k].room = 0


cdef bint team_wait(Diagram* dd, const int* state, int until) noexcept nogil:
    """Wait until ``state`` is not ``until`` (a job's): True, or False if this
    thread must stop (the helper told to, or the calling thread failed). The
    calling thread grows the tables meanwhile when the helper ran out of room;
    the helper waits out pauses."""
    cdef int err
    while load_acquire(state) == until:
        if dd.flip:
            if load_acquire(&dd.team.signal) != TEAM_RUN and helper_hold(dd):
                return False
        else:
            if dd.failed:
                return False
            if load_id(&dd.team.n) > dd.cap:
                err = team_grow(dd)
                if err != DD_DONE:
                    dd.failed = err
                    return False
        nap()
    return True


cdef int expand_shared(Diagram* dd, ExpandJob* job, uint32_t risky, const Pos* start,
                       int seat, int number, int n_dice, StageEnd* ends, uint32_t* extra,
                       int* game_over) noexcept nogil:
    """dd_expand_one_by_one shared by the team: the first thread to come lists the
    positions, each thread there expands chunks of them (taken from a counter) and
    builds its ends; the last to finish joins both threads' sets into the result
    (``job.result``), which the other waits for."""
    cdef KeyList lists[5]
    cdef uint32_t mine[5]
    cdef int k, err = DD_DONE, over = 0, chunk
    cdef bint creator = False, last
    cdef Py_ssize_t n_chunks, first
    team_lock(dd.team)
    if job.state == JOB_FREE:
        job.state = JOB_LISTING
        creator = True
    team_unlock(dd.team)
    if creator:
        err = list_risky(dd, risky, &job.keys, &job.count)
        team_lock(dd.team)
        job.err = err
        job.state = JOB_OPEN if err == DD_DONE else JOB_DONE
        team_unlock(dd.team)
    elif not team_wait(dd, &job.state, JOB_LISTING):
        return dd.failed
    team_lock(dd.team)
    if job.state != JOB_OPEN:       # (done, or being joined up by the other thread)
        team_unlock(dd.team)
        return take_result(dd, job, extra, game_over)
    job.joined += 1
    team_unlock(dd.team)
    memset(lists, 0, sizeof(lists))
    memset(mine, 0, sizeof(mine))
    n_chunks = (job.count + DD_EXPAND_CHUNK - 1) // DD_EXPAND_CHUNK
    while err == DD_DONE and not dd.failed:
        chunk = atomic_next(&job.next)
        if chunk >= n_chunks:
            break
        first = <Py_ssize_t>chunk * DD_EXPAND_CHUNK
        err = expand_keys(dd, job.keys, first, min(job.count, first + DD_EXPAND_CHUNK), start,
                          seat, number, n_dice, ends, lists, &over)
    if err == DD_DONE and not dd.failed:
        err = build_lists(dd, lists, mine)
    else:
        free_lists(lists)
    if err == DD_DONE and dd.failed:
        err = dd.failed
    team_lock(dd.team)
    job.finished += 1
    job.game_over |= over
    if err != DD_DONE and job.err == DD_DONE:
        job.err = err
    last = job.finished == job.joined
    if last:
        job.state = JOB_JOINING
    else:
        for k in range(5):
            job.part[k] = mine[k]
    team_unlock(dd.team)
    if last:
        if job.err == DD_DONE and not dd.failed:
            for k in range(5):
                job.result[k] = dd_union(dd, mine[k], job.part[k])
            if dd.failed:
                job.err = dd.failed
        free(job.keys)
        job.keys = NULL
        store_release(&job.state, JOB_DONE)
    elif not team_wait(dd, &job.state, JOB_OPEN) or not team_wait(dd, &job.state, JOB_JOINING):
        return dd.failed
    return take_result(dd, job, extra, game_over)


cdef int take_result(Diagram* dd, ExpandJob* job, uint32_t* extra,
                     int* game_over) noexcept nogil:
    """A done job's result added to ``extra``: DD_DONE or the job's failure."""
    cdef int k
    if not team_wait(dd, &job.state, JOB_JOINING):
        return dd.failed
    if job.err != DD_DONE:
        return job.err
    if job.game_over:
        game_over[0] = 1
    for k in range(5):
        extra[k] = dd_union(dd, extra[k], job.result[k])
    return DD_DONE


cdef int dd_stages(Diagram* dd, uint32_t frontier, const Pos* start, int seat, uint32_t blocked,
                   const uint8_t* numbers, const uint8_t* counts, int n_stages, bint is_chain,
                   DDRoot* roots, int* n_roots, int* game_over_stage) noexcept nogil:
    """dd_chain's stages from the start's set ``frontier``: DD_DONE or why not."""
    cdef uint32_t part, full, risky, lost
    cdef uint32_t extra[5]
    cdef int stage, k, c, err, game_over
    cdef StageEnd* ends = NULL
    for stage in range(n_stages):
        if frontier == DD_EMPTY or dd.failed:
            break
        dd_set_die(dd, numbers[stage], blocked)
        for k in range(5):
            extra[k] = DD_EMPTY
        risky = dd_split(dd, frontier, 0, 0, 3, OUTSIDE_HOME, OP_SPLIT_OUTSIDE)
        if risky != DD_EMPTY:
            if ends == NULL:
                ends = <StageEnd*>malloc(STAGE_CAPACITY * sizeof(StageEnd))
                if ends == NULL:
                    return DD_NO_MEMORY
            frontier = dd_split(dd, frontier, 0, 4, 4, OUTSIDE_HOME, OP_SPLIT_OUTSIDE)
            game_over = 0
            err = dd_expand_one_by_one(dd, stage, risky, start, seat, numbers[stage],
                                       counts[stage], ends, extra, &game_over)
            if err != DD_DONE:
                free(ends)
                return err
            if game_over and game_over_stage[0] < 0:
                game_over_stage[0] = stage
        c = counts[stage]
        lost = DD_EMPTY
        for k in range(c):           # the positions that play k < c dice of the stage:
            part = dd_split(dd, frontier, 0, k, k, dd.run, die_op(dd, OP_SPLIT))
            if part != DD_EMPTY:
                part = dd_steps(dd, part, k)
            part = dd_union(dd, part, extra[k])
            if part == DD_EMPTY:
                continue
            if is_chain:             # the chain stops (RULES §4.4)
                roots[n_roots[0]] = DDRoot(root=part, stage=stage, played=k)
                n_roots[0] += 1
            else:                    # the dice left are lost, play goes on (RULES §5.3)
                lost = dd_union(dd, lost, part)
        full = dd_split(dd, frontier, 0, c, 4, dd.run, die_op(dd, OP_SPLIT))
        frontier = dd_union(dd, dd_union(dd, dd_steps(dd, full, c), extra[c]), lost)
        if stage == n_stages - 1 and frontier != DD_EMPTY:
            roots[n_roots[0]] = DDRoot(root=frontier, stage=stage, played=c)
            n_roots[0] += 1
    free(ends)
    return dd.failed


# The helper's share of a chain (dd_chain with threads > 1): the same stages on
# its view of the shared tables, its results dropped.
ctypedef struct HelperJob:
    Thread thread
    Diagram view
    uint32_t frontier
    const Pos* start
    int seat
    uint32_t blocked
    const uint8_t* numbers
    const uint8_t* counts
    int n_stages
    bint is_chain


cdef void helper_main(void* arg, int t) noexcept nogil:
    cdef HelperJob* job = <HelperJob*>arg
    cdef DDRoot roots[DD_MAX_ROOTS]
    cdef int n_roots = 0, over = -1
    if not dd_halted(&job.view):
        dd_stages(&job.view, job.frontier, job.start, job.seat, job.blocked, job.numbers,
                  job.counts, job.n_stages, job.is_chain, roots, &n_roots, &over)
    store_release(&job.view.team.finished, 1)


cdef HelperJob* team_start(Diagram* dd, uint32_t frontier, const Pos* start, int seat,
                           uint32_t blocked, const uint8_t* numbers, const uint8_t* counts,
                           int n_stages, bint is_chain) noexcept nogil:
    """A helper thread started on dd_chain's stages from ``frontier``, sharing ``dd``'s
    tables (DDTeam): its job, for team_stop; NULL if it could not be started (the
    calling thread goes on alone)."""
    cdef HelperJob* job = <HelperJob*>malloc(sizeof(HelperJob))
    # (the team's counts on cache lines of their own, away from either thread's stack)
    cdef DDTeam* team = <DDTeam*>aligned_alloc(64, (sizeof(DDTeam) + 63) // 64 * 64)
    if job == NULL or team == NULL:
        free(job)
        free(team)
        return NULL
    memset(team, 0, sizeof(DDTeam))
    team.home = dd
    team.n = (dd.n + DD_BLOCK - 1) // DD_BLOCK * DD_BLOCK     # (blocks on cache lines)
    memset(&dd.level[dd.n], DD_DEAD, team.n - dd.n)
    job.view = dd[0]
    job.view.team = team
    job.view.flip = DD_VALUES - 1
    job.view.intr = NULL
    job.view.meter = NULL
    job.view.held = NULL
    job.view.counted = 0
    job.view.nbytes = 0
    job.frontier = frontier
    job.start = start
    job.seat = seat
    job.blocked = blocked
    job.numbers = numbers
    job.counts = counts
    job.n_stages = n_stages
    job.is_chain = is_chain
    dd.team = team
    if not start_thread(&job.thread, helper_main, job, 1):
        dd.team = NULL
        free(job)
        free(team)
        return NULL
    dd.built_by_team = True
    return job


cdef void team_stop(Diagram* dd, HelperJob* job) noexcept nogil:
    """Stop and join the helper of team_start, and free the team (``dd`` keeps the
    nodes both made)."""
    cdef DDTeam* team = dd.team
    cdef int stage
    store_release(&team.signal, TEAM_STOP)
    join_thread(&job.thread)
    free(job)
    dd.team = NULL
    dd.n = min(team.n, dd.cap)
    for stage in range(DD_TEAM_STAGES):
        free(team.jobs[stage].keys)       # (freed by the last thread of each job)
    free(team)


cdef int dd_chain(Diagram* dd, Meter* meter, Py_ssize_t* held, Py_ssize_t max_held,
                  Interrupt* intr, const Pos* start, int seat, uint64_t start_lo,
                  uint64_t start_hi, uint32_t blocked, const uint8_t* numbers,
                  const uint8_t* counts, int n_stages, bint is_chain, int threads,
                  DDRoot* roots, int* n_roots, int* game_over_stage) noexcept nogil:
    """The outcomes of an escalating chain (``is_chain``: stages of four dice, RULES
    §4.3-4.4) or a remainder (stages of 1 to 4 dice whose dice that cannot be
    played are lost, RULES §5.3) from ``start`` (``seat`` to move; its packed key
    start_lo, start_hi) as root diagrams (``roots``, ``n_roots``; a remainder's:
    its last stage's), and the first stage in which a play bears off the last
    checker (``game_over_stage``, -1: none). Positions that may bear
    off are expanded one by one with the stage rules. With ``threads`` > 1 a
    helper thread builds the same diagram beside the calling thread (DDTeam).
    DD_DONE, DD_NOT_APPLICABLE
    (too many positions that may bear off, or the diagram outgrew its bound,
    ``meter``'s budget or ``max_held``, its nodes of room counted in ``held``:
    enumerate stage by stage), DD_NO_MEMORY or DD_INTERRUPTED (``intr``); ``dd`` is
    to be freed by ``dd_free`` in every case."""
    cdef uint32_t frontier
    cdef int stage, err
    cdef HelperJob* job = NULL
    n_roots[0] = 0
    game_over_stage[0] = -1
    err = dd_init(dd, meter, held, max_held)
    if err != DD_DONE:
        return err
    dd.intr = intr
    for stage in range(n_stages):
        if is_chain and counts[stage] != 4:
            return DD_NOT_APPLICABLE
    frontier = dd_path(dd, start_lo, start_hi)
    if dd_split(dd, frontier, 0, 0, 3, OUTSIDE_HOME, OP_SPLIT_OUTSIDE) != DD_EMPTY:
        return DD_NOT_APPLICABLE     # (near home from the start: stage by stage is faster)
    if threads > 1 and not dd.failed:
        job = team_start(dd, frontier, start, seat, blocked, numbers, counts, n_stages,
                         is_chain)
    err = dd_stages(dd, frontier, start, seat, blocked, numbers, counts, n_stages, is_chain,
                    roots, n_roots, game_over_stage)
    if job != NULL:
        team_stop(dd, job)
    if err != DD_DONE:
        return err
    return dd.failed
