# cython: language_level=3
"""The chains' memory: the meter that holds an enumeration's bytes to a
budget (``Meter``), the blocks of its hash tables (``table_take``,
``table_resize``, ``table_give``: huge pages for big ones, counted in a
meter), the big buffers kept for reuse between calls (``big_block``,
``big_release``: the buffer pool of ``_memory.pyx``), and the prefetch hints.

Everything here but the buffer pool is inline: the pool's blocks and counts
are one set for the process, in ``_memory.pyx`` alone.
"""

from libc.stdlib cimport realloc, free

from gulbara.chains._status cimport CHAIN_OK, CHAIN_NO_MEMORY, CHAIN_TOO_MANY

cdef extern from *:
    """
    #ifndef GULBARA_MEMORY_DEFINED
    #define GULBARA_MEMORY_DEFINED
    #include <stdlib.h>
    #if defined(__linux__)
    #include <sys/mman.h>
    #endif
    #if defined(__GNUC__) || defined(__clang__)
    /* into every cache level (prefetcht0): the slot is read a few keys later, and
       prefetching into L2 only (locality 1, prefetcht2) left each of those reads an
       L1 miss, about 4% slower on one thread */
    #define gulbara_prefetch(p) __builtin_prefetch((p), 1, 3)
    /* for reading only (a decision diagram's nodes, read while its cache is) */
    #define gulbara_prefetch_read(p) __builtin_prefetch((p), 0, 3)
    #else
    #define gulbara_prefetch(p) ((void)0)
    #define gulbara_prefetch_read(p) ((void)0)
    #endif
    /* Count n more bytes held, keeping the peak; -2 (nothing counted) past budget. */
    static inline int gulbara_meter_take(size_t* held, size_t* peak, size_t budget, size_t n) {
        size_t now = __atomic_add_fetch(held, n, __ATOMIC_RELAXED);
        size_t seen;
        if (now > budget || now < n) {
            __atomic_sub_fetch(held, n, __ATOMIC_RELAXED);
            return -2;
        }
        seen = __atomic_load_n(peak, __ATOMIC_RELAXED);
        while (now > seen && !__atomic_compare_exchange_n(peak, &seen, now, 1,
                                                          __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
        }
        return 0;
    }
    static inline void gulbara_meter_sub(size_t* held, size_t n) {
        __atomic_sub_fetch(held, n, __ATOMIC_RELAXED);
    }
    /* A big table: 2 MiB aligned and, where the kernel offers it, backed by
       huge pages (fewer page faults and TLB misses in random probing). */
    static inline void* gulbara_big_alloc(size_t size) {
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
    #endif
    """
    int atomic_meter_take "gulbara_meter_take"(size_t* held, size_t* peak, size_t budget,
                                               size_t n) noexcept nogil
    void atomic_meter_sub "gulbara_meter_sub"(size_t* held, size_t n) noexcept nogil
    void prefetch "gulbara_prefetch"(const void* p) noexcept nogil
    void prefetch_read "gulbara_prefetch_read"(const void* p) noexcept nogil
    void* big_alloc "gulbara_big_alloc"(size_t size) noexcept nogil

# The memory an enumeration's tables hold, its peak, and its budget.
ctypedef struct Meter:
    size_t held
    size_t peak
    size_t budget


cdef inline int meter_take(Meter* m, size_t nbytes) noexcept nogil:
    """Count ``nbytes`` more, or CHAIN_TOO_MANY when the budget would be passed."""
    if m == NULL:
        return CHAIN_OK
    if atomic_meter_take(&m.held, &m.peak, m.budget, nbytes) != 0:
        return CHAIN_TOO_MANY
    return CHAIN_OK


cdef inline void meter_sub(Meter* m, size_t nbytes) noexcept nogil:
    if m != NULL:
        atomic_meter_sub(&m.held, nbytes)


cdef inline void meter_init(Meter* m, size_t budget) noexcept nogil:
    """A meter with nothing held."""
    m.held = 0
    m.peak = 0
    m.budget = budget


cdef inline void* table_take(Meter* m, size_t nbytes, int* err) noexcept nogil:
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


cdef inline void* table_resize(Meter* m, void* block, size_t old_bytes, size_t new_bytes,
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


cdef inline void table_give(Meter* m, void* block, size_t nbytes) noexcept nogil:
    """Free a block of table_take."""
    free(block)
    meter_sub(m, nbytes)


# Implemented in _memory.pyx (the buffer pool)
cdef void* big_block(size_t nbytes) noexcept nogil
cdef void big_release(void* block) noexcept nogil
