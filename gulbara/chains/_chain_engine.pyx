# cython: language_level=3
"""gulbara's whole-chain enumeration (RULES §4.3-4.4, §5), the engine under
``_chains``: every distinct outcome of a sequence of equal-dice stages, found
stage by stage with the stage machinery of ``_movegen`` in the hash sets of
``_keysets``, shared between threads, with no Python object and without the
GIL; escalating chains whose positions mostly cannot bear off are found by
decision diagrams instead (``_chain_dd``). ``chain_enumerate`` is declared in
``_chain_engine.pxd``; ``_chains`` wraps it for Python (and ``_chain_steps``
finds the steps of an outcome).
"""

from libc.stdint cimport uint8_t, uint32_t, uint64_t
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memcpy

from gulbara.core._bits cimport pop_top
from gulbara.core._masks cimport rotate12, open_from, movable
from gulbara.core._interrupt cimport interrupted
from gulbara.core._keys cimport (DELTA_LO, DELTA_HI, LANDS, key_count, key_outside, key_occupancy,
                            key_pop_step, die_rows, DieRows, key_hash, mix64, pos_mover_key,
                            pos_set_mover_key)
from gulbara.chains._status cimport CHAIN_OK, CHAIN_NO_MEMORY, CHAIN_TOO_MANY, CHAIN_INTERRUPTED
from gulbara.chains._atomics cimport atomic_add, atomic_next
from gulbara.chains._threads cimport run_threads
from gulbara.chains._memory cimport big_block, Meter, table_resize, meter_take, meter_sub
from gulbara.chains._shared cimport Shared, shared_fail
from gulbara.chains._keysets cimport (PART_BITS, N_PARTS, PART_SHIFT, EMPTY_K1, LOW32, KeySet,
                                      PartSet, InsertQueue, LocalSet, localset_init, localset_free,
                                      localset_add, localset_reserve, localset_flush, localset_full,
                                      localset_push, queue_keeps, KeyRun, keyrun_clear, keyrun_free,
                                      keyrun_release, KeyRing, ring_add_max, ring_drain_max,
                                      keyrun_drop_present, localset_flush_runs, table_bytes,
                                      keyset_clear, keyset_init, keyset_free, keyset_add,
                                      keyset_add_max, keyset_init_pooled, pool_release, TablePool,
                                      keyset_add_keyed, keyset_compact, SlotCursor, cursor_init,
                                      cursor_next, partset_clear, partset_size, keyset_release,
                                      partset_release, merge_into, queue_init, queue_flush,
                                      queue_push, queue_push_hashed)
from gulbara.chains._key_sort cimport sort_part, sort_dense
from gulbara.core._types cimport Pos, Step, Key96, StageEnd, MAX_STAGE_DICE, BOARD_BITS, STAGE_CAPACITY
from gulbara.core._movegen cimport stage_generate, stage_playable
from gulbara.chains._chain_dd_out cimport chain_by_diagram, chain_count_by_diagram
from gulbara.chains._buckets cimport (Buckets, BUCKET_BYTES, BUCKET_BLOCK, BUCKETS_PER_TAKE, buckets_init,
                               buckets_free, buckets_put, buckets_close, buckets_sort)

cdef enum:
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

# How a call goes about its work is its plan (ChainPlan, _chain_engine.pxd),
# read once per call: stages whose frontier holds fewer positions than its
# threaded_frontier run on the calling thread alone (tests lower it to share
# small stages too); its other sizes are below.
cdef ChainPlan default_plan() noexcept nogil:
    """The plan every enumeration takes unless told (gulbara.chains.ChainPlan()):
    the sizes measured best on the suites (docs/dev/performance.md)."""
    cdef ChainPlan plan
    plan.diagrams = True
    plan.small_chain = 30000
    plan.diagram_contact = 3
    plan.threaded_frontier = 2048
    plan.bucket_frontier = 4096
    plan.layered_frontier = 4096
    plan.layered_duplication = 10
    plan.layered_probe = 1024
    plan.turn_duplication = 12
    return plan


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


# The positions of a big stage that cannot bear off and play all its dice
# are put into buckets (_buckets.pyx) and expanded bucket by bucket (a thread
# takes whole buckets), their ends merged first in a small table that stays in
# the core's cache (LocalSet); only the distinct ones go on to the big tables.

# Stages of fewer frontier positions than the plan's bucket_frontier are
# expanded as they are read, and of fewer than its layered_frontier are not
# layered (tests lower both to take every path on small chains). A stage is
# expanded a step at a time (chain_layers for every group and bucket) when the
# stage before made more than layered_duplication ends per distinct position
# it left, and so are the stages after it: then the positions of a stage
# share most of their ends, and merging after every step makes fewer. A
# bucketed stage that starts whole play by whole play measures the same ratio
# on its own buckets as it goes (their ends meet in the LocalSet): a thread
# turns to layers for the rest of its buckets once its first buckets
# (layered_probe positions, or a sixteenth of the stage's frontier if more)
# made more than turn_duplication ends per distinct end. The stage before is
# a poor guide when it was small or played a die with fewer ways to merge.
# (Measured on the two suites: layers break even at about 8 to 12 ends per
# distinct end, and save a third to a half of a stage's time past 15.)
#
# Escalating chains and remainders are first tried as decision diagrams
# (_chain_dd.pyx: while no position can bear off) where the plan's diagrams
# allow it: those that hold at most small_chain positions at once go stage by
# stage (small_try), and so do those with more than diagram_contact of the
# opponent's points in the mover's way (points_in_the_way). What an
# enumeration took is counted in its Shared's stats.


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
    Buckets* buckets          # where full plays that cannot bear off wait (NULL: expanded as read)
    Py_ssize_t turn_duplication   # the plan's: a probing thread turns to layers past it


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
    info.buckets = NULL
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
    DieRows rows              # the die's step rows
    int depth                 # steps every play being searched makes
    uint64_t leaf_tag
    int leaf_table            # 1: the next stage's frontier, 2: the outcomes
    InsertQueue queue
    LocalSet* local           # open_dfs' plays merge here first (NULL: queued at once)


cdef inline void leaf_push(GroupSearch* st, uint64_t lo, uint64_t hi, int table) noexcept nogil:
    """Queue a play's end for ``table``, merged first in the search's
    LocalSet when it has one (then ``table`` is always the search's leaf table)."""
    cdef uint64_t h = key_hash(lo, hi)
    if st.local == NULL or st.local.slots == NULL:
        queue_push_hashed(&st.queue, lo, hi, table, h)
        return
    st.queue.pushed += 1
    if queue_keeps(&st.queue, table, h):
        localset_push(st.local, &st.queue, table, lo, hi, h)


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
        child_mine = key_pop_step(&sources, mine, klo, khi, &st.rows, &frm, &bit, &child_lo,
                                  &child_hi)
        if child_mine == 0:                                        # the last checker off
            st.queue.over_seen = True
            queue_push(&st.queue, child_lo, child_hi | game_over_k1(), 2)
        elif depth + 1 == st.depth:
            queue_push(&st.queue, child_lo, child_hi | st.leaf_tag, st.leaf_table)
        else:
            key_dfs(st, child_lo, child_hi, child_mine, depth + 1, frm)


cdef void open_dfs(GroupSearch* st, uint32_t mask, uint64_t lo, uint64_t hi, int depth,
                   uint32_t allowed) noexcept nogil:
    """The plays of one position that cannot bear off in this stage."""
    cdef uint32_t sources = mask & st.open_d & allowed, bit, child
    cdef uint64_t end_lo, child_lo, child_hi
    cdef int frm
    if depth + 1 == st.depth:
        while sources:
            frm = pop_top(&sources)
            end_lo = lo + st.rows.dlo[frm]
            leaf_push(st, end_lo, (hi + st.rows.dhi[frm]) | st.leaf_tag, st.leaf_table)
        return
    while sources:
        child = key_pop_step(&sources, mask, lo, hi, &st.rows, &frm, &bit, &child_lo, &child_hi)
        open_dfs(st, child, child_lo, child_hi, depth + 1, (bit << 1) - 1)


cdef void search_setup(GroupSearch* st, const StageInfo* info) noexcept nogil:
    """Point a search at a stage (its die, the opponent's mask)."""
    st.blocked = info.blocked
    st.die = info.number
    st.open_d = open_from(info.blocked, info.number)
    die_rows(info.number, &st.rows)


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
    LocalSet local            # where a bucket's ends merge first (expand_buckets)
    KeyRun next_runs[N_PARTS]  # whole buckets' ends for the next frontier, by part
    KeyRun out_runs[N_PARTS]   # and for the outcomes
    TablePool pool            # the tables of its buckets' layers, kept for the next ones
    bint polls                # this is the calling thread's share: it looks for signals
    Py_ssize_t slot           # its reserved slots of the stage's buckets not yet used:
    Py_ssize_t slot_end       # slot <= i < slot_end (buckets_put)
    Py_ssize_t bucket_positions   # the positions of its buckets so far in the stage
    Py_ssize_t bucket_ends        # and the ends they made (as far as its LocalSet held them)
    bint layered                  # its buckets are expanded a step at a time (chain_layers)
    bint probing                  # it is not, and measures whether it should be
    Py_ssize_t probe_positions    # on this many bucket positions:
    Py_ssize_t whole_positions    # of its buckets expanded whole play by whole play so far,
    Py_ssize_t whole_made         # their positions, the ends made (pushed)
    Py_ssize_t whole_distinct     # and the distinct ones among them


cdef inline void worker_tick(Worker* w) noexcept nogil:
    """One position read; on the calling thread, stop the enumeration once a
    signal handler raised (Ctrl-C)."""
    if w.polls and interrupted(&w.st.queue.shared.intr, 1):
        shared_fail(w.st.queue.shared, CHAIN_INTERRUPTED)


cdef inline bint worker_next(Worker* w, SlotCursor* c, Py_ssize_t* i, uint64_t* klo,
                             uint64_t* khi) noexcept nogil:
    """The next position of the cursor's table (False when there is none): its slot into
    ``*i``, its key, the tag cut off, into ``*klo``, ``*khi``; it is read (worker_tick)."""
    if not cursor_next(c, i):
        return False
    worker_tick(w)
    klo[0] = c.slots[2 * i[0]]
    khi[0] = c.slots[2 * i[0] + 1] & LOW32
    return True


cdef enum:
    SMALL_LAYER = 1 << 16     # step layers of fewer slots are inserted into directly, not queued


cdef int chain_layers(Worker* w, KeySet* layer, const StageInfo* info, int depth) noexcept nogil:
    """Expand positions that play ``depth`` dice of the stage, one step at a
    time, merging equal positions after every step. Takes ownership of
    ``layer`` (its positions counted as held)."""
    cdef KeySet following
    cdef InsertQueue* queue = &w.st.queue
    cdef Shared* sh = queue.shared
    cdef Py_ssize_t i
    cdef int k, frm, err, added
    cdef int die = info.number
    cdef uint32_t sources, mine
    cdef uint64_t klo, khi, child_lo, child_hi
    cdef const uint64_t* dlo = DELTA_LO[die]
    cdef const uint64_t* dhi = DELTA_HI[die]
    cdef bint over
    cdef uint64_t over_tag = game_over_k1()
    cdef uint64_t done_tag = info.leaf_tags[depth]
    cdef uint8_t leaf_table = <uint8_t>info.leaf_tables[depth]
    cdef uint32_t open_d = open_from(info.blocked, die)
    cdef KeyRing ring
    cdef SlotCursor cursor
    # (a bucket's layers, from expand_buckets: their tables go on to the next
    # layers and buckets, through the worker's pool)
    cdef bint pooled = w.st.local != NULL
    for k in range(depth):
        if k + 1 < depth and pooled:
            err = keyset_init_pooled(&following, layer.size, layer.meter, &w.pool)
        elif k + 1 < depth:
            err = keyset_init(&following, layer.size, layer.meter)
        if k + 1 < depth:
            if err != CHAIN_OK:
                keyset_release(layer, sh)
                shared_fail(sh, err)
                return err
        queue.layer = &following if k + 1 < depth else NULL
        ring.waiting = 0
        ring.at = 0                 # (an empty ring)
        cursor_init(&cursor, layer)
        while worker_next(w, &cursor, &i, &klo, &khi):
            # Work on the packed key itself: a step is one subtraction and one
            # addition of nibble units; no counts array, no undo.
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
                elif k + 1 < depth and following.mask < SMALL_LAYER:
                    # a small layer stays in the cache: inserted (nearly) at once
                    added = ring_add_max(&ring, &following, child_lo,
                                         child_hi | ((<uint64_t>frm - 1) << 32),
                                         key_hash(child_lo, child_hi))
                    if added < 0:
                        queue.err = added
                        shared_fail(sh, added)
                        break
                    queue.pushed += 1
                    queue.added += added
                elif k + 1 < depth:
                    queue_push(queue, child_lo, child_hi | ((<uint64_t>frm - 1) << 32), 0)
                else:
                    leaf_push(&w.st, child_lo, child_hi | done_tag, leaf_table)
            if queue.err:
                break
        if ring.waiting and queue.err == CHAIN_OK:
            err = ring_drain_max(&ring, &following, &queue.added)
            if err < 0:
                queue.err = err
                shared_fail(sh, err)
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
    cdef SlotCursor cursor
    search_plays(st, info, steps)
    cursor_init(&cursor, group)
    while worker_next(w, &cursor, &i, &klo, &khi):
        key_dfs(st, klo, khi, key_occupancy(klo, khi), 0, 24)
        if st.queue.err != CHAIN_OK:
            break
    queue_flush(&st.queue)
    keyset_release(group, st.queue.shared)
    return st.queue.err


cdef inline void scan_key(Worker* w, const StageInfo* info, uint64_t klo,
                          uint64_t khi) noexcept nogil:
    """Read one position of a stage's frontier. A position that cannot bear
    off in the stage and plays all its dice waits in the stage's buckets
    (expand_buckets), or is expanded at once by open_dfs; the others are
    sorted by how many of the stage's dice they can play (RULES §3.4) into
    the thread's groups, expanded by expand_groups (key_dfs, or chain_layers
    for big groups). A position that plays no die stops an escalating chain
    (RULES §5.2, §4.4) or loses the dice of a remainder stage (RULES §5.3)."""
    cdef GroupSearch* st = &w.st
    cdef InsertQueue* queue = &st.queue
    cdef Key96 key
    cdef bint no_bear_off
    cdef int playable, added
    cdef int n = info.number, count = info.count
    cdef uint64_t tag
    key.lo = klo
    key.hi = <uint32_t>khi
    no_bear_off = key_outside(key.lo, key.hi) >= count
    if no_bear_off:
        playable = max_steps_no_bear_off(key_occupancy(key.lo, key.hi), key.lo, key.hi,
                                         info.blocked, n, count)
    else:
        playable = stage_playable(key, info.blocked, n, count)
    if playable == count and no_bear_off and info.buckets != NULL:
        buckets_put(info.buckets, &w.slot, &w.slot_end, key.lo, key.hi)
    elif playable > 0 and no_bear_off and not info.layered:
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


cdef void scan_part(Worker* w, const KeySet* part, const KeyRun* runs, int n_runs,
                    const StageInfo* info) noexcept nogil:
    """Read one part of a stage's frontier (scan_key): its table and its
    ``n_runs`` runs."""
    cdef Py_ssize_t i
    cdef int r
    cdef uint64_t klo, khi
    cdef SlotCursor cursor
    if w.st.queue.err != CHAIN_OK:
        return
    cursor_init(&cursor, part)
    while worker_next(w, &cursor, &i, &klo, &khi):
        scan_key(w, info, klo, khi)
        if w.st.queue.err != CHAIN_OK:
            return
    for r in range(n_runs):
        for i in range(runs[r * N_PARTS].n):
            worker_tick(w)
            scan_key(w, info, runs[r * N_PARTS].keys[2 * i],
                     runs[r * N_PARTS].keys[2 * i + 1] & LOW32)
            if w.st.queue.err != CHAIN_OK:
                return


cdef void expand_buckets(Worker* w, const StageInfo* info, int first, int last) noexcept nogil:
    """Expand the positions of buckets ``first <= k < last``, each bucket's
    ends merged in the thread's LocalSet before they are queued: by open_dfs,
    or once the thread is layered a step at a time (chain_layers on the bucket)."""
    cdef GroupSearch* st = &w.st
    cdef const Buckets* b = info.buckets
    cdef Py_ssize_t i, pushed
    cdef uint64_t klo, khi
    cdef int k, added, err, r
    cdef KeySet layer
    if st.queue.err != CHAIN_OK:
        return
    search_plays(st, info, info.count)
    st.local = &w.local
    for k in range(first, last):
        if w.local.slots != NULL and w.bucket_positions > 0:
            # room for the ends this bucket is likely to make, at the ends per
            # position of the thread's buckets so far in the stage
            localset_reserve(&w.local, (b.start[k + 1] - b.start[k]) * w.bucket_ends
                             // w.bucket_positions * 5 // 4)
        w.bucket_positions += b.start[k + 1] - b.start[k]
        if w.layered and b.start[k + 1] > b.start[k]:
            err = keyset_init_pooled(&layer, b.start[k + 1] - b.start[k],
                                     &st.queue.shared.meter, &w.pool)
            added = 0
            for i in range(b.start[k], b.start[k + 1]):
                if err == CHAIN_OK:
                    r = keyset_add(&layer, b.sorted[2 * i], b.sorted[2 * i + 1])
                    if r < 0:
                        err = r
                    else:
                        added += r
            # the bucket's positions are held in the layer now, not in the buckets
            atomic_add(&st.queue.shared.held, added - (b.start[k + 1] - b.start[k]))
            if err < 0:
                keyset_release(&layer, st.queue.shared)
                st.queue.err = err
                shared_fail(st.queue.shared, err)
                break
            chain_layers(w, &layer, info, info.count)
        else:
            pushed = st.queue.pushed
            for i in range(b.start[k], b.start[k + 1]):
                worker_tick(w)
                klo = b.sorted[2 * i]
                khi = b.sorted[2 * i + 1]
                open_dfs(st, key_occupancy(klo, khi), klo, khi, 0, BOARD_BITS)
            atomic_add(&st.queue.shared.held, b.start[k] - b.start[k + 1])
            if w.probing and w.local.slots != NULL:
                # (a guide for the work only: a bucket whose ends outgrew the
                # LocalSet counts those still in it)
                w.whole_positions += b.start[k + 1] - b.start[k]
                w.whole_made += st.queue.pushed - pushed
                w.whole_distinct += w.local.n + w.local.ring.waiting
                if w.whole_positions >= w.probe_positions:
                    w.probing = False
                    w.layered = w.whole_made > info.turn_duplication * w.whole_distinct
        if w.local.slots != NULL:
            w.bucket_ends += w.local.n + w.local.ring.waiting
            # (a whole bucket's ends: no other bucket makes them, RULES §2.1)
            localset_flush_runs(&w.local, &st.queue, st.leaf_table,
                                &w.out_runs[0] if st.leaf_table == 2 else &w.next_runs[0])
        if st.queue.err != CHAIN_OK:
            break
    st.local = NULL


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


cdef void worker_drop_scratch(Worker* w, Meter* meter) noexcept nogil:
    """Free what a worker kept for the buckets of a stage (its LocalSet and
    the tables in its pool), so that the stages after have its memory."""
    localset_free(&w.local)
    pool_release(&w.pool, meter)


cdef void workers_release(Worker* workers, int n_workers, Shared* sh) noexcept nogil:
    cdef int t, k
    for t in range(n_workers):
        partset_release(&workers[t].next, sh)
        partset_release(&workers[t].out, sh)
        for k in range(MAX_STAGE_DICE + 1):
            keyset_release(&workers[t].groups[k], sh)
        runs_release(workers[t].next_runs, N_PARTS, sh)
        runs_release(workers[t].out_runs, N_PARTS, sh)
        worker_drop_scratch(&workers[t], &sh.meter)


cdef enum:
    TASK_SCAN = 0             # read the frontier's parts (scan_part), each thread its worker
    TASK_GROUPS = 1           # expand the workers' groups (expand_groups)
    TASK_MERGE = 2            # merge the workers' next frontiers, part by part
    TASK_COLLECT = 3          # merge, compact and sort the workers' outcomes, part by part
    TASK_BUCKETS = 4          # expand the sorted buckets (expand_buckets), each thread its worker


# One step of an enumeration shared between threads: each thread takes the
# next part (or worker) from a shared counter until none is left.
ctypedef struct Task:
    int kind
    int next                  # the next part or worker to take (atomic)
    Worker* workers
    int n_workers
    PartSet* parts            # the frontier (TASK_SCAN), or the parts merged into
    KeyRun* runs              # the frontier's runs: runs[t * N_PARTS + p], t < n_run_sets
    int n_run_sets
    const StageInfo* info
    Shared* sh
    int part_bits             # the hash bits that chose the parts (TASK_COLLECT)


cdef inline void task_init(Task* task, Worker* workers, int n_workers, PartSet* parts,
                           Shared* sh) noexcept nogil:
    """A task over ``workers`` and ``parts``, with no runs, no stage and no part bits yet."""
    task[0] = Task(kind=0, next=0, workers=workers, n_workers=n_workers, parts=parts, runs=NULL,
                   n_run_sets=0, info=NULL, sh=sh, part_bits=0)


cdef void task_collect_part(Task* task, int p) noexcept nogil:
    """Part ``p`` of the outcomes: the workers' tables merged, their runs (less
    what the tables hold) added, the keys dense and sorted by hash."""
    cdef KeySet* part = &task.parts.part[p]
    cdef KeyRun* run
    cdef Py_ssize_t extra = 0
    cdef size_t old_bytes
    cdef uint64_t* dense
    cdef int err, t
    merge_part(part, task.workers, task.n_workers, p, True, task.sh)
    for t in range(task.n_workers):
        run = &task.workers[t].out_runs[p]
        atomic_add(&task.sh.held, -keyrun_drop_present(run, part))
        extra += run.n
    keyset_compact(part)
    if extra:
        old_bytes = table_bytes(part.size + 1) if part.dense != NULL else 0
        dense = <uint64_t*>table_resize(&task.sh.meter, part.dense, old_bytes,
                                        table_bytes(part.size + extra + 1), &err)
        if dense == NULL:
            shared_fail(task.sh, err)
            return
        part.dense = dense
        for t in range(task.n_workers):
            run = &task.workers[t].out_runs[p]
            if run.n:
                memcpy(part.dense + 2 * part.size, run.keys, table_bytes(run.n))
                part.size += run.n
            keyrun_free(run)                      # (its keys are the part's now)
    err = sort_part(part.dense, part.size, task.part_bits, &task.sh.meter)
    if err != CHAIN_OK:
        shared_fail(task.sh, err)


cdef void merge_runs(Task* task, int p) noexcept nogil:
    """After part ``p`` of the next frontier is merged: the workers' runs of
    part ``p``, less the keys the merged table holds, become the frontier's."""
    cdef KeyRun* run
    cdef int t
    for t in range(task.n_workers):
        run = &task.workers[t].next_runs[p]
        atomic_add(&task.sh.held, -keyrun_drop_present(run, &task.parts.part[p]))
        task.runs[t * N_PARTS + p] = run[0]
        keyrun_clear(run, run.meter)


cdef Py_ssize_t runs_size(const KeyRun* runs, int n) noexcept nogil:
    cdef Py_ssize_t total = 0
    cdef int i
    for i in range(n):
        total += runs[i].n
    return total


cdef void runs_release(KeyRun* runs, int n, Shared* sh) noexcept nogil:
    cdef int i
    for i in range(n):
        keyrun_release(&runs[i], sh)


cdef void run_task(void* arg, int t) noexcept nogil:
    """One thread's share of a task; thread 0 (the caller's) looks for signals."""
    cdef Task* task = <Task*>arg
    cdef int p, first
    cdef int n_items = task.n_workers if task.kind == TASK_GROUPS else N_PARTS
    cdef int n_buckets = 0
    if task.kind == TASK_BUCKETS:
        n_buckets = 1 << task.info.buckets.bits
        n_items = (n_buckets + BUCKETS_PER_TAKE - 1) // BUCKETS_PER_TAKE
    if task.kind == TASK_SCAN or task.kind == TASK_BUCKETS:
        task.workers[t].polls = t == 0
    while True:                  # the parts (for TASK_GROUPS: the workers) one at a time
        p = atomic_next(&task.next)
        if p >= n_items:
            break
        if task.kind == TASK_SCAN:
            scan_part(&task.workers[t], &task.parts.part[p], task.runs + p, task.n_run_sets,
                      task.info)
        elif task.kind == TASK_GROUPS:
            task.workers[p].polls = t == 0
            expand_groups(&task.workers[p], task.info)
        elif task.kind == TASK_BUCKETS:
            first = p * BUCKETS_PER_TAKE
            expand_buckets(&task.workers[t], task.info, first,
                           min(first + BUCKETS_PER_TAKE, n_buckets))
        elif task.kind == TASK_MERGE:
            merge_part(&task.parts.part[p], task.workers, task.n_workers, p, False, task.sh)
            merge_runs(task, p)
        else:
            task_collect_part(task, p)
    if task.kind == TASK_SCAN or task.kind == TASK_BUCKETS:
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
    cdef Py_ssize_t n = 0, at = 0
    cdef Task task
    task_init(&task, workers, n_workers, parts, sh)
    task.part_bits = part_bits
    run_shared(&task, TASK_COLLECT, threads)
    if sh.err != CHAIN_OK:
        return sh.err
    n = partset_size(parts)
    keyset_clear(result, &sh.meter)
    if meter_take(&sh.meter, table_bytes(n + 1)) != CHAIN_OK:
        return CHAIN_TOO_MANY
    result.dense = <uint64_t*>big_block(table_bytes(n + 1))
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
    retag_game_over(result.dense, n, over_tag)
    return CHAIN_OK


cdef int points_in_the_way(const Pos* start, int seat) noexcept nogil:
    """The opponent's points outside the mover's home board and below its rearmost
    checker (in the mover's numbering): where there are many, a chain's sets of
    positions are irregular and their diagrams big (the mid-game 1-1 suite: 4 to 7
    such points, its diagrams two to three times slower than stage by stage)."""
    cdef uint32_t mine = start.occ[seat], theirs = rotate12(start.occ[1 - seat])
    cdef int top = 0, p, count = 0
    for p in range(1, 25):
        if (mine >> (p - 1)) & 1:
            top = p
    for p in range(7, top):
        count += (theirs >> (p - 1)) & 1
    return count


cdef inline bint goes_by_diagram(const Pos* start, int seat, Py_ssize_t max_held,
                                 const ChainPlan* plan) noexcept nogil:
    """Whether a chain or remainder past the plan's small_chain positions goes by
    decision diagram (its diagrams on, a bound above small_chain, no more points
    in the way than its diagram_contact)."""
    return (plan.diagrams and max_held > plan.small_chain
            and points_in_the_way(start, seat) <= plan.diagram_contact)


cdef int small_try(const Pos* start, int seat, const uint8_t* numbers, const uint8_t* counts,
                   int n_stages, bint is_chain, int threads, int keep_lo, int keep_hi,
                   const ChainPlan* plan, Shared* sh, KeySet* result) noexcept nogil:
    """The first try of a chain that may go by diagram: stage by stage while it
    holds at most the plan's small_chain positions (a diagram costs more than a
    small chain). Its result; on CHAIN_TOO_MANY everything it held is freed and
    ``sh`` is ready for the diagram."""
    cdef Py_ssize_t max_held = sh.max_held
    cdef int err
    sh.stats.small_tries += 1
    sh.max_held = plan.small_chain
    err = enumerate_once(start, seat, numbers, counts, n_stages, is_chain, threads, keep_lo,
                         keep_hi, False, plan, sh, result)
    sh.max_held = max_held
    if err == CHAIN_TOO_MANY:
        sh.err = CHAIN_OK
        sh.held = 0
    return err


cdef int chain_enumerate(const Pos* start, int seat, const uint8_t* numbers,
                         const uint8_t* counts, int n_stages, bint is_chain, int threads,
                         int keep_lo, int keep_hi, bint may_diagram, const ChainPlan* plan,
                         Shared* sh, KeySet* result) noexcept nogil:
    """Enumerate every distinct outcome of a sequence of equal-dice stages
    (enumerate_once) as ``plan`` says: stage by stage, or, where ``may_diagram``
    and goes_by_diagram, stage by stage up to the plan's small_chain positions
    (small_try) and past that from its start again by decision diagram where one
    applies. (A caller that already knows the diagram does not apply, from
    chain_count_enumerate's -1, passes ``may_diagram`` false.) The outcomes do
    not depend on the plan, only the time taken."""
    cdef int err
    cdef ChainPlan local = plan[0]        # (read once: the threads share this copy)
    if not may_diagram or not goes_by_diagram(start, seat, sh.max_held, &local):
        return enumerate_once(start, seat, numbers, counts, n_stages, is_chain, threads, keep_lo,
                              keep_hi, False, &local, sh, result)
    err = small_try(start, seat, numbers, counts, n_stages, is_chain, threads, keep_lo, keep_hi,
                    &local, sh, result)
    if err != CHAIN_TOO_MANY:
        return err
    return enumerate_once(start, seat, numbers, counts, n_stages, is_chain, threads, keep_lo,
                          keep_hi, True, &local, sh, result)


cdef Py_ssize_t chain_count_enumerate(const Pos* start, int seat, const uint8_t* numbers,
                                      const uint8_t* counts, int n_stages, int threads,
                                      const ChainPlan* plan, Shared* sh) noexcept nogil:
    """How many outcomes an escalating chain has, for a chain chain_enumerate would
    take by decision diagram under ``plan``: counted on the diagram, none written (a
    chain that fits the plan's small_chain positions is enumerated and its outcomes
    counted). -1 where it would go stage by stage (the caller counts its outcomes),
    -2 on a failure (in ``sh.err``)."""
    cdef KeySet result
    cdef Py_ssize_t n
    cdef int err
    cdef ChainPlan local = plan[0]
    if not goes_by_diagram(start, seat, sh.max_held, &local):
        return -1
    keyset_clear(&result, &sh.meter)
    err = small_try(start, seat, numbers, counts, n_stages, True, threads, 0, N_PARTS, &local,
                    sh, &result)
    if err == CHAIN_OK:
        n = result.size
        keyset_free(&result)
        return n
    if err != CHAIN_TOO_MANY:
        return -2
    n = chain_count_by_diagram(start, seat, numbers, counts, n_stages,
                               rotate12(start.occ[1 - seat]), threads, sh)
    sh.stats.diagram_chains += n >= 0
    return n


cdef int enumerate_once(const Pos* start, int seat, const uint8_t* numbers,
                        const uint8_t* counts, int n_stages, bint is_chain, int threads,
                        int keep_lo, int keep_hi, bint diagram, const ChainPlan* plan,
                        Shared* sh, KeySet* result) noexcept nogil:
    """Enumerate every distinct outcome of a sequence of equal-dice stages, by
    decision diagram if ``diagram`` and one applies, else stage by stage, each
    stage shared between the threads, bucketed and layered as ``plan`` says.

    ``is_chain``: an escalating chain (RULES §4.3-4.4: the chain stops at the
    first stage not played in full); otherwise a remainder (RULES §5.3: dice
    that cannot be played are lost and play goes on with the next stage).
    Only the outcomes of parts ``keep_lo <= p < keep_hi`` are kept (a pass).
    They go into ``result`` as dense (mover key, tag) pairs, in part order and
    by hash within a part. ``threads`` threads share each big stage's work.
    ``sh.max_held`` bounds the distinct positions held at once, in every
    table alive (CHAIN_TOO_MANY past it); every table's bytes are counted
    in ``sh.meter``, held to its budget. Everything is freed on failure.
    What it took is counted in ``sh.stats``.
    """
    cdef Worker* workers = <Worker*>calloc(threads, sizeof(Worker))
    cdef PartSet* frontier = <PartSet*>malloc(sizeof(PartSet))
    cdef KeyRun* frontier_runs = <KeyRun*>calloc(threads * N_PARTS, sizeof(KeyRun))
    cdef StageInfo info
    cdef Buckets buckets
    cdef Task task
    cdef int stage, t, p, k, err = CHAIN_OK, active
    cdef bint layered = False, bucketing, bucketed, by_diagram
    cdef uint64_t over_tag = 0, h
    cdef Key96 key
    cdef uint32_t blocked = rotate12(start.occ[1 - seat])
    cdef Py_ssize_t fsize, room, made = 0, distinct = 0
    cdef KeySet* part
    cdef int part_mask = N_PARTS - 1 if threads > 1 else 0
    # the plan's sizes, read once
    cdef Py_ssize_t threaded_frontier = plan.threaded_frontier
    cdef Py_ssize_t bucket_frontier = plan.bucket_frontier
    cdef Py_ssize_t layered_frontier = plan.layered_frontier
    cdef Py_ssize_t layered_duplication = plan.layered_duplication
    cdef Py_ssize_t layered_probe = plan.layered_probe
    cdef Py_ssize_t turn_duplication = plan.turn_duplication
    keyset_clear(result, &sh.meter)
    task_init(&task, workers, threads, frontier, sh)
    task.runs = frontier_runs
    task.n_run_sets = threads
    if workers == NULL or frontier == NULL or frontier_runs == NULL:
        free(workers)
        free(frontier)
        free(frontier_runs)
        return CHAIN_NO_MEMORY
    partset_clear(frontier, &sh.meter)
    for t in range(threads * N_PARTS):
        keyrun_clear(&frontier_runs[t], &sh.meter)
    for t in range(threads):
        partset_clear(&workers[t].next, &sh.meter)
        partset_clear(&workers[t].out, &sh.meter)
        for p in range(N_PARTS):
            keyrun_clear(&workers[t].next_runs[p], &sh.meter)
            keyrun_clear(&workers[t].out_runs[p], &sh.meter)
        for k in range(MAX_STAGE_DICE + 1):
            keyset_clear(&workers[t].groups[k], &sh.meter)
        workers[t].polls = t == 0
        queue_init(&workers[t].st.queue, sh, &workers[t].next, &workers[t].out, keep_lo, keep_hi,
                   part_mask)
    by_diagram = False
    if diagram:
        by_diagram = chain_by_diagram(start, seat, numbers, counts, n_stages, is_chain, blocked,
                                      threads, threaded_frontier, keep_lo, keep_hi, sh,
                                      result) >= 0
        sh.stats.diagram_chains += by_diagram and sh.err == CHAIN_OK
    key = pos_mover_key(start, seat)
    h = key_hash(key.lo, key.hi)
    if not by_diagram:
        err = keyset_add_keyed(&frontier.part[(h >> PART_SHIFT) & part_mask], key.lo, key.hi,
                               h, EMPTY_K1)
        if err < 0:
            shared_fail(sh, err)
        else:
            atomic_add(&sh.held, 1)
    for stage in range(0 if by_diagram else n_stages):
        if sh.err != CHAIN_OK:
            break
        stage_info_set(&info, stage, n_stages, numbers[stage], counts[stage], is_chain, blocked)
        info.turn_duplication = turn_duplication
        fsize = partset_size(frontier) + runs_size(frontier_runs, threads * N_PARTS)
        # (once layered, the stages after stay so: a layered stage's ends made
        # count its steps' positions, not the ends the whole plays would make)
        layered = (fsize >= layered_frontier and distinct > 0
                   and (layered or made > layered_duplication * distinct))
        info.layered = layered
        sh.stats.stages_layered += layered
        active = threads if fsize >= threaded_frontier else 1
        bucketing = fsize >= bucket_frontier and info.number > 1
        for t in range(active):
            search_setup(&workers[t].st, &info)
            workers[t].st.queue.pushed = 0
            # The next frontier is usually about as big as this one: size its
            # parts for that, rather than double them from the smallest.
            # (the last stage's ends are outcomes: its outcome parts, likewise)
            # (not when the stage is bucketed: the buckets' ends go to runs)
            room = 0 if bucketing else fsize // ((part_mask + 1) * active)
            for p in range(part_mask + 1):
                part = (&workers[t].out.part[p] if info.last_stage
                        else &workers[t].next.part[p])
                if room > 64 and part.slots == NULL and sh.err == CHAIN_OK:
                    err = keyset_init(part, room, &sh.meter)
                    if err != CHAIN_OK:
                        shared_fail(sh, err)
        if sh.err != CHAIN_OK:
            break
        # Bucket the stage's full plays when there are enough of them to share
        # ends (RULES §2.1: not for 1s, whose one class every position shares)
        # (and only with room to spare under the memory budget: the buckets
        # are a faster order, never a reason to run short)
        if (bucketing
                and sh.meter.budget - sh.meter.held > <size_t>fsize * 2 * BUCKET_BYTES
                and buckets_init(&buckets, fsize + active * BUCKET_BLOCK, info.number,
                                 &sh.meter) == CHAIN_OK):
            info.buckets = &buckets
            sh.stats.stages_bucketed += 1
            for t in range(active):
                workers[t].slot = workers[t].slot_end = 0
                workers[t].bucket_positions = workers[t].bucket_ends = 0
                workers[t].layered = layered
                workers[t].probing = not layered and fsize >= layered_frontier
                workers[t].probe_positions = max(layered_probe, fsize // (16 * active))
                workers[t].whole_positions = workers[t].whole_made = 0
                workers[t].whole_distinct = 0
                if workers[t].local.slots == NULL:
                    localset_init(&workers[t].local, &sh.meter)   # none: queued at once
        bucketed = info.buckets != NULL
        task.parts = frontier
        task.info = &info
        task.n_workers = active
        run_shared(&task, TASK_SCAN, active)
        partset_release(frontier, sh)
        runs_release(frontier_runs, threads * N_PARTS, sh)
        if info.buckets != NULL:
            for t in range(active):
                buckets_close(&buckets, workers[t].slot, workers[t].slot_end)
            if sh.err == CHAIN_OK:
                # the positions waiting are held until their bucket is expanded
                atomic_add(&sh.held, buckets.n - buckets.empty)
                buckets_sort(&buckets, &sh.meter)
                run_shared(&task, TASK_BUCKETS, active)
            buckets_free(&buckets, &sh.meter)
            info.buckets = NULL
            for t in range(active):
                worker_drop_scratch(&workers[t], &sh.meter)
        run_shared(&task, TASK_GROUPS, active)
        made = 0
        for t in range(active):
            made += workers[t].st.queue.pushed
            if bucketed and workers[t].layered and not layered:
                layered = True          # (it turned to layers: so do the stages after)
                sh.stats.stages_layered += 1
                sh.stats.stages_turned += 1
            if workers[t].st.queue.err != CHAIN_OK:
                shared_fail(sh, workers[t].st.queue.err)
            if over_tag == 0 and workers[t].st.queue.over_seen:
                over_tag = make_tag(STOP_GAME_OVER, info.number, info.count)
        if sh.err != CHAIN_OK:
            break
        task.n_workers = threads
        run_shared(&task, TASK_MERGE, active)
        distinct = partset_size(frontier) + runs_size(frontier_runs, threads * N_PARTS)

    partset_release(frontier, sh)
    runs_release(frontier_runs, threads * N_PARTS, sh)
    if sh.err == CHAIN_OK and not by_diagram:
        fsize = 0
        for t in range(threads):
            fsize += partset_size(&workers[t].out) + runs_size(workers[t].out_runs, N_PARTS)
        err = collect_outcomes(workers, threads, threads if fsize >= threaded_frontier else 1,
                               frontier, PART_BITS if part_mask else 0, over_tag, sh, result)
        if err != CHAIN_OK:
            shared_fail(sh, err)
    err = sh.err
    workers_release(workers, threads, sh)
    partset_release(frontier, sh)
    if err != CHAIN_OK:
        keyset_free(result)
    runs_release(frontier_runs, threads * N_PARTS, sh)
    free(workers)
    free(frontier)
    free(frontier_runs)
    return err
