# cython: language_level=3
"""The chains' buffer pool (its C code in ``_buffer_pool.h``; the meter and the
tables' blocks are inline in ``_memory.pxd``): the big buffers of outcomes and
of a sort's scratch, kept for reuse between calls, and its Python controls
``buffer_pool_release`` and ``buffer_pool_stats``.
"""

cdef extern from "_buffer_pool.h":
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
