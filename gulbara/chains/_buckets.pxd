# cython: language_level=3
"""Buckets of a stage's positions by their checkers per class of points (see
_buckets.pyx): the order in which a big stage of the chain enumeration is
expanded, so that positions that share ends are expanded together."""

from libc.stdint cimport uint32_t, uint64_t

from gulbara.core._keys cimport mix64
from gulbara.chains._atomics cimport atomic_add
from gulbara.chains._memory cimport Meter

cdef enum:
    BUCKET_POSITIONS = 1024   # positions per bucket aimed at
    BUCKET_BYTES = 64         # bytes per frontier position the buckets take, a bound
    MAX_BUCKET_BITS = 16
    BUCKETS_PER_TAKE = 8      # buckets a thread takes at a time
    BUCKET_BLOCK = 256        # slots a thread reserves at a time to put positions in


ctypedef struct Buckets:
    uint64_t* keys            # the positions, (k0, k1) pairs, in the order the threads read them
    uint32_t* bucket          # the bucket of each (1 << bits: a reserved slot left empty)
    Py_ssize_t n              # slots reserved (atomic, BUCKET_BLOCK at a time)
    Py_ssize_t empty          # of which left empty (buckets_close)
    uint64_t* sorted          # the positions, bucket by bucket
    Py_ssize_t* start         # bucket k holds sorted positions start[k] <= i < start[k + 1]
    int bits                  # 1 << bits buckets
    uint64_t* classes         # [256 k + v]: the checkers per class (p mod d) of byte k of
                              # a packed key (k < 8: lo, its points 2k + 1, 2k + 2; then hi)
                              # when it is v, packed 4 bits a class (16 ** (p mod d))
    size_t nbytes             # the bytes counted in the meter
    size_t put_bytes          # of which keys and bucket (freed once sorted)


cdef int buckets_init(Buckets* b, Py_ssize_t room, int die, Meter* meter) noexcept nogil
cdef void buckets_free(Buckets* b, Meter* meter) noexcept nogil
cdef void buckets_close(Buckets* b, Py_ssize_t slot, Py_ssize_t slot_end) noexcept nogil
cdef void buckets_sort(Buckets* b, Meter* meter) noexcept nogil


cdef inline void buckets_put(Buckets* b, Py_ssize_t* slot, Py_ssize_t* slot_end, uint64_t lo,
                             uint64_t hi) noexcept nogil:
    """Put a position (packed key) in its bucket, at the next of
    the thread's reserved slots ``*slot <= i < *slot_end`` (a new block of
    BUCKET_BLOCK reserved when they run out: one shared counter per position would
    bounce between the cores)."""
    cdef Py_ssize_t i
    cdef uint64_t classes = 0
    cdef int k
    if slot[0] == slot_end[0]:
        slot_end[0] = atomic_add(&b.n, BUCKET_BLOCK)
        slot[0] = slot_end[0] - BUCKET_BLOCK
    i = slot[0]
    slot[0] = i + 1
    for k in range(8):                   # (a table lookup per byte: no loop over points)
        classes += b.classes[256 * k + ((lo >> (8 * k)) & 255)]
    for k in range(4):
        classes += b.classes[256 * (8 + k) + ((hi >> (8 * k)) & 255)]
    b.keys[2 * i] = lo
    b.keys[2 * i + 1] = hi
    b.bucket[i] = <uint32_t>(mix64(classes) >> (64 - b.bits))
