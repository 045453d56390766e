# cython: language_level=3
"""The chains' hash sets (declared, with their inline hot path, in
``_keysets.pxd``): a set's allocation, growth, compaction and release, the
pool of a thread's small tables, the merge of two sets, the insert queue's
flush, the LocalSet's flushes (into the queue, or into runs), and the runs'
growth and check against a set.
"""

from libc.stdint cimport uint32_t, uint64_t
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memset

from gulbara.core._keys cimport key_hash
from gulbara.chains._status cimport CHAIN_OK, CHAIN_NO_MEMORY, CHAIN_TOO_MANY
from gulbara.chains._atomics cimport atomic_add, atomic_load
from gulbara.chains._memory cimport (Meter, meter_take, meter_sub, table_take, table_resize,
                                     table_give, big_release)
from gulbara.chains._shared cimport Shared, shared_fail


cdef inline int pool_class(Py_ssize_t slots) noexcept nogil:
    """The pool's size class of a table of ``slots`` slots (-1: not kept)."""
    cdef int c = 0
    if slots > POOL_MAX_SLOTS:
        return -1
    while ((<Py_ssize_t>1) << c) < slots:
        c += 1
    return c


cdef uint64_t* empty_slots(Py_ssize_t slots, Meter* meter, int* err,
                           TablePool* pool=NULL) noexcept nogil:
    """A table of ``slots`` free (k0, k1) slots, its bytes counted in ``meter``
    (one ``pool`` kept, if it has one); NULL with ``*err``
    CHAIN_TOO_MANY (past the budget) or CHAIN_NO_MEMORY."""
    cdef uint64_t* fresh = NULL
    cdef int c = pool_class(slots) if pool != NULL else -1
    if c >= 0 and pool.n[c] > 0:
        pool.n[c] -= 1
        fresh = pool.kept[c][pool.n[c]]
    else:
        fresh = <uint64_t*>table_take(meter, table_bytes(slots), err)
        if fresh == NULL:
            return NULL
    # every word to EMPTY_K1's bytes (all ones): what marks a free slot is its k1 (one
    # memset runs faster than a store to every other word)
    memset(fresh, 0xFF, table_bytes(slots))
    return fresh


cdef void slots_free(uint64_t* slots, Py_ssize_t n_slots, Meter* meter,
                     TablePool* pool) noexcept nogil:
    """Give a table back: kept by ``pool`` if it has room for one of its size
    (still counted in ``meter``), else freed."""
    cdef int c = pool_class(n_slots) if pool != NULL else -1
    if slots == NULL:
        return
    if c >= 0 and pool.n[c] < POOL_DEPTH:
        pool.kept[c][pool.n[c]] = slots
        pool.n[c] += 1
        return
    table_give(meter, slots, table_bytes(n_slots))


cdef void pool_release(TablePool* pool, Meter* meter) noexcept nogil:
    """Free every table the pool keeps."""
    cdef int c
    for c in range(POOL_CLASSES):
        while pool.n[c] > 0:
            pool.n[c] -= 1
            free(pool.kept[c][pool.n[c]])
            meter_sub(meter, table_bytes((<Py_ssize_t>1) << c))


cdef int keyset_init_pooled(KeySet* s, Py_ssize_t room, Meter* meter,
                            TablePool* pool) noexcept nogil:
    """keyset_init, its tables (this one and those it grows into) from ``pool``
    and back to it when freed (NULL: malloc and free)."""
    cdef Py_ssize_t slots = 16
    cdef int err = CHAIN_OK
    while slots < 2 * room:
        slots *= 2
    keyset_clear(s, meter)
    s.pool = pool
    s.slots = empty_slots(slots, meter, &err, pool)
    if s.slots != NULL:
        s.mask = slots - 1
    return err


cdef int keyset_init(KeySet* s, Py_ssize_t room, Meter* meter) noexcept nogil:
    """An empty table with room for ``room`` keys: CHAIN_OK, or
    CHAIN_NO_MEMORY / CHAIN_TOO_MANY (``meter``'s budget) with no table."""
    return keyset_init_pooled(s, room, meter, NULL)


cdef void keyset_free(KeySet* s) noexcept nogil:
    slots_free(s.slots, s.mask + 1, s.meter, s.pool)
    if s.dense != NULL:
        meter_sub(s.meter, table_bytes(s.size + 1))
        big_release(s.dense)         # (the buffer pool's, in _memory: called for a block only)
    keyset_clear(s, s.meter)


cdef inline void keyset_place(uint64_t* slots, Py_ssize_t mask, uint64_t a, uint64_t b,
                              uint64_t hashed) noexcept nogil:
    cdef Py_ssize_t h = <Py_ssize_t>(key_hash(a, b & hashed) & <uint64_t>mask)
    while slots[2 * h + 1] != EMPTY_K1:
        h = (h + 1) & mask
    slots[2 * h] = a
    slots[2 * h + 1] = b


cdef int keyset_grow(KeySet* s, uint64_t hashed) noexcept nogil:
    """Double the table (CHAIN_OK, or a failure code of keyset_init, the
    table kept); ``hashed``: the bits of k1 the table hashes (see keyset_add_keyed)."""
    cdef Py_ssize_t old_slots = s.mask + 1, slots = 2 * old_slots, i
    cdef SlotCursor cursor
    cdef int err = CHAIN_OK
    cdef uint64_t* fresh = empty_slots(slots, s.meter, &err, s.pool)   # both held for a while
    if fresh == NULL:
        return err
    cursor_init(&cursor, s)
    while cursor_next(&cursor, &i):
        keyset_place(fresh, slots - 1, s.slots[2 * i], s.slots[2 * i + 1], hashed)
    slots_free(s.slots, old_slots, s.meter, s.pool)
    s.slots = fresh
    s.mask = slots - 1
    return CHAIN_OK


cdef void keyset_compact(KeySet* s) noexcept nogil:
    """Turn the table into its keys, dense (``s.dense``), in place: no
    second copy is held at any time."""
    cdef Py_ssize_t i, n = 0
    cdef uint64_t a, b
    cdef uint64_t* shrunk
    if s.slots == NULL:
        return
    for i in range(s.mask + 1):
        # (without a branch: an empty slot is copied too, and overwritten next)
        a = s.slots[2 * i]
        b = s.slots[2 * i + 1]
        s.slots[2 * n] = a
        s.slots[2 * n + 1] = b
        n += b != EMPTY_K1
    shrunk = <uint64_t*>realloc(s.slots, table_bytes(n + 1))
    meter_sub(s.meter, table_bytes(s.mask + 1) - table_bytes(n + 1))
    if shrunk == NULL:
        # (the meter counts the dense keys, not the rest of the old table)
        shrunk = s.slots
    s.dense = shrunk
    s.slots = NULL
    s.mask = 0


cdef void partset_clear(PartSet* ps, Meter* meter) noexcept nogil:
    """Every part's table empty, its memory counted by ``meter``."""
    cdef int p
    for p in range(N_PARTS):
        keyset_clear(&ps.part[p], meter)


cdef Py_ssize_t partset_size(const PartSet* ps) noexcept nogil:
    cdef Py_ssize_t n = 0
    cdef int p
    for p in range(N_PARTS):
        n += ps.part[p].size
    return n


cdef void keyset_release(KeySet* s, Shared* sh) noexcept nogil:
    """Free a table, its positions no longer held."""
    atomic_add(&sh.held, -s.size)
    keyset_free(s)


cdef void partset_release(PartSet* ps, Shared* sh) noexcept nogil:
    """Free every part's table, their positions no longer held."""
    cdef int p
    atomic_add(&sh.held, -partset_size(ps))
    for p in range(N_PARTS):
        keyset_free(&ps.part[p])


cdef inline size_t used_bytes(Py_ssize_t slots) noexcept nogil:
    """The bytes of a LocalSet's list of slots taken (it holds half its slots)."""
    return <size_t>(slots // 2) * sizeof(uint32_t)


cdef int localset_make(LocalSet* s, Py_ssize_t slots) noexcept nogil:
    """Give ``s`` an empty table of ``slots`` slots (counted in its meter):
    CHAIN_OK, or CHAIN_TOO_MANY / CHAIN_NO_MEMORY with ``s`` unchanged."""
    cdef uint32_t* used
    cdef int err = CHAIN_OK
    cdef uint64_t* fresh = empty_slots(slots, s.meter, &err)
    if fresh == NULL:
        return err
    err = meter_take(s.meter, used_bytes(slots))
    used = <uint32_t*>malloc(used_bytes(slots)) if err == CHAIN_OK else NULL
    if used == NULL:
        table_give(s.meter, fresh, table_bytes(slots))
        if err == CHAIN_OK:
            meter_sub(s.meter, used_bytes(slots))
        return err if err != CHAIN_OK else CHAIN_NO_MEMORY
    s.slots = fresh
    s.used = used
    s.mask = <uint32_t>(slots - 1)
    s.limit = <int>(slots // 2)
    s.n = 0
    return CHAIN_OK


cdef int localset_init(LocalSet* s, Meter* meter) noexcept nogil:
    """Make the set's first table (counted in ``meter``): CHAIN_OK, or
    CHAIN_TOO_MANY past the budget / CHAIN_NO_MEMORY, and no table."""
    memset(s, 0, sizeof(LocalSet))
    s.meter = meter
    return localset_make(s, LOCAL_FIRST_SLOTS)


cdef void localset_free(LocalSet* s) noexcept nogil:
    if s.slots != NULL:
        table_give(s.meter, s.slots, table_bytes(<Py_ssize_t>s.mask + 1))
        free(s.used)
        meter_sub(s.meter, used_bytes(<Py_ssize_t>s.mask + 1))
    s.slots = NULL
    s.used = NULL
    s.n = 0
    s.mask = 0
    s.limit = 0


cdef void localset_reserve(LocalSet* s, Py_ssize_t keys) noexcept nogil:
    """Make the set, empty, room for about ``keys`` keys before they come (at most
    LOCAL_MAX_SLOTS slots; kept as it is if it has the room, or if the bigger table
    cannot be had): growing it key by key re-inserts every key at each doubling."""
    cdef LocalSet old = s[0]
    cdef Py_ssize_t slots = <Py_ssize_t>s.mask + 1
    if s.slots == NULL or s.n != 0 or s.ring.waiting != 0:
        return
    while slots < LOCAL_MAX_SLOTS and slots // 2 < keys:
        slots *= 2
    if slots > <Py_ssize_t>s.mask + 1 and localset_make(s, slots) == CHAIN_OK:
        localset_free(&old)


cdef void localset_full(LocalSet* s, InsertQueue* q, int which) noexcept nogil:
    """The set is full: double it, keeping its keys in their order; at its
    largest, or past the memory budget, queue them all and empty it."""
    cdef LocalSet old = s[0]
    cdef int j
    cdef uint64_t* slot
    if (<Py_ssize_t>s.mask + 1 >= LOCAL_MAX_SLOTS
            or localset_make(s, 2 * (<Py_ssize_t>s.mask + 1)) != CHAIN_OK):
        localset_flush(s, q, which)
        return
    for j in range(old.n):
        slot = old.slots + 2 * old.used[j]
        localset_add(s, slot[0], slot[1], key_hash(slot[0], slot[1]))
    localset_free(&old)


cdef void localset_drain(LocalSet* s, InsertQueue* q, int which) noexcept nogil:
    """Insert the keys waiting in the ring (localset_full, queued to table
    ``which``, as the set fills)."""
    cdef uint64_t keys[3 * LOCAL_RING]
    cdef int j, n = ring_take(&s.ring, keys)
    for j in range(n):
        if s.slots != NULL and s.n == s.limit:      # (flushed by localset_full: full)
            localset_full(s, q, which)
        if s.slots == NULL:
            # (a flush left the set no table, the budget full: queued at once)
            queue_insert(q, keys[3 * j], keys[3 * j + 1], which, keys[3 * j + 2])
        elif localset_add(s, keys[3 * j], keys[3 * j + 1], keys[3 * j + 2]) \
                and s.n == s.limit:
            localset_full(s, q, which)


cdef void localset_reset(LocalSet* s) noexcept nogil:
    """Empty the set, its keys already taken (back to its first size if it grew)."""
    cdef int j
    for j in range(s.n):
        s.slots[2 * s.used[j] + 1] = EMPTY_K1
    s.n = 0
    if <Py_ssize_t>s.mask + 1 > LOCAL_FIRST_SLOTS:
        localset_free(s)
        localset_make(s, LOCAL_FIRST_SLOTS)     # none: later keys are queued at once


cdef void localset_flush(LocalSet* s, InsertQueue* q, int which) noexcept nogil:
    """Queue every key of the set for table ``which``, in the order they came
    (those waiting in its ring inserted first), and empty it."""
    cdef int j
    cdef uint64_t* slot
    localset_drain(s, q, which)
    for j in range(s.n):
        slot = s.slots + 2 * s.used[j]
        queue_insert(q, slot[0], slot[1], which, key_hash(slot[0], slot[1]))
    localset_reset(s)


cdef int localset_flush_runs(LocalSet* s, InsertQueue* q, int which, KeyRun* runs) noexcept nogil:
    """Append every key of the set (its ring drained first: if that fills the
    set, queued for table ``which``) to the run of its part, ``runs[part]``
    (``q``'s part mask), count them as held (CHAIN_TOO_MANY past max_ends) and
    empty the set: for keys that no other run holds."""
    cdef int j, err = CHAIN_OK
    cdef uint64_t* slot
    cdef uint64_t h
    cdef KeyRun* r
    cdef Py_ssize_t held
    localset_drain(s, q, which)
    r = &runs[0]
    for j in range(s.n):
        slot = s.slots + 2 * s.used[j]
        if q.part_mask:                  # (one part: every key to its run, no hash needed)
            h = key_hash(slot[0], slot[1])
            r = &runs[(h >> PART_SHIFT) & q.part_mask]
        if r.n == r.cap:
            err = keyrun_grow(r)
            if err != CHAIN_OK:
                break
        r.keys[2 * r.n] = slot[0]
        r.keys[2 * r.n + 1] = slot[1]
        r.n += 1
    held = atomic_add(&q.shared.held, s.n)
    if err == CHAIN_OK and held > q.shared.max_held:
        err = CHAIN_TOO_MANY
    if err != CHAIN_OK:
        q.err = err
        shared_fail(q.shared, err)
    localset_reset(s)
    return err


cdef int keyrun_grow(KeyRun* r) noexcept nogil:
    """Double a run's room (at least 4,096 keys), counted in its meter."""
    cdef Py_ssize_t cap = 4096 if r.cap < 4096 else 2 * r.cap
    cdef int err = CHAIN_OK
    cdef uint64_t* keys = <uint64_t*>table_resize(r.meter, r.keys, table_bytes(r.cap),
                                                  table_bytes(cap), &err)
    if keys == NULL:
        return err
    r.keys = keys
    r.cap = cap
    return CHAIN_OK


cdef void keyrun_free(KeyRun* r) noexcept nogil:
    free(r.keys)
    meter_sub(r.meter, table_bytes(r.cap))
    keyrun_clear(r, r.meter)


cdef void keyrun_release(KeyRun* r, Shared* sh) noexcept nogil:
    """Free a run, its keys no longer held."""
    atomic_add(&sh.held, -r.n)
    keyrun_free(r)


cdef Py_ssize_t keyrun_drop_present(KeyRun* r, const KeySet* s) noexcept nogil:
    """Remove from the run the keys ``s`` holds (every bit compared); how many."""
    cdef Py_ssize_t i, n = 0
    cdef uint64_t a, b
    if s.slots == NULL or s.size == 0:
        return 0
    for i in range(r.n):
        a = r.keys[2 * i]
        b = r.keys[2 * i + 1]
        if slot_of(s.slots, s.mask, key_hash(a, b), a, b, EMPTY_K1)[1] == EMPTY_K1:
            r.keys[2 * n] = a
            r.keys[2 * n + 1] = b
            n += 1
    i = r.n - n
    r.n = n
    return i


cdef void queue_init(InsertQueue* q, Shared* sh, PartSet* next, PartSet* out, int keep_lo,
                     int keep_hi, int part_mask) noexcept nogil:
    """An empty queue into the sets ``next`` (the next frontier) and ``out``
    (the outcomes), keeping the outcomes of parts keep_lo <= p < keep_hi."""
    memset(q, 0, sizeof(InsertQueue))
    q.shared = sh
    q.parts[1], q.parts[2] = next, out
    q.keep_lo, q.keep_hi, q.part_mask = keep_lo, keep_hi, part_mask


cdef void queue_flush(InsertQueue* q) noexcept nogil:
    """Insert the queued keys; count them into the positions held (CHAIN_TOO_MANY
    past max_ends); take on another thread's failure."""
    cdef int j, added
    cdef Py_ssize_t held
    cdef int other = atomic_load(&q.shared.err)
    if q.err == CHAIN_OK and other != CHAIN_OK:
        q.err = other
    if q.err == CHAIN_OK:
        for j in range(q.n):
            if q.which[j] == 0:
                # a step layer of chain_layers: the value is the step's source
                added = keyset_add_max(q.layer, q.k0[j], q.k1[j], q.hashed[j])
            else:
                added = keyset_add_keyed(queue_table(q, q.which[j], q.hashed[j]), q.k0[j],
                                         q.k1[j], q.hashed[j], EMPTY_K1)
            if added < 0:
                q.err = added
                break
            q.added += added
        held = atomic_add(&q.shared.held, q.added)
        q.added = 0
        if q.err == CHAIN_OK and held > q.shared.max_held:
            q.err = CHAIN_TOO_MANY
        if q.err != CHAIN_OK:
            shared_fail(q.shared, q.err)
    q.n = 0


cdef int merge_into(KeySet* dst, KeySet* src, Shared* sh) noexcept nogil:
    """Insert every key of ``src`` into ``dst`` (frees ``src``)."""
    cdef Py_ssize_t i, added = 0
    cdef int err = CHAIN_OK, r
    cdef SlotCursor cursor
    cursor_init(&cursor, src)
    while cursor_next(&cursor, &i):
        r = keyset_add(dst, src.slots[2 * i], src.slots[2 * i + 1])
        if r < 0:
            err = r
            break
        added += r
    atomic_add(&sh.held, added)
    keyset_release(src, sh)
    return err
