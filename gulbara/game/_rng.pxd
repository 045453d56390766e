# cython: language_level=3
"""The self-play random numbers as inline C: splitmix64 seeding and
xoshiro256** (public-domain algorithms), the generator ``_selfplay.pyx``
documents and ``gulbara.selfplay.games.Rng`` implements in Python. Game ``i`` of a
run seeded ``seed`` draws stream ``k`` from ``rng_seed(g, seed, i, k)``. Inline C
(this file is the implementation)."""

from libc.stdint cimport uint32_t, uint64_t

ctypedef struct Rng:
    uint64_t s[4]


cdef inline uint64_t splitmix64(uint64_t* x) noexcept nogil:
    cdef uint64_t z
    x[0] += <uint64_t>0x9E3779B97F4A7C15ULL
    z = x[0]
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline void rng_seed(Rng* g, uint64_t seed, uint64_t game, uint64_t stream) noexcept nogil:
    """Seed stream ``stream`` of game ``game`` of a run seeded ``seed``."""
    cdef uint64_t x = seed
    cdef uint64_t mix
    mix = splitmix64(&x)
    x = mix ^ (game * <uint64_t>0xD1B54A32D192ED03ULL)
    mix = splitmix64(&x)
    x = mix ^ (stream * <uint64_t>0x8CB92BA72F3D8DD7ULL)
    g.s[0] = splitmix64(&x)
    g.s[1] = splitmix64(&x)
    g.s[2] = splitmix64(&x)
    g.s[3] = splitmix64(&x)


cdef inline uint64_t rotl(uint64_t x, int k) noexcept nogil:
    return (x << k) | (x >> (64 - k))


cdef inline uint64_t rng_next(Rng* g) noexcept nogil:
    cdef uint64_t result = rotl(g.s[1] * 5, 7) * 9
    cdef uint64_t t = g.s[1] << 17
    g.s[2] ^= g.s[0]
    g.s[3] ^= g.s[1]
    g.s[1] ^= g.s[2]
    g.s[0] ^= g.s[3]
    g.s[2] ^= t
    g.s[3] = rotl(g.s[3], 45)
    return result


cdef inline uint32_t rng_below(Rng* g, uint32_t n) noexcept nogil:
    """Uniform in 0..n-1 (n >= 1): reject the 2**64 mod n lowest outputs."""
    cdef uint64_t threshold = (<uint64_t>0 - <uint64_t>n) % n
    cdef uint64_t x
    while True:
        x = rng_next(g)
        if x >= threshold:
            return <uint32_t>(x % n)
