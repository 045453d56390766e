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
the paths of a few root diagrams (one per stage and dice played), written by
``dd_write_range`` in any range of their ranks, so threads can share them.

A remainder (RULES §5.3: stages of 1 to 4 dice, dice that cannot be played are
lost) is the same with ``c`` dice a stage: the positions that play ``k < c``
dice go on to the next stage instead of stopping, and its outcomes are the
last stage's set.

A chain or remainder that starts near home, one with more than
``DD_MAX_RISKY`` positions that may bear off in a stage, or a diagram that
grows past ``DD_MAX_NODES`` nodes, ``max_ends`` or the memory budget is not
applicable (``DD_NOT_APPLICABLE``): the caller enumerates it stage by stage.
"""

from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport malloc, calloc, realloc, free
from libc.string cimport memcpy, memset

from gulbara._keys cimport mix64, key_hash, key_count, key_add_count
from gulbara._tables cimport (Meter, Shared, KeySet, atomic_meter_take, meter_take, meter_sub,
                              atomic_add, atomic_next, run_threads, shared_fail, table_bytes,
                              CHAIN_OK, CHAIN_NO_MEMORY, CHAIN_TOO_MANY, CHAIN_INTERRUPTED, big_block,
                              N_PARTS, PART_SHIFT, sort_dense)
from gulbara._interrupt cimport Interrupt, interrupted
from gulbara._types cimport Pos, Key96, StageEnd, STAGE_CAPACITY
from gulbara._movegen cimport stage_generate
from gulbara._keys cimport pos_set_mover_key, pos_mover_key
from gulbara._outcome_tags cimport (STOP_COMPLETE, STOP_STALLED, STOP_UNSTARTED, STOP_GAME_OVER,
                                    make_tag, retag_game_over, game_over_k1)

cdef enum:
    DD_LEVELS = 24
    DD_EMPTY = 0
    DD_ONE = 1                # the terminal
    DD_FIRST_NODES = 1 << 10
    DD_MAX_NODES = 1 << 20    # 1M nodes: about 100 MB with the tables; past it, stage by stage
    DD_CACHE_PER_NODE = 1     # cached results per node of room (16 bytes each)
    DD_MAX_CACHE_SLOTS = 1 << 20
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


cdef inline uint32_t point_of(int level) noexcept nogil:
    return 24 - level


cdef size_t node_bytes(uint32_t cap) noexcept nogil:
    """The bytes of room for ``cap`` nodes: the nodes, their levels, the unique table."""
    return <size_t>cap * (sizeof(DDNode) + sizeof(uint8_t)) + <size_t>2 * cap * sizeof(uint32_t)


cdef size_t walk_bytes(uint32_t n) noexcept nogil:
    """The bytes dd_count_paths adds for ``n`` nodes: paths, child masks and jumps."""
    return <size_t>n * (sizeof(uint64_t) + sizeof(uint16_t) + sizeof(DDJump))


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
    dd.nodes = <DDNode*>malloc(dd.cap * sizeof(DDNode))
    dd.level = <uint8_t*>malloc(dd.cap * sizeof(uint8_t))
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
    dd.generation = 1
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
    nodes = <DDNode*>realloc(dd.nodes, cap * sizeof(DDNode))
    if nodes == NULL:
        return DD_NO_MEMORY
    dd.nodes = nodes
    level = <uint8_t*>realloc(dd.level, cap * sizeof(uint8_t))
    if level == NULL:
        return DD_NO_MEMORY
    dd.level = level
    unique = <uint32_t*>calloc(2 * cap, sizeof(uint32_t))
    if unique == NULL:
        return DD_NO_MEMORY
    for i in range(2, dd.n):
        j = <uint32_t>(node_hash(dd.level[i], dd.nodes[i].child) & mask)
        while unique[j] != 0:
            j = (j + 1) & mask
        unique[j] = i
    free(dd.unique)
    dd.unique = unique
    dd.unique_mask = mask
    dd.cap = cap
    return DD_DONE


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
    if empty or dd.failed:
        return DD_EMPTY
    if dd.intr != NULL and interrupted(dd.intr, 1):     # (every call: most find their node)
        dd.failed = DD_INTERRUPTED
        return DD_EMPTY
    j = <uint32_t>(node_hash(level, child) & dd.unique_mask)
    while True:
        id = dd.unique[j]
        if id == 0:
            break
        if dd.level[id] == level and memcmp_children(dd.nodes[id].child, child):
            return id
        j = (j + 1) & dd.unique_mask
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


cdef inline bint memcmp_children(const uint32_t* a, const uint32_t* b) noexcept nogil:
    cdef int v
    for v in range(DD_VALUES):
        if a[v] != b[v]:
            return False
    return True


cdef inline DDCacheEntry* cache_slot(Diagram* dd, uint32_t op, uint32_t a,
                                     uint32_t b) noexcept nogil:
    cdef uint64_t key = (<uint64_t>a << 32) | b
    return &dd.cache[mix64(key ^ (<uint64_t>op * <uint64_t>0xD6E8FEB86659FD93ULL))
                     & dd.cache_mask]


cdef inline bint cache_get(Diagram* dd, uint32_t op, uint32_t a, uint32_t b,
                           uint32_t* result) noexcept nogil:
    cdef DDCacheEntry* e = cache_slot(dd, op, a, b)
    if e.op == op and e.key == ((<uint64_t>a << 32) | b):
        result[0] = e.result
        return True
    return False


cdef inline void cache_put(Diagram* dd, uint32_t op, uint32_t a, uint32_t b,
                           uint32_t result) noexcept nogil:
    cdef DDCacheEntry* e = cache_slot(dd, op, a, b)
    e.op = op
    e.key = (<uint64_t>a << 32) | b
    e.result = result


cdef inline uint32_t stage_op(const Diagram* dd, uint32_t op) noexcept nogil:
    """An operation code that holds for the current stage only (its die's runs)."""
    return op | (dd.generation << 3)


cdef uint32_t dd_union(Diagram* dd, uint32_t a, uint32_t b) noexcept nogil:
    """The union of two sets of the same level."""
    cdef uint32_t t, r
    cdef uint32_t ca[DD_VALUES]
    cdef uint32_t cb[DD_VALUES]
    cdef uint32_t out[DD_VALUES]
    cdef int v
    if dd.failed:
        return DD_EMPTY               # (unwind at once: nothing is cached after a failure)
    if a == DD_EMPTY:
        return b
    if b == DD_EMPTY or a == b:
        return a
    if a > b:
        t = a
        a = b
        b = t
    if cache_get(dd, OP_UNION, a, b, &r):
        return r
    memcpy(ca, dd.nodes[a].child, sizeof(DDNode))
    memcpy(cb, dd.nodes[b].child, sizeof(DDNode))
    for v in range(DD_VALUES):
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
    cdef int v, level
    cdef uint32_t p
    if dd.failed:
        return DD_EMPTY
    if state == STATE_DONE or n == DD_EMPTY:
        return n
    if n == DD_ONE:
        return DD_EMPTY              # (no checker moved, or it would land below point 1)
    op = stage_op(dd, OP_STEP)
    if cache_get(dd, op, n, state, &r):
        return r
    level = dd.level[n]
    p = point_of(level)
    memcpy(c, dd.nodes[n].child, sizeof(DDNode))
    memset(out, 0, sizeof(out))
    for v in range(DD_VALUES):
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
    cdef int v, level, now
    cdef uint32_t p
    if n == DD_EMPTY or acc > hi or dd.failed:
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
    for v in range(DD_VALUES):
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
    dd.generation += 1
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
        dd.generation += 1            # (the results of the step before are no longer wanted)
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


cdef int dd_expand_one_by_one(Diagram* dd, uint32_t risky, const Pos* start, int seat,
                              int number, int n_dice, StageEnd* ends, uint32_t* extra,
                              int* game_over) noexcept nogil:
    """Expand the positions of ``risky`` (they may bear off) one by one with the stage
    rules (``stage_generate``: RULES §3) for ``n_dice`` dice of ``number``, into
    ``extra[k]``, the ends of the ones that play k dice (``extra[n_dice]``: in full),
    and ``game_over`` (1 when a play bears off the last checker). DD_DONE,
    DD_NOT_APPLICABLE (too many) or DD_NO_MEMORY."""
    cdef uint32_t n_risky = dd_count_capped(dd, risky, DD_MAX_RISKY)
    cdef uint64_t* keys
    cdef uint64_t* spare
    cdef Py_ssize_t count = 0, i
    cdef KeyList lists[5]
    cdef Pos q
    cdef Key96 key
    cdef uint8_t dice[4]
    cdef int n_ends, playable, j, k, err = DD_DONE
    if n_risky > DD_MAX_RISKY:
        return DD_NOT_APPLICABLE
    keys = <uint64_t*>malloc(<size_t>n_risky * 2 * sizeof(uint64_t) + 16)
    if keys == NULL:
        return DD_NO_MEMORY
    memset(lists, 0, sizeof(lists))
    dd_list(dd, risky, 0, 0, 0, keys, &count)
    dice[0] = dice[1] = dice[2] = dice[3] = <uint8_t>number
    q = start[0]
    for i in range(count):
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
            break
    free(keys)
    for k in range(5):
        if lists[k].n and err == DD_DONE and not dd.failed:
            spare = <uint64_t*>malloc(<size_t>lists[k].n * 2 * sizeof(uint64_t))
            if spare == NULL:
                err = DD_NO_MEMORY
            else:
                extra[k] = dd_union(dd, extra[k], dd_build(dd, lists[k].keys, spare,
                                                           lists[k].n, 0))
                free(spare)
        free(lists[k].keys)
    return err


cdef int dd_chain(Diagram* dd, Meter* meter, Py_ssize_t* held, Py_ssize_t max_held,
                  Interrupt* intr, const Pos* start, int seat, uint64_t start_lo,
                  uint64_t start_hi, uint32_t blocked, const uint8_t* numbers,
                  const uint8_t* counts, int n_stages, bint is_chain, DDRoot* roots,
                  int* n_roots, int* game_over_stage) noexcept nogil:
    """The outcomes of an escalating chain (``is_chain``: stages of four dice, RULES
    §4.3-4.4) or a remainder (stages of 1 to 4 dice whose dice that cannot be
    played are lost, RULES §5.3) from ``start`` (``seat`` to move; its packed key
    start_lo, start_hi) as root diagrams (``roots``, ``n_roots``; a remainder's:
    its last stage's), and the first stage in which a play bears off the last
    checker (``game_over_stage``, -1: none). Positions that may bear
    off are expanded one by one with the stage rules. DD_DONE, DD_NOT_APPLICABLE
    (too many positions that may bear off, or the diagram outgrew its bound,
    ``meter``'s budget or ``max_held``, its nodes of room counted in ``held``:
    enumerate stage by stage), DD_NO_MEMORY or DD_INTERRUPTED (``intr``); ``dd`` is
    to be freed by ``dd_free`` in every case."""
    cdef uint32_t frontier, part, full, risky, lost
    cdef uint32_t extra[5]
    cdef int stage, k, c, err, game_over
    cdef StageEnd* ends = NULL
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
            err = dd_expand_one_by_one(dd, risky, start, seat, numbers[stage], counts[stage],
                                       ends, extra, &game_over)
            if err != DD_DONE:
                free(ends)
                return err
            if game_over and game_over_stage[0] < 0:
                game_over_stage[0] = stage
        c = counts[stage]
        lost = DD_EMPTY
        for k in range(c):           # the positions that play k < c dice of the stage:
            part = dd_split(dd, frontier, 0, k, k, dd.run, stage_op(dd, OP_SPLIT))
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
        full = dd_split(dd, frontier, 0, c, 4, dd.run, stage_op(dd, OP_SPLIT))
        frontier = dd_union(dd, dd_union(dd, dd_steps(dd, full, c), extra[c]), lost)
        if stage == n_stages - 1 and frontier != DD_EMPTY:
            roots[n_roots[0]] = DDRoot(root=frontier, stage=stage, played=c)
            n_roots[0] += 1
    free(ends)
    if dd.failed:
        return dd.failed
    return dd_count_paths(dd)


cdef extern from *:
    """
    static inline int gulbara_lowest_bit(unsigned int x) { return __builtin_ctz(x); }
    """
    int lowest_bit "gulbara_lowest_bit"(unsigned int x) noexcept nogil


cdef int dd_count_paths(Diagram* dd) noexcept nogil:
    """Every node's number of paths and its non-empty children (children come
    before their parents), their bytes counted in the meter: DD_DONE, or
    DD_NOT_APPLICABLE past the budget, or DD_NO_MEMORY."""
    cdef uint32_t i
    cdef int v
    cdef uint64_t total
    cdef uint16_t bits
    cdef uint32_t p, c
    if dd.meter != NULL and atomic_meter_take(&dd.meter.held, &dd.meter.peak, dd.meter.budget,
                                              walk_bytes(dd.n)) != 0:
        return DD_NOT_APPLICABLE
    dd.nbytes += walk_bytes(dd.n)
    dd.paths = <uint64_t*>malloc(dd.n * sizeof(uint64_t))
    dd.children = <uint16_t*>malloc(dd.n * sizeof(uint16_t))
    dd.jump = <DDJump*>malloc(dd.n * sizeof(DDJump))
    if dd.paths == NULL or dd.children == NULL or dd.jump == NULL:
        return DD_NO_MEMORY
    dd.paths[0] = 0
    dd.paths[1] = 1
    dd.children[0] = dd.children[1] = 0
    dd.jump[1] = DDJump(lo=0, hi=0, node=DD_ONE, level=DD_LEVELS)
    for i in range(2, dd.n):
        total = 0
        bits = 0
        for v in range(DD_VALUES):
            total += dd.paths[dd.nodes[i].child[v]]
            if dd.nodes[i].child[v] != DD_EMPTY:
                bits |= <uint16_t>(1 << v)
        dd.paths[i] = total
        dd.children[i] = bits
        if bits & (bits - 1):
            dd.jump[i] = DDJump(lo=0, hi=0, node=i, level=dd.level[i])
        else:                        # one child: the run goes on below it
            v = lowest_bit(bits)
            c = dd.nodes[i].child[v]
            p = point_of(dd.level[i])
            dd.jump[i] = dd.jump[c]
            key_add_count(&dd.jump[i].lo, &dd.jump[i].hi, p, v)
    return DD_DONE




cdef Py_ssize_t dd_write_range(const Diagram* dd, uint32_t root, uint64_t skip, uint64_t take,
                              uint64_t tag_k1, uint64_t* out) noexcept nogil:
    """Write the packed positions of the paths of ``root`` of ranks ``skip <= rank
    < skip + take`` (paths ranked by their counts, point 24 first), as (k0, k1)
    pairs with ``tag_k1`` or'ed into k1, to ``out``; how many were written. Runs
    of one-child nodes are passed in one jump (DDJump)."""
    cdef uint32_t node[DD_LEVELS + 1]
    cdef uint32_t left[DD_LEVELS + 1]      # the children still to visit, a bit each
    cdef uint64_t lo[DD_LEVELS + 1]
    cdef uint64_t hi[DD_LEVELS + 1]
    cdef Py_ssize_t done = 0
    cdef uint64_t below, klo, khi
    cdef int depth = 0, v
    cdef uint32_t p, c, bits
    cdef const DDJump* j
    if root == DD_EMPTY or take == 0:
        return 0
    j = &dd.jump[root]
    if j.node == DD_ONE:
        if skip == 0:
            out[0] = j.lo
            out[1] = j.hi | tag_k1
            return 1
        return 0
    node[0] = j.node
    left[0] = dd.children[j.node]
    lo[0] = j.lo
    hi[0] = j.hi | tag_k1
    while depth >= 0:
        bits = left[depth]
        if bits == 0:
            depth -= 1
            continue
        v = lowest_bit(bits)
        left[depth] = bits & (bits - 1)
        c = dd.nodes[node[depth]].child[v]
        if skip:
            below = dd.paths[c]
            if skip >= below:
                skip -= below
                continue
        p = point_of(dd.level[node[depth]])
        j = &dd.jump[c]
        klo = lo[depth] | j.lo
        khi = hi[depth] | j.hi
        key_add_count(&klo, &khi, p, v)
        if j.node == DD_ONE:
            out[2 * done] = klo
            out[2 * done + 1] = khi
            done += 1
            if <uint64_t>done == take:
                break
            continue
        depth += 1
        node[depth] = j.node
        left[depth] = dd.children[j.node]
        lo[depth] = klo
        hi[depth] = khi
    return done


cdef enum:
    DD_CHUNK = 1 << 15        # outcomes written at a time


# The outcomes of a chain's diagram, written by threads: each takes the next
# DD_CHUNK ranks of the roots' paths (in order) and writes them at their ranks.
ctypedef struct DiagramTask:
    const Diagram* dd
    const DDRoot* roots
    const uint64_t* tags
    const uint64_t* first     # the ranks before each root's paths (first[n_roots]: all)
    int n_roots
    int next                  # the next chunk (atomic)
    uint64_t* out             # room for every outcome, at its rank
    Shared* sh


cdef Py_ssize_t diagram_write(const DiagramTask* task, uint64_t start, uint64_t end,
                              uint64_t* out) noexcept nogil:
    """Write the outcomes of ranks start <= rank < end to ``out``; how many."""
    cdef int r
    cdef uint64_t lo, hi
    cdef Py_ssize_t n = 0
    for r in range(task.n_roots):
        lo = max(start, task.first[r])
        hi = min(end, task.first[r + 1])
        if lo < hi:
            n += dd_write_range(task.dd, task.roots[r].root, lo - task.first[r], hi - lo,
                                task.tags[r] << 32, out + 2 * n)
    return n


cdef void diagram_run(void* arg, int t) noexcept nogil:
    """One thread's share of writing a diagram's outcomes at their ranks (DiagramTask)."""
    cdef DiagramTask* task = <DiagramTask*>arg
    cdef uint64_t start, total = task.first[task.n_roots]
    cdef int chunk
    while task.sh.err == CHAIN_OK:
        chunk = atomic_next(&task.next)
        start = <uint64_t>chunk * DD_CHUNK
        if start >= total:
            break
        diagram_write(task, start, min(total, start + DD_CHUNK), task.out + 2 * start)
        if t == 0 and interrupted(&task.sh.intr, DD_CHUNK):
            shared_fail(task.sh, CHAIN_INTERRUPTED)


cdef Py_ssize_t diagram_kept(DiagramTask* task, int keep_lo, int keep_hi,
                             uint64_t* out) noexcept nogil:
    """Write the outcomes of this pass's parts (keep_lo <= part < keep_hi) to
    ``out`` (NULL: only count them), a chunk at a time; how many."""
    cdef uint64_t start, total = task.first[task.n_roots]
    cdef uint64_t* chunk = <uint64_t*>malloc(DD_CHUNK * 2 * sizeof(uint64_t))
    cdef Py_ssize_t n, i, kept = 0
    cdef int part
    if chunk == NULL:
        shared_fail(task.sh, CHAIN_NO_MEMORY)
        return 0
    start = 0
    while start < total and task.sh.err == CHAIN_OK:
        n = diagram_write(task, start, min(total, start + DD_CHUNK), chunk)
        for i in range(n):
            part = <int>(key_hash(chunk[2 * i], chunk[2 * i + 1]) >> PART_SHIFT)
            if keep_lo <= part < keep_hi:
                if out != NULL:
                    out[2 * kept] = chunk[2 * i]
                    out[2 * kept + 1] = chunk[2 * i + 1]
                kept += 1
        start += DD_CHUNK
        if interrupted(&task.sh.intr, DD_CHUNK):
            shared_fail(task.sh, CHAIN_INTERRUPTED)
    free(chunk)
    return kept


cdef int dd_write_outcomes(const Diagram* dd, const DDRoot* roots, const uint64_t* tags,
                           int n_roots, bint extra, uint64_t extra_k1, int threads,
                           int keep_lo, int keep_hi, Shared* sh, KeySet* result) noexcept nogil:
    """Write the paths of the roots (root ``r``'s with ``tags[r]``) and, with ``extra``,
    the empty board with ``extra_k1``, the ones of parts keep_lo <= part < keep_hi,
    into ``result.dense`` (unsorted), counted as held (``sh``) and in the meter.
    CHAIN_OK; -1 when they do not fit beside the diagram but would without it (the
    caller goes stage by stage); else a failure, also in ``sh.err`` (CHAIN_TOO_MANY
    past max_held or the budget)."""
    cdef DiagramTask task
    cdef uint64_t first[DD_MAX_ROOTS + 1]
    cdef Py_ssize_t kept
    cdef int r
    cdef bint every_part = keep_lo <= 0 and keep_hi >= N_PARTS
    cdef bint extra_kept = extra and keep_lo <= <int>(key_hash(0, extra_k1) >> PART_SHIFT) < keep_hi
    first[0] = 0
    for r in range(n_roots):
        first[r + 1] = first[r] + dd.paths[roots[r].root]
    task.dd = dd
    task.roots = roots
    task.tags = tags
    task.first = &first[0]
    task.n_roots = n_roots
    task.next = 0
    task.out = NULL
    task.sh = sh
    kept = <Py_ssize_t>first[n_roots] if every_part else diagram_kept(&task, keep_lo, keep_hi,
                                                                       NULL)
    kept += extra_kept
    if sh.err != CHAIN_OK:
        return sh.err
    if atomic_add(&sh.held, kept) > sh.max_held:
        atomic_add(&sh.held, -kept)
        if sh.held - dd.counted + kept <= sh.max_held:
            return -1                 # (the diagram's nodes are held too)
        shared_fail(sh, CHAIN_TOO_MANY)
        return CHAIN_TOO_MANY
    if meter_take(&sh.meter, table_bytes(kept + 1)) != CHAIN_OK:
        atomic_add(&sh.held, -kept)
        if sh.meter.held - dd.nbytes + table_bytes(kept + 1) <= sh.meter.budget:
            return -1
        shared_fail(sh, CHAIN_TOO_MANY)
        return CHAIN_TOO_MANY
    result.dense = <uint64_t*>big_block(table_bytes(kept + 1))
    if result.dense == NULL:
        meter_sub(&sh.meter, table_bytes(kept + 1))
        shared_fail(sh, CHAIN_NO_MEMORY)
        return CHAIN_NO_MEMORY
    result.size = kept
    task.out = result.dense
    if not every_part:
        diagram_kept(&task, keep_lo, keep_hi, result.dense)
    elif threads > 1 and kept >= DD_CHUNK:
        run_threads(threads, diagram_run, &task)
    else:
        diagram_run(&task, 0)
    if extra_kept:
        result.dense[2 * (kept - 1)] = 0
        result.dense[2 * (kept - 1) + 1] = extra_k1
    return sh.err


# Tests: the last diagram's nodes, room, cache slots and bytes counted in the meter.
cdef Py_ssize_t LAST_NODES = 0, LAST_ROOM = 0, LAST_SLOTS = 0
cdef size_t LAST_BYTES = 0


def _py_last_diagram():
    """Tests: the last chain enumerated by diagram: its nodes, room for nodes, cache
    slots and the bytes it counted in the meter, and the bytes of a node, of a
    node of room and of a cache slot."""
    return dict(nodes=LAST_NODES, room=LAST_ROOM, cache_slots=LAST_SLOTS, counted=LAST_BYTES,
                walk_bytes=walk_bytes(1), room_bytes=node_bytes(1),
                slot_bytes=sizeof(DDCacheEntry))


cdef int chain_diagram(Diagram* dd, const Pos* start, int seat, const uint8_t* numbers,
                       const uint8_t* counts, int n_stages, bint is_chain, uint32_t blocked,
                       Shared* sh, DDRoot* roots, int* n_roots, int* over_stage) noexcept nogil:
    """A chain's or remainder's diagram (dd_chain), its paths counted: CHAIN_OK (``dd`` to
    be freed by the caller), -1 where the diagram does not apply (``dd`` freed), or a
    failure, also in ``sh.err`` (``dd`` freed)."""
    global LAST_NODES, LAST_ROOM, LAST_SLOTS, LAST_BYTES
    cdef Key96 key = pos_mover_key(start, seat)
    cdef int err = dd_chain(dd, &sh.meter, &sh.held, sh.max_held, &sh.intr, start, seat, key.lo,
                            key.hi, blocked, numbers, counts, n_stages, is_chain, roots, n_roots,
                            over_stage)
    if err != DD_DONE:
        dd_free(dd)
        if err == DD_NO_MEMORY or err == DD_INTERRUPTED:
            shared_fail(sh, CHAIN_NO_MEMORY if err == DD_NO_MEMORY else CHAIN_INTERRUPTED)
            return sh.err
        return -1
    LAST_NODES = dd.n
    LAST_ROOM = dd.cap
    LAST_SLOTS = dd.cache_mask + 1
    LAST_BYTES = dd.nbytes
    return CHAIN_OK


cdef int chain_by_diagram(const Pos* start, int seat, const uint8_t* numbers,
                          const uint8_t* counts, int n_stages, bint is_chain, uint32_t blocked,
                          int threads, Py_ssize_t threaded_from, int keep_lo, int keep_hi,
                          Shared* sh, KeySet* result) noexcept nogil:
    """An escalating chain's outcomes by a decision diagram (_chain_dd.pyx), written
    into ``result`` as chain_enumerate writes them (this pass's parts, sorted by
    hash): CHAIN_OK or a failure code; -1 when the diagram does not apply (the
    chain starts near home, too many of its positions may bear off, or it grew past
    its bound): enumerate stage by stage. The final sort is shared between the
    threads from ``threaded_from`` outcomes."""
    cdef Diagram dd
    cdef DDRoot roots[DD_MAX_ROOTS]
    cdef uint64_t tags[DD_MAX_ROOTS]
    cdef int n_roots = 0, r, err, stop, over_stage = -1
    err = chain_diagram(&dd, start, seat, numbers, counts, n_stages, is_chain, blocked, sh,
                        roots, &n_roots, &over_stage)
    if err != CHAIN_OK:
        return err
    for r in range(n_roots):
        if roots[r].played == counts[roots[r].stage]:
            stop = STOP_COMPLETE          # (only the last stage's: the others went on)
        elif roots[r].stage == 0 and roots[r].played == 0:
            stop = STOP_UNSTARTED         # RULES §5.2
        else:
            stop = STOP_STALLED           # RULES §4.4
        tags[r] = make_tag(stop, numbers[roots[r].stage], roots[r].played)
    # The one game-ending outcome (the mover's board empty) is placed and sorted
    # by GAME_OVER_TAG, as collect_outcomes places it, then tagged by the first
    # stage that can end the game (RULES §5.6).
    err = dd_write_outcomes(&dd, roots, tags, n_roots, over_stage >= 0, game_over_k1(),
                            threads, keep_lo, keep_hi, sh, result)
    dd_free(&dd)
    if err == -1:
        return -1                     # (they fit without the diagram: stage by stage)
    if sh.err == CHAIN_OK:
        sort_dense(result, threads if result.size >= threaded_from else 1, sh)
    if sh.err == CHAIN_OK and over_stage >= 0:
        retag_game_over(result.dense, result.size,
                        make_tag(STOP_GAME_OVER, numbers[over_stage], counts[over_stage]))
    return sh.err


cdef Py_ssize_t chain_count_by_diagram(const Pos* start, int seat, const uint8_t* numbers,
                                       const uint8_t* counts, int n_stages, uint32_t blocked,
                                       Shared* sh) noexcept nogil:
    """How many outcomes an escalating chain has, counted on its diagram (each root's
    paths, and the game-ending outcome), none written: -1 where the diagram does not
    apply (as for chain_by_diagram), -2 on a failure (in ``sh.err``)."""
    cdef Diagram dd
    cdef DDRoot roots[DD_MAX_ROOTS]
    cdef int n_roots = 0, r, err, over_stage = -1
    cdef Py_ssize_t total
    err = chain_diagram(&dd, start, seat, numbers, counts, n_stages, True, blocked, sh, roots,
                        &n_roots, &over_stage)
    if err != CHAIN_OK:
        return -1 if err == -1 else -2
    total = over_stage >= 0           # RULES §5.6: one game-ending outcome
    for r in range(n_roots):
        total += <Py_ssize_t>dd.paths[roots[r].root]   # (distinct tags: distinct outcomes)
    dd_free(&dd)
    return total
