# cython: language_level=3
"""gulbara's compiled move generator: positions, steps and stages.

Everything inside a loop over steps or positions is a ``cdef ... noexcept
nogil`` function on the plain structs of ``_types.pxd``. The Python-facing
classes ``Position`` and ``Ends`` implement the backend contract of
``docs/backend.md``; the pure-Python reference (``gulbara._reference``)
implements the same contract and is the oracle this module is tested against.

>>> ends = stage_ends(START_CODE, 0, [6, 6, 6, 6])
>>> len(ends), ends.steps(0)
(1, ((24, 6), (24, 6), (24, 6), (24, 6)))
"""

from libc.stdint cimport uint8_t, uint16_t, int8_t, int32_t, uint32_t, uint64_t
from cpython.pyport cimport PY_SSIZE_T_MAX
from libc.stdint cimport SIZE_MAX
from libc.stdlib cimport malloc, calloc, realloc, free
from libc.string cimport memset, memcpy, memcmp
from cpython.unicode cimport PyUnicode_AsUTF8AndSize, PyUnicode_DecodeASCII

from gulbara._bits cimport bit_length, popcount, cpu_supported, built_with_lzcnt
from gulbara._masks cimport rotate12, open_from, movable
from gulbara._types cimport (Pos, Step, Key96, StageEnd, N_POINTS, N_CHECKERS,
                             MAX_STAGE_DICE, HOME_BITS, BOARD_BITS)

from operator import index as _index

from gulbara.errors import (InvalidPositionError, InvalidSeatError,
                            InvalidDiceError, IllegalPlayError, EnumerationLimitError, shown)

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define gulbara_prefetch(p) __builtin_prefetch((p), 1, 1)
    #else
    #define gulbara_prefetch(p) ((void)0)
    #endif
    """
    void prefetch "gulbara_prefetch"(const void* p) noexcept nogil

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

if not cpu_supported():
    raise ImportError(
        "this build of gulbara uses the LZCNT instruction, which the machine that built it "
        "has and this CPU lacks; reinstall gulbara on this machine, or build it with "
        "GULBARA_LZCNT=0")

#: Whether the compiled core was built to use the LZCNT instruction (setup.py).
BUILT_WITH_LZCNT = bool(built_with_lzcnt)

START_CODE = "G:,,,,,,,,,,,-15,,,,,,,,,,,,15|0,0|0,0"

# Largest number of leaves one stage can keep: four equal dice give at most
# C(24 + 3, 4) = 17,550 distinct step multisets; two different dice at most
# 24 * 2 * 24 plays.
cdef enum:
    STAGE_CAPACITY = 17600
    CODE_BUFFER = 160

cdef StageEnd _scratch[STAGE_CAPACITY]


# ---------------------------------------------------------------------------
# Position primitives (RULES §1, §9.1)
# ---------------------------------------------------------------------------

cdef inline int point_in_other_frame(int p) noexcept nogil:
    """A side's own point p as the other side's point (RULES §1.3; self-inverse)."""
    return ((p + 11) % 24) + 1


cdef void pos_set_occupancy(Pos* p) noexcept nogil:
    cdef int s, q
    for s in range(2):
        p.occ[s] = 0
        for q in range(1, 25):
            if p.cnt[s][q]:
                p.occ[s] |= (<uint32_t>1) << (q - 1)


cdef inline Py_ssize_t write_uint(char* buf, Py_ssize_t i, int v) noexcept nogil:
    if v >= 10:
        buf[i] = 48 + v // 10
        i += 1
    buf[i] = 48 + v % 10
    return i + 1


cdef Py_ssize_t pos_format(const Pos* p, char* buf) noexcept nogil:
    """Write the canonical code of ``p`` into ``buf`` (RULES §9.1); return its length."""
    cdef Py_ssize_t i = 2
    cdef int q, k
    buf[0] = 71  # 'G'
    buf[1] = 58  # ':'
    for q in range(1, 25):
        if q > 1:
            buf[i] = 44  # ','
            i += 1
        k = p.cnt[0][q]
        if k:
            i = write_uint(buf, i, k)
        else:
            k = p.cnt[1][point_in_other_frame(q)]
            if k:
                buf[i] = 45  # '-'
                i = write_uint(buf, i + 1, k)
    memcpy(buf + i, b"|0,0|", 5)
    i = write_uint(buf, i + 5, p.off[0])
    buf[i] = 44
    return write_uint(buf, i + 1, p.off[1])


cdef inline Key96 pos_mover_key(const Pos* p, int seat) noexcept nogil:
    cdef Key96 key
    cdef int q
    key.lo = 0
    key.hi = 0
    for q in range(1, 17):
        key.lo |= (<uint64_t>p.cnt[seat][q]) << (4 * (q - 1))
    for q in range(17, 25):
        key.hi |= (<uint32_t>p.cnt[seat][q]) << (4 * (q - 17))
    return key


cdef inline int key_count(uint64_t lo, uint64_t hi, int p) noexcept nogil:
    """The count of own point ``p`` in a packed mover key."""
    if p <= 16:
        return <int>((lo >> (4 * (p - 1))) & 15)
    return <int>((hi >> (4 * (p - 17))) & 15)


cdef void pos_set_mover_key(Pos* p, int seat, Key96 key) noexcept nogil:
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


cdef inline uint64_t mix64(uint64_t z) noexcept nogil:
    # splitmix64 finaliser
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef uint64_t pos_key64(const Pos* p) noexcept nogil:
    """64-bit hash of the whole position (formula in docs/backend.md)."""
    cdef Key96 k0 = pos_mover_key(p, 0)
    cdef Key96 k1 = pos_mover_key(p, 1)
    return (mix64(k0.lo)
            ^ mix64(<uint64_t>k0.hi | ((k1.lo & <uint64_t>0xFFFFFFFFULL) << 32))
            ^ mix64(((k1.lo >> 32) | (<uint64_t>k1.hi << 32))
                    ^ <uint64_t>0x9E3779B97F4A7C15ULL))


# ---------------------------------------------------------------------------
# Steps (RULES §2)
# ---------------------------------------------------------------------------

cdef bint step_is_legal(const Pos* p, int seat, int frm, int die) noexcept nogil:
    """RULES §2.2-2.3 for one step of ``seat`` on ``p``."""
    cdef uint32_t mine = p.occ[seat]
    cdef int target = frm - die
    if frm < 1 or frm > 24 or die < 1 or die > 6 or p.off[seat] == N_CHECKERS:
        return False
    if not (mine >> (frm - 1)) & 1:
        return False
    if target >= 1:
        return not (rotate12(p.occ[1 - seat]) >> (target - 1)) & 1
    if mine & ~(<uint32_t>HOME_BITS):
        return False
    return target == 0 or frm == bit_length(mine)


cdef void step_apply(Pos* p, int seat, int frm, int die) noexcept nogil:
    cdef int target = frm - die
    p.cnt[seat][frm] -= 1
    if not p.cnt[seat][frm]:
        p.occ[seat] &= ~((<uint32_t>1) << (frm - 1))
    if target >= 1:
        p.cnt[seat][target] += 1
        p.occ[seat] |= (<uint32_t>1) << (target - 1)
    else:
        p.off[seat] += 1


cdef void step_undo(Pos* p, int seat, int frm, int die) noexcept nogil:
    cdef int target = frm - die
    if target >= 1:
        p.cnt[seat][target] -= 1
        if not p.cnt[seat][target]:
            p.occ[seat] &= ~((<uint32_t>1) << (target - 1))
    else:
        p.off[seat] -= 1
    p.cnt[seat][frm] += 1
    p.occ[seat] |= (<uint32_t>1) << (frm - 1)


# ---------------------------------------------------------------------------
# Stage enumeration (RULES §3)
# ---------------------------------------------------------------------------

# UNIT_LO[q], UNIT_HI[q]: one checker on own point q in a packed key (Key96).
cdef uint64_t UNIT_LO[25]
cdef uint64_t UNIT_HI[25]
for _p in range(1, 25):
    UNIT_LO[_p] = (<uint64_t>1) << (4 * (_p - 1)) if _p <= 16 else 0
    UNIT_HI[_p] = (<uint64_t>1) << (4 * (_p - 17)) if _p > 16 else 0
UNIT_LO[0] = 0
UNIT_HI[0] = 0


# The mover's side of a position in its own numbering, with the opponent's
# occupancy rotated into the same numbering and the packed key kept up to
# date step by step (the chains' count of playable dice, gen_max_steps).
ctypedef struct Gen:
    uint8_t c[25]
    uint32_t mask
    uint32_t blocked
    int off
    uint64_t klo
    uint64_t khi


cdef inline bint gen_can_step(const Gen* g, int frm, int die) noexcept nogil:
    # The caller knows the mover has a checker on frm.
    cdef int target = frm - die
    if target >= 1:
        return not (g.blocked >> (target - 1)) & 1      # RULES §2.2
    if g.mask & ~(<uint32_t>HOME_BITS):                  # RULES §2.3: all home
        return False
    return target == 0 or frm == bit_length(g.mask)    # exact, or highest point


cdef inline void gen_nibble_add(Gen* g, int q, int sign) noexcept nogil:
    if q <= 16:
        if sign > 0:
            g.klo += (<uint64_t>1) << (4 * (q - 1))
        else:
            g.klo -= (<uint64_t>1) << (4 * (q - 1))
    else:
        if sign > 0:
            g.khi += (<uint64_t>1) << (4 * (q - 17))
        else:
            g.khi -= (<uint64_t>1) << (4 * (q - 17))


cdef inline void gen_do(Gen* g, int frm, int die) noexcept nogil:
    cdef int target = frm - die
    g.c[frm] -= 1
    if not g.c[frm]:
        g.mask &= ~((<uint32_t>1) << (frm - 1))
    gen_nibble_add(g, frm, -1)
    if target >= 1:
        g.c[target] += 1
        g.mask |= (<uint32_t>1) << (target - 1)
        gen_nibble_add(g, target, 1)
    else:
        g.off += 1


cdef inline void gen_undo(Gen* g, int frm, int die) noexcept nogil:
    cdef int target = frm - die
    if target >= 1:
        g.c[target] -= 1
        if not g.c[target]:
            g.mask &= ~((<uint32_t>1) << (target - 1))
        gen_nibble_add(g, target, -1)
    else:
        g.off -= 1
    g.c[frm] += 1
    g.mask |= (<uint32_t>1) << (frm - 1)
    gen_nibble_add(g, frm, 1)


cdef inline int nibble(uint64_t lo, uint64_t hi, int p) noexcept nogil:
    """The count of own point ``p`` in a packed mover key (as key_count)."""
    if p <= 16:
        return <int>((lo >> (4 * (p - 1))) & 15)
    return <int>((hi >> (4 * (p - 17))) & 15)


cdef inline int key_outside(uint64_t lo, uint64_t hi) noexcept nogil:
    """The mover's checkers outside its home board (own points 7..24) in a packed key."""
    cdef uint64_t m = <uint64_t>0x0F0F0F0F0F0F0F0FULL
    cdef uint64_t x = lo >> 24             # points 7..16 (the home board is points 1..6)
    cdef uint64_t t = (x & m) + ((x >> 4) & m) + (hi & m) + ((hi >> 4) & m)
    # every byte of t is at most 15 and so is their sum: no carries between bytes
    return <int>((t * <uint64_t>0x0101010101010101ULL) >> 56)


cdef extern from *:
    """
    /* Packed steps: step k as bytes 2k (from) and 2k + 1 (die) of a StageEnd's
       step array, whatever the byte order. */
    #if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) && \\
        __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    #define gulbara_steps_le(x) __builtin_bswap64(x)
    #else
    #define gulbara_steps_le(x) (x)
    #endif
    """
    uint64_t steps_le "gulbara_steps_le"(uint64_t x) noexcept nogil


cdef inline uint64_t packed_step(int depth, int frm, int die) noexcept nogil:
    """Step ``depth`` of a play as bits of the packed steps (see put_end)."""
    return (<uint64_t>(frm | (die << 8))) << (16 * depth)


cdef inline void put_end(StageEnd* e, uint64_t lo, uint64_t hi, int n_steps, bint ends_game,
                         uint64_t steps) noexcept nogil:
    """Write one end; ``steps`` packs its steps (step k in bits 16k..16k+15,
    from in the low byte), zero past the last one."""
    steps = steps_le(steps)
    e.key.lo = lo
    e.key.hi = <uint32_t>hi
    e.n_steps = n_steps
    e.ends_game = ends_game
    memcpy(e.steps, &steps, 8)


# The ends found so far of one stage (plays of the best effective length).
ctypedef struct Sink:
    StageEnd* out
    int capacity
    int n
    int best
    int overflow


cdef inline void sink_record(Sink* s, uint64_t lo, uint64_t hi, int n_steps, int effective,
                             bint ends_game, uint64_t steps) noexcept nogil:
    """Keep a finished play if its effective length is the best so far (RULES §3.4)."""
    if effective < s.best:
        return
    if effective > s.best:
        s.best = effective
        s.n = 0
    if s.n >= s.capacity:
        s.overflow = 1
        return
    put_end(&s.out[s.n], lo, hi, n_steps, ends_game, steps)
    s.n += 1


# ---------------------------------------------------------------------------
# Equal dice
# ---------------------------------------------------------------------------

# DELTA_LO[d][q], DELTA_HI[d][q]: the change of a packed key when a checker
# steps d from own point q (onto q - d, or off).
cdef uint64_t DELTA_LO[7][25]
cdef uint64_t DELTA_HI[7][25]
# LANDS[d][q]: the occupancy bit of q - d (0 when the step bears off).
cdef uint32_t LANDS[7][25]
for _d in range(1, 7):
    for _p in range(1, 25):
        DELTA_LO[_d][_p] = UNIT_LO[_p - _d if _p > _d else 0] - UNIT_LO[_p]
        DELTA_HI[_d][_p] = UNIT_HI[_p - _d if _p > _d else 0] - UNIT_HI[_p]
        LANDS[_d][_p] = (<uint32_t>1) << (_p - _d - 1) if _p > _d else 0


cdef inline uint32_t occupancy_after(uint32_t mask, uint64_t lo, uint64_t hi, int frm,
                                    uint32_t bit, uint32_t lands) noexcept nogil:
    """The occupancy ``mask`` after a step from ``frm`` (bit ``bit``) of the
    position packed in (lo, hi); ``lands``: the landing point's bit (LANDS)."""
    mask |= lands
    if nibble(lo, hi, frm) == 1:
        mask &= ~bit
    return mask


# One stage of equal dice.
ctypedef struct EqStage:
    int die
    int n_dice
    uint32_t open_d        # open_from(blocked, die)
    bint bear_off          # a step of the stage may bear off
    const uint64_t* dlo    # DELTA_LO[die]
    const uint64_t* dhi
    const uint32_t* lands  # LANDS[die]


cdef inline void eq_leaves(Sink* s, const EqStage* st, uint32_t sources, uint64_t lo,
                           uint64_t hi, uint64_t steps, int depth) noexcept nogil:
    """The ends of the last die from one position: one per source (``sources``
    not empty; the last checker cannot go off). ``steps``: the packed steps
    with the last die's value already in."""
    cdef int frm, shift = 16 * depth
    cdef StageEnd* e
    if s.best < depth + 1:
        s.best = depth + 1
        s.n = 0
    if s.capacity - s.n < N_POINTS:
        while sources:
            frm = bit_length(sources)
            sources &= ~((<uint32_t>1) << (frm - 1))
            sink_record(s, lo + st.dlo[frm], hi + st.dhi[frm], depth + 1, depth + 1, False,
                        steps | ((<uint64_t>frm) << shift))
        return
    e = s.out + s.n
    while sources:
        frm = bit_length(sources)
        sources &= ~((<uint32_t>1) << (frm - 1))
        put_end(e, lo + st.dlo[frm], hi + st.dhi[frm], depth + 1, False,
                steps | ((<uint64_t>frm) << shift))
        e += 1
    s.n = <int>(e - s.out)


cdef void eq_no_bear_off(Sink* s, const EqStage* st, uint32_t mask, uint64_t lo, uint64_t hi,
                         uint64_t path, int depth, uint32_t allowed) noexcept nogil:
    """eq_dfs when no step of the stage can bear off (so none ends the game),
    ``depth + 2 <= st.n_dice``: the last two dice in one loop."""
    cdef uint32_t sources = mask & st.open_d & allowed, bit, child, second
    cdef uint64_t clo, chi, steps
    cdef int frm
    if not sources:
        sink_record(s, lo, hi, depth, depth, False, path)
        return
    path |= (<uint64_t>st.die) << (16 * depth + 8)
    while sources:
        frm = bit_length(sources)
        bit = (<uint32_t>1) << (frm - 1)
        sources &= ~bit
        child = occupancy_after(mask, lo, hi, frm, bit, st.lands[frm])
        clo = lo + st.dlo[frm]
        chi = hi + st.dhi[frm]
        steps = path | ((<uint64_t>frm) << (16 * depth))
        if depth + 2 < st.n_dice:
            eq_no_bear_off(s, st, child, clo, chi, steps, depth + 1, (bit << 1) - 1)
            continue
        second = child & st.open_d & ((bit << 1) - 1)
        if not second:
            sink_record(s, clo, chi, depth + 1, depth + 1, False, steps)
        else:
            eq_leaves(s, st, second, clo, chi,
                      steps | ((<uint64_t>st.die) << (16 * (depth + 1) + 8)), depth + 1)


cdef void eq_dfs(Sink* s, const EqStage* st, uint32_t mask, uint64_t lo, uint64_t hi,
                 uint64_t path, int depth, uint32_t allowed) noexcept nogil:
    """All plays of ``st.n_dice`` equal dice with sources in non-increasing order.

    With equal dice a play is a multiset of steps, and each multiset leads to
    its own end position; its non-increasing order is legal whenever any
    order is, and is the first in canonical order (RULES §3.8). So every end
    is generated exactly once, with its canonical steps, and in canonical
    order: no de-duplication is needed. The position is the mover's occupancy
    ``mask`` and its packed key; ``path`` the packed steps so far;
    ``allowed`` the points at or below the previous step's source.
    """
    cdef int die = st.die, frm
    cdef uint32_t sources = mask & st.open_d, bit, child
    cdef uint64_t steps
    if st.bear_off:
        sources = movable(mask, st.open_d, die)
    sources &= allowed
    if not sources:
        sink_record(s, lo, hi, depth, depth, False, path)
        return
    if depth + 1 == st.n_dice and not (st.bear_off and (mask & (mask - 1)) == 0):
        # The last die, and the last checker cannot go off: every source
        # gives an end of the full length.
        eq_leaves(s, st, sources, lo, hi, path | ((<uint64_t>die) << (16 * depth + 8)), depth)
        return
    path |= (<uint64_t>die) << (16 * depth + 8)
    while sources:
        frm = bit_length(sources)
        bit = (<uint32_t>1) << (frm - 1)
        sources &= ~bit
        child = occupancy_after(mask, lo, hi, frm, bit, st.lands[frm])
        steps = path | ((<uint64_t>frm) << (16 * depth))
        if not child:
            sink_record(s, lo + st.dlo[frm], hi + st.dhi[frm], depth + 1, st.n_dice, True,
                        steps)    # RULES §3.3
        elif depth + 1 == st.n_dice:
            sink_record(s, lo + st.dlo[frm], hi + st.dhi[frm], depth + 1, st.n_dice, False,
                        steps)
        else:
            eq_dfs(s, st, child, lo + st.dlo[frm], hi + st.dhi[frm], steps, depth + 1,
                   (bit << 1) - 1)


# ---------------------------------------------------------------------------
# Two different dice
# ---------------------------------------------------------------------------

cdef inline bint no_bear_off_in_two(uint32_t mask, uint64_t lo, uint64_t hi) noexcept nogil:
    """Two or more checkers outside the home board: neither of the next two
    steps can bear off (RULES §2.3), nor end the game."""
    cdef uint32_t outside = mask & ~(<uint32_t>HOME_BITS)
    return (outside & (outside - 1)) != 0 or (
        outside != 0 and nibble(lo, hi, bit_length(outside)) >= 2)


cdef inline int two_seconds(StageEnd* out, int n, int capacity, uint32_t second, uint64_t lo,
                            uint64_t hi, uint64_t steps, const uint64_t* dlo,
                            const uint64_t* dhi) noexcept nogil:
    """Append one end per second source (two steps, no game end); the new count, or -1."""
    cdef int frm2
    cdef StageEnd* e = out + n
    if capacity - n < N_POINTS:
        while second:
            frm2 = bit_length(second)
            second &= ~((<uint32_t>1) << (frm2 - 1))
            if n >= capacity:
                return -1
            put_end(&out[n], lo + dlo[frm2], hi + dhi[frm2], 2, False,
                    steps | ((<uint64_t>frm2) << 16))
            n += 1
        return n
    while second:
        frm2 = bit_length(second)
        second &= ~((<uint32_t>1) << (frm2 - 1))
        put_end(e, lo + dlo[frm2], hi + dhi[frm2], 2, False, steps | ((<uint64_t>frm2) << 16))
        e += 1
    return <int>(e - out)


cdef int two_dice_no_bear_off(uint32_t mask, uint32_t blocked, uint64_t lo, uint64_t hi,
                              int high, int low, StageEnd* out, int capacity,
                              int* playable) noexcept nogil:
    """The ends of two different dice when no step can bear off, in canonical order.

    With two or more checkers outside the home board a step is legal exactly
    when its source holds a checker and its target is open, whatever was
    played before (RULES §2.2-2.3). The plays are visited in canonical order
    (RULES §3.8): first steps from the highest point down, the larger die
    first; second steps from the highest point down. A second step from a
    point above the first's source (or from the same point with the larger
    die after the smaller) reaches an end whose other order comes first, so
    the second sources are limited to the points at or below the first's
    (below, after the smaller die). Two plays that are left reach the same
    end only when one checker moves with both dice: (F, high) then
    (F - high, low), and (F, low) then (F - low, high); the second of these
    is dropped when the first is legal. Every other play moves a different
    set of checkers, so the ends come out distinct, with their canonical
    steps and in canonical order, with no hash. Returns the number of ends
    (none when nothing moves), or -1 if ``capacity`` is too small.
    """
    cdef uint32_t open_h = open_from(blocked, high), open_l = open_from(blocked, low)
    cdef uint32_t move_h = mask & open_h, move_l = mask & open_l
    cdef uint32_t first = move_h | move_l, bit, rest, second
    cdef const uint64_t* hlo = DELTA_LO[high]
    cdef const uint64_t* hhi = DELTA_HI[high]
    cdef const uint64_t* llo = DELTA_LO[low]
    cdef const uint64_t* lhi = DELTA_HI[low]
    cdef uint64_t steps_h = packed_step(0, 0, high) | packed_step(1, 0, low)
    cdef uint64_t steps_l = packed_step(0, 0, low) | packed_step(1, 0, high)
    cdef int frm, die, n = 0
    while first:
        frm = bit_length(first)
        bit = (<uint32_t>1) << (frm - 1)
        first &= ~bit
        rest = mask
        if nibble(lo, hi, frm) == 1:
            rest &= ~bit
        if move_h & bit:
            second = (rest | LANDS[high][frm]) & open_l & ((bit << 1) - 1)
            n = two_seconds(out, n, capacity, second, lo + hlo[frm], hi + hhi[frm],
                            steps_h | <uint64_t>frm, llo, lhi)
            if n < 0:
                return -1
        if move_l & bit:
            second = (rest | LANDS[low][frm]) & open_h & (bit - 1)
            if move_h & bit:
                # (F, high), (F - high, low) reached the end of (F, low), (F - low, high)
                second &= ~LANDS[low][frm]
            n = two_seconds(out, n, capacity, second, lo + llo[frm], hi + lhi[frm],
                            steps_l | <uint64_t>frm, hlo, hhi)
            if n < 0:
                return -1
    if n:
        playable[0] = 2
        return n
    # RULES §3.5: only one die can be played; the larger one if it can.
    first = move_h
    die = high
    if not first:
        first = move_l
        die = low
    playable[0] = 1 if first else 0
    while first:
        frm = bit_length(first)
        first &= ~((<uint32_t>1) << (frm - 1))
        if n >= capacity:
            return -1
        put_end(&out[n], lo + DELTA_LO[die][frm], hi + DELTA_HI[die][frm], 1, False,
                packed_step(0, frm, die))
        n += 1
    return n


# The stage of two different dice in general (bearing off possible): a
# de-duplicating sink.
ctypedef struct TwoSink:
    Sink s
    uint16_t slots[256]   # index + 1 into out, 0 free


cdef inline void two_record(TwoSink* t, uint64_t lo, uint64_t hi, int n_steps, int effective,
                            bint ends_game, uint64_t steps) noexcept nogil:
    """sink_record for plays that may reach an end found before: plays arrive
    in canonical order (RULES §3.8), so the first play that reaches an end
    carries its canonical steps; later ones are dropped."""
    cdef Sink* s = &t.s
    cdef int i
    cdef uint32_t h = 0
    cdef uint16_t slot
    if effective < s.best:
        return
    if effective > s.best:
        s.best = effective
        s.n = 0
        memset(t.slots, 0, sizeof(t.slots))
    if s.n < 192:
        # open addressing on the exact key; the table holds the first 192 ends
        h = <uint32_t>(((lo ^ (hi << 7)) * <uint64_t>0x9E3779B97F4A7C15ULL) >> 56)
        while True:
            slot = t.slots[h]
            if slot == 0:
                break
            if s.out[slot - 1].key.lo == lo and s.out[slot - 1].key.hi == hi:
                return
            h = (h + 1) & 255
    else:
        for i in range(s.n):
            if s.out[i].key.lo == lo and s.out[i].key.hi == hi:
                return
    if s.n >= s.capacity:
        s.overflow = 1
        return
    if s.n < 192:
        t.slots[h] = s.n + 1
    put_end(&s.out[s.n], lo, hi, n_steps, ends_game, steps)
    s.n += 1


cdef inline uint32_t step_mask(uint32_t mask, uint64_t lo, uint64_t hi, int frm,
                               int die) noexcept nogil:
    """The occupancy after the step (frm, die)."""
    if nibble(lo, hi, frm) == 1:
        mask &= ~((<uint32_t>1) << (frm - 1))
    if frm > die:
        mask |= (<uint32_t>1) << (frm - die - 1)
    return mask


cdef void two_dice_general(TwoSink* t, uint32_t mask, uint32_t blocked, uint64_t lo,
                           uint64_t hi, int high, int low) noexcept nogil:
    """All plays of two different dice, in canonical order (RULES §3.2-3.5)."""
    cdef uint32_t open_d[2]
    cdef uint32_t first = mask, second, mask1
    cdef uint64_t lo1, hi1, step1
    cdef int frm, frm2, k, die, other
    cdef bint moves
    open_d[0] = open_from(blocked, high)
    open_d[1] = open_from(blocked, low)
    while first:
        frm = bit_length(first)
        first &= ~((<uint32_t>1) << (frm - 1))
        for k in range(2):
            die = high if k == 0 else low
            other = low if k == 0 else high
            if not (movable(mask, open_d[k], die) >> (frm - 1)) & 1:
                continue
            mask1 = step_mask(mask, lo, hi, frm, die)
            lo1 = lo - UNIT_LO[frm] + UNIT_LO[frm - die if frm > die else 0]
            hi1 = hi - UNIT_HI[frm] + UNIT_HI[frm - die if frm > die else 0]
            step1 = packed_step(0, frm, die)
            if not mask1:
                # RULES §3.3: the 15th checker off completes the play.
                two_record(t, lo1, hi1, 1, 2, True, step1)
                continue
            second = movable(mask1, open_d[1 - k], other)
            moves = second != 0
            while second:
                frm2 = bit_length(second)
                second &= ~((<uint32_t>1) << (frm2 - 1))
                # Two independent steps onto the board (the second not the
                # first's checker): their other order reaches the same end,
                # and when it comes first in canonical order it was visited
                # already (RULES §3.8): skip this one.
                if (frm - die >= 1 and frm2 - other >= 1 and frm2 != frm - die
                        and (frm2 > frm or (frm2 == frm and other > die))):
                    continue
                two_record(t, lo1 - UNIT_LO[frm2] + UNIT_LO[frm2 - other if frm2 > other else 0],
                           hi1 - UNIT_HI[frm2] + UNIT_HI[frm2 - other if frm2 > other else 0],
                           2, 2, step_mask(mask1, lo1, hi1, frm2, other) == 0,
                           step1 | packed_step(1, frm2, other))
            if not moves:
                two_record(t, lo1, hi1, 1, 1, False, step1)


# ---------------------------------------------------------------------------
# One stage
# ---------------------------------------------------------------------------

cdef int stage_generate_key(Key96 key, uint32_t mine, uint32_t blocked, const uint8_t* dice,
                            int n_dice, StageEnd* out, int capacity, int* n_ends,
                            int* playable) noexcept nogil:
    """stage_generate on the mover's packed key, its occupancy ``mine`` and the
    points the opponent holds in the mover's numbering (``blocked``)."""
    cdef Sink s
    cdef EqStage eq
    cdef TwoSink* t
    cdef TwoSink two
    cdef int i, kept, n
    cdef uint64_t lo = key.lo, hi = key.hi
    if mine and n_dice == 2 and dice[0] != dice[1]:
        if no_bear_off_in_two(mine, lo, hi):
            n = two_dice_no_bear_off(mine, blocked, lo, hi, dice[0], dice[1], out, capacity,
                                     playable)
            if n < 0 or capacity < 1:
                n_ends[0] = 0
                return -1
            if n == 0:
                put_end(out, lo, hi, 0, False, 0)    # RULES §3.6: the empty play
                n = 1
            n_ends[0] = n
            return 0
        t = &two
        t.s.out = out
        t.s.capacity = capacity
        t.s.n = 0
        t.s.best = 0
        t.s.overflow = 0
        memset(t.slots, 0, sizeof(t.slots))
        two_dice_general(t, mine, blocked, lo, hi, dice[0], dice[1])
        if t.s.best == 1:
            # RULES §3.5: only one die can be played; the larger one if it can.
            kept = 0
            for i in range(t.s.n):
                if out[i].steps[0].die == dice[0]:
                    out[kept] = out[i]
                    kept += 1
            if kept:
                t.s.n = kept
        s = t.s
    else:
        s.out = out
        s.capacity = capacity
        s.n = 0
        s.best = 0
        s.overflow = 0
        if mine:
            eq.die = dice[0]
            eq.n_dice = n_dice
            eq.open_d = open_from(blocked, dice[0])
            eq.bear_off = key_outside(lo, hi) < n_dice
            eq.dlo = DELTA_LO[dice[0]]
            eq.dhi = DELTA_HI[dice[0]]
            eq.lands = LANDS[dice[0]]
            if eq.bear_off or n_dice == 1:
                eq_dfs(&s, &eq, mine, lo, hi, 0, 0, BOARD_BITS)
            else:
                eq_no_bear_off(&s, &eq, mine, lo, hi, 0, 0, BOARD_BITS)
    if s.n == 0:
        sink_record(&s, lo, hi, 0, 0, False, 0)    # RULES §3.6: the empty play
    n_ends[0] = s.n
    playable[0] = s.best
    return -1 if s.overflow else 0


cdef int stage_generate(const Pos* p, int seat, const uint8_t* dice, int n_dice,
                        StageEnd* out, int capacity, int* n_ends,
                        int* playable) noexcept nogil:
    """Enumerate the distinct ends of one stage (RULES §3) into ``out``.

    ``dice`` is a valid stage: two different dice (larger first) or one to
    four equal dice. Returns 0, or -1 when ``capacity`` is too small. The
    step bytes of an end past its ``n_steps`` are zero.
    """
    return stage_generate_key(pos_mover_key(p, seat), p.occ[seat], rotate12(p.occ[1 - seat]),
                              dice, n_dice, out, capacity, n_ends, playable)


# ---------------------------------------------------------------------------
# Input checking (once per call, with the GIL)
# ---------------------------------------------------------------------------

cdef int check_seat(object seat) except -1:
    if type(seat) is int:
        if seat == 0:
            return 0
        if seat == 1:
            return 1
    elif isinstance(seat, bool) or not hasattr(type(seat), "__index__"):
        raise TypeError(f"seat must be an int (0 = White, 1 = Black), not {type(seat).__name__}")
    else:
        value = _index(seat)
        if value == 0 or value == 1:
            return value
    raise InvalidSeatError(f"seat must be 0 (White) or 1 (Black), got {shown(seat)}")


cdef int check_die(object die, object dice) except -1:
    if type(die) is not int:
        if isinstance(die, bool) or not hasattr(type(die), "__index__"):
            raise TypeError(f"dice must be ints, got {shown(die)} in {shown(dice)}")
        die = _index(die)
    if die < 1 or die > 6:
        raise InvalidDiceError(f"a die must be 1 to 6, got {shown(die)} in {shown(list(dice))}")
    return die


cdef int read_dice(object dice, uint8_t* out) except -1:
    """Check ``dice`` is a stage (RULES §3.1); store it larger first; return its size."""
    cdef int n, i
    if type(dice) is not list and type(dice) is not tuple:
        if isinstance(dice, (str, bytes, bytearray)) or not hasattr(dice, "__iter__"):
            raise TypeError(f"dice must be a sequence of ints, not {type(dice).__name__}")
        dice = tuple(dice)
    n = len(dice)
    for die in dice:
        if type(die) is not int and (isinstance(die, bool) or not hasattr(type(die), "__index__")):
            raise TypeError(f"dice must be ints, got {shown(die)} in {shown(list(dice))}")
    if n < 1 or n > MAX_STAGE_DICE:
        raise InvalidDiceError(
            f"a stage is two different dice or one to four equal dice, got {len(dice)} dice: {shown(list(dice))}")
    for i in range(n):
        out[i] = check_die(dice[i], dice)
    if n == 2 and out[0] < out[1]:
        out[0], out[1] = out[1], out[0]
    for i in range(1, n):
        if out[i] != out[0] and n != 2:
            raise InvalidDiceError(
                f"a stage of {n} dice must have equal dice, got {shown(list(dice))}")
    return n


# Error codes of parse_code
cdef enum:
    E_PREFIX = 1
    E_SECTIONS = 2
    E_TOKENS = 3
    E_CHAR = 4
    E_BOTH = 5
    E_COUNT = 6
    E_BAR = 7
    E_OFF = 8
    E_TOTAL = 9


cdef inline bint is_digit(char ch) noexcept nogil:
    return 48 <= ch <= 57


cdef int parse_code(const char* s, Py_ssize_t n, Pos* out, int* where) noexcept nogil:
    """Read a position code (RULES §9.1) into ``out``; 0 or an error code.

    ``where`` receives the 1-based point of a point error, or the seat of a
    total error.
    """
    cdef Py_ssize_t i = 2
    cdef int q, value, digits, sign, seat, total
    cdef int board_total[2]
    memset(out, 0, sizeof(Pos))
    where[0] = 0
    if n < 2 or s[0] != 71 or s[1] != 58:
        return E_PREFIX
    board_total[0] = 0
    board_total[1] = 0
    for q in range(1, 25):
        where[0] = q
        sign = 1
        value = 0
        digits = 0
        if i < n and (s[i] == 45 or s[i] == 43):        # '-' or '+'
            sign = -1 if s[i] == 45 else 1
            i += 1
            if i >= n or not is_digit(s[i]):
                return E_CHAR
        while i < n and is_digit(s[i]):
            value = value * 10 + (s[i] - 48)
            if value > 99:
                value = 99          # saturate: anything above 15 is an error
            digits += 1
            i += 1
        if i >= n:
            return E_SECTIONS
        if s[i] == 44:                                     # ','
            if q == 24:
                return E_TOKENS
        elif s[i] == 124:                                  # '|'
            if q < 24:
                return E_TOKENS
        elif (s[i] == 45 or s[i] == 43) and digits:
            return E_BOTH
        else:
            return E_CHAR
        i += 1
        if value > N_CHECKERS:
            return E_COUNT
        if sign > 0:
            out.cnt[0][q] = value
            board_total[0] += value
        else:
            out.cnt[1][point_in_other_frame(q)] = value
            board_total[1] += value
    # RULES §9.1: the bar is always empty in Gul Bara.
    where[0] = 0
    if i + 4 > n or s[i] != 48 or s[i + 1] != 44 or s[i + 2] != 48 or s[i + 3] != 124:
        return E_BAR
    i += 4
    for seat in range(2):
        value = 0
        digits = 0
        while i < n and is_digit(s[i]):
            value = value * 10 + (s[i] - 48)
            if value > 99:
                value = 99
            digits += 1
            i += 1
        if digits == 0 or value > N_CHECKERS:
            return E_OFF
        if seat == 0:
            if i >= n or s[i] != 44:
                return E_OFF
            i += 1
        out.off[seat] = value
    if i != n:
        return E_OFF
    for seat in range(2):
        total = board_total[seat] + out.off[seat]
        if total != N_CHECKERS:
            where[0] = seat
            return E_TOTAL
    pos_set_occupancy(out)
    return 0


cdef object code_error(str code, int err, int where):
    """The exception for a failed parse_code, with a message naming the problem."""
    text = repr(code) if len(code) <= 120 else repr(code[:117]) + "..."
    if err == E_PREFIX:
        return InvalidPositionError(f"a position code starts with 'G:', got {text}")
    if err == E_SECTIONS or err == E_TOKENS:
        parts = code[2:].split("|")
        if len(parts) != 3:
            return InvalidPositionError(
                f"a position code has three '|'-separated sections (points|bar|off), "
                f"got {len(parts)} in {text}")
        return InvalidPositionError(
            f"a position code has 24 point tokens, got {len(parts[0].split(','))} in {text}")
    if err == E_CHAR:
        token = code[2:].split("|")[0].split(",")[where - 1]
        return InvalidPositionError(f"point {where} has the bad token {shown(token)} in {text}")
    if err == E_BOTH:
        token = code[2:].split("|")[0].split(",")[where - 1]
        return InvalidPositionError(
            f"point {where} holds checkers of both colours ({shown(token)}) in {text}")
    if err == E_COUNT:
        token = code[2:].split("|")[0].split(",")[where - 1]
        return InvalidPositionError(
            f"point {where} holds more than 15 checkers ({shown(token)}) in {text}")
    if err == E_BAR:
        return InvalidPositionError(f"the bar must be '0,0' in Gul Bara (no hitting), in {text}")
    if err == E_OFF:
        return InvalidPositionError(
            f"the borne-off section must be two counts 0..15 ('w,b'), in {text}")
    colour = "White" if where == 0 else "Black"
    return InvalidPositionError(
        f"{colour} must have exactly 15 checkers on the board and borne off, in {text}")


cdef int read_code(object code, Pos* out) except -1:
    cdef Py_ssize_t n
    cdef const char* s
    cdef int err, where
    if type(code) is not str:
        if not isinstance(code, str):
            raise TypeError(f"a position code must be a str, not {type(code).__name__}")
    try:
        s = PyUnicode_AsUTF8AndSize(code, &n)
    except UnicodeError:
        raise InvalidPositionError(
            f"a position code is ASCII text, got {shown(code)}") from None
    err = parse_code(s, n, out, &where)
    if err:
        raise code_error(code, err, where)
    return 0


cdef str format_code(const Pos* p):
    cdef char buf[CODE_BUFFER]
    cdef Py_ssize_t n = pos_format(p, buf)
    return PyUnicode_DecodeASCII(buf, n, NULL)


cdef Position wrap(const Pos* p):
    cdef Position result = Position.__new__(Position)
    result.pos = p[0]
    return result


# ---------------------------------------------------------------------------
# Python-facing classes (the backend contract of docs/backend.md)
# ---------------------------------------------------------------------------

cdef class Position:
    """An immutable Gul Bara position (no side to move).

    >>> p = Position.from_code(START_CODE)
    >>> p.pip_count(0), p.borne_off(1), p.code() == START_CODE
    (360, 0, True)
    """

    def __cinit__(self):
        memset(&self.pos, 0, sizeof(Pos))

    @staticmethod
    def from_code(code):
        """Read a position code (RULES §9.1); ``InvalidPositionError`` if malformed."""
        cdef Position result = Position.__new__(Position)
        read_code(code, &result.pos)
        return result

    @staticmethod
    def from_points(points, off_white, off_black):
        """Build a position from 24 signed counts in White's numbering and the borne-off counts."""
        points = list(points)
        if len(points) != 24:
            raise InvalidPositionError(f"a board has 24 points, got {len(points)}")
        tokens = []
        for value in points:
            if isinstance(value, bool) or not hasattr(type(value), "__index__"):
                raise TypeError(f"point counts must be ints, got {shown(value)}")
            value = _index(value)
            tokens.append(str(value) if value else "")
        offs = []
        for value in (off_white, off_black):
            if isinstance(value, bool) or not hasattr(type(value), "__index__"):
                raise TypeError(f"borne-off counts must be ints, got {shown(value)}")
            offs.append(str(_index(value)))
        return Position.from_code("G:" + ",".join(tokens) + "|0,0|" + ",".join(offs))

    def code(self):
        """The canonical position code (RULES §9.1)."""
        return format_code(&self.pos)

    def points(self):
        """24 signed counts in White's numbering (positive White, negative Black)."""
        return tuple(self.pos.cnt[0][q] - self.pos.cnt[1][point_in_other_frame(q)]
                     for q in range(1, 25))

    def borne_off(self, seat):
        """Checkers ``seat`` has borne off."""
        return self.pos.off[check_seat(seat)]

    def pip_count(self, seat):
        """Sum over ``seat``'s checkers of their own point numbers."""
        cdef int s = check_seat(seat), q, total = 0
        for q in range(1, 25):
            total += q * self.pos.cnt[s][q]
        return total

    def key(self):
        """A 64-bit hash of the position, equal for equal positions."""
        return pos_key64(&self.pos)

    def stage_ends(self, seat, dice):
        """The distinct ends of one stage for ``seat`` (RULES §3)."""
        return make_ends(&self.pos, check_seat(seat), dice)

    def apply_steps(self, seat, steps):
        """The position after ``steps``, each checked against RULES §2 (not the stage rules)."""
        cdef int s = check_seat(seat), frm, die
        cdef Position result = wrap(&self.pos)
        for step in steps:
            try:
                frm_obj, die_obj = step
            except (TypeError, ValueError):
                raise TypeError(f"a step is a pair (from, die), got {shown(step)}") from None
            for value in (frm_obj, die_obj):
                if isinstance(value, bool) or not hasattr(type(value), "__index__"):
                    raise TypeError(f"a step is a pair of ints (from, die), got {shown(step)}")
            frm_obj = _index(frm_obj)
            die_obj = _index(die_obj)
            if not (1 <= frm_obj <= 24 and 1 <= die_obj <= 6):
                raise IllegalPlayError(
                    f"step {shown((frm_obj, die_obj))} is out of range (from 1..24, die 1..6)")
            frm = frm_obj
            die = die_obj
            if not step_is_legal(&result.pos, s, frm, die):
                raise IllegalPlayError(
                    f"step {shown((frm, die))} is illegal for {'White' if s == 0 else 'Black'} "
                    f"in {format_code(&result.pos)}: {step_problem(&result.pos, s, frm, die)}")
            step_apply(&result.pos, s, frm, die)
        return result

    def __eq__(self, other):
        if not isinstance(other, Position):
            return NotImplemented
        cdef Position o = other
        return (memcmp(self.pos.cnt, o.pos.cnt, sizeof(self.pos.cnt)) == 0
                and self.pos.off[0] == o.pos.off[0] and self.pos.off[1] == o.pos.off[1])

    def __hash__(self):
        return <Py_ssize_t>(pos_key64(&self.pos) >> 2)

    def __repr__(self):
        return f"Position.from_code({self.code()!r})"

    def __reduce__(self):
        return (Position.from_code, (self.code(),))


cdef str step_problem(const Pos* p, int seat, int frm, int die):
    cdef int target = frm - die
    if p.off[seat] == N_CHECKERS:
        return "every checker is already borne off"
    if not p.cnt[seat][frm]:
        return f"no checker on point {frm}"
    if target >= 1:
        return f"point {target} is held by the opponent"
    if p.occ[seat] & ~(<uint32_t>HOME_BITS):
        return "bearing off needs every checker in the home board"
    return f"a {die} bears off only from the highest point, {bit_length(p.occ[seat])}"


cdef Ends make_ends(const Pos* p, int seat, object dice):
    cdef uint8_t d[MAX_STAGE_DICE]
    cdef int n_dice = read_dice(dice, d)
    cdef int n_ends, playable
    if stage_generate(p, seat, d, n_dice, _scratch, STAGE_CAPACITY, &n_ends, &playable):
        raise MemoryError("stage capacity exceeded")  # unreachable by the bound above
    cdef Ends ends = Ends.__new__(Ends)
    ends.ends = <StageEnd*>malloc(n_ends * sizeof(StageEnd))
    if ends.ends == NULL:
        raise MemoryError()
    memcpy(ends.ends, _scratch, n_ends * sizeof(StageEnd))
    ends.n = n_ends
    ends.base = p[0]
    ends.seat_ = seat
    ends.playable = playable
    if n_dice == 2:
        ends.dice_ = (d[0], d[1])
    else:
        ends.dice_ = (d[0],) * n_dice
    return ends


def stage_ends(code, seat, dice):
    """The distinct ends of one stage (RULES §3) for ``seat`` in the position ``code``.

    >>> ends = stage_ends(START_CODE, 0, [6, 5])
    >>> ends.playable_dice, len(ends), ends.steps(0)
    (2, 2, ((24, 6), (24, 5)))
    """
    cdef Pos p
    read_code(code, &p)
    return make_ends(&p, check_seat(seat), dice)


cdef class EndSet:
    """End positions of one mover from one start (a stage's ends, a chain's
    outcomes): the shared accessors; subclasses say how many and which keys."""

    cdef Py_ssize_t count(self) noexcept:
        return 0

    cdef Key96 key_at(self, Py_ssize_t i) noexcept nogil:
        cdef Key96 key
        key.lo = 0
        key.hi = 0
        return key

    cdef int check_index(self, Py_ssize_t i) except -1:
        if i < 0 or i >= self.count():
            raise IndexError(f"index {i} out of range for {self.count()} ends")
        return 0

    cdef void end_pos(self, Py_ssize_t i, Pos* out) noexcept nogil:
        out[0] = self.base
        pos_set_mover_key(out, self.seat_, self.key_at(i))

    def __len__(self):
        return self.count()

    @property
    def seat(self):
        return self.seat_

    def start(self):
        """The position the mover starts from."""
        return wrap(&self.base)

    def code(self, Py_ssize_t i):
        """The position code of end ``i``."""
        self.check_index(i)
        cdef Pos p
        self.end_pos(i, &p)
        return format_code(&p)

    def position(self, Py_ssize_t i):
        """End ``i`` as a ``Position``."""
        self.check_index(i)
        cdef Pos p
        self.end_pos(i, &p)
        return wrap(&p)


cdef class Ends(EndSet):
    """The distinct ends of one stage, in canonical order (RULES §3.7-3.8)."""

    def __dealloc__(self):
        free(self.ends)

    cdef Py_ssize_t count(self) noexcept:
        return self.n

    cdef Key96 key_at(self, Py_ssize_t i) noexcept nogil:
        return self.ends[i].key

    @property
    def dice(self):
        return self.dice_

    @property
    def playable_dice(self):
        """The effective length every legal play has (RULES §3.4)."""
        return self.playable

    def steps(self, Py_ssize_t i):
        """The canonical steps of end ``i`` (RULES §3.8), in the mover's numbering."""
        self.check_index(i)
        cdef StageEnd* e = &self.ends[i]
        return tuple([(e.steps[k].frm, e.steps[k].die) for k in range(e.n_steps)])

    def ends_game(self, Py_ssize_t i):
        """Whether end ``i`` bears off the mover's last checker."""
        self.check_index(i)
        return bool(self.ends[i].ends_game)

    def index(self, Position position not None):
        """The index of the end equal to ``position``, or -1."""
        cdef Key96 key = pos_mover_key(&position.pos, self.seat_)
        cdef int other = 1 - self.seat_, i
        if (memcmp(position.pos.cnt[other], self.base.cnt[other], 25) != 0
                or position.pos.off[other] != self.base.off[other]):
            return -1
        for i in range(self.n):
            if self.ends[i].key.lo == key.lo and self.ends[i].key.hi == key.hi:
                return i
        return -1

    def __repr__(self):
        return f"<Ends seat={self.seat_} dice={self.dice_} playable_dice={self.playable} n={self.n}>"

    def __reduce__(self):
        # pickled as its stage, enumerated again when loaded
        return (stage_ends, (format_code(&self.base), self.seat_, self.dice_))

    def __copy__(self):
        return self                         # immutable

    def __deepcopy__(self, memo):
        return self


# ---------------------------------------------------------------------------
# Whole chains and remainders (RULES §4.3-4.4, §5)
# ---------------------------------------------------------------------------
#
# A chain is a sequence of stages. The enumeration keeps the frontier of
# distinct positions after every stage in an open-addressing hash set keyed by
# the exact packed position (the opponent never moves within a chain, so the
# mover's 96-bit key is the whole position), and expands each frontier
# position with the stage generator above. Outcomes are kept in a second set
# keyed by (end position, tag), where the tag says why and where the chain
# stopped, which determines the remainder (RULES §5.1).

cdef enum:
    STOP_COMPLETE = 0     # every stage played in full (or the remainder played out)
    STOP_STALLED = 1      # a stage not played in full: the chain stops (RULES §4.4)
    STOP_UNSTARTED = 2    # not even one die of the first stage (RULES §5.2)
    STOP_GAME_OVER = 3    # the mover bore off its last checker (RULES §5.5)

#: Peak memory of a chain enumeration per distinct position held at once, in
#: bytes. The tables are held to max_ends * CHAIN_BYTES_PER_END +
#: CHAIN_BASE_BYTES (chain_budget; CHAIN_TOO_MANY past it), which the usual
#: layout stays under: 16-byte slots at least a quarter full (at most 64 bytes
#: a position), the next stage's table sized from the frontier, a doubling
#: table briefly held twice. Measured: 52-109 bytes per position held.
cdef enum:
    BYTES_PER_HELD = 128
    BASE_BYTES = 1 << 16      # the smallest tables (outcomes start with room for 1,024)
CHAIN_BYTES_PER_END = BYTES_PER_HELD
#: What the smallest tables add to that bound, in bytes.
CHAIN_BASE_BYTES = BASE_BYTES


# Result codes of chain_run and its parts (and of the tables' functions)
cdef enum:
    CHAIN_OK = 0
    CHAIN_NO_MEMORY = -1
    CHAIN_TOO_MANY = -2       # past max_ends: positions held at once, or their memory


# The memory an enumeration's tables hold, its peak, and its budget
# (max_ends * CHAIN_BYTES_PER_END + CHAIN_BASE_BYTES).
ctypedef struct Meter:
    size_t held
    size_t peak
    size_t budget


cdef inline int meter_take(Meter* m, size_t nbytes) noexcept nogil:
    """Count ``nbytes`` more, or CHAIN_TOO_MANY when the budget would be passed."""
    if m != NULL:
        if nbytes > m.budget - m.held:
            return CHAIN_TOO_MANY
        m.held += nbytes
        if m.held > m.peak:
            m.peak = m.held
    return CHAIN_OK


cdef inline void meter_sub(Meter* m, size_t nbytes) noexcept nogil:
    if m != NULL:
        m.held -= nbytes


ctypedef struct KeySet:
    uint64_t* slots       # open addressing, (k0, k1) pairs inline; k1 == EMPTY_K1: free
    Py_ssize_t mask       # number of slots - 1 (a power of two minus one)
    Py_ssize_t size
    uint64_t* dense       # after keyset_compact: the keys, (k0, k1) pairs in slot order
    Meter* meter          # counts the table's bytes (NULL: not counted)


cdef uint64_t EMPTY_K1 = <uint64_t>0xFFFFFFFFFFFFFFFFULL


cdef inline uint64_t key_hash(uint64_t a, uint64_t b) noexcept nogil:
    return mix64(a ^ (b * <uint64_t>0x9E3779B97F4A7C15ULL))


cdef inline size_t table_bytes(Py_ssize_t slots) noexcept nogil:
    return <size_t>(2 * slots) * sizeof(uint64_t)


cdef int keyset_init(KeySet* s, Py_ssize_t room, Meter* meter=NULL) noexcept nogil:
    """An empty table with room for ``room`` keys: CHAIN_OK, or
    CHAIN_NO_MEMORY / CHAIN_TOO_MANY (``meter``'s budget) with no table."""
    cdef Py_ssize_t slots = 64, i
    while slots < 2 * room:
        slots *= 2
    s.slots = NULL
    s.mask = slots - 1
    s.size = 0
    s.dense = NULL
    s.meter = meter
    if meter_take(meter, table_bytes(slots)) != CHAIN_OK:
        return CHAIN_TOO_MANY
    s.slots = <uint64_t*>big_alloc(table_bytes(slots))
    if s.slots == NULL:
        meter_sub(meter, table_bytes(slots))
        return CHAIN_NO_MEMORY
    for i in range(slots):
        s.slots[2 * i + 1] = EMPTY_K1
    return CHAIN_OK


cdef void keyset_free(KeySet* s) noexcept nogil:
    if s.slots != NULL:
        meter_sub(s.meter, table_bytes(s.mask + 1))
    if s.dense != NULL:
        meter_sub(s.meter, table_bytes(s.size + 1))
    free(s.slots)
    free(s.dense)
    s.slots = NULL
    s.dense = NULL
    s.size = 0


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
    cdef uint64_t* fresh
    if meter_take(s.meter, table_bytes(slots)) != CHAIN_OK:  # both held for a while
        return CHAIN_TOO_MANY
    fresh = <uint64_t*>big_alloc(table_bytes(slots))
    if fresh == NULL:
        meter_sub(s.meter, table_bytes(slots))
        return CHAIN_NO_MEMORY
    for i in range(slots):
        fresh[2 * i + 1] = EMPTY_K1
    for i in range(old_slots):
        if s.slots[2 * i + 1] != EMPTY_K1:
            keyset_place(fresh, slots - 1, s.slots[2 * i], s.slots[2 * i + 1], hashed)
    free(s.slots)
    meter_sub(s.meter, table_bytes(old_slots))
    s.slots = fresh
    s.mask = slots - 1
    return CHAIN_OK


cdef inline int keyset_add(KeySet* s, uint64_t a, uint64_t b) noexcept nogil:
    """Insert (a, b): 1 if new, 0 if already there, a failure code of
    keyset_grow (negative) when the table could not grow."""
    return keyset_add_hashed(s, a, b, key_hash(a, b))


cdef inline int keyset_add_hashed(KeySet* s, uint64_t a, uint64_t b,
                                  uint64_t hashed) noexcept nogil:
    """keyset_add with the key's hash given (``key_hash(a, b)``, computed
    when the key was queued, to prefetch its home slot)."""
    return keyset_add_keyed(s, a, b, hashed, EMPTY_K1)


cdef uint64_t LOW32 = <uint64_t>0xFFFFFFFFULL


cdef inline int keyset_add_max(KeySet* s, uint64_t a, uint64_t b, uint64_t hashed) noexcept nogil:
    """Insert the key (a, low 32 bits of b) carrying the high bits of b as a
    value; an equal key keeps the larger value. ``hashed``: key_hash(a, b & LOW32).
    A table is used with this or with keyset_add, not both."""
    return keyset_add_keyed(s, a, b, hashed, LOW32)


cdef inline int keyset_add_keyed(KeySet* s, uint64_t a, uint64_t b, uint64_t hashed,
                                 uint64_t keyed) noexcept nogil:
    """Insert (a, b) where ``keyed`` says which bits of b are part of the key
    (the rest, a value: an equal key keeps the larger b). 1 if new, 0 if
    already there, negative as keyset_add."""
    cdef Py_ssize_t h = <Py_ssize_t>(hashed & <uint64_t>s.mask)
    cdef uint64_t* slot
    cdef int grown
    while True:
        slot = s.slots + 2 * h
        if slot[1] == EMPTY_K1:
            break
        if slot[0] == a and (slot[1] & keyed) == (b & keyed):
            if b > slot[1]:
                slot[1] = b
            return 0
        h = (h + 1) & s.mask
    slot[0] = a
    slot[1] = b
    s.size += 1
    if 2 * s.size > s.mask + 1:
        grown = keyset_grow(s, keyed)
        if grown != CHAIN_OK:
            return grown
    return 1


cdef void keyset_compact(KeySet* s) noexcept nogil:
    """Turn the table into its keys, dense (``s.dense``, slot order), in
    place: no second copy is held at any time."""
    cdef Py_ssize_t i, n = 0
    cdef uint64_t* shrunk
    for i in range(s.mask + 1):
        if s.slots[2 * i + 1] != EMPTY_K1:
            s.slots[2 * n] = s.slots[2 * i]
            s.slots[2 * n + 1] = s.slots[2 * i + 1]
            n += 1
    shrunk = <uint64_t*>realloc(s.slots, table_bytes(n + 1))
    meter_sub(s.meter, table_bytes(s.mask + 1) - table_bytes(n + 1))
    if shrunk == NULL:
        # (the meter counts the dense keys, not the rest of the old table)
        shrunk = s.slots
    s.dense = shrunk
    s.slots = NULL


cdef inline uint64_t make_tag(int stop, int number, int played) noexcept nogil:
    return <uint64_t>(stop | (number << 4) | (played << 8))


cdef inline uint64_t key_k1(Key96 key, uint64_t tag) noexcept nogil:
    return <uint64_t>key.hi | (tag << 32)


ctypedef struct ChainSink:
    KeySet* following     # positions that go on to the next stage
    KeySet* outcomes
    int number            # the stage's die
    int count             # the stage's number of dice
    int steps             # steps every play of this group makes (its playable dice)
    bint stalls           # a chain stage not played in full: leaves are outcomes (RULES §4.4)
    bint last_stage


cdef void gen_load(Gen* g, Key96 key, uint32_t blocked) noexcept nogil:
    """Set the generator's mover from a packed key (the opponent's mask given)."""
    cdef int q, k, total = 0
    cdef uint32_t mask = 0
    for q in range(1, 25):
        k = key_count(key.lo, key.hi, q)
        g.c[q] = k
        total += k
        if k:
            mask |= (<uint32_t>1) << (q - 1)
    g.mask = mask
    g.off = N_CHECKERS - total
    g.blocked = blocked
    g.klo = key.lo
    g.khi = key.hi


cdef int gen_max_steps(Gen* g, int die, int count, int depth, int max_from) noexcept nogil:
    """How many of ``count`` equal dice can be played (RULES §3.4: a game-ending
    play counts as all); sources in non-increasing order, as in gen_equal_dice."""
    cdef uint32_t sources = g.mask & (((<uint32_t>1) << max_from) - 1)
    cdef int frm, reach, best = depth
    while sources and best < count:
        frm = bit_length(sources)
        sources &= ~((<uint32_t>1) << (frm - 1))
        if not gen_can_step(g, frm, die):
            continue
        gen_do(g, frm, die)
        if g.off == N_CHECKERS or depth + 1 == count:
            reach = count
        else:
            reach = gen_max_steps(g, die, count, depth + 1, frm)
        gen_undo(g, frm, die)
        if reach > best:
            best = reach
    return best


cdef int max_steps_no_bear_off(uint32_t mine, uint64_t lo, uint64_t hi, uint32_t blocked,
                               int die, int count) noexcept nogil:
    """gen_max_steps when no step of the ``count`` dice can bear off (``count``
    or more checkers outside the home board): then the checkers do not
    interfere (RULES §2.2: only the opponent blocks), and a checker on p can
    step as long as p - d, p - 2d, ... are open, so the dice that can be
    played are the sum of those runs over the checkers, at most ``count``."""
    cdef uint32_t open_d = open_from(blocked, die), sources = mine & open_d
    cdef int frm, run, q, total = 0
    while sources:
        frm = bit_length(sources)
        sources &= ~((<uint32_t>1) << (frm - 1))
        run = 1
        q = frm - die
        while run < count and (open_d >> (q - 1)) & 1:
            run += 1
            q -= die
        total += run * nibble(lo, hi, frm)
        if total >= count:
            return count
    return total


cdef enum:
    BATCH = 64

cdef int CHAIN_EXPANSION = 2


def _py_set_chain_expansion(int kind):
    """Tests and benchmarks: 0 expands a step at a time with merging, 1 one DFS per
    position, 2 (the default) takes the no-bear-off DFS for positions that
    cannot bear off and chooses by the size of each group for the others."""
    global CHAIN_EXPANSION
    CHAIN_EXPANSION = kind


# Keys on their way into the chain's tables. Each key's hash is computed once,
# when it is queued, and its home slot prefetched; the queue is inserted when
# full: the tables outgrow the caches, and the misses then overlap.
ctypedef struct InsertQueue:
    KeySet* tables[3]         # 0: a step layer (keyset_add_max), 1: the next frontier, 2: outcomes
    uint64_t k0[BATCH]
    uint64_t k1[BATCH]
    uint64_t hashed[BATCH]
    uint8_t which[BATCH]
    int n
    int err                   # a result code; once it is not CHAIN_OK, later keys are dropped
    Py_ssize_t room           # the most positions the tables may hold together (checked
                              # at every flush: max_ends less what is held elsewhere)


cdef void queue_flush(InsertQueue* q) noexcept nogil:
    cdef int j, added
    cdef Py_ssize_t held = 0
    if q.err == CHAIN_OK:
        for j in range(q.n):
            if q.which[j] == 0:
                # a step layer of chain_layers: the value is the step's source
                added = keyset_add_max(q.tables[0], q.k0[j], q.k1[j], q.hashed[j])
            else:
                added = keyset_add_hashed(q.tables[q.which[j]], q.k0[j], q.k1[j], q.hashed[j])
            if added < 0:
                q.err = added
                break
        for j in range(3):
            if q.tables[j] != NULL:
                held += q.tables[j].size
        if q.err == CHAIN_OK and held > q.room:
            q.err = CHAIN_TOO_MANY
    q.n = 0


cdef inline void queue_push(InsertQueue* q, uint64_t a, uint64_t b, int which) noexcept nogil:
    """Queue the key (a, b) for table ``which``."""
    queue_push_hashed(q, a, b, which, key_hash(a, b & (LOW32 if which == 0 else EMPTY_K1)))


cdef inline void queue_push_hashed(InsertQueue* q, uint64_t a, uint64_t b, int which,
                                   uint64_t h) noexcept nogil:
    """queue_push with the key's hash given."""
    cdef int j = q.n
    cdef KeySet* t = q.tables[which]
    q.k0[j] = a
    q.k1[j] = b
    q.hashed[j] = h
    q.which[j] = <uint8_t>which
    prefetch(t.slots + 2 * <Py_ssize_t>(h & <uint64_t>t.mask))
    q.n = j + 1
    if j + 1 == BATCH:
        queue_flush(q)


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


cdef int sink_leaves(const ChainSink* sink, uint64_t* tag) noexcept nogil:
    """Where the full-length plays of a group go: 1 the next stage's frontier,
    2 the outcomes; ``tag`` (shifted into k1's top half) says why they stop."""
    if sink.stalls:
        tag[0] = make_tag(STOP_STALLED, sink.number, sink.steps) << 32
        return 2
    if sink.last_stage:
        tag[0] = make_tag(STOP_COMPLETE, sink.number, sink.count) << 32
        return 2
    tag[0] = 0
    return 1


cdef int chain_layers(KeySet* layer, uint32_t blocked, ChainSink* sink,
                      Py_ssize_t room) noexcept nogil:
    """Expand positions that play the same number of dice of the stage
    (``sink.steps``), one step at a time, merging equal positions after every
    step. Takes ownership of ``layer``. ``room``: the most positions the
    layers and the sink's tables may hold together."""
    cdef KeySet following
    cdef InsertQueue queue
    cdef Py_ssize_t i
    cdef int k, frm, target, highest, err
    cdef int die = sink.number
    cdef uint32_t sources, mine
    cdef uint64_t klo, khi, child_lo, child_hi
    cdef bint all_home, over
    cdef uint64_t over_tag = make_tag(STOP_GAME_OVER, sink.number, sink.count) << 32
    cdef uint64_t done_tag
    cdef uint8_t leaf_table = <uint8_t>sink_leaves(sink, &done_tag)
    cdef int depth = sink.steps
    cdef uint32_t open_d = open_from(blocked, die)
    queue.tables[1] = sink.following
    queue.tables[2] = sink.outcomes
    queue.n = 0
    queue.err = CHAIN_OK
    for k in range(depth):
        if k + 1 < depth:
            err = keyset_init(&following, layer.size, layer.meter)
            if err != CHAIN_OK:
                keyset_free(layer)
                return err
        queue.tables[0] = &following if k + 1 < depth else NULL
        queue.room = room - layer.size
        for i in range(layer.mask + 1):
            if layer.slots[2 * i + 1] == EMPTY_K1:
                continue
            # Work on the packed key itself: a step is one subtraction and one
            # addition of nibble units; no counts array, no undo.
            klo = layer.slots[2 * i]
            khi = layer.slots[2 * i + 1] & <uint64_t>0xFFFFFFFFULL
            mine = key_occupancy(klo, khi)
            all_home = not (mine & ~(<uint32_t>HOME_BITS))
            highest = bit_length(mine)
            # only the sources that can step (movable), to skip the blocked ones
            sources = mine & open_d
            if all_home:
                sources = movable(mine, open_d, die)
            if k:
                # Sources in non-increasing order, as in eq_dfs: at or below
                # the previous step's source (the largest over the plays
                # merged into this position, so no play is lost).
                sources &= ((<uint32_t>2) << (layer.slots[2 * i + 1] >> 32)) - 1
            while sources:
                frm = bit_length(sources)
                sources &= ~((<uint32_t>1) << (frm - 1))
                target = frm - die
                if target >= 1:
                    if (blocked >> (target - 1)) & 1:                  # RULES §2.2
                        continue
                    child_lo = klo - UNIT_LO[frm] + UNIT_LO[target]
                    child_hi = khi - UNIT_HI[frm] + UNIT_HI[target]
                    over = False
                else:
                    if not all_home or (target < 0 and frm != highest):  # RULES §2.3
                        continue
                    child_lo = klo - UNIT_LO[frm]
                    child_hi = khi - UNIT_HI[frm]
                    # The last checker off: only this point was held, by one checker.
                    over = mine == ((<uint32_t>1) << (frm - 1)) and key_count(klo, khi, frm) == 1
                if over:
                    queue_push(&queue, child_lo, child_hi | over_tag, 2)
                elif k + 1 < depth:
                    queue_push(&queue, child_lo, child_hi | ((<uint64_t>frm - 1) << 32), 0)
                else:
                    queue_push(&queue, child_lo, child_hi | done_tag, leaf_table)
            if queue.err:
                break
        queue_flush(&queue)
        keyset_free(layer)
        if k + 1 < depth:
            layer[0] = following
            if queue.err != CHAIN_OK:
                keyset_free(layer)
        if queue.err != CHAIN_OK:
            return queue.err
    return CHAIN_OK


# A group's positions (all playing the same number of the stage's dice) are
# expanded one at a time by a search for their plays of that many steps,
# sources in non-increasing order (each end once per position, as in eq_dfs),
# on the packed key, the ends queued for insertion.
#
# The common case of a big chain takes a leaner search: when every position
# of a group has at least as many checkers outside its home board as the
# stage has dice, no step can bear off (RULES §2.3) and the game cannot end,
# so a step is legal exactly when its landing point is open (RULES §2.2).

ctypedef struct GroupSearch:
    uint32_t blocked
    int die
    uint32_t open_d           # open_from(blocked, die)
    const uint64_t* dlo       # DELTA_LO[die]
    const uint64_t* dhi
    const uint32_t* lands     # LANDS[die]
    int depth                 # steps every play of the group makes
    uint64_t over_tag
    uint64_t leaf_tag
    int leaf_table            # 1: the next stage's frontier, 2: the outcomes
    InsertQueue queue


cdef void key_dfs(GroupSearch* st, uint64_t klo, uint64_t khi, uint32_t mine, int depth,
                  int max_from) noexcept nogil:
    """The plays of one position, any step may bear off."""
    cdef uint32_t sources = movable(mine, st.open_d, st.die) & (
        ((<uint32_t>1) << max_from) - 1)
    cdef uint32_t child_mine, bit
    cdef uint64_t child_lo, child_hi
    cdef int frm, target
    cdef bint all_home = not (mine & ~(<uint32_t>HOME_BITS))
    cdef int highest = bit_length(mine)
    while sources:
        frm = bit_length(sources)
        bit = (<uint32_t>1) << (frm - 1)
        sources &= ~bit
        target = frm - st.die
        child_mine = mine
        if key_count(klo, khi, frm) == 1:
            child_mine &= ~bit
        if target >= 1:
            if (st.blocked >> (target - 1)) & 1:                  # RULES §2.2
                continue
            child_lo = klo - UNIT_LO[frm] + UNIT_LO[target]
            child_hi = khi - UNIT_HI[frm] + UNIT_HI[target]
            child_mine |= (<uint32_t>1) << (target - 1)
        else:
            if not all_home or (target < 0 and frm != highest):    # RULES §2.3
                continue
            child_lo = klo - UNIT_LO[frm]
            child_hi = khi - UNIT_HI[frm]
        if child_mine == 0:                                        # the last checker off
            queue_push(&st.queue, child_lo, child_hi | st.over_tag, 2)
        elif depth + 1 == st.depth:
            queue_push(&st.queue, child_lo, child_hi | st.leaf_tag, st.leaf_table)
        else:
            key_dfs(st, child_lo, child_hi, child_mine, depth + 1, frm)


cdef void open_dfs(GroupSearch* st, uint32_t mask, uint64_t lo, uint64_t hi, int depth,
                   uint32_t allowed) noexcept nogil:
    """The plays of one position that cannot bear off in this stage."""
    cdef uint32_t sources = mask & st.open_d & allowed, bit, child
    cdef uint64_t end_lo, end_hi
    cdef int frm
    if depth + 1 == st.depth:
        while sources:
            frm = bit_length(sources)
            sources &= ~((<uint32_t>1) << (frm - 1))
            end_lo = lo + st.dlo[frm]
            end_hi = (hi + st.dhi[frm]) | st.leaf_tag
            queue_push_hashed(&st.queue, end_lo, end_hi, st.leaf_table, key_hash(end_lo, end_hi))
        return
    while sources:
        frm = bit_length(sources)
        bit = (<uint32_t>1) << (frm - 1)
        sources &= ~bit
        child = occupancy_after(mask, lo, hi, frm, bit, st.lands[frm])
        open_dfs(st, child, lo + st.dlo[frm], hi + st.dhi[frm], depth + 1, (bit << 1) - 1)


cdef void search_setup(GroupSearch* st, uint32_t blocked, const ChainSink* sink) noexcept nogil:
    """Point a search at a stage (its die, the opponent's mask, the tables)."""
    st.blocked = blocked
    st.die = sink.number
    st.open_d = open_from(blocked, sink.number)
    st.dlo = DELTA_LO[sink.number]
    st.dhi = DELTA_HI[sink.number]
    st.lands = LANDS[sink.number]
    st.over_tag = make_tag(STOP_GAME_OVER, sink.number, sink.count) << 32
    st.queue.tables[0] = NULL
    st.queue.tables[1] = sink.following
    st.queue.tables[2] = sink.outcomes
    st.queue.n = 0
    st.queue.err = CHAIN_OK
    st.queue.room = PY_SSIZE_T_MAX


cdef void search_plays(GroupSearch* st, const ChainSink* sink) noexcept nogil:
    """Point a search at the plays of ``sink.steps`` steps (their length and leaves)."""
    st.depth = sink.steps
    st.leaf_table = sink_leaves(sink, &st.leaf_tag)


cdef int chain_group_search(KeySet* group, uint32_t blocked, ChainSink* sink,
                            Py_ssize_t room) noexcept nogil:
    """Expand every position of a group by its own search (key_dfs);
    ``room``: the most positions the group and the sink's tables may hold together."""
    cdef GroupSearch* st = <GroupSearch*>malloc(sizeof(GroupSearch))
    cdef Py_ssize_t i
    cdef uint64_t klo, khi
    cdef int err
    if st == NULL:
        return CHAIN_NO_MEMORY
    search_setup(st, blocked, sink)
    search_plays(st, sink)
    st.queue.room = room - group.size
    for i in range(group.mask + 1):
        if group.slots[2 * i + 1] == EMPTY_K1:
            continue
        klo = group.slots[2 * i]
        khi = group.slots[2 * i + 1] & <uint64_t>0xFFFFFFFFULL
        key_dfs(st, klo, khi, key_occupancy(klo, khi), 0, 24)
        if st.queue.err != CHAIN_OK:
            break
    queue_flush(&st.queue)
    err = st.queue.err
    free(st)
    return err


cdef inline Py_ssize_t keysets_size(const KeySet* sets, int first, int last) noexcept nogil:
    """The positions held by ``sets[first..last]``."""
    cdef Py_ssize_t held = 0
    cdef int k
    for k in range(first, last + 1):
        held += sets[k].size
    return held


cdef int chain_stages(const Pos* start, int seat, const uint8_t* numbers,
                      const uint8_t* counts, int n_stages, bint is_chain,
                      Py_ssize_t max_ends, KeySet* outcomes) noexcept nogil:
    """The body of chain_run.

    Each stage reads the frontier once. A position that cannot bear off in
    the stage is expanded at once by open_dfs; the others are sorted by how
    many of the stage's dice they can play (RULES §3.4) and each group is
    expanded afterwards (key_dfs, or chain_layers for big groups)."""
    cdef KeySet frontier, following
    cdef KeySet groups[MAX_STAGE_DICE + 1]
    cdef uint64_t open_tags[MAX_STAGE_DICE + 1]
    cdef int open_tables[MAX_STAGE_DICE + 1]
    cdef bint no_bear_off
    cdef int stage, n, count, playable, added, err, k
    cdef Py_ssize_t i, room, seen
    cdef Key96 key
    cdef Gen g
    cdef ChainSink sink
    cdef uint32_t blocked = rotate12(start.occ[1 - seat])
    cdef GroupSearch* st = <GroupSearch*>malloc(sizeof(GroupSearch))
    err = CHAIN_NO_MEMORY if st == NULL else keyset_init(&frontier, 16, outcomes.meter)
    if err != CHAIN_OK:
        free(st)
        return err
    key = pos_mover_key(start, seat)
    keyset_add(&frontier, key.lo, key.hi)
    for stage in range(n_stages):
        n = numbers[stage]
        count = counts[stage]
        err = CHAIN_OK
        for k in range(count + 1):
            groups[k].slots = NULL
            groups[k].dense = NULL
        err = keyset_init(&following, frontier.size, outcomes.meter)
        for k in range(1, count + 1):
            if err == CHAIN_OK:
                err = keyset_init(&groups[k], 16, outcomes.meter)
        sink.following = &following
        sink.outcomes = outcomes
        sink.number = n
        sink.count = count
        sink.last_stage = stage == n_stages - 1
        search_setup(st, blocked, &sink)
        st.queue.room = max_ends - frontier.size
        for k in range(1, count + 1):
            sink.steps = k
            sink.stalls = is_chain and k < count
            open_tables[k] = sink_leaves(&sink, &open_tags[k])
        added = 0
        seen = 0
        for i in range(frontier.mask + 1):
            if err != CHAIN_OK:
                break
            if frontier.slots[2 * i + 1] == EMPTY_K1:
                continue
            key.lo = frontier.slots[2 * i]
            key.hi = <uint32_t>frontier.slots[2 * i + 1]
            no_bear_off = key_outside(key.lo, key.hi) >= count
            if no_bear_off:
                playable = max_steps_no_bear_off(key_occupancy(key.lo, key.hi), key.lo, key.hi,
                                                 blocked, n, count)
            else:
                gen_load(&g, key, blocked)
                playable = gen_max_steps(&g, n, count, 0, 24)
            if playable > 0 and no_bear_off and CHAIN_EXPANSION == 2:
                # The plays of ``playable`` steps; leaves as sink_leaves says.
                st.depth = playable
                st.leaf_tag = open_tags[playable]
                st.leaf_table = open_tables[playable]
                open_dfs(st, key_occupancy(key.lo, key.hi), key.lo, key.hi, 0, BOARD_BITS)
                err = st.queue.err
            elif playable > 0:
                added = keyset_add(&groups[playable], key.lo, key.hi)
            elif is_chain:
                # Nothing moves: RULES §5.2 on the first stage, else a stall with 0 played.
                added = keyset_add(outcomes, key.lo, key_k1(
                    key, make_tag(STOP_UNSTARTED if stage == 0 else STOP_STALLED, n, 0)))
            elif stage == n_stages - 1:
                added = keyset_add(outcomes, key.lo, key_k1(key, make_tag(STOP_COMPLETE, n, count)))
            else:
                added = keyset_add(&following, key.lo, key.hi)   # RULES §5.3: dice lost
            if added < 0:
                err = added
            seen += 1
            if (seen & 1023) == 0 and err == CHAIN_OK and (
                    frontier.size + following.size + outcomes.size
                    + keysets_size(groups, 1, count) > max_ends):
                err = CHAIN_TOO_MANY
        queue_flush(&st.queue)
        if err == CHAIN_OK:
            err = st.queue.err
        keyset_free(&frontier)
        for k in range(count, 0, -1):
            # (the scan's own inserts are checked every 1,024 positions; the
            # groups' expansions at every flush of their queues)
            if err == CHAIN_OK and (following.size + outcomes.size
                                    + keysets_size(groups, 1, count) > max_ends):
                err = CHAIN_TOO_MANY
            if err == CHAIN_OK:
                sink.steps = k
                sink.stalls = is_chain and k < count
                # Small groups: one DFS per position (no duplicates within a
                # position); big ones: a step at a time, merging as it goes.
                # The groups still waiting are held too.
                room = max_ends - keysets_size(groups, 1, k - 1)
                if CHAIN_EXPANSION == 1 or (CHAIN_EXPANSION == 2 and groups[k].size < 4096):
                    err = chain_group_search(&groups[k], blocked, &sink, room)
                else:
                    err = chain_layers(&groups[k], blocked, &sink, room)
            keyset_free(&groups[k])
        if err != CHAIN_OK:
            keyset_free(&following)
            free(st)
            return err
        frontier = following
    keyset_free(&frontier)
    free(st)
    return CHAIN_OK


cdef int chain_run(const Pos* start, int seat, const uint8_t* numbers,
                   const uint8_t* counts, int n_stages, bint is_chain,
                   Py_ssize_t max_ends, KeySet* outcomes, Meter* meter) noexcept nogil:
    """Enumerate every distinct outcome of a sequence of equal-dice stages.

    ``is_chain``: an escalating chain (RULES §4.3-4.4: the chain stops at the
    first stage not played in full); otherwise a remainder (RULES §5.3: dice
    that cannot be played are lost and play goes on with the next stage).
    Outcomes go into ``outcomes`` as dense (mover key, tag) arrays.
    ``max_ends`` bounds the distinct positions held at once, in every table
    alive: the frontier being read, the next one, the outcomes, the groups
    waiting and the step layers (CHAIN_TOO_MANY past it). Every table's
    bytes are counted in ``meter``.
    """
    cdef int err
    outcomes.slots = NULL
    outcomes.dense = NULL
    err = keyset_init(outcomes, 1024, meter)
    if err == CHAIN_OK:
        err = chain_stages(start, seat, numbers, counts, n_stages, is_chain, max_ends,
                           outcomes)
    if err != CHAIN_OK:
        keyset_free(outcomes)
    if err == CHAIN_OK:
        keyset_compact(outcomes)
    return err


cdef bint key_can_reach(Key96 a, Key96 b) noexcept nogil:
    """Whether checkers only moving down could turn mover key ``a`` into ``b``."""
    cdef int p, above_a = 0, above_b = 0
    for p in range(24, 0, -1):
        above_a += key_count(a.lo, a.hi, p)
        above_b += key_count(b.lo, b.hi, p)
        if above_a < above_b:
            return False
    return True


cdef int chain_recover(Pos* q, int seat, const uint8_t* numbers, const uint8_t* counts,
                       int n_stages, bint is_chain, int stage, Key96 target,
                       uint64_t target_tag, Step* path, int* stage_steps,
                       KeySet* failed) noexcept nogil:
    """Find the first stage-by-stage play (each stage's ends in canonical order)
    that leads to the outcome (target, target_tag). 1 found, 0 not, -1 no memory."""
    cdef uint8_t dice[MAX_STAGE_DICE]
    cdef int n = numbers[stage], count = counts[stage], n_ends, playable, j, k, found
    cdef Key96 here = pos_mover_key(q, seat), key
    cdef uint64_t tag
    cdef int offset = 0
    for j in range(stage):
        offset += stage_steps[j]
    if keyset_add(failed, here.lo, key_k1(here, <uint64_t>(stage + 1) << 24)) == 0:
        return 0     # this (stage, position) was explored before without success
    for j in range(count):
        dice[j] = n
    cdef StageEnd* ends = <StageEnd*>malloc(STAGE_CAPACITY * sizeof(StageEnd))
    if ends == NULL:
        return -1
    stage_generate(q, seat, dice, count, ends, STAGE_CAPACITY, &n_ends, &playable)
    found = 0
    if is_chain and playable == 0:
        tag = make_tag(STOP_UNSTARTED if stage == 0 else STOP_STALLED, n, 0)
        if here.lo == target.lo and here.hi == target.hi and tag == target_tag:
            stage_steps[stage] = 0
            found = 1
        free(ends)
        return found
    for j in range(n_ends):
        key = ends[j].key
        if ends[j].ends_game:
            tag = make_tag(STOP_GAME_OVER, n, count)
        elif is_chain and playable < count:
            tag = make_tag(STOP_STALLED, n, playable)
        elif stage == n_stages - 1:
            tag = make_tag(STOP_COMPLETE, n, count)
        else:
            tag = 0xFFFF    # goes on to the next stage
        if tag != 0xFFFF:
            if key.lo == target.lo and key.hi == target.hi and tag == target_tag:
                found = 1
        elif key_can_reach(key, target):
            pos_set_mover_key(q, seat, key)
            for k in range(ends[j].n_steps):
                path[offset + k] = ends[j].steps[k]
            stage_steps[stage] = ends[j].n_steps
            found = chain_recover(q, seat, numbers, counts, n_stages, is_chain, stage + 1,
                                  target, target_tag, path, stage_steps, failed)
            pos_set_mover_key(q, seat, here)
            if found < 0:
                break
        if found == 1:
            for k in range(ends[j].n_steps):
                path[offset + k] = ends[j].steps[k]
            stage_steps[stage] = ends[j].n_steps
            break
    free(ends)
    return found


DEFAULT_MAX_ENDS = 20_000_000


cdef class ChainResult(EndSet):
    """Every distinct outcome of a chain or a remainder (backend object; see gulbara.chains)."""
    cdef bint is_chain
    cdef int n_stages
    cdef uint8_t numbers[7]
    cdef uint8_t counts[7]
    cdef KeySet outcomes
    cdef Meter meter

    def __dealloc__(self):
        keyset_free(&self.outcomes)

    cdef Py_ssize_t count(self) noexcept:
        return self.outcomes.size

    cdef Key96 key_at(self, Py_ssize_t i) noexcept nogil:
        cdef Key96 key
        key.lo = self.outcomes.dense[2 * i]
        key.hi = <uint32_t>self.outcomes.dense[2 * i + 1]
        return key

    @property
    def table_peak_bytes(self):
        """The most bytes the enumeration's tables held at once (at most
        max_ends * CHAIN_BYTES_PER_END + CHAIN_BASE_BYTES)."""
        return self.meter.peak

    @property
    def stages(self):
        """The stages as tuples of equal dice."""
        return tuple((self.numbers[i],) * self.counts[i] for i in range(self.n_stages))

    def tag(self, Py_ssize_t i):
        """(stop, number, dice played in that stage) of outcome ``i``."""
        self.check_index(i)
        cdef uint64_t tag = self.outcomes.dense[2 * i + 1] >> 32
        return (<int>(tag & 15), <int>((tag >> 4) & 15), <int>((tag >> 8) & 15))

    def fill(self, int8_t[:, ::1] boards, uint8_t[:, ::1] borne_off,
             int8_t[::1] stop, uint8_t[::1] number, uint8_t[::1] played):
        """Write every outcome into caller arrays (shapes N x 24, N x 2, N, N, N)."""
        cdef Py_ssize_t i, n = self.outcomes.size
        cdef int q, other = 1 - self.seat_
        cdef Pos p
        cdef uint64_t tag
        if (boards.shape[0] != n or boards.shape[1] != 24 or borne_off.shape[0] != n
                or borne_off.shape[1] != 2 or stop.shape[0] != n or number.shape[0] != n
                or played.shape[0] != n):
            raise ValueError(f"fill needs arrays of shape ({n}, 24), ({n}, 2), ({n},) x 3")
        with nogil:
            for i in range(n):
                self.end_pos(i, &p)
                for q in range(1, 25):
                    boards[i, q - 1] = <int8_t>(p.cnt[0][q] - p.cnt[1][point_in_other_frame(q)])
                borne_off[i, 0] = p.off[0]
                borne_off[i, 1] = p.off[1]
                tag = self.outcomes.dense[2 * i + 1] >> 32
                stop[i] = <int8_t>(tag & 15)
                number[i] = <uint8_t>((tag >> 4) & 15)
                played[i] = <uint8_t>((tag >> 8) & 15)

    def steps(self, Py_ssize_t i):
        """One canonical stage-by-stage play reaching outcome ``i``: a tuple of
        per-stage step tuples (stages after a stop are absent)."""
        self.check_index(i)
        cdef Key96 target
        cdef uint64_t tag = self.outcomes.dense[2 * i + 1] >> 32
        cdef Step path[7 * MAX_STAGE_DICE]
        cdef int stage_steps[7]
        cdef KeySet failed
        cdef Pos q = self.base
        cdef int found, k, offset = 0, last
        target.lo = self.outcomes.dense[2 * i]
        target.hi = <uint32_t>self.outcomes.dense[2 * i + 1]
        if keyset_init(&failed, 1024):
            raise MemoryError()
        with nogil:
            found = chain_recover(&q, self.seat_, self.numbers, self.counts, self.n_stages,
                                  self.is_chain, 0, target, tag, path, stage_steps, &failed)
        keyset_free(&failed)
        if found != 1:
            raise MemoryError("could not recover the steps of a chain outcome")
        # The stage where the outcome was decided is the tag's number.
        last = 0
        for k in range(self.n_stages):
            if self.numbers[k] == ((tag >> 4) & 15):
                last = k
        result = []
        for k in range(last + 1):
            result.append(tuple([(path[offset + j].frm, path[offset + j].die)
                                 for j in range(stage_steps[k])]))
            offset += stage_steps[k]
        return tuple(result)


cdef size_t chain_budget(Py_ssize_t max_ends) noexcept:
    """The bytes a chain's tables may hold: max_ends * CHAIN_BYTES_PER_END + CHAIN_BASE_BYTES."""
    cdef size_t per = BYTES_PER_HELD, base = BASE_BYTES
    if max_ends < 0:
        return base
    if <size_t>max_ends > (SIZE_MAX - base) // per:
        return SIZE_MAX
    return <size_t>max_ends * per + base


cdef ChainResult run_chain(const Pos* p, int seat, list stages, bint is_chain,
                           Py_ssize_t max_ends):
    cdef ChainResult result = ChainResult.__new__(ChainResult)
    cdef int k, err
    result.base = p[0]
    result.seat_ = seat
    result.is_chain = is_chain
    result.n_stages = len(stages)
    result.meter.held = 0
    result.meter.peak = 0
    result.meter.budget = chain_budget(max_ends)
    for k in range(result.n_stages):
        result.numbers[k] = stages[k][0]
        result.counts[k] = stages[k][1]
    with nogil:
        err = chain_run(p, seat, result.numbers, result.counts, result.n_stages, is_chain,
                        max_ends, &result.outcomes, &result.meter)
    if err == CHAIN_TOO_MANY:
        keyset_free(&result.outcomes)
        raise EnumerationLimitError(
            f"more than max_ends={max_ends:,} distinct positions held at once, or more "
            f"memory than they are allowed ({CHAIN_BYTES_PER_END} bytes each); raise max_ends "
            f"to allow more")
    if err:
        keyset_free(&result.outcomes)
        raise MemoryError("out of memory in a chain enumeration")
    return result


def chain_ends_raw(code_or_position, seat, int first, Py_ssize_t max_ends=DEFAULT_MAX_ENDS):
    """Every outcome of an escalating chain from ``first`` up to 6 (RULES §4.3-4.4)."""
    cdef Pos p
    if isinstance(code_or_position, Position):
        p = (<Position>code_or_position).pos
    else:
        read_code(code_or_position, &p)
    cdef int s = check_seat(seat)
    if first < 1 or first > 6:
        raise InvalidDiceError(f"a chain starts at a number 1..6, got {first}")
    return run_chain(&p, s, [(n, 4) for n in range(first, 7)], True, max_ends)


def remainder_ends_raw(code_or_position, seat, stages, Py_ssize_t max_ends=DEFAULT_MAX_ENDS):
    """Every outcome of a remainder's stages (RULES §5.3); ``stages`` as (number, count) pairs."""
    cdef Pos p
    if isinstance(code_or_position, Position):
        p = (<Position>code_or_position).pos
    else:
        read_code(code_or_position, &p)
    cdef int s = check_seat(seat)
    return run_chain(&p, s, list(stages), False, max_ends)
