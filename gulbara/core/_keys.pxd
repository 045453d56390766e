# cython: language_level=3
"""The packed mover key (``Key96`` of ``_types.pxd``) as inline C, shared by
every compiled module: its counts, tables of one checker's change, its
occupancy, its hash, and the conversion to and from a position.

Everything here is inline (this file is the implementation; there is no
``_keys.pyx``); the tables are constant C arrays, built by the compiler.
"""

from libc.stdint cimport uint8_t, uint32_t, uint64_t

from gulbara.core._bits cimport bit_length, pop_top_bit
from gulbara.core._types cimport Pos, Key96, N_CHECKERS, HOME_BITS

cdef extern from *:
    """
    #ifndef GULBARA_KEYS_DEFINED
    #define GULBARA_KEYS_DEFINED
    #include <stdint.h>
    #if defined(__GNUC__) || defined(__clang__)
    #define GULBARA_TABLE_ATTR __attribute__((unused))
    #else
    #define GULBARA_TABLE_ATTR
    #endif
    /* One checker on own point q (1..24) of a packed key; 0 for q = 0 (off). */
    #define GULBARA_UNIT_LO(q) ((q) >= 1 && (q) <= 16 ? (uint64_t)1 << ((4 * ((q) - 1)) & 63) : (uint64_t)0)
    #define GULBARA_UNIT_HI(q) ((q) > 16 && (q) <= 24 ? (uint64_t)1 << ((4 * ((q) - 17)) & 63) : (uint64_t)0)
    /* The point a checker on q reaches with die d (0: borne off). */
    #define GULBARA_TO(d, q) ((q) > (d) ? (q) - (d) : 0)
    #define GULBARA_DELTA_LO(d, q) (GULBARA_UNIT_LO(GULBARA_TO(d, q)) - GULBARA_UNIT_LO(q))
    #define GULBARA_DELTA_HI(d, q) (GULBARA_UNIT_HI(GULBARA_TO(d, q)) - GULBARA_UNIT_HI(q))
    #define GULBARA_LANDS(d, q) ((d) >= 1 && (q) > (d) && (q) <= 24 ? (uint32_t)1 << (((q) - (d) - 1) & 31) : (uint32_t)0)
    #define GULBARA_ROW(F, d) { F(d, 0), F(d, 1), F(d, 2), F(d, 3), F(d, 4), F(d, 5), F(d, 6), \\
        F(d, 7), F(d, 8), F(d, 9), F(d, 10), F(d, 11), F(d, 12), F(d, 13), F(d, 14), F(d, 15), \\
        F(d, 16), F(d, 17), F(d, 18), F(d, 19), F(d, 20), F(d, 21), F(d, 22), F(d, 23), F(d, 24) }
    #define GULBARA_TABLE(F) { GULBARA_ROW(F, 0), GULBARA_ROW(F, 1), GULBARA_ROW(F, 2), \\
        GULBARA_ROW(F, 3), GULBARA_ROW(F, 4), GULBARA_ROW(F, 5), GULBARA_ROW(F, 6) }
    #define GULBARA_UNIT_LO2(d, q) GULBARA_UNIT_LO(q)
    #define GULBARA_UNIT_HI2(d, q) GULBARA_UNIT_HI(q)
    static const uint64_t GULBARA_TABLE_ATTR gulbara_unit_lo[25] = GULBARA_ROW(GULBARA_UNIT_LO2, 0);
    static const uint64_t GULBARA_TABLE_ATTR gulbara_unit_hi[25] = GULBARA_ROW(GULBARA_UNIT_HI2, 0);
    static const uint64_t GULBARA_TABLE_ATTR gulbara_delta_lo[7][25] = GULBARA_TABLE(GULBARA_DELTA_LO);
    static const uint64_t GULBARA_TABLE_ATTR gulbara_delta_hi[7][25] = GULBARA_TABLE(GULBARA_DELTA_HI);
    static const uint32_t GULBARA_TABLE_ATTR gulbara_lands[7][25] = GULBARA_TABLE(GULBARA_LANDS);
    #endif
    """
    # UNIT_LO[q], UNIT_HI[q]: one checker on own point q in a packed key (0 for q = 0).
    const uint64_t* UNIT_LO "gulbara_unit_lo"
    const uint64_t* UNIT_HI "gulbara_unit_hi"
    # DELTA_LO[d][q], DELTA_HI[d][q]: the change of a packed key when a
    # checker steps d from own point q (onto q - d, or off).
    const uint64_t (*DELTA_LO "gulbara_delta_lo")[25]
    const uint64_t (*DELTA_HI "gulbara_delta_hi")[25]
    # LANDS[d][q]: the occupancy bit of q - d (0 when the step bears off).
    const uint32_t (*LANDS "gulbara_lands")[25]


cdef inline int key_count(uint64_t lo, uint64_t hi, int p) noexcept nogil:
    """The count of own point ``p`` in a packed mover key (lo, hi)."""
    if p <= 16:
        return <int>((lo >> (4 * (p - 1))) & 15)
    return <int>((hi >> (4 * (p - 17))) & 15)


cdef inline void key_add_count(uint64_t* lo, uint64_t* hi, int p, uint64_t v) noexcept nogil:
    """Add ``v`` checkers on own point ``p`` to a packed mover key (lo, hi)."""
    if p <= 16:
        lo[0] += v << (4 * (p - 1))
    else:
        hi[0] += v << (4 * (p - 17))


cdef inline int key_outside(uint64_t lo, uint64_t hi) noexcept nogil:
    """The mover's checkers outside its home board (own points 7..24) in a packed key."""
    cdef uint64_t m = <uint64_t>0x0F0F0F0F0F0F0F0FULL
    cdef uint64_t x = lo >> 24             # points 7..16 (the home board is points 1..6)
    cdef uint64_t t = (x & m) + ((x >> 4) & m) + (hi & m) + ((hi >> 4) & m)
    # every byte of t is at most 15 and so is their sum: no carries between bytes
    return <int>((t * <uint64_t>0x0101010101010101ULL) >> 56)


cdef inline bint no_bear_off_in_two(uint32_t mask, uint64_t lo, uint64_t hi) noexcept nogil:
    """Two or more checkers outside the home board (occupancy ``mask``, key
    (lo, hi)): neither of the next two steps can bear off (RULES §2.3), nor
    end the game."""
    cdef uint32_t outside = mask & ~(<uint32_t>HOME_BITS)
    return (outside & (outside - 1)) != 0 or (
        outside != 0 and key_count(lo, hi, bit_length(outside)) >= 2)


cdef inline uint32_t nibble_flags16(uint64_t x) noexcept nogil:
    """Bit i set when nibble i of ``x`` is not zero (16 nibbles -> 16 bits)."""
    x = (x | (x >> 1))
    x = (x | (x >> 2)) & <uint64_t>0x1111111111111111ULL
    x = (x | (x >> 3)) & <uint64_t>0x0303030303030303ULL
    x = (x | (x >> 6)) & <uint64_t>0x000F000F000F000FULL
    x = (x | (x >> 12)) & <uint64_t>0x000000FF000000FFULL
    return <uint32_t>((x | (x >> 24)) & <uint64_t>0xFFFF)


cdef inline uint32_t key_occupancy(uint64_t lo, uint64_t hi) noexcept nogil:
    """The occupancy mask of a packed mover key (points 1..16 in lo, 17..24 in hi)."""
    return nibble_flags16(lo) | ((nibble_flags16(hi) & 0xFF) << 16)


cdef inline uint32_t key_step(uint32_t mask, uint64_t lo, uint64_t hi, int frm, uint32_t bit,
                              uint32_t lands, uint64_t dlo, uint64_t dhi, uint64_t* child_lo,
                              uint64_t* child_hi) noexcept nogil:
    """One step from ``frm`` (bit ``bit``) of the position with occupancy ``mask``
    packed in (lo, hi): the child's key into ``child_lo``/``child_hi`` (``dlo``,
    ``dhi``: the step's DELTA_LO/DELTA_HI) and its occupancy returned (``lands``:
    the landing point's bit, LANDS). Every search applies a step with this."""
    child_lo[0] = lo + dlo
    child_hi[0] = hi + dhi
    mask |= lands
    if key_count(lo, hi, frm) == 1:
        mask &= ~bit
    return mask


ctypedef struct DieRows:
    # One die's rows of LANDS, DELTA_LO and DELTA_HI: what a search of that die steps with.
    const uint32_t* lands
    const uint64_t* dlo
    const uint64_t* dhi


cdef inline void die_rows(int die, DieRows* rows) noexcept nogil:
    rows.lands = LANDS[die]
    rows.dlo = DELTA_LO[die]
    rows.dhi = DELTA_HI[die]


cdef inline uint32_t key_pop_step(uint32_t* sources, uint32_t mask, uint64_t lo, uint64_t hi,
                                  const DieRows* rows, int* frm, uint32_t* bit,
                                  uint64_t* child_lo, uint64_t* child_hi) noexcept nogil:
    """Take the highest point of ``sources`` (into ``frm`` and ``bit``) and step from
    it with ``key_step`` by the die of ``rows``: the depth-first searches' loop step."""
    cdef int f = pop_top_bit(sources, bit)
    frm[0] = f
    return key_step(mask, lo, hi, f, bit[0], rows.lands[f], rows.dlo[f], rows.dhi[f],
                    child_lo, child_hi)


cdef inline uint64_t mix64(uint64_t z) noexcept nogil:
    """The splitmix64 finaliser."""
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline uint64_t key_hash(uint64_t a, uint64_t b) noexcept nogil:
    """The hash of a 128-bit table key (a, b) (the chains' hash sets)."""
    return mix64(a ^ (b * <uint64_t>0x9E3779B97F4A7C15ULL))


cdef inline Key96 pos_mover_key(const Pos* p, int seat) noexcept nogil:
    """``seat``'s checkers as a packed key."""
    cdef Key96 key
    cdef int q
    key.lo = 0
    key.hi = 0
    for q in range(1, 17):
        key.lo |= (<uint64_t>p.cnt[seat][q]) << (4 * (q - 1))
    for q in range(17, 25):
        key.hi |= (<uint32_t>p.cnt[seat][q]) << (4 * (q - 17))
    return key


cdef inline void pos_set_mover_key(Pos* p, int seat, Key96 key) noexcept nogil:
    """Overwrite ``seat``'s checkers with the packed counts of ``key``."""
    cdef int q, total = 0
    cdef uint32_t occ = 0
    for q in range(1, 25):
        p.cnt[seat][q] = key_count(key.lo, key.hi, q)
        total += p.cnt[seat][q]
        if p.cnt[seat][q]:
            occ |= (<uint32_t>1) << (q - 1)
    p.occ[seat] = occ
    p.off[seat] = N_CHECKERS - total
