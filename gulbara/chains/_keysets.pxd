# cython: language_level=3
"""The chains' hash sets of 128-bit keys: an open-addressing set (``KeySet``)
and its split into parts by hash (``PartSet``), the reader of a table's
occupied slots (``SlotCursor``), the pool of a thread's small tables
(``TablePool``), the queue that batches inserts (``InsertQueue``), the small
cache-resident set (``LocalSet``) and the ring of keys inserted a few keys late
(``KeyRing``), runs of keys known to be distinct (``KeyRun``), and the merge of
two sets.

The inline functions below are the hot path and live here, inlined into each
module that uses them; the rest (allocation, growth, compaction, release,
merging, the queue's flush, the LocalSet's flushes, the runs' growth and check
against a set) is implemented in ``_keysets.pyx``. The functions that allocate
return a result code of ``_status.pxd`` (their bytes counted in a ``Meter`` of
``_memory.pxd``) rather than raise.
"""

from libc.stdint cimport uint8_t, uint32_t, uint64_t
from libc.string cimport memset, memcpy

from gulbara.core._bits cimport low_bit64
from gulbara.core._keys cimport key_hash
from gulbara.chains._status cimport CHAIN_OK
from gulbara.chains._memory cimport Meter, prefetch
from gulbara.chains._shared cimport Shared

cdef extern from *:
    """
    #ifndef GULBARA_KEYSETS_DEFINED
    #define GULBARA_KEYSETS_DEFINED
    #include <stdint.h>
    #define GULBARA_EMPTY_K1 ((uint64_t)0xFFFFFFFFFFFFFFFFULL)
    #define GULBARA_LOW32 ((uint64_t)0xFFFFFFFFULL)
    #endif
    """
    # a free slot's k1 (no key has it), and the key bits of keyset_add_max's k1
    const uint64_t EMPTY_K1 "GULBARA_EMPTY_K1"
    const uint64_t LOW32 "GULBARA_LOW32"

cdef enum:
    PART_BITS = 6
    N_PARTS = 64              # parts of every set (1 << PART_BITS)
    PART_SHIFT = 58           # 64 - PART_BITS: a key's part is hash >> PART_SHIFT
    BATCH = 64                # keys an InsertQueue holds before it inserts them


# Tables of up to POOL_MAX_SLOTS slots freed while a pool is set are kept
# for the next ones of their size (the kernel clears fresh memory, which
# costs more than reusing it): a thread's many small tables of one stage.
cdef enum:
    POOL_CLASSES = 21         # sizes 2**0 .. 2**20 slots
    POOL_MAX_SLOTS = 1 << 20  # 16 MiB
    POOL_DEPTH = 4            # tables kept of each size

ctypedef struct TablePool:
    uint64_t* kept[POOL_CLASSES][POOL_DEPTH]   # still counted in the meter of their set
    int n[POOL_CLASSES]


ctypedef struct KeySet:
    uint64_t* slots       # open addressing, (k0, k1) pairs inline; k1 == EMPTY_K1: free;
                          # NULL: empty, no table yet (made at the first insert)
    Py_ssize_t mask       # number of slots - 1 (a power of two minus one)
    Py_ssize_t size
    uint64_t* dense       # after keyset_compact: the keys, (k0, k1) pairs
    Meter* meter          # counts the table's bytes (NULL: not counted)
    TablePool* pool       # where its tables come from and go (NULL: malloc and free)


cdef inline size_t table_bytes(Py_ssize_t slots) noexcept nogil:
    return <size_t>(2 * slots) * sizeof(uint64_t)


ctypedef struct SlotCursor:
    # Reads a table's occupied slots in slot order, 64 slots at a time: a block's
    # occupancy as a bit mask, made without a branch per slot (a branch per slot,
    # taken or not at random, was mispredicted about as often as not)
    const uint64_t* slots
    Py_ssize_t size           # slots in the table
    Py_ssize_t next           # the first slot of the next block
    Py_ssize_t block          # the first slot of the block being read
    uint64_t occupied         # its occupied slots not yet read


cdef inline void cursor_init(SlotCursor* c, const KeySet* s) noexcept nogil:
    """A cursor over the occupied slots of ``s`` (none when it has no table)."""
    c.slots = s.slots
    c.size = s.mask + 1 if s.slots != NULL else 0
    c.next = c.block = 0
    c.occupied = 0


cdef inline bint cursor_next(SlotCursor* c, Py_ssize_t* i) noexcept nogil:
    """The next occupied slot into ``*i``; False when there is none."""
    cdef const uint64_t* k1
    cdef Py_ssize_t j, n
    while c.occupied == 0:
        if c.next >= c.size:
            return False
        n = min(<Py_ssize_t>64, c.size - c.next)
        k1 = c.slots + 2 * c.next + 1
        for j in range(n):
            c.occupied |= (<uint64_t>(k1[2 * j] != EMPTY_K1)) << j
        c.block = c.next
        c.next += n
    i[0] = c.block + low_bit64(c.occupied)
    c.occupied &= c.occupied - 1
    return True


# A set split into N_PARTS parts by the top bits of its keys' hashes.
ctypedef struct PartSet:
    KeySet part[N_PARTS]


# Keys on their way into the chain's tables. Each key's hash is computed once,
# when it is queued, and its home slot prefetched; the queue is inserted when
# full: the tables outgrow the caches, and the misses then overlap.
ctypedef struct InsertQueue:
    KeySet* layer             # which 0: a step layer of chain_layers (keyset_add_max)
    PartSet* parts[3]         # which 1: the next frontier, 2: the outcomes
    uint64_t k0[BATCH]
    uint64_t k1[BATCH]
    uint64_t hashed[BATCH]
    uint8_t which[BATCH]
    int n
    int err                   # a result code; once it is not CHAIN_OK, later keys are dropped
    Shared* shared
    Py_ssize_t added          # new keys since the last count into shared.held
    Py_ssize_t pushed         # keys queued (ends made) in the stage
    int keep_lo               # outcomes kept: parts keep_lo <= p < keep_hi (one pass)
    int keep_hi
    bint over_seen            # a play ended the game
    int part_mask             # N_PARTS - 1 when threads share the work; 0: one part (one
                              # table for each set, as big as it needs: huge pages, fewer misses)


# A set of keys on their way into the chain's tables, sized to stay in a
# core's cache where it can: the ends of positions that share most of their
# ends are merged here first, and only the distinct ones are queued
# (localset_flush). It starts small and doubles as it fills, up to
# LOCAL_MAX_SLOTS (past that, or past the memory budget, it is queued and
# emptied instead).
cdef enum:
    LOCAL_FIRST_SLOTS = 1 << 15     # (k0, k1) slots to start with: 512 KiB
    LOCAL_MAX_SLOTS = 1 << 22       # at most 64 MiB

    LOCAL_RING = 32                 # keys waiting, their slots prefetched (KeyRing)

# Keys inserted a few keys late: each key's home slot is prefetched when it
# comes (by the ring's user), and it is inserted LOCAL_RING keys later
# (ring_put gives back the oldest key once the ring is full; ring_take
# empties it). For sets whose keys' order does not matter.
ctypedef struct KeyRing:
    uint64_t keys[3 * LOCAL_RING]    # (a, b, hash) of each waiting key
    int waiting
    int at                           # the next place (the oldest key when full)


cdef inline bint ring_put(KeyRing* r, uint64_t a, uint64_t b, uint64_t h,
                          uint64_t* oldest) noexcept nogil:
    """Put a key in; if the ring was full, its oldest key goes to ``oldest[0:3]``
    (to be inserted now) and the result is True."""
    cdef uint64_t* slot = r.keys + 3 * r.at
    cdef bint full = r.waiting == LOCAL_RING
    if full:
        oldest[0] = slot[0]
        oldest[1] = slot[1]
        oldest[2] = slot[2]
    else:
        r.waiting += 1
    slot[0] = a
    slot[1] = b
    slot[2] = h
    r.at = (r.at + 1) & (LOCAL_RING - 1)
    return full


cdef inline int ring_take(KeyRing* r, uint64_t* keys) noexcept nogil:
    """Move the waiting keys, oldest first, to ``keys`` (room for LOCAL_RING);
    how many. The ring is empty after."""
    cdef int j, n = r.waiting
    for j in range(n):
        memcpy(keys + 3 * j, r.keys + 3 * ((r.at - n + j) & (LOCAL_RING - 1)),
               3 * sizeof(uint64_t))
    r.waiting = 0
    r.at = 0
    return n


ctypedef struct LocalSet:
    uint64_t* slots           # mask + 1 pairs, k1 == EMPTY_K1 free; NULL: not made
    uint32_t* used            # the slots taken, in the order they were taken
    uint32_t mask
    int n
    int limit                 # keys that fill it: half the slots
    Meter* meter
    KeyRing ring              # keys not inserted yet (localset_push)


# Distinct keys appended in order, with no hash table: the keys of a whole
# bucket's LocalSet, which no other bucket shares (_chain_engine), go into
# runs (localset_flush_runs), and are checked once against the parts' tables
# (keyrun_drop_present) instead of inserted into them.
ctypedef struct KeyRun:
    uint64_t* keys            # n (k0, k1) pairs; room for cap
    Py_ssize_t n
    Py_ssize_t cap
    Meter* meter              # counts cap's bytes


cdef inline void keyrun_clear(KeyRun* r, Meter* meter) noexcept nogil:
    """An empty run with no array."""
    memset(r, 0, sizeof(KeyRun))
    r.meter = meter


# Implemented in _keysets.pyx
cdef void keyrun_free(KeyRun* r) noexcept nogil
cdef void keyrun_release(KeyRun* r, Shared* sh) noexcept nogil
cdef Py_ssize_t keyrun_drop_present(KeyRun* r, const KeySet* s) noexcept nogil
cdef int localset_flush_runs(LocalSet* s, InsertQueue* q, int which, KeyRun* runs) noexcept nogil
cdef int localset_init(LocalSet* s, Meter* meter) noexcept nogil
cdef void localset_free(LocalSet* s) noexcept nogil
cdef void localset_full(LocalSet* s, InsertQueue* q, int which) noexcept nogil
cdef void localset_reserve(LocalSet* s, Py_ssize_t keys) noexcept nogil
cdef void localset_flush(LocalSet* s, InsertQueue* q, int which) noexcept nogil
cdef int keyset_init(KeySet* s, Py_ssize_t room, Meter* meter) noexcept nogil
cdef void keyset_free(KeySet* s) noexcept nogil
cdef int keyset_grow(KeySet* s, uint64_t hashed) noexcept nogil
cdef void keyset_compact(KeySet* s) noexcept nogil
cdef void partset_clear(PartSet* ps, Meter* meter) noexcept nogil
cdef Py_ssize_t partset_size(const PartSet* ps) noexcept nogil
cdef void keyset_release(KeySet* s, Shared* sh) noexcept nogil
cdef int keyset_init_pooled(KeySet* s, Py_ssize_t room, Meter* meter, TablePool* pool) noexcept nogil
cdef void pool_release(TablePool* pool, Meter* meter) noexcept nogil
cdef void partset_release(PartSet* ps, Shared* sh) noexcept nogil
cdef int merge_into(KeySet* dst, KeySet* src, Shared* sh) noexcept nogil
cdef void queue_init(InsertQueue* q, Shared* sh, PartSet* next, PartSet* out, int keep_lo,
                     int keep_hi, int part_mask) noexcept nogil
cdef void queue_flush(InsertQueue* q) noexcept nogil


cdef inline void keyset_clear(KeySet* s, Meter* meter) noexcept nogil:
    """An empty set with no table (one is made at the first insert)."""
    s.slots = NULL
    s.mask = 0
    s.size = 0
    s.dense = NULL
    s.meter = meter
    s.pool = NULL


cdef inline uint64_t* slot_of(uint64_t* slots, uint64_t mask, uint64_t hashed, uint64_t a,
                             uint64_t b, uint64_t keyed) noexcept nogil:
    """Where (a, b) is in an open-addressing table of ``mask + 1`` slots (the
    bits ``keyed`` of b compared), or the free slot where it goes."""
    cdef uint64_t h = hashed & mask
    cdef uint64_t* slot
    while True:
        slot = slots + 2 * h
        if slot[1] == EMPTY_K1 or (slot[0] == a and (slot[1] & keyed) == (b & keyed)):
            return slot
        h = (h + 1) & mask


cdef inline int keyset_add(KeySet* s, uint64_t a, uint64_t b) noexcept nogil:
    """Insert (a, b): 1 if new, 0 if already there, a failure code of
    keyset_grow (negative) when the table could not grow."""
    return keyset_add_keyed(s, a, b, key_hash(a, b), EMPTY_K1)


cdef inline int keyset_add_max(KeySet* s, uint64_t a, uint64_t b, uint64_t hashed) noexcept nogil:
    """Insert the key (a, low 32 bits of b) carrying the high bits of b as a
    value; an equal key keeps the larger value. ``hashed``: key_hash(a, b & LOW32).
    A table is used with this or with keyset_add, not both."""
    return keyset_add_keyed(s, a, b, hashed, LOW32)


cdef inline int keyset_add_keyed(KeySet* s, uint64_t a, uint64_t b, uint64_t hashed,
                                 uint64_t keyed) noexcept nogil:
    """Insert (a, b) where ``keyed`` says which bits of b are part of the key
    (the rest, a value: an equal key keeps the larger b) and ``hashed`` is
    the key's hash. 1 if new, 0 if already there, negative as keyset_add."""
    cdef uint64_t* slot
    cdef int grown
    if s.slots == NULL:
        grown = keyset_init(s, 8, s.meter)
        if grown != CHAIN_OK:
            return grown
    slot = slot_of(s.slots, <uint64_t>s.mask, hashed, a, b, keyed)
    if slot[1] != EMPTY_K1:
        if b > slot[1]:
            slot[1] = b
        return 0
    slot[0] = a
    slot[1] = b
    s.size += 1
    if 2 * s.size > s.mask + 1:
        grown = keyset_grow(s, keyed)
        if grown != CHAIN_OK:
            return grown
    return 1


cdef inline bint localset_add(LocalSet* s, uint64_t a, uint64_t b, uint64_t h) noexcept nogil:
    """Insert (a, b), whose key_hash is ``h``: whether it is new."""
    cdef uint64_t* slot = slot_of(s.slots, s.mask, h, a, b, EMPTY_K1)
    if slot[1] != EMPTY_K1:
        return False
    slot[0] = a
    slot[1] = b
    s.used[s.n] = <uint32_t>((slot - s.slots) // 2)
    s.n += 1
    return True


cdef inline void localset_push(LocalSet* s, InsertQueue* q, int which, uint64_t a, uint64_t b,
                               uint64_t h) noexcept nogil:
    """Insert (a, b), whose key_hash is ``h``, LOCAL_RING keys later: its slot
    is prefetched now, and the oldest key waiting is inserted in its place
    (localset_full when that fills the set). localset_flush inserts those
    still waiting first."""
    cdef uint64_t old[3]
    prefetch(s.slots + 2 * (h & s.mask))
    if ring_put(&s.ring, a, b, h, old) and localset_add(s, old[0], old[1], old[2]) \
            and s.n == s.limit:
        localset_full(s, q, which)          # (the ring stays whole: it may be flushed)


cdef inline int ring_add_max(KeyRing* r, KeySet* s, uint64_t a, uint64_t b,
                             uint64_t h) noexcept nogil:
    """keyset_add_max(s, a, b, h) LOCAL_RING keys late (a step layer of
    chain_layers: an equal key keeps the larger value, so the order does not
    matter): the result of the oldest key's insert, 0 if none was due."""
    cdef uint64_t old[3]
    prefetch(s.slots + 2 * (h & <uint64_t>s.mask))
    if ring_put(r, a, b, h, old):
        return keyset_add_max(s, old[0], old[1], old[2])
    return 0


cdef inline int ring_drain_max(KeyRing* r, KeySet* s, Py_ssize_t* added) noexcept nogil:
    """Insert every key waiting, oldest first, counting the new ones in
    ``added``: CHAIN_OK or keyset_add_max's failure."""
    cdef uint64_t keys[3 * LOCAL_RING]
    cdef int j, got, n = ring_take(r, keys)
    for j in range(n):
        got = keyset_add_max(s, keys[3 * j], keys[3 * j + 1], keys[3 * j + 2])
        if got < 0:
            return got
        added[0] += got
    return CHAIN_OK


cdef inline KeySet* queue_table(InsertQueue* q, int which, uint64_t h) noexcept nogil:
    if which == 0:
        return q.layer
    return &q.parts[which].part[(h >> PART_SHIFT) & q.part_mask]


cdef inline void queue_push(InsertQueue* q, uint64_t a, uint64_t b, int which) noexcept nogil:
    """Queue the key (a, b) for table ``which``."""
    queue_push_hashed(q, a, b, which, key_hash(a, b & (LOW32 if which == 0 else EMPTY_K1)))


cdef inline bint queue_keeps(const InsertQueue* q, int which, uint64_t h) noexcept nogil:
    """Whether a key with hash ``h`` for table ``which`` is kept: outcomes
    outside this pass's parts are dropped."""
    return which != 2 or q.keep_lo <= <int>(h >> PART_SHIFT) < q.keep_hi


cdef inline void queue_push_hashed(InsertQueue* q, uint64_t a, uint64_t b, int which,
                                   uint64_t h) noexcept nogil:
    """queue_push with the key's hash given, counted as an end made."""
    q.pushed += 1
    if queue_keeps(q, which, h):
        queue_insert(q, a, b, which, h)


cdef inline void queue_insert(InsertQueue* q, uint64_t a, uint64_t b, int which,
                              uint64_t h) noexcept nogil:
    """Queue a kept key, its hash given (not counted as an end made)."""
    cdef int j = q.n
    cdef KeySet* t
    t = queue_table(q, which, h)
    q.k0[j] = a
    q.k1[j] = b
    q.hashed[j] = h
    q.which[j] = <uint8_t>which
    if t.slots != NULL:
        prefetch(t.slots + 2 * <Py_ssize_t>(h & <uint64_t>t.mask))
    q.n = j + 1
    if j + 1 == BATCH:
        queue_flush(q)
