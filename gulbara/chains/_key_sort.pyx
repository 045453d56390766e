# cython: language_level=3
"""The sort of the chains' keys by hash (declared in ``_key_sort.pxd``): on one
thread a counting sort on the top hash bits and then within each bucket
(``sort_part``); on several, the keys put part by part (the top PART_BITS of
the hash) and the parts shared between the threads (``sort_dense``); and the
test hooks ``_py_sort_part`` and ``_py_sort_dense``.
"""

from libc.stdint cimport uint8_t, uint64_t
from libc.stdlib cimport malloc, calloc, free
from libc.string cimport memcpy, memset

import numpy as np

from gulbara.core._keys cimport key_hash
from gulbara.core._interrupt cimport interrupted
from gulbara.chains._status cimport CHAIN_OK, CHAIN_NO_MEMORY, CHAIN_TOO_MANY, CHAIN_INTERRUPTED
from gulbara.chains._atomics cimport atomic_next
from gulbara.chains._threads cimport MAX_THREADS, run_threads
from gulbara.chains._memory cimport Meter, meter_init, meter_take, meter_sub, big_block, big_release
from gulbara.chains._shared cimport Shared, shared_fail
from gulbara.chains._keysets cimport KeySet, PART_BITS, N_PARTS, PART_SHIFT, table_bytes


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
