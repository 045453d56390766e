# cython: language_level=3
"""The chains' utility tables (declared, with their inline hot path, in
``_tables.pxd``): a hash set's allocation, growth, compaction and release,
the merge of two sets, the sort of a set's keys by hash, the insert queue's
flush, the LocalSet's flushes (into the queue, or into runs), the runs'
growth and check against a set, and the thread runner.
"""

from libc.stdint cimport uint64_t
from libc.stdlib cimport malloc, calloc, realloc, free
from libc.string cimport memcpy, memset

import numpy as np

from gulbara.core._keys cimport key_hash
from gulbara.core._interrupt cimport interrupted

cdef extern from *:
    """
    #include <stdlib.h>
    #if defined(__linux__)
    #include <sys/mman.h>
    #endif
    /* A big table: 2 MiB aligned and, where the kernel offers it, backed by
       huge pages (fewer page faults and TLB misses in random probing). */
    static void* gulbara_big_alloc(size_t size) {
    #if defined(__linux__) && defined(MADV_HUGEPAGE)
        if (size >= ((size_t)4 << 20)) {
            void* p = NULL;
            size_t rounded = (size + ((size_t)2 << 20) - 1) & ~(((size_t)2 << 20) - 1);
            if (posix_memalign(&p, (size_t)2 << 20, rounded) == 0) {
                madvise(p, rounded, MADV_HUGEPAGE);
                return p;
            }
            return NULL;
        }
    #endif
        return malloc(size);
    }
    """
    void* big_alloc "gulbara_big_alloc"(size_t size) noexcept nogil

cdef extern from *:
    """
    static void* gulbara_thread_main(void* p) {
        gulbara_thread* thread = (gulbara_thread*)p;
        thread->fn(thread->arg, thread->t);
        return NULL;
    }
    static int gulbara_start_thread(gulbara_thread* thread, void (*fn)(void*, int), void* arg,
                                    int t) {
        thread->fn = fn;
        thread->arg = arg;
        thread->t = t;
        return pthread_create(&thread->id, NULL, gulbara_thread_main, thread) == 0;
    }
    static void gulbara_join_thread(gulbara_thread* thread) { pthread_join(thread->id, NULL); }
    """
    bint c_start_thread "gulbara_start_thread"(Thread* thread, task_fn fn, void* arg,
                                               int t) noexcept nogil
    void c_join_thread "gulbara_join_thread"(Thread* thread) noexcept nogil


cdef extern from *:
    """
    #include <pthread.h>
    #include <string.h>
    /* Buffers of outcomes (and the sort's scratch) are big, written once from end
       to end and freed within the call or with the result: fresh memory costs a
       page fault and the kernel's clearing of every page, on each call, and page
       faults on two threads wait on each other. So a block of at least
       GULBARA_POOL_FROM bytes made by gulbara_block_take is remembered (its
       address and size: GULBARA_LIVE_MAX at a time, the rest are plain memory),
       and gulbara_block_give keeps it, once freed, for the next call that needs
       as much (at most gulbara_pool_max bytes, 512 MiB unless set, and
       GULBARA_POOL_SLOTS blocks kept; past that the oldest are freed). Any
       pointer may be given: one this does not know is freed. */
    #define GULBARA_POOL_FROM ((size_t)4 << 20)
    #define GULBARA_POOL_SLOTS 16
    #define GULBARA_LIVE_MAX 64
    typedef struct { void* p; size_t size; } gulbara_block;
    static pthread_mutex_t gulbara_pool_lock = PTHREAD_MUTEX_INITIALIZER;
    static gulbara_block gulbara_live[GULBARA_LIVE_MAX];
    static gulbara_block gulbara_kept[GULBARA_POOL_SLOTS];   /* oldest first */
    static int gulbara_n_live = 0, gulbara_n_kept = 0;
    static size_t gulbara_kept_bytes = 0;
    static size_t gulbara_pool_reused = 0;
    static size_t gulbara_pool_max = (size_t)512 << 20;

    /* A process forked while another thread holds the lock (a chain running on
       a thread of a Ray or multiprocessing worker) gets the lock unheld: the
       handlers are registered before the lock is first taken. */
    static void gulbara_pool_prepare(void) { pthread_mutex_lock(&gulbara_pool_lock); }
    static void gulbara_pool_parent(void) { pthread_mutex_unlock(&gulbara_pool_lock); }
    static void gulbara_pool_child(void) { pthread_mutex_unlock(&gulbara_pool_lock); }
    static pthread_once_t gulbara_pool_once = PTHREAD_ONCE_INIT;
    static void gulbara_pool_register(void) {
        pthread_atfork(gulbara_pool_prepare, gulbara_pool_parent, gulbara_pool_child);
    }

    static void* gulbara_block_take(size_t size) {
        void* p = NULL;
        size_t got = size;
        int i, best = -1;
        if (size < GULBARA_POOL_FROM)
            return malloc(size);
        pthread_once(&gulbara_pool_once, gulbara_pool_register);
        pthread_mutex_lock(&gulbara_pool_lock);
        /* the smallest kept block that holds it, if not more than twice as big */
        for (i = 0; i < gulbara_n_kept; i++)
            if (gulbara_kept[i].size >= size && gulbara_kept[i].size <= 2 * size
                    && (best < 0 || gulbara_kept[i].size < gulbara_kept[best].size))
                best = i;
        if (best >= 0 && gulbara_n_live < GULBARA_LIVE_MAX) {
            p = gulbara_kept[best].p;
            got = gulbara_kept[best].size;
            gulbara_kept_bytes -= got;
            memmove(&gulbara_kept[best], &gulbara_kept[best + 1],
                    (size_t)(gulbara_n_kept - best - 1) * sizeof(gulbara_block));
            gulbara_n_kept--;
            gulbara_pool_reused++;
        }
        pthread_mutex_unlock(&gulbara_pool_lock);
        if (p == NULL) {
            /* rounded up to an eighth of its power of two: the sizes of one
               enumeration's buffers differ a little, and one block serves them all */
            size_t step = (size_t)1 << (63 - __builtin_clzll((unsigned long long)size) - 3);
            got = (size + step - 1) & ~(step - 1);
            p = malloc(got);
            if (p == NULL)
                return NULL;
        }
        pthread_mutex_lock(&gulbara_pool_lock);
        if (gulbara_n_live < GULBARA_LIVE_MAX) {
            gulbara_live[gulbara_n_live].p = p;
            gulbara_live[gulbara_n_live].size = got;
            gulbara_n_live++;
        }
        pthread_mutex_unlock(&gulbara_pool_lock);
        return p;
    }

    static void gulbara_block_give(void* p) {
        void* evicted[GULBARA_POOL_SLOTS + 1];
        int n_evicted = 0, i, j;
        size_t size = 0;
        if (p == NULL)
            return;
        pthread_once(&gulbara_pool_once, gulbara_pool_register);
        pthread_mutex_lock(&gulbara_pool_lock);
        for (i = 0; i < gulbara_n_live; i++)
            if (gulbara_live[i].p == p)
                break;
        if (i == gulbara_n_live || gulbara_live[i].size > gulbara_pool_max) {
            if (i < gulbara_n_live)
                gulbara_live[i] = gulbara_live[--gulbara_n_live];
            pthread_mutex_unlock(&gulbara_pool_lock);
            free(p);
            return;
        }
        size = gulbara_live[i].size;
        gulbara_live[i] = gulbara_live[--gulbara_n_live];
        while (gulbara_n_kept == GULBARA_POOL_SLOTS
                || gulbara_kept_bytes + size > gulbara_pool_max) {
            evicted[n_evicted++] = gulbara_kept[0].p;
            gulbara_kept_bytes -= gulbara_kept[0].size;
            for (j = 1; j < gulbara_n_kept; j++)
                gulbara_kept[j - 1] = gulbara_kept[j];
            gulbara_n_kept--;
        }
        gulbara_kept[gulbara_n_kept].p = p;
        gulbara_kept[gulbara_n_kept].size = size;
        gulbara_n_kept++;
        gulbara_kept_bytes += size;
        pthread_mutex_unlock(&gulbara_pool_lock);
        for (i = 0; i < n_evicted; i++)
            free(evicted[i]);
    }

    /* Free every kept block (the bytes freed), and keep at most max_bytes from
       now on (max_bytes: SIZE_MAX leaves the limit as it is). */
    static size_t gulbara_pool_release(size_t max_bytes) {
        gulbara_block kept[GULBARA_POOL_SLOTS];
        int n, i;
        size_t bytes;
        pthread_once(&gulbara_pool_once, gulbara_pool_register);
        pthread_mutex_lock(&gulbara_pool_lock);
        n = gulbara_n_kept;
        bytes = gulbara_kept_bytes;
        memcpy(kept, gulbara_kept, (size_t)n * sizeof(gulbara_block));
        gulbara_n_kept = 0;
        gulbara_kept_bytes = 0;
        if (max_bytes != (size_t)-1)
            gulbara_pool_max = max_bytes;
        pthread_mutex_unlock(&gulbara_pool_lock);
        for (i = 0; i < n; i++)
            free(kept[i].p);
        return bytes;
    }

    static void gulbara_pool_stats(size_t* out) {
        pthread_once(&gulbara_pool_once, gulbara_pool_register);
        pthread_mutex_lock(&gulbara_pool_lock);
        out[0] = (size_t)gulbara_n_kept;
        out[1] = gulbara_kept_bytes;
        out[2] = (size_t)gulbara_n_live;
        out[3] = gulbara_pool_reused;
        out[4] = gulbara_pool_max;
        pthread_mutex_unlock(&gulbara_pool_lock);
    }
    """
    void* block_take "gulbara_block_take"(size_t size) noexcept nogil
    void block_give "gulbara_block_give"(void* p) noexcept nogil
    size_t pool_release_all "gulbara_pool_release"(size_t max_bytes) noexcept nogil
    void pool_stats "gulbara_pool_stats"(size_t* out) noexcept nogil
    size_t POOL_FROM_BYTES "GULBARA_POOL_FROM"


cdef void* big_block(size_t nbytes) noexcept nogil:
    """``nbytes`` of memory for outcomes or a sort's scratch (not zeroed), to give
    back with ``big_release``: from the blocks kept for reuse when one fits."""
    return block_take(nbytes)


cdef void big_release(void* block) noexcept nogil:
    """Free ``block`` (any pointer of malloc or big_block, or NULL): a big block of
    big_block is kept for reuse, up to the pool's limit in all."""
    block_give(block)


def buffer_pool_release(max_bytes=None):
    """Free the kept blocks (the bytes freed); with ``max_bytes``, the new limit."""
    cdef size_t limit = <size_t>-1 if max_bytes is None else <size_t>max_bytes
    cdef size_t freed
    with nogil:
        freed = pool_release_all(limit)
    return freed


def buffer_pool_stats():
    """The kept blocks, their bytes, the live big blocks, the reuses so far, the limit."""
    cdef size_t out[5]
    pool_stats(out)
    return {"kept": out[0], "kept_bytes": out[1], "live": out[2], "reused": out[3],
            "max_bytes": out[4], "from_bytes": POOL_FROM_BYTES}


cdef bint start_thread(Thread* thread, task_fn fn, void* arg, int t) noexcept nogil:
    return c_start_thread(thread, fn, arg, t)


cdef void join_thread(Thread* thread) noexcept nogil:
    c_join_thread(thread)


cdef int run_threads(int n, task_fn fn, void* arg) noexcept nogil:
    cdef Thread threads[MAX_THREADS]
    cdef int started = 0, t
    for t in range(1, min(n, MAX_THREADS)):
        if not c_start_thread(&threads[started], fn, arg, t):
            break                    # (the tasks take their work from shared counters)
        started += 1
    fn(arg, 0)
    for t in range(started):
        c_join_thread(&threads[t])
    return started + 1


cdef inline int pool_class(Py_ssize_t slots) noexcept nogil:
    """The pool's size class of a table of ``slots`` slots (-1: not kept)."""
    cdef int c = 0
    if slots > POOL_MAX_SLOTS:
        return -1
    while ((<Py_ssize_t>1) << c) < slots:
        c += 1
    return c


cdef void* table_take(Meter* m, size_t nbytes, int* err) noexcept nogil:
    """``nbytes`` for a table, counted in ``m``; NULL with ``*err``
    CHAIN_TOO_MANY (past the budget) or CHAIN_NO_MEMORY."""
    cdef void* block
    if meter_take(m, nbytes) != CHAIN_OK:
        err[0] = CHAIN_TOO_MANY
        return NULL
    block = big_alloc(nbytes)
    if block == NULL:
        meter_sub(m, nbytes)
        err[0] = CHAIN_NO_MEMORY
    return block


cdef void* table_resize(Meter* m, void* block, size_t old_bytes, size_t new_bytes,
                       int* err) noexcept nogil:
    """``block`` (``old_bytes`` counted in ``m``; NULL and 0 for none) grown to
    ``new_bytes``, its contents kept; NULL with ``*err`` as table_take's, and
    ``block`` left as it was."""
    cdef void* grown
    if meter_take(m, new_bytes - old_bytes) != CHAIN_OK:
        err[0] = CHAIN_TOO_MANY
        return NULL
    grown = realloc(block, new_bytes)
    if grown == NULL:
        meter_sub(m, new_bytes - old_bytes)
        err[0] = CHAIN_NO_MEMORY
    return grown


cdef void table_give(Meter* m, void* block, size_t nbytes) noexcept nogil:
    """Free a block of table_take."""
    free(block)
    meter_sub(m, nbytes)


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
    big_release(s.dense)
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


cdef inline uint64_t sort_hash(const uint64_t* pair) noexcept nogil:
    return key_hash(pair[0], pair[1])


cdef inline bint pair_before_values(uint64_t a0, uint64_t a1, uint64_t ha, uint64_t b0,
                                    uint64_t b1, uint64_t hb) noexcept nogil:
    """Whether key (a0, a1) with hash ha sorts before (b0, b1) with hash hb."""
    if ha != hb:
        return ha < hb
    if a1 != b1:
        return a1 < b1
    return a0 < b0


cdef enum:
    SORT_TOP_BITS = 11          # the first pass's buckets: 2,048 write streams stay in the cache
    SORT_BY_PARTS = 1 << 20     # keys sorted part by part on one thread too (Ctrl-C between parts)
    SORT_SMALL = 32             # a first-pass bucket this small is insertion-sorted at once


cdef void insertion_sort(uint64_t* keys, uint64_t* hashes, Py_ssize_t n) noexcept nogil:
    """Sort ``n`` (k0, k1) pairs and their hashes in place, by hash, ties by key."""
    cdef Py_ssize_t j, k
    cdef uint64_t h, x0, x1
    for j in range(1, n):
        x0 = keys[2 * j]
        x1 = keys[2 * j + 1]
        h = hashes[j]
        k = j
        while k > 0 and pair_before_values(x0, x1, h, keys[2 * k - 2], keys[2 * k - 1],
                                           hashes[k - 1]):
            keys[2 * k] = keys[2 * k - 2]
            keys[2 * k + 1] = keys[2 * k - 1]
            hashes[k] = hashes[k - 1]
            k -= 1
        keys[2 * k] = x0
        keys[2 * k + 1] = x1
        hashes[k] = h


cdef void counting_pass(const uint64_t* keys, const uint64_t* hashes, Py_ssize_t n,
                        int shift, Py_ssize_t nb, Py_ssize_t* counts, uint64_t* out_keys,
                        uint64_t* out_hashes) noexcept nogil:
    """Scatter ``n`` pairs and their hashes (NULL: each pair's sort_hash, computed here)
    by the ``nb`` (a power of two) values of ``(hash >> shift) & (nb - 1)``, in order,
    stably; ``counts`` (nb + 1 entries) ends with counts[b] the end of bucket b."""
    cdef Py_ssize_t i, j, b
    cdef uint64_t h
    memset(counts, 0, <size_t>(nb + 1) * sizeof(Py_ssize_t))
    for i in range(n):
        h = hashes[i] if hashes != NULL else sort_hash(keys + 2 * i)
        counts[((h >> shift) & <uint64_t>(nb - 1)) + 1] += 1
    for b in range(nb):
        counts[b + 1] += counts[b]
    for i in range(n):
        h = hashes[i] if hashes != NULL else sort_hash(keys + 2 * i)
        b = <Py_ssize_t>((h >> shift) & <uint64_t>(nb - 1))
        j = counts[b]
        counts[b] = j + 1
        out_keys[2 * j] = keys[2 * i]
        out_keys[2 * j + 1] = keys[2 * i + 1]
        out_hashes[j] = h


cdef int sort_part(uint64_t* keys, Py_ssize_t n, int part_bits, Meter* meter) noexcept nogil:
    """Sort ``n`` (k0, k1) pairs by their hash (ties by key), below the ``part_bits``
    that chose the part: a counting sort on the next SORT_TOP_BITS hash bits (its
    buckets' write streams fit in the cache), then in each bucket a counting sort on
    the bits below (the bucket fits in the cache) and an insertion sort of what is
    left, about two pairs at a time."""
    cdef int bits = 1, top, low, shift, err
    cdef Py_ssize_t i, b, m, sub, start, end, largest = 0, n_top, n_low
    cdef uint64_t* tmp
    cdef uint64_t* hashes
    cdef uint64_t* sub_hashes
    cdef Py_ssize_t* counts
    cdef Py_ssize_t* sub_counts
    cdef size_t nbytes
    if n < 2:
        return CHAIN_OK
    while bits < 22 and ((<Py_ssize_t>1) << (bits + 1)) <= n:
        bits += 1
    top = min(bits, <int>SORT_TOP_BITS)
    low = bits - top
    n_top = (<Py_ssize_t>1) << top
    n_low = (<Py_ssize_t>1) << low
    shift = 64 - part_bits - top
    # the pairs and their hashes after the first pass, and the buckets' counts
    nbytes = <size_t>n * 3 * sizeof(uint64_t) + <size_t>(n_top + n_low + 2) * sizeof(Py_ssize_t)
    if meter_take(meter, nbytes) != CHAIN_OK:
        return CHAIN_TOO_MANY
    tmp = <uint64_t*>big_block(<size_t>n * 3 * sizeof(uint64_t))
    counts = <Py_ssize_t*>malloc(<size_t>(n_top + n_low + 2) * sizeof(Py_ssize_t))
    if tmp == NULL or counts == NULL:
        big_release(tmp)
        free(counts)
        meter_sub(meter, nbytes)
        return CHAIN_NO_MEMORY
    hashes = tmp + 2 * n
    sub_counts = counts + n_top + 1
    counting_pass(keys, NULL, n, shift, n_top, counts, tmp, hashes)
    for b in range(n_top):
        largest = max(largest, counts[b] - (counts[b - 1] if b else 0))
    # and the hashes of one bucket's pairs once sorted (n >= 2: largest >= 1)
    err = meter_take(meter, <size_t>largest * sizeof(uint64_t))
    if err == CHAIN_OK:
        nbytes += <size_t>largest * sizeof(uint64_t)
        sub_hashes = <uint64_t*>malloc(<size_t>largest * sizeof(uint64_t))
        if sub_hashes == NULL:
            err = CHAIN_NO_MEMORY
    if err != CHAIN_OK:
        big_release(tmp)
        free(counts)
        meter_sub(meter, nbytes)
        return err
    start = 0                            # counts[b] is now the end of bucket b
    for b in range(n_top):
        end = counts[b]
        m = end - start
        if m <= SORT_SMALL or low == 0:
            memcpy(keys + 2 * start, tmp + 2 * start, <size_t>m * 2 * sizeof(uint64_t))
            memcpy(sub_hashes, hashes + start, <size_t>m * sizeof(uint64_t))
            insertion_sort(keys + 2 * start, sub_hashes, m)
        else:
            counting_pass(tmp + 2 * start, hashes + start, m, shift - low, n_low, sub_counts,
                          keys + 2 * start, sub_hashes)
            sub = 0
            for i in range(n_low):
                insertion_sort(keys + 2 * (start + sub), sub_hashes + sub, sub_counts[i] - sub)
                sub = sub_counts[i]
        start = end
    free(sub_hashes)
    big_release(tmp)
    free(counts)
    meter_sub(meter, nbytes)
    return CHAIN_OK


def _py_sort_part(keys, int part_bits=0):
    """Test hook: ``keys`` (an n x 2 uint64 array of (k0, k1)) sorted by sort_part, and
    each pair's key_hash, as two new arrays."""
    cdef Meter meter
    sorted_keys = np.ascontiguousarray(keys, dtype=np.uint64).copy()
    if sorted_keys.ndim != 2 or sorted_keys.shape[1] != 2:
        raise ValueError("keys must be an n x 2 array")
    cdef uint64_t[:, ::1] view = sorted_keys
    cdef Py_ssize_t i, n = sorted_keys.shape[0]
    hashes = np.empty(n, dtype=np.uint64)
    cdef uint64_t[::1] hv = hashes
    meter_init(&meter, <size_t>1 << 40)
    if n and sort_part(&view[0, 0], n, part_bits, &meter) != CHAIN_OK:
        raise MemoryError("sort_part failed")
    for i in range(n):
        hv[i] = key_hash(view[i, 0], view[i, 1])
    return sorted_keys, hashes


def _py_sort_dense(keys, int threads=1):
    """Test hook: ``keys`` (an n x 2 uint64 array of (k0, k1)) sorted by sort_dense
    on ``threads`` threads, as a new array."""
    cdef Shared sh
    cdef KeySet result
    arr = np.ascontiguousarray(keys, dtype=np.uint64)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError("keys must be an n x 2 array")
    cdef uint64_t[:, ::1] view = arr
    cdef Py_ssize_t n = arr.shape[0]
    out = np.empty((n, 2), dtype=np.uint64)
    cdef uint64_t[:, ::1] out_view = out
    memset(&sh, 0, sizeof(Shared))
    memset(&result, 0, sizeof(KeySet))
    meter_init(&sh.meter, <size_t>1 << 40)
    result.dense = <uint64_t*>malloc(table_bytes(n + 1))
    if result.dense == NULL:
        raise MemoryError()
    if n:
        memcpy(result.dense, &view[0, 0], table_bytes(n))
    result.size = n
    with nogil:
        sort_dense(&result, threads, &sh)
    if n and sh.err == CHAIN_OK:
        memcpy(&out_view[0, 0], result.dense, table_bytes(n))
    big_release(result.dense)
    if sh.err != CHAIN_OK:
        raise MemoryError(f"sort_dense failed ({sh.err})")
    return out


# The outcomes sorted by hash on several threads: put part by part (the top
# PART_BITS of the hash; each thread counts, then places, its share of the keys),
# then each part sorted on its own by the threads.
ctypedef struct PartSort:
    const uint64_t* src       # the keys in any order
    uint64_t* keys            # the keys, part by part
    uint8_t* part             # each key's part
    Py_ssize_t n
    int threads
    int phase                 # 0: count, 1: place, 2: sort
    Py_ssize_t counts[MAX_THREADS][N_PARTS]   # a thread's keys per part, then where they go
    Py_ssize_t start[N_PARTS + 1]
    int next                  # the next part to sort (atomic)
    Shared* sh


cdef void part_sort_run(void* arg, int t) noexcept nogil:
    cdef PartSort* ps = <PartSort*>arg
    cdef int p, err
    cdef Py_ssize_t i, lo = ps.n * t // ps.threads, hi = ps.n * (t + 1) // ps.threads
    # (the counts and addresses in locals: a thread writing ``ps`` in the loop would
    # take the cache line of the fields the other thread reads from it)
    cdef Py_ssize_t at[N_PARTS]
    cdef const uint64_t* src = ps.src
    cdef uint64_t* keys = ps.keys
    cdef uint8_t* part = ps.part
    if ps.phase == 0:
        memset(at, 0, sizeof(at))
        for i in range(lo, hi):
            p = <int>(key_hash(src[2 * i], src[2 * i + 1]) >> PART_SHIFT)
            part[i] = <uint8_t>p
            at[p] += 1
        memcpy(ps.counts[t], at, sizeof(at))
        return
    if ps.phase == 1:
        memcpy(at, ps.counts[t], sizeof(at))
        for i in range(lo, hi):
            p = part[i]
            keys[2 * at[p]] = src[2 * i]
            keys[2 * at[p] + 1] = src[2 * i + 1]
            at[p] += 1
        return
    while True:
        p = atomic_next(&ps.next)
        if p >= N_PARTS or ps.sh.err != CHAIN_OK:
            break
        err = sort_part(ps.keys + 2 * ps.start[p], ps.start[p + 1] - ps.start[p], PART_BITS,
                        &ps.sh.meter)
        if err != CHAIN_OK:
            shared_fail(ps.sh, err)
        if t == 0 and interrupted(&ps.sh.intr, <uint64_t>(ps.start[p + 1] - ps.start[p])):
            shared_fail(ps.sh, CHAIN_INTERRUPTED)


cdef void part_sort_phase(PartSort* ps, int phase) noexcept nogil:
    ps.phase = phase
    if ps.threads > 1:
        run_threads(ps.threads, part_sort_run, ps)
    else:
        part_sort_run(ps, 0)


cdef void sort_dense(KeySet* result, int threads, Shared* sh) noexcept nogil:
    """Sort ``result.dense`` by hash (the order of sort_part), on ``threads`` threads;
    a big one part by part, the calling thread looking for a signal between its parts."""
    cdef PartSort* ps
    cdef Py_ssize_t n = result.size, at
    cdef uint64_t* keys
    cdef int p, t, err
    cdef size_t nbytes = table_bytes(n + 1) + <size_t>n
    if threads <= 1 and n < SORT_BY_PARTS:
        err = sort_part(result.dense, n, 0, &sh.meter)
        if err != CHAIN_OK:
            shared_fail(sh, err)
        return
    threads = max(1, min(threads, <int>MAX_THREADS))
    if meter_take(&sh.meter, nbytes) != CHAIN_OK:
        shared_fail(sh, CHAIN_TOO_MANY)
        return
    keys = <uint64_t*>big_block(table_bytes(n + 1))
    ps = <PartSort*>calloc(1, sizeof(PartSort))
    if ps != NULL:
        ps.part = <uint8_t*>big_block(<size_t>n + 1)
    if keys == NULL or ps == NULL or ps.part == NULL:
        big_release(keys)
        if ps != NULL:
            big_release(ps.part)
        free(ps)
        meter_sub(&sh.meter, nbytes)
        shared_fail(sh, CHAIN_NO_MEMORY)
        return
    ps.src = result.dense
    ps.keys = keys
    ps.n = n
    ps.threads = threads
    ps.sh = sh
    part_sort_phase(ps, 0)
    at = 0
    for p in range(N_PARTS):
        ps.start[p] = at
        for t in range(threads):
            ps.counts[t][p], at = at, at + ps.counts[t][p]
    ps.start[N_PARTS] = at
    part_sort_phase(ps, 1)
    big_release(ps.part)
    big_release(result.dense)        # (the same bytes as keys: counted once)
    meter_sub(&sh.meter, <size_t>n + table_bytes(n + 1))
    result.dense = keys
    ps.next = 0
    part_sort_phase(ps, 2)
    free(ps)
