# cython: language_level=3
"""The outcomes of a chain's decision diagram (``_chain_dd``).

Once a chain's diagram is built (``dd_chain``), every node's paths are counted
(``dd_count_paths``, the deepest level first), and the outcomes are the paths of
its root sets, ranked by their counts (point 24 first): ``dd_write_range``
writes any range of ranks, so threads share the writing a chunk of ranks at a
time (``dd_write_outcomes``). They are then sorted by hash (``sort_dense``), the
order of the stage-by-stage enumeration, and tagged: the same outcomes in the
same order whichever way and on however many threads.
"""

from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport malloc, free
from libc.string cimport memset

from gulbara.chains._chain_dd cimport (Diagram, DDRoot, DDJump, DDCacheEntry, dd_chain, dd_free,
                                node_bytes, point_of, DD_LEVELS, DD_EMPTY, DD_ONE, DD_DEAD,
                                DD_VALUES, DD_MAX_ROOTS, DD_DONE, DD_NOT_APPLICABLE,
                                DD_NO_MEMORY, DD_INTERRUPTED)
from gulbara.core._keys cimport key_hash, key_add_count, pos_mover_key
from gulbara.chains._status cimport CHAIN_OK, CHAIN_NO_MEMORY, CHAIN_TOO_MANY, CHAIN_INTERRUPTED
from gulbara.chains._atomics cimport atomic_add, atomic_next, load_acquire, add_release
from gulbara.chains._threads cimport run_threads
from gulbara.chains._memory cimport atomic_meter_take, meter_take, meter_sub, big_block
from gulbara.chains._shared cimport Shared, shared_fail
from gulbara.chains._keysets cimport KeySet, table_bytes, N_PARTS, PART_SHIFT
from gulbara.chains._key_sort cimport sort_dense
from gulbara.core._interrupt cimport interrupted
from gulbara.core._types cimport Pos, Key96
from gulbara.chains._outcome_tags cimport (STOP_COMPLETE, STOP_STALLED, STOP_UNSTARTED, STOP_GAME_OVER,
                                    make_tag, retag_game_over, game_over_k1)


cdef size_t walk_bytes(uint32_t n) noexcept nogil:
    """The bytes dd_count_paths adds for ``n`` nodes: paths, child masks and jumps, and
    (for the walk) their order."""
    return <size_t>n * (sizeof(uint64_t) + sizeof(uint16_t) + sizeof(DDJump) + sizeof(uint32_t))


cdef extern from *:
    """
    static inline int gulbara_lowest_bit(unsigned int x) { return __builtin_ctz(x); }
    """
    int lowest_bit "gulbara_lowest_bit"(unsigned int x) noexcept nogil


cdef inline void count_node(Diagram* dd, uint32_t i) noexcept nogil:
    """Node ``i``'s paths, non-empty children and jump, from its children's."""
    cdef uint64_t total = 0
    cdef uint16_t bits = 0
    cdef uint32_t p, c
    cdef int v
    if dd.level[i] == DD_DEAD:       # (never a child of a node)
        dd.paths[i] = 0
        dd.children[i] = 0
        return
    for v in range(DD_VALUES):
        total += dd.paths[dd.nodes[i].child[v]]
        if dd.nodes[i].child[v] != DD_EMPTY:
            bits |= <uint16_t>(1 << v)
    dd.paths[i] = total
    dd.children[i] = bits
    if bits & (bits - 1):
        dd.jump[i] = DDJump(lo=0, hi=0, node=i, level=dd.level[i])
    else:                            # one child: the run goes on below it
        v = lowest_bit(bits)
        c = dd.nodes[i].child[v]
        p = point_of(dd.level[i])
        dd.jump[i] = dd.jump[c]
        key_add_count(&dd.jump[i].lo, &dd.jump[i].hi, p, v)


cdef enum:
    PATHS_CHUNK = 2048               # nodes a thread counts at a time
    PATHS_THREADED = 1 << 16         # nodes from which two threads count them


# The nodes' paths counted by threads, a level at a time (the deepest first): each
# takes chunks of the level's nodes from its counter, and waits for the level's
# last chunk to be done before the level above.
ctypedef struct PathsTask:
    Diagram* dd
    const uint32_t* order            # the nodes, bucket by bucket
    uint32_t first[DD_DEAD + 2]      # bucket b: order[first[b]:first[b + 1]]
    int next[DD_DEAD + 1]            # the next chunk of each bucket (atomic)
    int done[DD_DEAD + 1]            # the chunks of each bucket counted (atomic)


cdef void paths_run(void* arg, int t) noexcept nogil:
    cdef PathsTask* task = <PathsTask*>arg
    cdef int b, chunk, chunks
    cdef uint32_t k, lo, hi
    for b in range(DD_DEAD + 1):
        lo = task.first[b]
        hi = task.first[b + 1]
        chunks = <int>((hi - lo + PATHS_CHUNK - 1) // PATHS_CHUNK)
        while True:
            chunk = atomic_next(&task.next[b])
            if chunk >= chunks:
                break
            for k in range(lo + <uint32_t>chunk * PATHS_CHUNK,
                           min(hi, lo + <uint32_t>(chunk + 1) * PATHS_CHUNK)):
                count_node(task.dd, task.order[k])
            add_release(&task.done[b], 1)
        while load_acquire(&task.done[b]) < chunks:   # (the other thread's last chunk)
            pass


cdef int dd_count_paths(Diagram* dd, int threads) noexcept nogil:
    """Every node's number of paths and its non-empty children, the deepest
    level first (a node's children are below it; with a team, not always
    made before it; on ``threads`` threads for a big diagram), their bytes
    counted in the meter: DD_DONE, or DD_NOT_APPLICABLE past the budget, or
    DD_NO_MEMORY."""
    cdef uint32_t i, b
    cdef uint32_t* order
    cdef uint32_t at[DD_DEAD + 1]
    cdef PathsTask task
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
    order = <uint32_t*>malloc(dd.n * sizeof(uint32_t))
    if order == NULL:
        return DD_NO_MEMORY
    # the nodes by level, the deepest first (bucket DD_DEAD - level: the dead ones, 0,
    # then levels 23 down to 0)
    memset(&task, 0, sizeof(task))
    for i in range(2, dd.n):
        task.first[DD_DEAD - dd.level[i] + 1] += 1
    task.first[0] = 2
    for b in range(DD_DEAD + 1):
        task.first[b + 1] += task.first[b]
        at[b] = task.first[b]
    for i in range(2, dd.n):
        b = DD_DEAD - dd.level[i]
        order[at[b]] = i
        at[b] += 1
    task.dd = dd
    task.order = order
    if threads > 1 and dd.n >= PATHS_THREADED:
        run_threads(2, paths_run, &task)
    else:
        paths_run(&task, 0)
    free(order)
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


def diagram_sizes():
    """The bytes a diagram counts in the meter for a node (``walk_bytes``: the
    arrays its outcomes are written from), a node of room (``room_bytes``) and a
    cache slot (``slot_bytes``)."""
    return dict(walk_bytes=walk_bytes(1), room_bytes=node_bytes(1),
                slot_bytes=sizeof(DDCacheEntry))


cdef int chain_diagram(Diagram* dd, const Pos* start, int seat, const uint8_t* numbers,
                       const uint8_t* counts, int n_stages, bint is_chain, uint32_t blocked,
                       int threads, Shared* sh, DDRoot* roots, int* n_roots,
                       int* over_stage) noexcept nogil:
    """A chain's or remainder's diagram (dd_chain), its paths counted: CHAIN_OK (``dd`` to
    be freed by the caller), -1 where the diagram does not apply (``dd`` freed), or a
    failure, also in ``sh.err`` (``dd`` freed). Its sizes go into ``sh.stats``."""
    cdef uint32_t i
    cdef Key96 key = pos_mover_key(start, seat)
    cdef int err = dd_chain(dd, &sh.meter, &sh.held, sh.max_held, &sh.intr, start, seat, key.lo,
                            key.hi, blocked, numbers, counts, n_stages, is_chain, threads, roots,
                            n_roots, over_stage)
    if err == DD_DONE:
        err = dd_count_paths(dd, threads)
    if err != DD_DONE:
        dd_free(dd)
        if err == DD_NO_MEMORY or err == DD_INTERRUPTED:
            shared_fail(sh, CHAIN_NO_MEMORY if err == DD_NO_MEMORY else CHAIN_INTERRUPTED)
            return sh.err
        return -1
    sh.stats.dd_nodes = dd.n
    sh.stats.dd_team = dd.built_by_team
    sh.stats.dd_dead = 0
    for i in range(2, dd.n):
        sh.stats.dd_dead += dd.level[i] == DD_DEAD
    sh.stats.dd_room = dd.cap
    sh.stats.dd_cache_slots = dd.cache_mask + 1
    sh.stats.dd_bytes = dd.nbytes
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
    err = chain_diagram(&dd, start, seat, numbers, counts, n_stages, is_chain, blocked, threads, sh,
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
                                       int threads, Shared* sh) noexcept nogil:
    """How many outcomes an escalating chain has, counted on its diagram (each root's
    paths, and the game-ending outcome), none written: -1 where the diagram does not
    apply (as for chain_by_diagram), -2 on a failure (in ``sh.err``)."""
    cdef Diagram dd
    cdef DDRoot roots[DD_MAX_ROOTS]
    cdef int n_roots = 0, r, err, over_stage = -1
    cdef Py_ssize_t total
    err = chain_diagram(&dd, start, seat, numbers, counts, n_stages, True, blocked, threads, sh, roots,
                        &n_roots, &over_stage)
    if err != CHAIN_OK:
        return -1 if err == -1 else -2
    total = over_stage >= 0           # RULES §5.6: one game-ending outcome
    for r in range(n_roots):
        total += <Py_ssize_t>dd.paths[roots[r].root]   # (distinct tags: distinct outcomes)
    dd_free(&dd)
    return total
