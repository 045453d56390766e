# cython: language_level=3
"""Bit helpers on 32-bit masks, inline C shared by the compiled modules (this
file is the implementation)."""

from libc.stdint cimport uint32_t

from gulbara.cpu._features cimport cpu_has_lzcnt, compiled_lzcnt

cdef extern from *:
    """
    #ifndef GULBARA_BITS_DEFINED
    #define GULBARA_BITS_DEFINED
    #if defined(__GNUC__) || defined(__clang__)
    static inline int gulbara_bit_length(unsigned int m) {
        return m ? 32 - __builtin_clz(m) : 0;
    }
    #else
    static inline int gulbara_bit_length(unsigned int m) {
        int n = 0;
        while (m) { m >>= 1; n++; }
        return n;
    }
    #endif
    /* The index of the lowest set bit of a 64-bit m != 0. */
    #if defined(__GNUC__) || defined(__clang__)
    static inline int gulbara_low_bit64(unsigned long long m) { return __builtin_ctzll(m); }
    #else
    static inline int gulbara_low_bit64(unsigned long long m) {
        int n = 0;
        while (!(m & 1ULL)) { m >>= 1; n++; }
        return n;
    }
    #endif
    /* __builtin_popcount is a libgcc call without -mpopcnt; this is inline. */
    static inline int gulbara_popcount(unsigned int m) {
        m = m - ((m >> 1) & 0x55555555u);
        m = (m & 0x33333333u) + ((m >> 2) & 0x33333333u);
        return (int)((((m + (m >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24);
    }
    #endif
    """
    # the number of bits needed for m: the highest set bit's index + 1 (0 for 0)
    int bit_length "gulbara_bit_length"(unsigned int m) noexcept nogil
    int popcount "gulbara_popcount"(unsigned int m) noexcept nogil
    # the index of the lowest set bit of m (m not 0)
    int low_bit64 "gulbara_low_bit64"(unsigned long long m) noexcept nogil


cdef inline bint cpu_supported() noexcept nogil:
    """Whether this CPU runs the instructions the including module was compiled for: a module
    compiled with LZCNT (its LZCNT build, gulbara.cpu, or ``-march=native``) needs it, which a
    CPU without it runs as BSR, giving wrong answers."""
    return cpu_has_lzcnt() or not compiled_lzcnt


cdef inline int pop_top(uint32_t* m) noexcept nogil:
    """The highest point of the mask ``*m`` (its bit_length), taken out of
    ``*m``; ``*m`` must not be 0 (the sources of a search, highest first)."""
    cdef int top = bit_length(m[0])
    m[0] &= ~((<uint32_t>1) << (top - 1))
    return top


cdef inline int pop_top_bit(uint32_t* m, uint32_t* bit) noexcept nogil:
    """pop_top that also gives the point's bit in ``*bit`` (a search that goes
    on below the source: ``(bit << 1) - 1``)."""
    cdef int top = bit_length(m[0])
    bit[0] = (<uint32_t>1) << (top - 1)
    m[0] &= ~bit[0]
    return top
