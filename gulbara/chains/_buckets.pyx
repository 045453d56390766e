# cython: language_level=3
"""Buckets of a stage's positions (the chain enumeration, _chain_engine.pyx).

Positions that share most of their ends are expanded together, so that their
ends merge in a small table that stays in the core's cache and only the
distinct ones go on to the chain's big tables. While no step can bear off, a
step of die d keeps its checker on the same class of points modulo d (p,
p - d, p - 2d, ...; RULES §2.1): every end of a position has the position's
count of checkers in each class, and positions with different counts share no
end. The positions are put into buckets by a hash of those counts
(``buckets_put``, by several threads at once), sorted bucket by bucket
(``buckets_sort``) and expanded a bucket at a time. The buckets only order the
work: the outcomes do not depend on them.
"""

from libc.stdint cimport uint32_t, uint64_t
from libc.stdlib cimport malloc, calloc, free

from gulbara.chains._status cimport CHAIN_OK, CHAIN_NO_MEMORY, CHAIN_TOO_MANY
from gulbara.chains._memory cimport meter_take, meter_sub


cdef int buckets_init(Buckets* b, Py_ssize_t room, int die, Meter* meter) noexcept nogil:
    """Room for ``room`` positions of a stage of die ``die`` (counted in
    ``meter``): CHAIN_OK, or CHAIN_TOO_MANY / CHAIN_NO_MEMORY (nothing held)."""
    cdef int k, v, low
    b.bits = 1
    while b.bits < MAX_BUCKET_BITS and (room >> b.bits) > BUCKET_POSITIONS:
        b.bits += 1
    b.put_bytes = <size_t>room * (2 * sizeof(uint64_t) + sizeof(uint32_t))
    b.nbytes = (b.put_bytes + <size_t>room * 2 * sizeof(uint64_t)
                + ((1 << b.bits) + 2) * sizeof(Py_ssize_t) + 12 * 256 * sizeof(uint64_t))
    if meter_take(meter, b.nbytes) != CHAIN_OK:
        return CHAIN_TOO_MANY
    b.keys = <uint64_t*>malloc(b.put_bytes)                 # and bucket, after them
    b.sorted = <uint64_t*>calloc(b.nbytes - b.put_bytes, 1)  # and start and classes after it
    if b.keys == NULL or b.sorted == NULL:
        buckets_free(b, meter)
        return CHAIN_NO_MEMORY
    b.bucket = <uint32_t*>(b.keys + 2 * room)
    b.start = <Py_ssize_t*>(b.sorted + 2 * room)
    b.classes = <uint64_t*>(b.start + (1 << b.bits) + 2)
    b.n = b.empty = 0
    for k in range(12):
        low = 2 * k + 1 if k < 8 else 2 * (k - 8) + 17       # the byte's first point
        for v in range(256):
            b.classes[256 * k + v] = (<uint64_t>(v & 15) << (4 * (low % die))) \
                + (<uint64_t>(v >> 4) << (4 * ((low + 1) % die)))
    return CHAIN_OK


cdef void buckets_free_put(Buckets* b, Meter* meter) noexcept nogil:
    """Free what the positions were put in (keys and bucket)."""
    free(b.keys)
    b.keys = b.bucket = NULL
    meter_sub(meter, b.put_bytes)
    b.nbytes -= b.put_bytes
    b.put_bytes = 0


cdef void buckets_free(Buckets* b, Meter* meter) noexcept nogil:
    buckets_free_put(b, meter)
    free(b.sorted)
    b.sorted = b.start = b.classes = NULL
    meter_sub(meter, b.nbytes)
    b.nbytes = 0


cdef void buckets_close(Buckets* b, Py_ssize_t slot, Py_ssize_t slot_end) noexcept nogil:
    """Mark a thread's reserved slots ``slot <= i < slot_end`` that it left empty
    (after the stage's frontier is read)."""
    cdef Py_ssize_t i
    for i in range(slot, slot_end):
        b.bucket[i] = <uint32_t>1 << b.bits
    b.empty += slot_end - slot


cdef void buckets_sort(Buckets* b, Meter* meter) noexcept nogil:
    """Sort the positions put by bucket (a counting sort, stable; the empty slots
    last, after bucket ``(1 << bits) - 1``), and free what they were put in."""
    cdef Py_ssize_t i, at = 0
    cdef int k, n_buckets = (1 << b.bits) + 1
    for i in range(b.n):
        b.start[b.bucket[i] + 1] += 1
    for k in range(n_buckets):
        b.start[k + 1] += b.start[k]
    for i in range(b.n):
        at = b.start[b.bucket[i]]
        b.sorted[2 * at] = b.keys[2 * i]
        b.sorted[2 * at + 1] = b.keys[2 * i + 1]
        b.start[b.bucket[i]] = at + 1
    for k in range(n_buckets, 0, -1):
        b.start[k] = b.start[k - 1]
    b.start[0] = 0
    buckets_free_put(b, meter)
