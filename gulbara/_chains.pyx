# cython: language_level=3
"""gulbara's compiled whole chains and remainders (RULES §4.3-4.4, §5): every
distinct outcome of a sequence of equal-dice stages, found stage by stage
with the stage machinery of ``_movegen`` in the hash sets of ``_tables``,
shared between threads.

The Python-facing ``ChainResult`` and ``ChainRun`` and the ``*_raw`` entry
points implement the chain part of the backend contract (``docs/backend.md``);
``gulbara.chains`` wraps them.

>>> len(chain_ends_raw(START_CODE, 0, 6))
1
"""

from libc.stdint cimport uint8_t, int8_t, uint32_t, uint64_t
from cpython.pyport cimport PY_SSIZE_T_MAX
from libc.stdint cimport SIZE_MAX
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memcpy, memset

from gulbara._bits cimport pop_top, pop_top_bit
from gulbara._masks cimport rotate12, open_from, movable, point_in_other_frame
from gulbara._interrupt cimport Interrupt, interrupt_init, interrupted, interrupt_raise
from gulbara._keys cimport (DELTA_LO, DELTA_HI, LANDS, key_count, key_outside, key_occupancy,
                            occupancy_after, key_hash, pos_mover_key, pos_set_mover_key)
from gulbara._tables cimport (CHAIN_OK, CHAIN_NO_MEMORY, CHAIN_TOO_MANY, CHAIN_INTERRUPTED,
                              PART_BITS, N_PARTS, PART_SHIFT, MAX_THREADS, EMPTY_K1, LOW32,
                              Meter, Shared, KeySet, PartSet, InsertQueue, task_fn, run_threads,
                              atomic_add, atomic_next, meter_take, meter_sub, shared_fail,
                              table_bytes, keyset_clear, keyset_init, keyset_free, keyset_add,
                              keyset_add_keyed, keyset_compact, partset_clear, partset_size,
                              keyset_release, partset_release, merge_into, sort_part,
                              queue_flush, queue_push, queue_push_hashed)
from gulbara._types cimport Pos, Step, Key96, StageEnd, MAX_STAGE_DICE, BOARD_BITS, STAGE_CAPACITY
from gulbara._movegen cimport (Position, EndSet, stage_generate, stage_playable, read_code,
                               format_code, check_seat)

from operator import index as _index
import threading

from gulbara.errors import checked_int, InvalidDiceError, EnumerationLimitError
from gulbara._movegen import START_CODE

# Only the main thread runs signal handlers (_interrupt.pxd).
cdef unsigned long MAIN_THREAD = threading.main_thread().ident

cdef enum:
    POLL_EVERY = 4096         # positions read between two looks for a signal
    LAYERED_GROUP = 4096      # groups at least this big are expanded a step at a time


# A chain is a sequence of stages. The enumeration keeps the frontier of
# distinct positions after every stage in open-addressing hash sets keyed by
# the exact packed position (the opponent never moves within a chain, so the
# mover's 96-bit key is the whole position), and expands each frontier
# position with the stage rules. Outcomes are kept in sets keyed by (end
# position, tag), where the tag says why and where the chain stopped, which
# determines the remainder (RULES §5.1).
#
# Every set is split by the top bits of its keys' hash into N_PARTS parts.
# A stage's frontier parts are shared out between threads; each thread
# writes the positions it makes into parts of its own, and the threads'
# parts are merged part by part after the stage. The finished outcomes are
# listed part by part, each part in the order of its keys' hashes: the same
# order whatever the number of threads, and a contiguous run of parts (a
# pass) is a contiguous run of that order.

cdef enum:
    STOP_COMPLETE = 0     # every stage played in full (or the remainder played out)
    STOP_STALLED = 1      # a stage not played in full: the chain stops (RULES §4.4)
    STOP_UNSTARTED = 2    # not even one die of the first stage (RULES §5.2)
    STOP_GAME_OVER = 3    # the mover bore off its last checker (RULES §5.5)

#: Peak memory of a chain enumeration per distinct position held at once, in
#: bytes. With ``max_ends`` set, the tables are held to max_ends *
#: CHAIN_BYTES_PER_END + CHAIN_BASE_BYTES (chain_budget; CHAIN_TOO_MANY past
#: it), which the usual layout stays under: 16-byte slots at least a quarter
#: full (at most 64 bytes a position), the next stage's table sized from the
#: frontier, a doubling table briefly held twice.
cdef enum:
    BYTES_PER_HELD = 128
    BASE_BYTES = 1 << 20      # the smallest tables of every part and thread
CHAIN_BYTES_PER_END = BYTES_PER_HELD
#: What the smallest tables add to that bound, in bytes.
CHAIN_BASE_BYTES = BASE_BYTES

# Stages whose frontier holds fewer positions than this run on the calling
# thread alone (tests lower it to share small stages too).
cdef Py_ssize_t THREADED_FRONTIER = 2048


def _py_set_threaded_frontier(Py_ssize_t positions):
    """Tests: share the stages of at least ``positions`` frontier positions
    between threads (2,048 by default); the previous value is returned."""
    global THREADED_FRONTIER
    previous = THREADED_FRONTIER
    THREADED_FRONTIER = max(1, positions)
    return previous



cdef inline uint64_t make_tag(int stop, int number, int played) noexcept nogil:
    return <uint64_t>(stop | (number << 4) | (played << 8))


# A game-ending outcome leaves one position (the mover's 15 checkers off, the
# opponent unmoved) and passes nothing, so it is one outcome whichever stage
# ended the game (RULES §5.6). The tables hold it under this tag; the finished
# result carries the number and dice of the first stage that can end the game.
cdef uint64_t GAME_OVER_TAG = STOP_GAME_OVER


cdef inline uint64_t key_k1(Key96 key, uint64_t tag) noexcept nogil:
    return <uint64_t>key.hi | (tag << 32)


cdef int max_steps_no_bear_off(uint32_t mine, uint64_t lo, uint64_t hi, uint32_t blocked,
                               int die, int count) noexcept nogil:
    """stage_playable when no step of the ``count`` dice can bear off (``count``
    or more checkers outside the home board): then the checkers do not
    interfere (RULES §2.2: only the opponent blocks), and a checker on p can
    step as long as p - d, p - 2d, ... are open, so the dice that can be
    played are the sum of those runs over the checkers, at most ``count``."""
    cdef uint32_t open_d = open_from(blocked, die), sources = mine & open_d
    cdef int frm, run, q, total = 0
    while sources:
        frm = pop_top(&sources)
        run = 1
        q = frm - die
        while run < count and (open_d >> (q - 1)) & 1:
            run += 1
            q -= die
        total += run * key_count(lo, hi, frm)
        if total >= count:
            return count
    return total


# What every thread needs to know of the stage being expanded.
ctypedef struct StageInfo:
    int stage                 # its index in the chain
    int number                # its die
    int count                 # its number of dice
    bint is_chain             # an escalating chain (stalls stop it), or a remainder
    bint last_stage
    bint layered              # expand big groups a step at a time (chain_layers)
    uint32_t blocked          # the opponent's points, in the mover's numbering
    uint64_t leaf_tags[MAX_STAGE_DICE + 1]    # by plays' length: tag of their leaves (<< 32)
    int leaf_tables[MAX_STAGE_DICE + 1]       # by plays' length: 1 next frontier, 2 outcomes


cdef void stage_info_set(StageInfo* info, int stage, int n_stages, int number, int count,
                         bint is_chain, uint32_t blocked) noexcept nogil:
    """Where the plays of each length go: a chain stage not played in full
    stalls (RULES §4.4), the last stage's plays are outcomes, the others go
    on to the next stage."""
    cdef int k
    info.stage = stage
    info.number = number
    info.count = count
    info.is_chain = is_chain
    info.last_stage = stage == n_stages - 1
    info.blocked = blocked
    info.layered = False
    for k in range(count + 1):
        if is_chain and k < count:
            info.leaf_tags[k] = make_tag(STOP_STALLED, number, k) << 32
            info.leaf_tables[k] = 2
        elif info.last_stage:
            info.leaf_tags[k] = make_tag(STOP_COMPLETE, number, count) << 32
            info.leaf_tables[k] = 2
        else:
            info.leaf_tags[k] = 0
            info.leaf_tables[k] = 1


# A position's plays are found by a search on the packed key, sources in
# non-increasing order (each end once per position, as in eq_dfs), the ends
# queued for insertion. The common case of a big chain takes a leaner search:
# when a position has at least as many checkers outside its home board as the
# stage has dice, no step can bear off (RULES §2.3) and the game cannot end,
# so a step is legal exactly when its landing point is open (RULES §2.2).

ctypedef struct GroupSearch:
    uint32_t blocked
    int die
    uint32_t open_d           # open_from(blocked, die)
    const uint64_t* dlo       # DELTA_LO[die]
    const uint64_t* dhi
    const uint32_t* lands     # LANDS[die]
    int depth                 # steps every play being searched makes
    uint64_t leaf_tag
    int leaf_table            # 1: the next stage's frontier, 2: the outcomes
    InsertQueue queue


cdef void key_dfs(GroupSearch* st, uint64_t klo, uint64_t khi, uint32_t mine, int depth,
                  int max_from) noexcept nogil:
    """The plays of one position, any step may bear off (the sources: the
    step rule's movable, RULES §2.2-2.3)."""
    cdef uint32_t sources = movable(mine, st.open_d, st.die) & (
        ((<uint32_t>1) << max_from) - 1)
    cdef uint32_t child_mine, bit
    cdef uint64_t child_lo, child_hi
    cdef int frm
    while sources:
        frm = pop_top_bit(&sources, &bit)
        child_mine = occupancy_after(mine, klo, khi, frm, bit, st.lands[frm])
        child_lo = klo + st.dlo[frm]
        child_hi = khi + st.dhi[frm]
        if child_mine == 0:                                        # the last checker off
            st.queue.over_seen = True
            queue_push(&st.queue, child_lo, child_hi | (GAME_OVER_TAG << 32), 2)
        elif depth + 1 == st.depth:
            queue_push(&st.queue, child_lo, child_hi | st.leaf_tag, st.leaf_table)
        else:
            key_dfs(st, child_lo, child_hi, child_mine, depth + 1, frm)


cdef void open_dfs(GroupSearch* st, uint32_t mask, uint64_t lo, uint64_t hi, int depth,
                   uint32_t allowed) noexcept nogil:
    """The plays of one position that cannot bear off in this stage."""
    cdef uint32_t sources = mask & st.open_d & allowed, bit, child
    cdef uint64_t end_lo, end_hi
    cdef int frm
    if depth + 1 == st.depth:
        while sources:
            frm = pop_top(&sources)
            end_lo = lo + st.dlo[frm]
            end_hi = (hi + st.dhi[frm]) | st.leaf_tag
            queue_push_hashed(&st.queue, end_lo, end_hi, st.leaf_table, key_hash(end_lo, end_hi))
        return
    while sources:
        frm = pop_top_bit(&sources, &bit)
        child = occupancy_after(mask, lo, hi, frm, bit, st.lands[frm])
        open_dfs(st, child, lo + st.dlo[frm], hi + st.dhi[frm], depth + 1, (bit << 1) - 1)


cdef void search_setup(GroupSearch* st, const StageInfo* info) noexcept nogil:
    """Point a search at a stage (its die, the opponent's mask)."""
    st.blocked = info.blocked
    st.die = info.number
    st.open_d = open_from(info.blocked, info.number)
    st.dlo = DELTA_LO[info.number]
    st.dhi = DELTA_HI[info.number]
    st.lands = LANDS[info.number]


cdef inline void search_plays(GroupSearch* st, const StageInfo* info, int steps) noexcept nogil:
    """Point a search at the plays of ``steps`` steps (their length and leaves)."""
    st.depth = steps
    st.leaf_tag = info.leaf_tags[steps]
    st.leaf_table = info.leaf_tables[steps]


# One thread's share of an enumeration: its search (with its insert queue),
# the parts it writes, and the positions it has sorted into groups.
ctypedef struct Worker:
    GroupSearch st
    PartSet next              # the next stage's frontier, as far as this thread made it
    PartSet out               # the outcomes this thread found, over every stage
    KeySet groups[MAX_STAGE_DICE + 1]   # positions that may bear off, by dice playable
    bint polls                # this is the calling thread's share: it looks for signals


cdef inline void worker_tick(Worker* w) noexcept nogil:
    """One position read; on the calling thread, stop the enumeration once a
    signal handler raised (Ctrl-C)."""
    if w.polls and interrupted(&w.st.queue.shared.intr, 1):
        shared_fail(w.st.queue.shared, CHAIN_INTERRUPTED)


cdef inline bint worker_slot(Worker* w, const KeySet* s, Py_ssize_t i, uint64_t* klo,
                             uint64_t* khi) noexcept nogil:
    """Whether slot ``i`` of ``s`` holds a position; if it does, the position is
    read (worker_tick) and its key, the tag cut off, goes to ``*klo``, ``*khi``."""
    if s.slots[2 * i + 1] == EMPTY_K1:
        return False
    worker_tick(w)
    klo[0] = s.slots[2 * i]
    khi[0] = s.slots[2 * i + 1] & LOW32
    return True


cdef int chain_layers(Worker* w, KeySet* layer, const StageInfo* info, int depth) noexcept nogil:
    """Expand positions that play ``depth`` dice of the stage, one step at a
    time, merging equal positions after every step. Takes ownership of
    ``layer`` (its positions counted as held)."""
    cdef KeySet following
    cdef InsertQueue* queue = &w.st.queue
    cdef Shared* sh = queue.shared
    cdef Py_ssize_t i
    cdef int k, frm, err
    cdef int die = info.number
    cdef uint32_t sources, mine
    cdef uint64_t klo, khi, child_lo, child_hi
    cdef const uint64_t* dlo = DELTA_LO[die]
    cdef const uint64_t* dhi = DELTA_HI[die]
    cdef bint over
    cdef uint64_t over_tag = GAME_OVER_TAG << 32
    cdef uint64_t done_tag = info.leaf_tags[depth]
    cdef uint8_t leaf_table = <uint8_t>info.leaf_tables[depth]
    cdef uint32_t open_d = open_from(info.blocked, die)
    for k in range(depth):
        if k + 1 < depth:
            err = keyset_init(&following, layer.size, layer.meter)
            if err != CHAIN_OK:
                keyset_release(layer, sh)
                shared_fail(sh, err)
                return err
        queue.layer = &following if k + 1 < depth else NULL
        for i in range(layer.mask + 1 if layer.slots != NULL else 0):
            # Work on the packed key itself: a step is one subtraction and one
            # addition of nibble units; no counts array, no undo.
            if not worker_slot(w, layer, i, &klo, &khi):
                continue
            mine = key_occupancy(klo, khi)
            sources = movable(mine, open_d, die)        # the step rule, RULES §2.2-2.3
            if k:
                # Sources in non-increasing order, as in eq_dfs: at or below
                # the previous step's source (the largest over the plays
                # merged into this position, so no play is lost).
                sources &= ((<uint32_t>2) << (layer.slots[2 * i + 1] >> 32)) - 1
            while sources:
                frm = pop_top(&sources)
                child_lo = klo + dlo[frm]
                child_hi = khi + dhi[frm]
                # The last checker off: only this point was held, by one checker.
                over = (frm <= die and mine == ((<uint32_t>1) << (frm - 1))
                        and key_count(klo, khi, frm) == 1)
                if over:
                    queue.over_seen = True
                    queue_push(queue, child_lo, child_hi | over_tag, 2)
                elif k + 1 < depth:
                    queue_push(queue, child_lo, child_hi | ((<uint64_t>frm - 1) << 32), 0)
                else:
                    queue_push(queue, child_lo, child_hi | done_tag, leaf_table)
            if queue.err:
                break
        queue_flush(queue)
        keyset_release(layer, sh)
        queue.layer = NULL
        if k + 1 < depth:
            layer[0] = following
            if queue.err != CHAIN_OK:
                keyset_release(layer, sh)
        if queue.err != CHAIN_OK:
            return queue.err
    return CHAIN_OK


cdef int group_search(Worker* w, KeySet* group, const StageInfo* info, int steps) noexcept nogil:
    """Expand every position of a group by its own search (key_dfs); frees the group."""
    cdef GroupSearch* st = &w.st
    cdef Py_ssize_t i
    cdef uint64_t klo, khi
    search_plays(st, info, steps)
    for i in range(group.mask + 1 if group.slots != NULL else 0):
        if not worker_slot(w, group, i, &klo, &khi):
            continue
        key_dfs(st, klo, khi, key_occupancy(klo, khi), 0, 24)
        if st.queue.err != CHAIN_OK:
            break
    queue_flush(&st.queue)
    keyset_release(group, st.queue.shared)
    return st.queue.err


cdef void scan_part(Worker* w, const KeySet* part, const StageInfo* info) noexcept nogil:
    """Read one part of a stage's frontier. A position that cannot bear off in
    the stage is expanded at once by open_dfs; the others are sorted by how
    many of the stage's dice they can play (RULES §3.4) into the thread's
    groups, expanded by expand_groups (key_dfs, or chain_layers for big
    groups). A position that plays no die stops an escalating chain (RULES
    §5.2, §4.4) or loses the dice of a remainder stage (RULES §5.3)."""
    cdef GroupSearch* st = &w.st
    cdef InsertQueue* queue = &st.queue
    cdef Py_ssize_t i
    cdef Key96 key
    cdef uint64_t klo, khi
    cdef bint no_bear_off
    cdef int playable, added
    cdef int n = info.number, count = info.count
    cdef uint64_t tag
    if part.slots == NULL or queue.err != CHAIN_OK:
        return
    for i in range(part.mask + 1):
        if not worker_slot(w, part, i, &klo, &khi):
            continue
        key.lo = klo
        key.hi = <uint32_t>khi
        no_bear_off = key_outside(key.lo, key.hi) >= count
        if no_bear_off:
            playable = max_steps_no_bear_off(key_occupancy(key.lo, key.hi), key.lo, key.hi,
                                             info.blocked, n, count)
        else:
            playable = stage_playable(key, info.blocked, n, count)
        if playable > 0 and no_bear_off and not info.layered:
            search_plays(st, info, playable)
            open_dfs(st, key_occupancy(key.lo, key.hi), key.lo, key.hi, 0, BOARD_BITS)
        elif playable > 0:
            added = keyset_add(&w.groups[playable], key.lo, key.hi)
            if added < 0:
                queue.err = added
                shared_fail(queue.shared, added)
            else:
                queue.added += added
        elif info.is_chain:
            # Nothing moves: RULES §5.2 on the first stage, else a stall with 0 played.
            tag = make_tag(STOP_UNSTARTED if info.stage == 0 else STOP_STALLED, n, 0)
            queue_push(queue, key.lo, key_k1(key, tag), 2)
        elif info.last_stage:
            queue_push(queue, key.lo, key_k1(key, make_tag(STOP_COMPLETE, n, count)), 2)
        else:
            queue_push(queue, key.lo, key.hi, 1)     # RULES §5.3: the dice are lost
        if queue.err != CHAIN_OK:
            return


cdef void expand_groups(Worker* w, const StageInfo* info) noexcept nogil:
    """Expand the thread's groups, the longest plays first (frees them all)."""
    cdef int k, err = w.st.queue.err
    queue_flush(&w.st.queue)
    for k in range(info.count, 0, -1):
        err = w.st.queue.err
        if err == CHAIN_OK and w.groups[k].size:
            if w.groups[k].size < LAYERED_GROUP:
                err = group_search(w, &w.groups[k], info, k)
            else:
                err = chain_layers(w, &w.groups[k], info, k)
        keyset_release(&w.groups[k], w.st.queue.shared)
    queue_flush(&w.st.queue)


cdef void merge_part(KeySet* dst, Worker* workers, int n_workers, int p, bint outcomes,
                     Shared* sh) noexcept nogil:
    """``dst`` := the union of the workers' part ``p`` (of their next frontier,
    or of their outcomes); the largest is taken over as it is."""
    cdef int t, base = 0, err
    cdef KeySet* part
    for t in range(n_workers):
        part = &workers[t].out.part[p] if outcomes else &workers[t].next.part[p]
        if part.size > (workers[base].out.part[p] if outcomes else workers[base].next.part[p]).size:
            base = t
    part = &workers[base].out.part[p] if outcomes else &workers[base].next.part[p]
    dst[0] = part[0]
    keyset_clear(part, part.meter)
    for t in range(n_workers):
        if t == base:
            continue
        part = &workers[t].out.part[p] if outcomes else &workers[t].next.part[p]
        err = merge_into(dst, part, sh)
        if err != CHAIN_OK:
            shared_fail(sh, err)


# A stage is expanded a step at a time (chain_layers for every group, the
# positions that cannot bear off included) when the stage before made more
# than this many ends per distinct position it left: then the positions of a
# stage share most of their ends, and merging after every step makes fewer.
cdef enum:
    LAYERED_DUPLICATION = 12


cdef void workers_release(Worker* workers, int n_workers, Shared* sh) noexcept nogil:
    cdef int t, k
    for t in range(n_workers):
        partset_release(&workers[t].next, sh)
        partset_release(&workers[t].out, sh)
        for k in range(MAX_STAGE_DICE + 1):
            keyset_release(&workers[t].groups[k], sh)


cdef enum:
    TASK_SCAN = 0             # read the frontier's parts (scan_part), each thread its worker
    TASK_GROUPS = 1           # expand the workers' groups (expand_groups)
    TASK_MERGE = 2            # merge the workers' next frontiers, part by part
    TASK_COLLECT = 3          # merge, compact and sort the workers' outcomes, part by part


# One step of an enumeration shared between threads: each thread takes the
# next part (or worker) from a shared counter until none is left.
ctypedef struct Task:
    int kind
    int next                  # the next part or worker to take (atomic)
    Worker* workers
    int n_workers
    PartSet* parts            # the frontier (TASK_SCAN), or the parts merged into
    const StageInfo* info
    Shared* sh
    int part_bits             # the hash bits that chose the parts (TASK_COLLECT)


cdef void task_collect_part(Task* task, int p) noexcept nogil:
    cdef KeySet* part = &task.parts.part[p]
    cdef int err
    merge_part(part, task.workers, task.n_workers, p, True, task.sh)
    keyset_compact(part)
    err = sort_part(part.dense, part.size, task.part_bits, &task.sh.meter)
    if err != CHAIN_OK:
        shared_fail(task.sh, err)


cdef void run_task(void* arg, int t) noexcept nogil:
    """One thread's share of a task; thread 0 (the caller's) looks for signals."""
    cdef Task* task = <Task*>arg
    cdef int p
    cdef int n_items = task.n_workers if task.kind == TASK_GROUPS else N_PARTS
    if task.kind == TASK_SCAN:
        task.workers[t].polls = t == 0
    while True:                  # the parts (for TASK_GROUPS: the workers) one at a time
        p = atomic_next(&task.next)
        if p >= n_items:
            break
        if task.kind == TASK_SCAN:
            scan_part(&task.workers[t], &task.parts.part[p], task.info)
        elif task.kind == TASK_GROUPS:
            task.workers[p].polls = t == 0
            expand_groups(&task.workers[p], task.info)
        elif task.kind == TASK_MERGE:
            merge_part(&task.parts.part[p], task.workers, task.n_workers, p, False, task.sh)
        else:
            task_collect_part(task, p)
    if task.kind == TASK_SCAN:
        queue_flush(&task.workers[t].st.queue)


cdef void run_shared(Task* task, int kind, int threads) noexcept nogil:
    """Run a task on ``threads`` threads (1: on the calling thread alone)."""
    task.kind = kind
    task.next = 0
    if threads > 1:
        run_threads(threads, run_task, task)
    else:
        run_task(task, 0)


cdef int collect_outcomes(Worker* workers, int n_workers, int threads, PartSet* parts,
                          int part_bits, uint64_t over_tag, Shared* sh,
                          KeySet* result) noexcept nogil:
    """Merge the workers' outcomes part by part, sort each part by hash, and
    write them all, in part order, into ``result.dense`` (``result.size``)."""
    cdef int p
    cdef Py_ssize_t n = 0, at = 0, i
    cdef Task task
    task.workers = workers
    task.n_workers = n_workers
    task.parts = parts
    task.info = NULL
    task.sh = sh
    task.part_bits = part_bits
    run_shared(&task, TASK_COLLECT, threads)
    if sh.err != CHAIN_OK:
        return sh.err
    n = partset_size(parts)
    keyset_clear(result, &sh.meter)
    if meter_take(&sh.meter, table_bytes(n + 1)) != CHAIN_OK:
        return CHAIN_TOO_MANY
    result.dense = <uint64_t*>malloc(table_bytes(n + 1))
    if result.dense == NULL:
        meter_sub(&sh.meter, table_bytes(n + 1))
        return CHAIN_NO_MEMORY
    result.size = n
    for p in range(N_PARTS):
        if parts.part[p].size:
            memcpy(result.dense + 2 * at, parts.part[p].dense,
                   table_bytes(parts.part[p].size))
            at += parts.part[p].size
        keyset_release(&parts.part[p], sh)
    # The one game-ending outcome carries its first stage (RULES §5.6).
    for i in range(n):
        if result.dense[2 * i + 1] == GAME_OVER_TAG << 32:
            result.dense[2 * i + 1] = over_tag << 32
    return CHAIN_OK


cdef int chain_enumerate(const Pos* start, int seat, const uint8_t* numbers,
                         const uint8_t* counts, int n_stages, bint is_chain, int threads,
                         int keep_lo, int keep_hi, Shared* sh, KeySet* result) noexcept nogil:
    """Enumerate every distinct outcome of a sequence of equal-dice stages.

    ``is_chain``: an escalating chain (RULES §4.3-4.4: the chain stops at the
    first stage not played in full); otherwise a remainder (RULES §5.3: dice
    that cannot be played are lost and play goes on with the next stage).
    Only the outcomes of parts ``keep_lo <= p < keep_hi`` are kept (a pass).
    They go into ``result`` as dense (mover key, tag) pairs, in part order and
    by hash within a part. ``threads`` threads share each big stage's work.
    ``sh.max_held`` bounds the distinct positions held at once, in every
    table alive (CHAIN_TOO_MANY past it); every table's bytes are counted
    in ``sh.meter``, held to its budget. Everything is freed on failure.
    """
    cdef Worker* workers = <Worker*>calloc(threads, sizeof(Worker))
    cdef PartSet* frontier = <PartSet*>malloc(sizeof(PartSet))
    cdef StageInfo info
    cdef Task task
    cdef InsertQueue* q
    cdef int stage, t, p, k, err = CHAIN_OK, active
    cdef uint64_t over_tag = 0, h
    cdef Key96 key
    cdef uint32_t blocked = rotate12(start.occ[1 - seat])
    cdef Py_ssize_t fsize, room, made = 0, distinct = 0
    cdef KeySet* part
    cdef int part_mask = N_PARTS - 1 if threads > 1 else 0
    keyset_clear(result, &sh.meter)
    task.workers = workers
    task.sh = sh
    if workers == NULL or frontier == NULL:
        free(workers)
        free(frontier)
        return CHAIN_NO_MEMORY
    partset_clear(frontier, &sh.meter)
    for t in range(threads):
        partset_clear(&workers[t].next, &sh.meter)
        partset_clear(&workers[t].out, &sh.meter)
        for k in range(MAX_STAGE_DICE + 1):
            keyset_clear(&workers[t].groups[k], &sh.meter)
        workers[t].polls = t == 0
        q = &workers[t].st.queue
        q.shared = sh
        q.layer = NULL
        q.parts[0] = NULL
        q.parts[1] = &workers[t].next
        q.parts[2] = &workers[t].out
        q.n = 0
        q.err = CHAIN_OK
        q.added = 0
        q.keep_lo = keep_lo
        q.keep_hi = keep_hi
        q.over_seen = False
        q.part_mask = part_mask
    key = pos_mover_key(start, seat)
    h = key_hash(key.lo, key.hi)
    err = keyset_add_keyed(&frontier.part[(h >> PART_SHIFT) & part_mask], key.lo, key.hi, h,
                           EMPTY_K1)
    if err < 0:
        shared_fail(sh, err)
    else:
        atomic_add(&sh.held, 1)
    for stage in range(n_stages):
        if sh.err != CHAIN_OK:
            break
        stage_info_set(&info, stage, n_stages, numbers[stage], counts[stage], is_chain, blocked)
        fsize = partset_size(frontier)
        info.layered = (distinct > 0 and made > LAYERED_DUPLICATION * distinct
                        and fsize >= LAYERED_GROUP)
        active = threads if fsize >= THREADED_FRONTIER else 1
        for t in range(active):
            search_setup(&workers[t].st, &info)
            workers[t].st.queue.pushed = 0
            # The next frontier is usually about as big as this one: size its
            # parts for that, rather than double them from the smallest.
            # (the last stage's ends are outcomes: its outcome parts, likewise)
            room = fsize // ((part_mask + 1) * active)
            for p in range(part_mask + 1):
                part = (&workers[t].out.part[p] if info.last_stage
                        else &workers[t].next.part[p])
                if room > 64 and part.slots == NULL and sh.err == CHAIN_OK:
                    err = keyset_init(part, room, &sh.meter)
                    if err != CHAIN_OK:
                        shared_fail(sh, err)
        if sh.err != CHAIN_OK:
            break
        task.parts = frontier
        task.info = &info
        task.n_workers = active
        run_shared(&task, TASK_SCAN, active)
        run_shared(&task, TASK_GROUPS, active)
        partset_release(frontier, sh)
        made = 0
        for t in range(active):
            made += workers[t].st.queue.pushed
            if workers[t].st.queue.err != CHAIN_OK:
                shared_fail(sh, workers[t].st.queue.err)
            if over_tag == 0 and workers[t].st.queue.over_seen:
                over_tag = make_tag(STOP_GAME_OVER, info.number, info.count)
        if sh.err != CHAIN_OK:
            break
        task.n_workers = threads
        run_shared(&task, TASK_MERGE, active)
        distinct = partset_size(frontier)
    partset_release(frontier, sh)
    if sh.err == CHAIN_OK:
        fsize = 0
        for t in range(threads):
            fsize += partset_size(&workers[t].out)
        err = collect_outcomes(workers, threads, threads if fsize >= THREADED_FRONTIER else 1,
                               frontier, PART_BITS if part_mask else 0, over_tag, sh, result)
        if err != CHAIN_OK:
            shared_fail(sh, err)
    err = sh.err
    workers_release(workers, threads, sh)
    partset_release(frontier, sh)
    if err != CHAIN_OK:
        keyset_free(result)
    free(workers)
    free(frontier)
    return err


cdef bint key_can_reach(Key96 a, Key96 b) noexcept nogil:
    """Whether checkers only moving down could turn mover key ``a`` into ``b``."""
    cdef int p, above_a = 0, above_b = 0
    for p in range(24, 0, -1):
        above_a += key_count(a.lo, a.hi, p)
        above_b += key_count(b.lo, b.hi, p)
        if above_a < above_b:
            return False
    return True


cdef int chain_recover(Pos* q, int seat, const uint8_t* numbers, const uint8_t* counts,
                       int n_stages, bint is_chain, int stage, Key96 target,
                       uint64_t target_tag, Step* path, int* stage_steps,
                       KeySet* failed, int* last_stage) noexcept nogil:
    """Find the first stage-by-stage play (each stage's ends in canonical order)
    that leads to the outcome (target, target_tag; GAME_OVER_TAG: the game
    ended at any stage). 1 found (``last_stage``: the stage where it ends),
    0 not, -1 no memory."""
    cdef uint8_t dice[MAX_STAGE_DICE]
    cdef int n = numbers[stage], count = counts[stage], n_ends, playable, j, k, found
    cdef Key96 here = pos_mover_key(q, seat), key
    cdef uint64_t tag
    cdef int offset = 0
    for j in range(stage):
        offset += stage_steps[j]
    if keyset_add(failed, here.lo, key_k1(here, <uint64_t>(stage + 1) << 24)) == 0:
        return 0     # this (stage, position) was explored before without success
    for j in range(count):
        dice[j] = n
    cdef StageEnd* ends = <StageEnd*>malloc(STAGE_CAPACITY * sizeof(StageEnd))
    if ends == NULL:
        return -1
    stage_generate(q, seat, dice, count, ends, STAGE_CAPACITY, &n_ends, &playable)
    found = 0
    if is_chain and playable == 0:
        tag = make_tag(STOP_UNSTARTED if stage == 0 else STOP_STALLED, n, 0)
        if here.lo == target.lo and here.hi == target.hi and tag == target_tag:
            stage_steps[stage] = 0
            last_stage[0] = stage
            found = 1
        free(ends)
        return found
    for j in range(n_ends):
        key = ends[j].key
        if ends[j].ends_game:
            tag = GAME_OVER_TAG
        elif is_chain and playable < count:
            tag = make_tag(STOP_STALLED, n, playable)
        elif stage == n_stages - 1:
            tag = make_tag(STOP_COMPLETE, n, count)
        else:
            tag = 0xFFFF    # goes on to the next stage
        if tag != 0xFFFF:
            if key.lo == target.lo and key.hi == target.hi and tag == target_tag:
                last_stage[0] = stage
                found = 1
        elif key_can_reach(key, target):
            pos_set_mover_key(q, seat, key)
            for k in range(ends[j].n_steps):
                path[offset + k] = ends[j].steps[k]
            stage_steps[stage] = ends[j].n_steps
            found = chain_recover(q, seat, numbers, counts, n_stages, is_chain, stage + 1,
                                  target, target_tag, path, stage_steps, failed, last_stage)
            pos_set_mover_key(q, seat, here)
            if found < 0:
                break
        if found == 1:
            for k in range(ends[j].n_steps):
                path[offset + k] = ends[j].steps[k]
            stage_steps[stage] = ends[j].n_steps
            break
    free(ends)
    return found


def _half_the_memory():
    """Half the machine's physical memory in bytes (3 GiB where it cannot be read)."""
    import os
    try:
        return max(1 << 30, os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2)
    except (AttributeError, ValueError, OSError):
        return 3 << 30


#: Memory the tables of one chain enumeration may hold by default, in bytes
#: (half the machine's memory): past it the outcomes are found in passes
#: (each keeping a share of them).
DEFAULT_CHAIN_MEMORY = _half_the_memory()
#: How many passes an enumeration may take at most (each keeps 1/N of the outcomes).
CHAIN_MAX_PASSES = N_PARTS


# The stages a chain or a remainder enumerates (RULES §4-5): their numbers and
# how many dice of each, and whether a stage that plays nothing ends it.
ctypedef struct ChainPlan:
    bint is_chain
    int n_stages
    uint8_t numbers[7]
    uint8_t counts[7]


cdef class ChainResult(EndSet):
    """Every distinct outcome of a chain or a remainder (backend object; see gulbara.chains)."""
    cdef ChainPlan plan
    cdef KeySet outcomes
    cdef readonly size_t table_peak_bytes  # the most bytes its tables held at once (with
                                           # max_ends set, at most max_ends *
                                           # CHAIN_BYTES_PER_END + CHAIN_BASE_BYTES)
    cdef readonly int passes               # passes it took (1 unless memory ran short)

    def __dealloc__(self):
        free(self.outcomes.dense)
        self.outcomes.dense = NULL

    cdef Py_ssize_t count(self) noexcept:
        return self.outcomes.size

    cdef Key96 key_at(self, Py_ssize_t i) noexcept nogil:
        cdef Key96 key
        key.lo = self.outcomes.dense[2 * i]
        key.hi = <uint32_t>self.outcomes.dense[2 * i + 1]
        return key

    @property
    def stages(self):
        """The stages as tuples of equal dice."""
        cdef const ChainPlan* plan = &self.plan
        return tuple([(plan.numbers[i],) * plan.counts[i] for i in range(plan.n_stages)])

    def tag(self, Py_ssize_t i):
        """(stop, number, dice played in that stage) of outcome ``i``."""
        self.check_index(i)
        cdef uint64_t tag = self.outcomes.dense[2 * i + 1] >> 32
        return (<int>(tag & 15), <int>((tag >> 4) & 15), <int>((tag >> 8) & 15))

    def fill(self, int8_t[:, ::1] boards, uint8_t[:, ::1] borne_off,
             int8_t[::1] stop, uint8_t[::1] number, uint8_t[::1] played):
        """Write every outcome into caller arrays (shapes N x 24, N x 2, N, N, N)."""
        cdef Py_ssize_t i, n = self.outcomes.size
        cdef int q, other = 1 - self.seat
        cdef Pos p
        cdef uint64_t tag
        if (boards.shape[0] != n or boards.shape[1] != 24 or borne_off.shape[0] != n
                or borne_off.shape[1] != 2 or stop.shape[0] != n or number.shape[0] != n
                or played.shape[0] != n):
            raise ValueError(f"fill needs arrays of shape ({n}, 24), ({n}, 2), ({n},) x 3")
        with nogil:
            for i in range(n):
                self.end_pos(i, &p)
                for q in range(1, 25):
                    boards[i, q - 1] = <int8_t>(p.cnt[0][q] - p.cnt[1][point_in_other_frame(q)])
                borne_off[i, 0] = p.off[0]
                borne_off[i, 1] = p.off[1]
                tag = self.outcomes.dense[2 * i + 1] >> 32
                stop[i] = <int8_t>(tag & 15)
                number[i] = <uint8_t>((tag >> 4) & 15)
                played[i] = <uint8_t>((tag >> 8) & 15)

    def __reduce__(self):
        """Pickles (and deep copies) carry the start, the stages and the outcomes."""
        cdef bytes outcomes = (<char*>self.outcomes.dense)[:table_bytes(self.outcomes.size)]
        return (_chain_result_from_state,
                (format_code(&self.base), self.seat, self.plan.is_chain,
                 bytes([self.plan.numbers[k] for k in range(self.plan.n_stages)]),
                 bytes([self.plan.counts[k] for k in range(self.plan.n_stages)]),
                 outcomes, self.table_peak_bytes, self.passes))

    def take(self, Py_ssize_t start, Py_ssize_t stop):
        """A new result holding outcomes ``start:stop`` (a chunk of this one)."""
        cdef Py_ssize_t n = self.outcomes.size
        start = max(0, min(start, n))
        stop = max(start, min(stop, n))
        cdef ChainResult part = self.like()
        part.outcomes.dense = <uint64_t*>malloc(table_bytes(stop - start + 1))
        if part.outcomes.dense == NULL:
            raise MemoryError("out of memory copying chain outcomes")
        memcpy(part.outcomes.dense, self.outcomes.dense + 2 * start, table_bytes(stop - start))
        part.outcomes.size = stop - start
        return part

    cdef ChainResult like(self):
        return new_result(&self.base, self.seat, &self.plan, self.table_peak_bytes, self.passes)

    def steps(self, Py_ssize_t i):
        """One canonical stage-by-stage play reaching outcome ``i``: a tuple of
        per-stage step tuples (stages after a stop are absent)."""
        self.check_index(i)
        cdef Key96 target
        cdef uint64_t tag = self.outcomes.dense[2 * i + 1] >> 32
        cdef Step path[7 * MAX_STAGE_DICE]
        cdef int stage_steps[7]
        cdef KeySet failed
        cdef Pos q = self.base
        cdef int found, k, offset = 0, last = 0
        target.lo = self.outcomes.dense[2 * i]
        target.hi = <uint32_t>self.outcomes.dense[2 * i + 1]
        if (tag & 15) == STOP_GAME_OVER:
            tag = GAME_OVER_TAG          # whichever stage ends the game (RULES §5.6)
        if keyset_init(&failed, 1024, NULL):
            raise MemoryError()
        with nogil:
            found = chain_recover(&q, self.seat, self.plan.numbers, self.plan.counts,
                                  self.plan.n_stages, self.plan.is_chain, 0, target, tag, path,
                                  stage_steps, &failed, &last)
        keyset_free(&failed)
        if found < 0:
            raise MemoryError("out of memory recovering the steps of a chain outcome")
        if found != 1:
            raise RuntimeError("could not recover the steps of a chain outcome")
        result = []
        for k in range(last + 1):
            result.append(tuple([(path[offset + j].frm, path[offset + j].die)
                                 for j in range(stage_steps[k])]))
            offset += stage_steps[k]
        return tuple(result)


cdef ChainResult new_result(const Pos* base, int seat, const ChainPlan* plan, size_t peak,
                            int passes):
    """A ChainResult of ``plan`` with no outcomes yet."""
    cdef ChainResult result = ChainResult.__new__(ChainResult)
    result.base = base[0]
    result.seat = seat
    result.plan = plan[0]
    result.table_peak_bytes = peak
    result.passes = passes
    keyset_clear(&result.outcomes, NULL)
    return result


def _chain_result_from_state(str code, int seat, bint is_chain, bytes numbers, bytes counts,
                             bytes outcomes, size_t peak, int passes):
    """A ChainResult from its pickled state (ChainResult.__reduce__)."""
    cdef ChainResult result
    cdef ChainPlan plan
    cdef Pos p
    cdef Py_ssize_t n = len(outcomes) // table_bytes(1), k
    if len(numbers) != len(counts) or not 1 <= len(numbers) <= 6 or len(outcomes) % table_bytes(1):
        raise ValueError("not the state of a chain result")
    read_code(code, &p)
    memset(&plan, 0, sizeof(plan))
    plan.is_chain = is_chain
    plan.n_stages = len(numbers)
    for k in range(plan.n_stages):
        plan.numbers[k] = numbers[k]
        plan.counts[k] = counts[k]
    result = new_result(&p, check_seat(seat), &plan, peak, passes)
    result.outcomes.dense = <uint64_t*>malloc(table_bytes(n + 1))
    if result.outcomes.dense == NULL:
        raise MemoryError("out of memory unpickling chain outcomes")
    memcpy(result.outcomes.dense, <const char*>outcomes, table_bytes(n))
    result.outcomes.size = n
    return result


cdef size_t chain_budget(Py_ssize_t max_ends) noexcept:
    """The bytes a chain's tables may hold: max_ends * CHAIN_BYTES_PER_END + CHAIN_BASE_BYTES."""
    cdef size_t per = BYTES_PER_HELD, base = BASE_BYTES
    if max_ends < 0:
        return base
    if <size_t>max_ends > (SIZE_MAX - base) // per:
        return SIZE_MAX
    return <size_t>max_ends * per + base


cdef class ChainRun:
    """One chain or remainder to enumerate, in one pass or several (backend
    object; see gulbara.chains). ``run(q, passes)`` enumerates it again,
    keeping the outcomes of pass ``q`` of ``passes`` (a power of 4 up to
    CHAIN_MAX_PASSES): together the passes give every outcome once, in the
    order of the one-pass result."""
    cdef Pos start
    cdef int seat
    cdef ChainPlan plan
    cdef int threads
    cdef Py_ssize_t max_held
    cdef size_t budget
    cdef readonly object max_ends

    def run(self, int q, int passes):
        """Pass ``q`` of ``passes``: a ChainResult, or EnumerationLimitError
        (past max_ends or the memory budget), KeyboardInterrupt (Ctrl-C)."""
        cdef Shared sh
        cdef int err, keep_lo, keep_hi
        cdef ChainResult result
        if passes < 1 or passes > N_PARTS or N_PARTS % passes or not 0 <= q < passes:
            raise ValueError(f"pass {q} of {passes}: passes must divide {N_PARTS}")
        keep_lo = q * (N_PARTS // passes)
        keep_hi = keep_lo + N_PARTS // passes
        sh.meter.held = 0
        sh.meter.peak = 0
        sh.meter.budget = self.budget
        sh.held = 0
        sh.max_held = self.max_held
        sh.err = CHAIN_OK
        interrupt_init(&sh.intr, POLL_EVERY, MAIN_THREAD)
        result = new_result(&self.start, self.seat, &self.plan, 0, passes)
        with nogil:
            err = chain_enumerate(&self.start, self.seat, self.plan.numbers, self.plan.counts,
                                  self.plan.n_stages, self.plan.is_chain, self.threads, keep_lo,
                                  keep_hi, &sh, &result.outcomes)
        result.table_peak_bytes = sh.meter.peak
        interrupt_raise(&sh.intr)
        if err == CHAIN_TOO_MANY:
            if self.max_ends is not None:
                raise EnumerationLimitError(
                    f"more than max_ends={self.max_ends:,} distinct positions held at once, "
                    f"or more memory than they are allowed ({CHAIN_BYTES_PER_END} bytes each); "
                    f"raise max_ends to allow more")
            raise EnumerationLimitError(
                f"the chain's tables need more than memory={self.budget:,} bytes "
                f"in {passes} pass(es)")
        if err:
            raise MemoryError("out of memory in a chain enumeration")
        result.outcomes.meter = NULL
        return result

    def __call__(self):
        """Every outcome: one pass, or as many as the memory budget needs (up to
        CHAIN_MAX_PASSES, each repeating the enumeration); with max_ends set,
        one pass, EnumerationLimitError past it."""
        cdef int passes = 1, q
        cdef Py_ssize_t total, at
        cdef ChainResult whole, part
        while True:
            try:
                if passes == 1:
                    return self.run(0, 1)
                parts = [self.run(q, passes) for q in range(passes)]
                break
            except EnumerationLimitError:
                if self.max_ends is not None or passes >= N_PARTS:
                    raise
                passes *= 4
        total = sum(len(p) for p in parts)
        whole = (<ChainResult>parts[0]).like()
        whole.outcomes.dense = <uint64_t*>malloc(table_bytes(total + 1))
        if whole.outcomes.dense == NULL:
            raise MemoryError("out of memory joining the passes of a chain enumeration")
        at = 0
        for part_object in parts:
            part = <ChainResult>part_object
            memcpy(whole.outcomes.dense + 2 * at, part.outcomes.dense,
                   table_bytes(part.outcomes.size))
            at += part.outcomes.size
            whole.table_peak_bytes = max(whole.table_peak_bytes, part.table_peak_bytes)
        whole.outcomes.size = total
        whole.passes = passes
        return whole


cdef int check_threads(object threads) except -1:
    if threads is None:
        return 1
    return checked_int(threads, "threads", 1, MAX_THREADS)


cdef ChainRun make_run(const Pos* p, int seat, list stages, bint is_chain, object max_ends,
                       object threads, object memory):
    cdef ChainRun run = ChainRun.__new__(ChainRun)
    cdef int k
    run.start = p[0]
    run.seat = seat
    run.plan.is_chain = is_chain
    run.plan.n_stages = len(stages)
    for k in range(run.plan.n_stages):
        run.plan.numbers[k] = stages[k][0]
        run.plan.counts[k] = stages[k][1]
    run.threads = check_threads(threads)
    run.max_ends = max_ends
    if max_ends is not None:
        run.max_held = checked_int(max_ends, "max_ends", 1, PY_SSIZE_T_MAX)
        run.budget = chain_budget(run.max_held)
    else:
        run.max_held = PY_SSIZE_T_MAX
        run.budget = checked_int(DEFAULT_CHAIN_MEMORY if memory is None else memory, "memory",
                                 BASE_BYTES, SIZE_MAX)
    return run


cdef list check_remainder_stages(object stages):
    """(number, count) pairs of a remainder, validated (RULES §5.3)."""
    cdef list pairs = []
    cdef int previous = 0
    try:
        items = list(stages)
    except TypeError:
        raise TypeError(f"stages must be a sequence of (number, count) pairs, "
                        f"not {type(stages).__name__}") from None
    if not 1 <= len(items) <= 6:
        raise InvalidDiceError(f"a remainder has 1 to 6 stages, got {len(items)}")
    for item in items:
        try:
            number, count = item
        except (TypeError, ValueError):
            raise InvalidDiceError(f"a remainder stage is a (number, count) pair, "
                                   f"got {item!r}") from None
        for value in (number, count):
            if isinstance(value, bool) or not hasattr(value, "__index__"):
                raise TypeError(f"a remainder stage's number and count are ints, got {item!r}")
        number = _index(number)
        count = _index(count)
        if not 1 <= number <= 6 or not 1 <= count <= MAX_STAGE_DICE:
            raise InvalidDiceError(f"a remainder stage is a number 1..6 and a count 1..4, "
                                   f"got {item!r}")
        if number <= previous:
            raise InvalidDiceError("remainder stages go in ascending order of number")
        previous = number
        pairs.append((number, count))
    return pairs


cdef Pos read_start(object code_or_position) except *:
    cdef Pos p
    if isinstance(code_or_position, Position):
        p = (<Position>code_or_position).pos
    else:
        read_code(code_or_position, &p)
    return p


def chain_run_raw(code_or_position, seat, first, max_ends=None, threads=None, memory=None):
    """A ChainRun for an escalating chain from ``first`` up to 6 (RULES §4.3-4.4)."""
    cdef Pos p = read_start(code_or_position)
    cdef int s = check_seat(seat)
    if isinstance(first, bool) or not hasattr(first, "__index__"):
        raise TypeError(f"first must be an int 1..6, not {type(first).__name__}")
    if not 1 <= _index(first) <= 6:
        raise InvalidDiceError(f"a chain starts at a number 1..6, got {first!r}")
    return make_run(&p, s, [(n, 4) for n in range(_index(first), 7)], True, max_ends, threads,
                    memory)


def remainder_run_raw(code_or_position, seat, stages, max_ends=None, threads=None, memory=None):
    """A ChainRun for a remainder's stages (RULES §5.3); ``stages`` as (number, count) pairs."""
    cdef Pos p = read_start(code_or_position)
    cdef int s = check_seat(seat)
    return make_run(&p, s, check_remainder_stages(stages), False, max_ends, threads, memory)


def chain_ends_raw(code_or_position, seat, first, max_ends=None, threads=None, memory=None):
    """Every outcome of an escalating chain from ``first`` up to 6 (RULES §4.3-4.4)."""
    return chain_run_raw(code_or_position, seat, first, max_ends, threads, memory)()


def remainder_ends_raw(code_or_position, seat, stages, max_ends=None, threads=None, memory=None):
    """Every outcome of a remainder's stages (RULES §5.3); ``stages`` as (number, count) pairs."""
    return remainder_run_raw(code_or_position, seat, stages, max_ends, threads, memory)()

