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
from gulbara._interrupt cimport Interrupt, interrupt_init, interrupted, interrupt_raise
from gulbara._types cimport (Pos, Step, Key96, StageEnd, N_POINTS, N_CHECKERS,
                             MAX_STAGE_DICE, HOME_BITS, BOARD_BITS)

from operator import index as _index
import threading

from gulbara.errors import (GulBaraError, checked_int, InvalidPositionError, InvalidSeatError,
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

# Only the main thread runs signal handlers (_interrupt.pxd).
cdef unsigned long MAIN_THREAD = threading.main_thread().ident


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
# distinct positions after every stage in open-addressing hash sets keyed by
# the exact packed position (the opponent never moves within a chain, so the
# mover's 96-bit key is the whole position), and expands each frontier
# position with the stage rules. Outcomes are kept in sets keyed by (end
# position, tag), where the tag says why and where the chain stopped, which
# determines the remainder (RULES §5.1).
#
# Every set is split by the top bits of its keys' hash into N_PARTS parts.
# A stage's frontier parts are shared out between threads; each thread
# writes the positions it makes into parts of its own, and the threads'
# parts are merged part by part after the stage. The finished outcomes are
# listed part by part, each part in the order of its keys' hashes: the same
# order whatever the number of threads, and a contiguous run of parts (a
# pass) is a contiguous run of that order.

cdef enum:
    STOP_COMPLETE = 0     # every stage played in full (or the remainder played out)
    STOP_STALLED = 1      # a stage not played in full: the chain stops (RULES §4.4)
    STOP_UNSTARTED = 2    # not even one die of the first stage (RULES §5.2)
    STOP_GAME_OVER = 3    # the mover bore off its last checker (RULES §5.5)

#: Peak memory of a chain enumeration per distinct position held at once, in
#: bytes. With ``max_ends`` set, the tables are held to max_ends *
#: CHAIN_BYTES_PER_END + CHAIN_BASE_BYTES (chain_budget; CHAIN_TOO_MANY past
#: it), which the usual layout stays under: 16-byte slots at least a quarter
#: full (at most 64 bytes a position), the next stage's table sized from the
#: frontier, a doubling table briefly held twice.
cdef enum:
    BYTES_PER_HELD = 128
    BASE_BYTES = 1 << 20      # the smallest tables of every part and thread
CHAIN_BYTES_PER_END = BYTES_PER_HELD
#: What the smallest tables add to that bound, in bytes.
CHAIN_BASE_BYTES = BASE_BYTES

# Result codes of the enumeration and its parts (and of the tables' functions)
cdef enum:
    CHAIN_OK = 0
    CHAIN_NO_MEMORY = -1
    CHAIN_TOO_MANY = -2       # past max_ends (positions held at once) or the byte budget
    CHAIN_INTERRUPTED = -3    # a signal (Ctrl-C) arrived: everything is freed

# Stages whose frontier holds fewer positions than this run on the calling
# thread alone (tests lower it to share small stages too).
cdef Py_ssize_t THREADED_FRONTIER = 2048


def _py_set_threaded_frontier(Py_ssize_t positions):
    """Tests: share the stages of at least ``positions`` frontier positions
    between threads (2,048 by default); the previous value is returned."""
    global THREADED_FRONTIER
    previous = THREADED_FRONTIER
    THREADED_FRONTIER = max(1, positions)
    return previous


cdef enum:
    PART_BITS = 6
    N_PARTS = 64              # parts of every set (1 << PART_BITS)
    PART_SHIFT = 58           # 64 - PART_BITS: a key's part is hash >> PART_SHIFT
    MAX_THREADS = 64
    POLL_EVERY = 4096         # positions read between two looks for a signal

cdef extern from *:
    """
    /* Counters shared by the threads of one enumeration (GCC/Clang atomics). */
    static inline Py_ssize_t gulbara_atomic_add(Py_ssize_t* p, Py_ssize_t v) {
        return __atomic_add_fetch(p, v, __ATOMIC_RELAXED);
    }
    static inline int gulbara_atomic_load(int* p) {
        return __atomic_load_n(p, __ATOMIC_RELAXED);
    }
    /* Set *p to v unless another failure was recorded first. */
    static inline void gulbara_first_error(int* p, int v) {
        int expected = 0;
        __atomic_compare_exchange_n(p, &expected, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    }
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
    """
    Py_ssize_t atomic_add "gulbara_atomic_add"(Py_ssize_t* p, Py_ssize_t v) noexcept nogil
    int atomic_load "gulbara_atomic_load"(int* p) noexcept nogil
    void first_error "gulbara_first_error"(int* p, int v) noexcept nogil
    int atomic_meter_take "gulbara_meter_take"(size_t* held, size_t* peak, size_t budget,
                                               size_t n) noexcept nogil
    void atomic_meter_sub "gulbara_meter_sub"(size_t* held, size_t n) noexcept nogil

cdef extern from *:
    """
    /* Run fn(arg, t) on n threads: t = 0 on the calling thread, 1..n-1 on
       threads started for the call and joined before it returns. A thread
       that cannot be started leaves its share to the others (the tasks take
       their work from a shared counter). Returns the threads that ran. */
    #include <pthread.h>
    typedef void (*gulbara_task)(void*, int);
    typedef struct { gulbara_task fn; void* arg; int t; } gulbara_thread_arg;
    static void* gulbara_thread_main(void* p) {
        gulbara_thread_arg* a = (gulbara_thread_arg*)p;
        a->fn(a->arg, a->t);
        return NULL;
    }
    static int gulbara_run_threads(int n, gulbara_task fn, void* arg) {
        pthread_t ids[64];
        gulbara_thread_arg args[64];
        int started = 0, t;
        if (n > 64) n = 64;
        for (t = 1; t < n; t++) {
            args[t].fn = fn; args[t].arg = arg; args[t].t = t;
            if (pthread_create(&ids[started + 1], NULL, gulbara_thread_main, &args[t]) != 0)
                break;
            started++;
        }
        fn(arg, 0);
        for (t = 1; t <= started; t++)
            pthread_join(ids[t], NULL);
        return started + 1;
    }
    static inline int gulbara_atomic_next(int* p) {
        return __atomic_fetch_add(p, 1, __ATOMIC_RELAXED);
    }
    """
    ctypedef void (*task_fn)(void*, int) noexcept nogil
    int run_threads "gulbara_run_threads"(int n, task_fn fn, void* arg) noexcept nogil
    int atomic_next "gulbara_atomic_next"(int* p) noexcept nogil


# The memory an enumeration's tables hold, its peak, and its budget.
ctypedef struct Meter:
    size_t held
    size_t peak
    size_t budget


cdef inline int meter_take(Meter* m, size_t nbytes) noexcept nogil:
    """Count ``nbytes`` more, or CHAIN_TOO_MANY when the budget would be passed."""
    if m != NULL and atomic_meter_take(&m.held, &m.peak, m.budget, nbytes) != 0:
        return CHAIN_TOO_MANY
    return CHAIN_OK


cdef inline void meter_sub(Meter* m, size_t nbytes) noexcept nogil:
    if m != NULL:
        atomic_meter_sub(&m.held, nbytes)


# What the threads of one enumeration share.
ctypedef struct Shared:
    Meter meter
    Py_ssize_t held           # positions in every live table (atomic)
    Py_ssize_t max_held       # max_ends: CHAIN_TOO_MANY past it
    int err                   # the first failure; every thread stops when it is set
    Interrupt intr            # Ctrl-C, looked for by the calling thread (_interrupt.pxd)


cdef inline void shared_fail(Shared* sh, int err) noexcept nogil:
    first_error(&sh.err, err)


ctypedef struct KeySet:
    uint64_t* slots       # open addressing, (k0, k1) pairs inline; k1 == EMPTY_K1: free;
                          # NULL: empty, no table yet (made at the first insert)
    Py_ssize_t mask       # number of slots - 1 (a power of two minus one)
    Py_ssize_t size
    uint64_t* dense       # after keyset_compact: the keys, (k0, k1) pairs
    Meter* meter          # counts the table's bytes (NULL: not counted)


cdef uint64_t EMPTY_K1 = <uint64_t>0xFFFFFFFFFFFFFFFFULL
cdef uint64_t LOW32 = <uint64_t>0xFFFFFFFFULL


cdef inline uint64_t key_hash(uint64_t a, uint64_t b) noexcept nogil:
    return mix64(a ^ (b * <uint64_t>0x9E3779B97F4A7C15ULL))


cdef inline size_t table_bytes(Py_ssize_t slots) noexcept nogil:
    return <size_t>(2 * slots) * sizeof(uint64_t)


cdef inline void keyset_clear(KeySet* s, Meter* meter) noexcept nogil:
    """An empty set with no table (one is made at the first insert)."""
    s.slots = NULL
    s.mask = 0
    s.size = 0
    s.dense = NULL
    s.meter = meter


cdef int keyset_init(KeySet* s, Py_ssize_t room, Meter* meter=NULL) noexcept nogil:
    """An empty table with room for ``room`` keys: CHAIN_OK, or
    CHAIN_NO_MEMORY / CHAIN_TOO_MANY (``meter``'s budget) with no table."""
    cdef Py_ssize_t slots = 16, i
    while slots < 2 * room:
        slots *= 2
    keyset_clear(s, meter)
    s.mask = slots - 1
    if meter_take(meter, table_bytes(slots)) != CHAIN_OK:
        s.mask = 0
        return CHAIN_TOO_MANY
    s.slots = <uint64_t*>big_alloc(table_bytes(slots))
    if s.slots == NULL:
        meter_sub(meter, table_bytes(slots))
        s.mask = 0
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
    s.mask = 0


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
    cdef Py_ssize_t h
    cdef uint64_t* slot
    cdef int grown
    if s.slots == NULL:
        grown = keyset_init(s, 8, s.meter)
        if grown != CHAIN_OK:
            return grown
    h = <Py_ssize_t>(hashed & <uint64_t>s.mask)
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
    """Turn the table into its keys, dense (``s.dense``), in place: no
    second copy is held at any time."""
    cdef Py_ssize_t i, n = 0
    cdef uint64_t* shrunk
    if s.slots == NULL:
        return
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
    s.mask = 0


# A set split into N_PARTS parts by the top bits of its keys' hashes.
ctypedef struct PartSet:
    KeySet part[N_PARTS]


cdef void partset_clear(PartSet* ps, Meter* meter) noexcept nogil:
    cdef int p
    for p in range(N_PARTS):
        keyset_clear(&ps.part[p], meter)


cdef Py_ssize_t partset_size(const PartSet* ps) noexcept nogil:
    cdef Py_ssize_t n = 0
    cdef int p
    for p in range(N_PARTS):
        n += ps.part[p].size
    return n


cdef void keyset_release(KeySet* s, Shared* sh) noexcept nogil:
    """Free a table, its positions no longer held."""
    atomic_add(&sh.held, -s.size)
    keyset_free(s)


cdef void partset_release(PartSet* ps, Shared* sh) noexcept nogil:
    cdef int p
    for p in range(N_PARTS):
        keyset_release(&ps.part[p], sh)


cdef inline uint64_t make_tag(int stop, int number, int played) noexcept nogil:
    return <uint64_t>(stop | (number << 4) | (played << 8))


# A game-ending outcome leaves one position (the mover's 15 checkers off, the
# opponent unmoved) and passes nothing, so it is one outcome whichever stage
# ended the game (RULES §5.6). The tables hold it under this tag; the finished
# result carries the number and dice of the first stage that can end the game.
cdef uint64_t GAME_OVER_TAG = STOP_GAME_OVER


cdef inline uint64_t key_k1(Key96 key, uint64_t tag) noexcept nogil:
    return <uint64_t>key.hi | (tag << 32)


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
    LAYERED_GROUP = 4096      # groups at least this big are expanded a step at a time


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


cdef inline KeySet* queue_table(InsertQueue* q, int which, uint64_t h) noexcept nogil:
    if which == 0:
        return q.layer
    return &q.parts[which].part[(h >> PART_SHIFT) & q.part_mask]


cdef void queue_flush(InsertQueue* q) noexcept nogil:
    """Insert the queued keys; count them into the positions held (CHAIN_TOO_MANY
    past max_ends); take on another thread's failure."""
    cdef int j, added
    cdef Py_ssize_t held
    cdef int other = atomic_load(&q.shared.err)
    if q.err == CHAIN_OK and other != CHAIN_OK:
        q.err = other
    if q.err == CHAIN_OK:
        for j in range(q.n):
            if q.which[j] == 0:
                # a step layer of chain_layers: the value is the step's source
                added = keyset_add_max(q.layer, q.k0[j], q.k1[j], q.hashed[j])
            else:
                added = keyset_add_keyed(queue_table(q, q.which[j], q.hashed[j]), q.k0[j],
                                         q.k1[j], q.hashed[j], EMPTY_K1)
            if added < 0:
                q.err = added
                break
            q.added += added
        held = atomic_add(&q.shared.held, q.added)
        q.added = 0
        if q.err == CHAIN_OK and held > q.shared.max_held:
            q.err = CHAIN_TOO_MANY
        if q.err != CHAIN_OK:
            shared_fail(q.shared, q.err)
    q.n = 0


cdef inline void queue_push(InsertQueue* q, uint64_t a, uint64_t b, int which) noexcept nogil:
    """Queue the key (a, b) for table ``which``."""
    queue_push_hashed(q, a, b, which, key_hash(a, b & (LOW32 if which == 0 else EMPTY_K1)))


cdef inline void queue_push_hashed(InsertQueue* q, uint64_t a, uint64_t b, int which,
                                   uint64_t h) noexcept nogil:
    """queue_push with the key's hash given. Outcomes outside this pass's
    parts are dropped."""
    cdef int j = q.n
    cdef KeySet* t
    q.pushed += 1
    if which == 2 and not (q.keep_lo <= <int>(h >> PART_SHIFT) < q.keep_hi):
        return
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


# What every thread needs to know of the stage being expanded.
ctypedef struct StageInfo:
    int stage                 # its index in the chain
    int number                # its die
    int count                 # its number of dice
    bint is_chain             # an escalating chain (stalls stop it), or a remainder
    bint last_stage
    bint layered              # expand big groups a step at a time (chain_layers)
    uint32_t blocked          # the opponent's points, in the mover's numbering
    uint64_t leaf_tags[MAX_STAGE_DICE + 1]    # by plays' length: tag of their leaves (<< 32)
    int leaf_tables[MAX_STAGE_DICE + 1]       # by plays' length: 1 next frontier, 2 outcomes


cdef void stage_info_set(StageInfo* info, int stage, int n_stages, int number, int count,
                         bint is_chain, uint32_t blocked) noexcept nogil:
    """Where the plays of each length go: a chain stage not played in full
    stalls (RULES §4.4), the last stage's plays are outcomes, the others go
    on to the next stage."""
    cdef int k
    info.stage = stage
    info.number = number
    info.count = count
    info.is_chain = is_chain
    info.last_stage = stage == n_stages - 1
    info.blocked = blocked
    info.layered = False
    for k in range(count + 1):
        if is_chain and k < count:
            info.leaf_tags[k] = make_tag(STOP_STALLED, number, k) << 32
            info.leaf_tables[k] = 2
        elif info.last_stage:
            info.leaf_tags[k] = make_tag(STOP_COMPLETE, number, count) << 32
            info.leaf_tables[k] = 2
        else:
            info.leaf_tags[k] = 0
            info.leaf_tables[k] = 1


# A position's plays are found by a search on the packed key, sources in
# non-increasing order (each end once per position, as in eq_dfs), the ends
# queued for insertion. The common case of a big chain takes a leaner search:
# when a position has at least as many checkers outside its home board as the
# stage has dice, no step can bear off (RULES §2.3) and the game cannot end,
# so a step is legal exactly when its landing point is open (RULES §2.2).

ctypedef struct GroupSearch:
    uint32_t blocked
    int die
    uint32_t open_d           # open_from(blocked, die)
    const uint64_t* dlo       # DELTA_LO[die]
    const uint64_t* dhi
    const uint32_t* lands     # LANDS[die]
    int depth                 # steps every play being searched makes
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
            st.queue.over_seen = True
            queue_push(&st.queue, child_lo, child_hi | (GAME_OVER_TAG << 32), 2)
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


cdef void search_setup(GroupSearch* st, const StageInfo* info) noexcept nogil:
    """Point a search at a stage (its die, the opponent's mask)."""
    st.blocked = info.blocked
    st.die = info.number
    st.open_d = open_from(info.blocked, info.number)
    st.dlo = DELTA_LO[info.number]
    st.dhi = DELTA_HI[info.number]
    st.lands = LANDS[info.number]


cdef inline void search_plays(GroupSearch* st, const StageInfo* info, int steps) noexcept nogil:
    """Point a search at the plays of ``steps`` steps (their length and leaves)."""
    st.depth = steps
    st.leaf_tag = info.leaf_tags[steps]
    st.leaf_table = info.leaf_tables[steps]


# One thread's share of an enumeration: its search (with its insert queue),
# the parts it writes, and the positions it has sorted into groups.
ctypedef struct Worker:
    GroupSearch st
    PartSet next              # the next stage's frontier, as far as this thread made it
    PartSet out               # the outcomes this thread found, over every stage
    KeySet groups[MAX_STAGE_DICE + 1]   # positions that may bear off, by dice playable
    bint polls                # this is the calling thread's share: it looks for signals


cdef inline void worker_tick(Worker* w) noexcept nogil:
    """One position read; on the calling thread, stop the enumeration once a
    signal handler raised (Ctrl-C)."""
    if w.polls and interrupted(&w.st.queue.shared.intr, 1):
        shared_fail(w.st.queue.shared, CHAIN_INTERRUPTED)


cdef int chain_layers(Worker* w, KeySet* layer, const StageInfo* info, int depth) noexcept nogil:
    """Expand positions that play ``depth`` dice of the stage, one step at a
    time, merging equal positions after every step. Takes ownership of
    ``layer`` (its positions counted as held)."""
    cdef KeySet following
    cdef InsertQueue* queue = &w.st.queue
    cdef Shared* sh = queue.shared
    cdef Py_ssize_t i
    cdef int k, frm, target, highest, err
    cdef int die = info.number
    cdef uint32_t sources, mine
    cdef uint64_t klo, khi, child_lo, child_hi
    cdef bint all_home, over
    cdef uint64_t over_tag = GAME_OVER_TAG << 32
    cdef uint64_t done_tag = info.leaf_tags[depth]
    cdef uint8_t leaf_table = <uint8_t>info.leaf_tables[depth]
    cdef uint32_t open_d = open_from(info.blocked, die)
    for k in range(depth):
        if k + 1 < depth:
            err = keyset_init(&following, layer.size, layer.meter)
            if err != CHAIN_OK:
                keyset_release(layer, sh)
                shared_fail(sh, err)
                return err
        queue.layer = &following if k + 1 < depth else NULL
        for i in range(layer.mask + 1 if layer.slots != NULL else 0):
            if layer.slots[2 * i + 1] == EMPTY_K1:
                continue
            worker_tick(w)
            # Work on the packed key itself: a step is one subtraction and one
            # addition of nibble units; no counts array, no undo.
            klo = layer.slots[2 * i]
            khi = layer.slots[2 * i + 1] & LOW32
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
                    if (info.blocked >> (target - 1)) & 1:             # RULES §2.2
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
                    queue.over_seen = True
                    queue_push(queue, child_lo, child_hi | over_tag, 2)
                elif k + 1 < depth:
                    queue_push(queue, child_lo, child_hi | ((<uint64_t>frm - 1) << 32), 0)
                else:
                    queue_push(queue, child_lo, child_hi | done_tag, leaf_table)
            if queue.err:
                break
        queue_flush(queue)
        keyset_release(layer, sh)
        queue.layer = NULL
        if k + 1 < depth:
            layer[0] = following
            if queue.err != CHAIN_OK:
                keyset_release(layer, sh)
        if queue.err != CHAIN_OK:
            return queue.err
    return CHAIN_OK


cdef int group_search(Worker* w, KeySet* group, const StageInfo* info, int steps) noexcept nogil:
    """Expand every position of a group by its own search (key_dfs); frees the group."""
    cdef GroupSearch* st = &w.st
    cdef Py_ssize_t i
    cdef uint64_t klo, khi
    search_plays(st, info, steps)
    for i in range(group.mask + 1 if group.slots != NULL else 0):
        if group.slots[2 * i + 1] == EMPTY_K1:
            continue
        worker_tick(w)
        klo = group.slots[2 * i]
        khi = group.slots[2 * i + 1] & LOW32
        key_dfs(st, klo, khi, key_occupancy(klo, khi), 0, 24)
        if st.queue.err != CHAIN_OK:
            break
    queue_flush(&st.queue)
    keyset_release(group, st.queue.shared)
    return st.queue.err


cdef void scan_part(Worker* w, const KeySet* part, const StageInfo* info) noexcept nogil:
    """Read one part of a stage's frontier. A position that cannot bear off in
    the stage is expanded at once by open_dfs; the others are sorted by how
    many of the stage's dice they can play (RULES §3.4) into the thread's
    groups, expanded by expand_groups (key_dfs, or chain_layers for big
    groups). A position that plays no die stops an escalating chain (RULES
    §5.2, §4.4) or loses the dice of a remainder stage (RULES §5.3)."""
    cdef GroupSearch* st = &w.st
    cdef InsertQueue* queue = &st.queue
    cdef Py_ssize_t i
    cdef Key96 key
    cdef Gen g
    cdef bint no_bear_off
    cdef int playable, added
    cdef int n = info.number, count = info.count
    cdef uint64_t tag
    if part.slots == NULL or queue.err != CHAIN_OK:
        return
    for i in range(part.mask + 1):
        if part.slots[2 * i + 1] == EMPTY_K1:
            continue
        worker_tick(w)
        key.lo = part.slots[2 * i]
        key.hi = <uint32_t>part.slots[2 * i + 1]
        no_bear_off = key_outside(key.lo, key.hi) >= count
        if no_bear_off:
            playable = max_steps_no_bear_off(key_occupancy(key.lo, key.hi), key.lo, key.hi,
                                             info.blocked, n, count)
        else:
            gen_load(&g, key, info.blocked)
            playable = gen_max_steps(&g, n, count, 0, 24)
        if playable > 0 and no_bear_off and not info.layered:
            search_plays(st, info, playable)
            open_dfs(st, key_occupancy(key.lo, key.hi), key.lo, key.hi, 0, BOARD_BITS)
        elif playable > 0:
            added = keyset_add(&w.groups[playable], key.lo, key.hi)
            if added < 0:
                queue.err = added
                shared_fail(queue.shared, added)
            else:
                queue.added += added
        elif info.is_chain:
            # Nothing moves: RULES §5.2 on the first stage, else a stall with 0 played.
            tag = make_tag(STOP_UNSTARTED if info.stage == 0 else STOP_STALLED, n, 0)
            queue_push(queue, key.lo, key_k1(key, tag), 2)
        elif info.last_stage:
            queue_push(queue, key.lo, key_k1(key, make_tag(STOP_COMPLETE, n, count)), 2)
        else:
            queue_push(queue, key.lo, key.hi, 1)     # RULES §5.3: the dice are lost
        if queue.err != CHAIN_OK:
            return


cdef void expand_groups(Worker* w, const StageInfo* info) noexcept nogil:
    """Expand the thread's groups, the longest plays first (frees them all)."""
    cdef int k, err = w.st.queue.err
    queue_flush(&w.st.queue)
    for k in range(info.count, 0, -1):
        err = w.st.queue.err
        if err == CHAIN_OK and w.groups[k].size:
            if w.groups[k].size < LAYERED_GROUP:
                err = group_search(w, &w.groups[k], info, k)
            else:
                err = chain_layers(w, &w.groups[k], info, k)
        keyset_release(&w.groups[k], w.st.queue.shared)
    queue_flush(&w.st.queue)


cdef int merge_into(KeySet* dst, KeySet* src, Shared* sh) noexcept nogil:
    """Insert every key of ``src`` into ``dst`` (frees ``src``)."""
    cdef Py_ssize_t i, added = 0
    cdef int err = CHAIN_OK, r
    if src.slots != NULL:
        for i in range(src.mask + 1):
            if src.slots[2 * i + 1] == EMPTY_K1:
                continue
            r = keyset_add(dst, src.slots[2 * i], src.slots[2 * i + 1])
            if r < 0:
                err = r
                break
            added += r
    atomic_add(&sh.held, added)
    keyset_release(src, sh)
    return err


cdef void merge_part(KeySet* dst, Worker* workers, int n_workers, int p, bint outcomes,
                     Shared* sh) noexcept nogil:
    """``dst`` := the union of the workers' part ``p`` (of their next frontier,
    or of their outcomes); the largest is taken over as it is."""
    cdef int t, base = 0, err
    cdef KeySet* part
    for t in range(n_workers):
        part = &workers[t].out.part[p] if outcomes else &workers[t].next.part[p]
        if part.size > (workers[base].out.part[p] if outcomes else workers[base].next.part[p]).size:
            base = t
    part = &workers[base].out.part[p] if outcomes else &workers[base].next.part[p]
    dst[0] = part[0]
    keyset_clear(part, part.meter)
    for t in range(n_workers):
        if t == base:
            continue
        part = &workers[t].out.part[p] if outcomes else &workers[t].next.part[p]
        err = merge_into(dst, part, sh)
        if err != CHAIN_OK:
            shared_fail(sh, err)


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


cdef int sort_part(uint64_t* keys, Py_ssize_t n, int part_bits, Meter* meter) noexcept nogil:
    """Sort ``n`` (k0, k1) pairs by their hash (ties by key): a counting sort
    on the hash bits below the ``part_bits`` that chose the part, then
    insertion sort in each bucket."""
    cdef int bits = 1, shift
    cdef Py_ssize_t i, j, k, nb, start, end
    cdef uint64_t h, x0, x1
    cdef uint64_t* tmp
    cdef uint64_t* hashes
    cdef Py_ssize_t* counts
    cdef size_t nbytes
    if n < 2:
        return CHAIN_OK
    while bits < 22 and ((<Py_ssize_t>1) << (bits + 1)) <= n:
        bits += 1
    nb = (<Py_ssize_t>1) << bits
    shift = 64 - part_bits - bits
    nbytes = <size_t>n * 3 * sizeof(uint64_t) + <size_t>(nb + 1) * sizeof(Py_ssize_t)
    if meter_take(meter, nbytes) != CHAIN_OK:
        return CHAIN_TOO_MANY
    tmp = <uint64_t*>malloc(<size_t>n * 3 * sizeof(uint64_t))
    counts = <Py_ssize_t*>calloc(nb + 1, sizeof(Py_ssize_t))
    if tmp == NULL or counts == NULL:
        free(tmp)
        free(counts)
        meter_sub(meter, nbytes)
        return CHAIN_NO_MEMORY
    hashes = tmp + 2 * n
    for i in range(n):
        h = sort_hash(keys + 2 * i)
        counts[((h >> shift) & (nb - 1)) + 1] += 1
    for i in range(nb):
        counts[i + 1] += counts[i]
    for i in range(n):
        h = sort_hash(keys + 2 * i)
        j = counts[(h >> shift) & (nb - 1)]
        counts[(h >> shift) & (nb - 1)] += 1
        tmp[2 * j] = keys[2 * i]
        tmp[2 * j + 1] = keys[2 * i + 1]
        hashes[j] = h
    # counts[b] is now the end of bucket b: insertion sort each bucket
    start = 0
    for i in range(nb):
        end = counts[i]
        for j in range(start + 1, end):
            x0 = tmp[2 * j]
            x1 = tmp[2 * j + 1]
            h = hashes[j]
            k = j
            while k > start:
                if not pair_before_values(x0, x1, h, tmp[2 * k - 2], tmp[2 * k - 1],
                                          hashes[k - 1]):
                    break
                tmp[2 * k] = tmp[2 * k - 2]
                tmp[2 * k + 1] = tmp[2 * k - 1]
                hashes[k] = hashes[k - 1]
                k -= 1
            tmp[2 * k] = x0
            tmp[2 * k + 1] = x1
            hashes[k] = h
        start = end
    memcpy(keys, tmp, <size_t>n * 2 * sizeof(uint64_t))
    free(tmp)
    free(counts)
    meter_sub(meter, nbytes)
    return CHAIN_OK


# A stage is expanded a step at a time (chain_layers for every group, the
# positions that cannot bear off included) when the stage before made more
# than this many ends per distinct position it left: then the positions of a
# stage share most of their ends, and merging after every step makes fewer.
cdef enum:
    LAYERED_DUPLICATION = 12


cdef void workers_release(Worker* workers, int n_workers, Shared* sh) noexcept nogil:
    cdef int t, k
    for t in range(n_workers):
        partset_release(&workers[t].next, sh)
        partset_release(&workers[t].out, sh)
        for k in range(MAX_STAGE_DICE + 1):
            keyset_release(&workers[t].groups[k], sh)


cdef enum:
    TASK_SCAN = 0             # read the frontier's parts (scan_part), each thread its worker
    TASK_GROUPS = 1           # expand the workers' groups (expand_groups)
    TASK_MERGE = 2            # merge the workers' next frontiers, part by part
    TASK_COLLECT = 3          # merge, compact and sort the workers' outcomes, part by part


# One step of an enumeration shared between threads: each thread takes the
# next part (or worker) from a shared counter until none is left.
ctypedef struct Task:
    int kind
    int next                  # the next part or worker to take (atomic)
    Worker* workers
    int n_workers
    PartSet* parts            # the frontier (TASK_SCAN), or the parts merged into
    const StageInfo* info
    Shared* sh
    int part_bits             # the hash bits that chose the parts (TASK_COLLECT)


cdef void task_collect_part(Task* task, int p) noexcept nogil:
    cdef KeySet* part = &task.parts.part[p]
    cdef int err
    merge_part(part, task.workers, task.n_workers, p, True, task.sh)
    keyset_compact(part)
    err = sort_part(part.dense, part.size, task.part_bits, &task.sh.meter)
    if err != CHAIN_OK:
        shared_fail(task.sh, err)


cdef void run_task(void* arg, int t) noexcept nogil:
    """One thread's share of a task; thread 0 (the caller's) looks for signals."""
    cdef Task* task = <Task*>arg
    cdef int p
    if task.kind == TASK_SCAN:
        task.workers[t].polls = t == 0
        while True:
            p = atomic_next(&task.next)
            if p >= N_PARTS:
                break
            scan_part(&task.workers[t], &task.parts.part[p], task.info)
        queue_flush(&task.workers[t].st.queue)
    elif task.kind == TASK_GROUPS:
        while True:
            p = atomic_next(&task.next)
            if p >= task.n_workers:
                break
            task.workers[p].polls = t == 0
            expand_groups(&task.workers[p], task.info)
    elif task.kind == TASK_MERGE:
        while True:
            p = atomic_next(&task.next)
            if p >= N_PARTS:
                break
            merge_part(&task.parts.part[p], task.workers, task.n_workers, p, False, task.sh)
    else:
        while True:
            p = atomic_next(&task.next)
            if p >= N_PARTS:
                break
            task_collect_part(task, p)


cdef void run_shared(Task* task, int kind, int threads) noexcept nogil:
    """Run a task on ``threads`` threads (1: on the calling thread alone)."""
    task.kind = kind
    task.next = 0
    if threads > 1:
        run_threads(threads, run_task, task)
    else:
        run_task(task, 0)


cdef int collect_outcomes(Worker* workers, int n_workers, int threads, PartSet* parts,
                          int part_bits, uint64_t over_tag, Shared* sh,
                          KeySet* result) noexcept nogil:
    """Merge the workers' outcomes part by part, sort each part by hash, and
    write them all, in part order, into ``result.dense`` (``result.size``)."""
    cdef int p
    cdef Py_ssize_t n = 0, at = 0, i
    cdef Task task
    task.workers = workers
    task.n_workers = n_workers
    task.parts = parts
    task.info = NULL
    task.sh = sh
    task.part_bits = part_bits
    run_shared(&task, TASK_COLLECT, threads)
    if sh.err != CHAIN_OK:
        return sh.err
    n = partset_size(parts)
    keyset_clear(result, &sh.meter)
    if meter_take(&sh.meter, table_bytes(n + 1)) != CHAIN_OK:
        return CHAIN_TOO_MANY
    result.dense = <uint64_t*>malloc(table_bytes(n + 1))
    if result.dense == NULL:
        meter_sub(&sh.meter, table_bytes(n + 1))
        return CHAIN_NO_MEMORY
    result.size = n
    for p in range(N_PARTS):
        if parts.part[p].size:
            memcpy(result.dense + 2 * at, parts.part[p].dense,
                   table_bytes(parts.part[p].size))
            at += parts.part[p].size
        keyset_release(&parts.part[p], sh)
    # The one game-ending outcome carries its first stage (RULES §5.6).
    for i in range(n):
        if result.dense[2 * i + 1] == GAME_OVER_TAG << 32:
            result.dense[2 * i + 1] = over_tag << 32
    return CHAIN_OK


cdef int chain_enumerate(const Pos* start, int seat, const uint8_t* numbers,
                         const uint8_t* counts, int n_stages, bint is_chain, int threads,
                         int keep_lo, int keep_hi, Shared* sh, KeySet* result) noexcept nogil:
    """Enumerate every distinct outcome of a sequence of equal-dice stages.

    ``is_chain``: an escalating chain (RULES §4.3-4.4: the chain stops at the
    first stage not played in full); otherwise a remainder (RULES §5.3: dice
    that cannot be played are lost and play goes on with the next stage).
    Only the outcomes of parts ``keep_lo <= p < keep_hi`` are kept (a pass).
    They go into ``result`` as dense (mover key, tag) pairs, in part order and
    by hash within a part. ``threads`` threads share each big stage's work.
    ``sh.max_held`` bounds the distinct positions held at once, in every
    table alive (CHAIN_TOO_MANY past it); every table's bytes are counted
    in ``sh.meter``, held to its budget. Everything is freed on failure.
    """
    cdef Worker* workers = <Worker*>calloc(threads, sizeof(Worker))
    cdef PartSet* frontier = <PartSet*>malloc(sizeof(PartSet))
    cdef StageInfo info
    cdef Task task
    cdef InsertQueue* q
    cdef int stage, t, p, k, err = CHAIN_OK, active
    cdef uint64_t over_tag = 0, h
    cdef Key96 key
    cdef uint32_t blocked = rotate12(start.occ[1 - seat])
    cdef Py_ssize_t fsize, room, made = 0, distinct = 0
    cdef KeySet* part
    cdef int part_mask = N_PARTS - 1 if threads > 1 else 0
    keyset_clear(result, &sh.meter)
    task.workers = workers
    task.sh = sh
    if workers == NULL or frontier == NULL:
        free(workers)
        free(frontier)
        return CHAIN_NO_MEMORY
    partset_clear(frontier, &sh.meter)
    for t in range(threads):
        partset_clear(&workers[t].next, &sh.meter)
        partset_clear(&workers[t].out, &sh.meter)
        for k in range(MAX_STAGE_DICE + 1):
            keyset_clear(&workers[t].groups[k], &sh.meter)
        workers[t].polls = t == 0
        q = &workers[t].st.queue
        q.shared = sh
        q.layer = NULL
        q.parts[0] = NULL
        q.parts[1] = &workers[t].next
        q.parts[2] = &workers[t].out
        q.n = 0
        q.err = CHAIN_OK
        q.added = 0
        q.keep_lo = keep_lo
        q.keep_hi = keep_hi
        q.over_seen = False
        q.part_mask = part_mask
    key = pos_mover_key(start, seat)
    h = key_hash(key.lo, key.hi)
    err = keyset_add_keyed(&frontier.part[(h >> PART_SHIFT) & part_mask], key.lo, key.hi, h,
                           EMPTY_K1)
    if err < 0:
        shared_fail(sh, err)
    else:
        atomic_add(&sh.held, 1)
    for stage in range(n_stages):
        if sh.err != CHAIN_OK:
            break
        stage_info_set(&info, stage, n_stages, numbers[stage], counts[stage], is_chain, blocked)
        fsize = partset_size(frontier)
        info.layered = (distinct > 0 and made > LAYERED_DUPLICATION * distinct
                        and fsize >= LAYERED_GROUP)
        active = threads if fsize >= THREADED_FRONTIER else 1
        for t in range(active):
            search_setup(&workers[t].st, &info)
            workers[t].st.queue.pushed = 0
            # The next frontier is usually about as big as this one: size its
            # parts for that, rather than double them from the smallest.
            # (the last stage's ends are outcomes: its outcome parts, likewise)
            room = fsize // ((part_mask + 1) * active)
            for p in range(part_mask + 1):
                part = (&workers[t].out.part[p] if info.last_stage
                        else &workers[t].next.part[p])
                if room > 64 and part.slots == NULL and sh.err == CHAIN_OK:
                    err = keyset_init(part, room, &sh.meter)
                    if err != CHAIN_OK:
                        shared_fail(sh, err)
        if sh.err != CHAIN_OK:
            break
        task.parts = frontier
        task.info = &info
        task.n_workers = active
        run_shared(&task, TASK_SCAN, active)
        run_shared(&task, TASK_GROUPS, active)
        partset_release(frontier, sh)
        made = 0
        for t in range(active):
            made += workers[t].st.queue.pushed
            if workers[t].st.queue.err != CHAIN_OK:
                shared_fail(sh, workers[t].st.queue.err)
            if over_tag == 0 and workers[t].st.queue.over_seen:
                over_tag = make_tag(STOP_GAME_OVER, info.number, info.count)
        if sh.err != CHAIN_OK:
            break
        task.n_workers = threads
        run_shared(&task, TASK_MERGE, active)
        distinct = partset_size(frontier)
    partset_release(frontier, sh)
    if sh.err == CHAIN_OK:
        fsize = 0
        for t in range(threads):
            fsize += partset_size(&workers[t].out)
        err = collect_outcomes(workers, threads, threads if fsize >= THREADED_FRONTIER else 1,
                               frontier, PART_BITS if part_mask else 0, over_tag, sh, result)
        if err != CHAIN_OK:
            shared_fail(sh, err)
    err = sh.err
    workers_release(workers, threads, sh)
    partset_release(frontier, sh)
    if err != CHAIN_OK:
        keyset_free(result)
    free(workers)
    free(frontier)
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
                       KeySet* failed, int* last_stage) noexcept nogil:
    """Find the first stage-by-stage play (each stage's ends in canonical order)
    that leads to the outcome (target, target_tag; GAME_OVER_TAG: the game
    ended at any stage). 1 found (``last_stage``: the stage where it ends),
    0 not, -1 no memory."""
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
            last_stage[0] = stage
            found = 1
        free(ends)
        return found
    for j in range(n_ends):
        key = ends[j].key
        if ends[j].ends_game:
            tag = GAME_OVER_TAG
        elif is_chain and playable < count:
            tag = make_tag(STOP_STALLED, n, playable)
        elif stage == n_stages - 1:
            tag = make_tag(STOP_COMPLETE, n, count)
        else:
            tag = 0xFFFF    # goes on to the next stage
        if tag != 0xFFFF:
            if key.lo == target.lo and key.hi == target.hi and tag == target_tag:
                last_stage[0] = stage
                found = 1
        elif key_can_reach(key, target):
            pos_set_mover_key(q, seat, key)
            for k in range(ends[j].n_steps):
                path[offset + k] = ends[j].steps[k]
            stage_steps[stage] = ends[j].n_steps
            found = chain_recover(q, seat, numbers, counts, n_stages, is_chain, stage + 1,
                                  target, target_tag, path, stage_steps, failed, last_stage)
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


def _half_the_memory():
    """Half the machine's physical memory in bytes (3 GiB where it cannot be read)."""
    import os
    try:
        return max(1 << 30, os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2)
    except (AttributeError, ValueError, OSError):
        return 3 << 30


#: Memory the tables of one chain enumeration may hold by default, in bytes
#: (half the machine's memory): past it the outcomes are found in passes
#: (each keeping a share of them).
DEFAULT_CHAIN_MEMORY = _half_the_memory()
#: How many passes an enumeration may take at most (each keeps 1/N of the outcomes).
CHAIN_MAX_PASSES = N_PARTS


cdef class ChainResult(EndSet):
    """Every distinct outcome of a chain or a remainder (backend object; see gulbara.chains)."""
    cdef bint is_chain
    cdef int n_stages
    cdef uint8_t numbers[7]
    cdef uint8_t counts[7]
    cdef KeySet outcomes
    cdef size_t peak
    cdef int passes_

    def __dealloc__(self):
        free(self.outcomes.dense)
        self.outcomes.dense = NULL

    cdef Py_ssize_t count(self) noexcept:
        return self.outcomes.size

    cdef Key96 key_at(self, Py_ssize_t i) noexcept nogil:
        cdef Key96 key
        key.lo = self.outcomes.dense[2 * i]
        key.hi = <uint32_t>self.outcomes.dense[2 * i + 1]
        return key

    @property
    def table_peak_bytes(self):
        """The most bytes the enumeration's tables held at once (with max_ends
        set, at most max_ends * CHAIN_BYTES_PER_END + CHAIN_BASE_BYTES)."""
        return self.peak

    @property
    def passes(self):
        """How many passes the enumeration took (1 unless memory ran short)."""
        return self.passes_

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

    def __reduce__(self):
        """Pickles (and deep copies) carry the start, the stages and the outcomes."""
        cdef bytes outcomes = (<char*>self.outcomes.dense)[:table_bytes(self.outcomes.size)]
        return (_chain_result_from_state,
                (format_code(&self.base), self.seat_, self.is_chain,
                 bytes([self.numbers[k] for k in range(self.n_stages)]),
                 bytes([self.counts[k] for k in range(self.n_stages)]),
                 outcomes, self.peak, self.passes_))

    def take(self, Py_ssize_t start, Py_ssize_t stop):
        """A new result holding outcomes ``start:stop`` (a chunk of this one)."""
        cdef Py_ssize_t n = self.outcomes.size
        start = max(0, min(start, n))
        stop = max(start, min(stop, n))
        cdef ChainResult part = self.like()
        part.outcomes.dense = <uint64_t*>malloc(table_bytes(stop - start + 1))
        if part.outcomes.dense == NULL:
            raise MemoryError("out of memory copying chain outcomes")
        memcpy(part.outcomes.dense, self.outcomes.dense + 2 * start, table_bytes(stop - start))
        part.outcomes.size = stop - start
        return part

    cdef ChainResult like(self):
        cdef ChainResult other = ChainResult.__new__(ChainResult)
        other.base = self.base
        other.seat_ = self.seat_
        other.is_chain = self.is_chain
        other.n_stages = self.n_stages
        other.numbers = self.numbers
        other.counts = self.counts
        other.peak = self.peak
        other.passes_ = self.passes_
        keyset_clear(&other.outcomes, NULL)
        return other

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
        cdef int found, k, offset = 0, last = 0
        target.lo = self.outcomes.dense[2 * i]
        target.hi = <uint32_t>self.outcomes.dense[2 * i + 1]
        if (tag & 15) == STOP_GAME_OVER:
            tag = GAME_OVER_TAG          # whichever stage ends the game (RULES §5.6)
        if keyset_init(&failed, 1024):
            raise MemoryError()
        with nogil:
            found = chain_recover(&q, self.seat_, self.numbers, self.counts, self.n_stages,
                                  self.is_chain, 0, target, tag, path, stage_steps, &failed,
                                  &last)
        keyset_free(&failed)
        if found < 0:
            raise MemoryError("out of memory recovering the steps of a chain outcome")
        if found != 1:
            raise RuntimeError("could not recover the steps of a chain outcome")
        result = []
        for k in range(last + 1):
            result.append(tuple([(path[offset + j].frm, path[offset + j].die)
                                 for j in range(stage_steps[k])]))
            offset += stage_steps[k]
        return tuple(result)


def _chain_result_from_state(str code, int seat, bint is_chain, bytes numbers, bytes counts,
                             bytes outcomes, size_t peak, int passes):
    """A ChainResult from its pickled state (ChainResult.__reduce__)."""
    cdef ChainResult result = ChainResult.__new__(ChainResult)
    cdef Pos p
    cdef Py_ssize_t n = len(outcomes) // table_bytes(1), k
    if len(numbers) != len(counts) or not 1 <= len(numbers) <= 6 or len(outcomes) % table_bytes(1):
        raise ValueError("not the state of a chain result")
    read_code(code, &p)
    result.base = p
    result.seat_ = check_seat(seat)
    result.is_chain = is_chain
    result.n_stages = len(numbers)
    for k in range(result.n_stages):
        result.numbers[k] = numbers[k]
        result.counts[k] = counts[k]
    result.peak = peak
    result.passes_ = passes
    keyset_clear(&result.outcomes, NULL)
    result.outcomes.dense = <uint64_t*>malloc(table_bytes(n + 1))
    if result.outcomes.dense == NULL:
        raise MemoryError("out of memory unpickling chain outcomes")
    memcpy(result.outcomes.dense, <const char*>outcomes, table_bytes(n))
    result.outcomes.size = n
    return result


cdef size_t chain_budget(Py_ssize_t max_ends) noexcept:
    """The bytes a chain's tables may hold: max_ends * CHAIN_BYTES_PER_END + CHAIN_BASE_BYTES."""
    cdef size_t per = BYTES_PER_HELD, base = BASE_BYTES
    if max_ends < 0:
        return base
    if <size_t>max_ends > (SIZE_MAX - base) // per:
        return SIZE_MAX
    return <size_t>max_ends * per + base


cdef class ChainRun:
    """One chain or remainder to enumerate, in one pass or several (backend
    object; see gulbara.chains). ``run(q, passes)`` enumerates it again,
    keeping the outcomes of pass ``q`` of ``passes`` (a power of 4 up to
    CHAIN_MAX_PASSES): together the passes give every outcome once, in the
    order of the one-pass result."""
    cdef Pos start
    cdef int seat_
    cdef bint is_chain
    cdef int n_stages
    cdef uint8_t numbers[7]
    cdef uint8_t counts[7]
    cdef int threads
    cdef Py_ssize_t max_held
    cdef size_t budget
    cdef readonly object max_ends

    def run(self, int q, int passes):
        """Pass ``q`` of ``passes``: a ChainResult, or EnumerationLimitError
        (past max_ends or the memory budget), KeyboardInterrupt (Ctrl-C)."""
        cdef Shared sh
        cdef int err, keep_lo, keep_hi
        cdef ChainResult result
        if passes < 1 or passes > N_PARTS or N_PARTS % passes or not 0 <= q < passes:
            raise ValueError(f"pass {q} of {passes}: passes must divide {N_PARTS}")
        keep_lo = q * (N_PARTS // passes)
        keep_hi = keep_lo + N_PARTS // passes
        sh.meter.held = 0
        sh.meter.peak = 0
        sh.meter.budget = self.budget
        sh.held = 0
        sh.max_held = self.max_held
        sh.err = CHAIN_OK
        interrupt_init(&sh.intr, POLL_EVERY, MAIN_THREAD)
        result = ChainResult.__new__(ChainResult)
        result.base = self.start
        result.seat_ = self.seat_
        result.is_chain = self.is_chain
        result.n_stages = self.n_stages
        result.numbers = self.numbers
        result.counts = self.counts
        result.passes_ = passes
        keyset_clear(&result.outcomes, NULL)
        with nogil:
            err = chain_enumerate(&self.start, self.seat_, self.numbers, self.counts,
                                  self.n_stages, self.is_chain, self.threads, keep_lo, keep_hi,
                                  &sh, &result.outcomes)
        result.peak = sh.meter.peak
        interrupt_raise(&sh.intr)
        if err == CHAIN_TOO_MANY:
            if self.max_ends is not None:
                raise EnumerationLimitError(
                    f"more than max_ends={self.max_ends:,} distinct positions held at once, "
                    f"or more memory than they are allowed ({CHAIN_BYTES_PER_END} bytes each); "
                    f"raise max_ends to allow more")
            raise EnumerationLimitError(
                f"the chain's tables need more than memory={self.budget:,} bytes "
                f"in {passes} pass(es)")
        if err:
            raise MemoryError("out of memory in a chain enumeration")
        result.outcomes.meter = NULL
        return result

    def __call__(self):
        """Every outcome: one pass, or as many as the memory budget needs (up to
        CHAIN_MAX_PASSES, each repeating the enumeration); with max_ends set,
        one pass, EnumerationLimitError past it."""
        cdef int passes = 1, q
        cdef Py_ssize_t total, at
        cdef ChainResult whole, part
        while True:
            try:
                if passes == 1:
                    return self.run(0, 1)
                parts = [self.run(q, passes) for q in range(passes)]
                break
            except EnumerationLimitError:
                if self.max_ends is not None or passes >= N_PARTS:
                    raise
                passes *= 4
        total = sum(len(p) for p in parts)
        whole = (<ChainResult>parts[0]).like()
        whole.outcomes.dense = <uint64_t*>malloc(table_bytes(total + 1))
        if whole.outcomes.dense == NULL:
            raise MemoryError("out of memory joining the passes of a chain enumeration")
        at = 0
        for part_object in parts:
            part = <ChainResult>part_object
            memcpy(whole.outcomes.dense + 2 * at, part.outcomes.dense,
                   table_bytes(part.outcomes.size))
            at += part.outcomes.size
            whole.peak = max(whole.peak, part.peak)
        whole.outcomes.size = total
        whole.passes_ = passes
        return whole


cdef int check_threads(object threads) except -1:
    if threads is None:
        return 1
    return checked_int(threads, "threads", 1, MAX_THREADS)


cdef ChainRun make_run(const Pos* p, int seat, list stages, bint is_chain, object max_ends,
                       object threads, object memory):
    cdef ChainRun run = ChainRun.__new__(ChainRun)
    cdef int k
    run.start = p[0]
    run.seat_ = seat
    run.is_chain = is_chain
    run.n_stages = len(stages)
    for k in range(run.n_stages):
        run.numbers[k] = stages[k][0]
        run.counts[k] = stages[k][1]
    run.threads = check_threads(threads)
    run.max_ends = max_ends
    if max_ends is not None:
        run.max_held = checked_int(max_ends, "max_ends", 1, PY_SSIZE_T_MAX)
        run.budget = chain_budget(run.max_held)
    else:
        run.max_held = PY_SSIZE_T_MAX
        run.budget = checked_int(DEFAULT_CHAIN_MEMORY if memory is None else memory, "memory",
                                 BASE_BYTES, SIZE_MAX)
    return run


cdef list check_remainder_stages(object stages):
    """(number, count) pairs of a remainder, validated (RULES §5.3)."""
    cdef list pairs = []
    cdef int previous = 0
    try:
        items = list(stages)
    except TypeError:
        raise TypeError(f"stages must be a sequence of (number, count) pairs, "
                        f"not {type(stages).__name__}") from None
    if not 1 <= len(items) <= 6:
        raise InvalidDiceError(f"a remainder has 1 to 6 stages, got {len(items)}")
    for item in items:
        try:
            number, count = item
        except (TypeError, ValueError):
            raise InvalidDiceError(f"a remainder stage is a (number, count) pair, "
                                   f"got {item!r}") from None
        for value in (number, count):
            if isinstance(value, bool) or not hasattr(value, "__index__"):
                raise TypeError(f"a remainder stage's number and count are ints, got {item!r}")
        number = _index(number)
        count = _index(count)
        if not 1 <= number <= 6 or not 1 <= count <= MAX_STAGE_DICE:
            raise InvalidDiceError(f"a remainder stage is a number 1..6 and a count 1..4, "
                                   f"got {item!r}")
        if number <= previous:
            raise InvalidDiceError("remainder stages go in ascending order of number")
        previous = number
        pairs.append((number, count))
    return pairs


cdef Pos read_start(object code_or_position) except *:
    cdef Pos p
    if isinstance(code_or_position, Position):
        p = (<Position>code_or_position).pos
    else:
        read_code(code_or_position, &p)
    return p


def chain_run_raw(code_or_position, seat, first, max_ends=None, threads=None, memory=None):
    """A ChainRun for an escalating chain from ``first`` up to 6 (RULES §4.3-4.4)."""
    cdef Pos p = read_start(code_or_position)
    cdef int s = check_seat(seat)
    if isinstance(first, bool) or not hasattr(first, "__index__"):
        raise TypeError(f"first must be an int 1..6, not {type(first).__name__}")
    if not 1 <= _index(first) <= 6:
        raise InvalidDiceError(f"a chain starts at a number 1..6, got {first!r}")
    return make_run(&p, s, [(n, 4) for n in range(_index(first), 7)], True, max_ends, threads,
                    memory)


def remainder_run_raw(code_or_position, seat, stages, max_ends=None, threads=None, memory=None):
    """A ChainRun for a remainder's stages (RULES §5.3); ``stages`` as (number, count) pairs."""
    cdef Pos p = read_start(code_or_position)
    cdef int s = check_seat(seat)
    return make_run(&p, s, check_remainder_stages(stages), False, max_ends, threads, memory)


def chain_ends_raw(code_or_position, seat, first, max_ends=None, threads=None, memory=None):
    """Every outcome of an escalating chain from ``first`` up to 6 (RULES §4.3-4.4)."""
    return chain_run_raw(code_or_position, seat, first, max_ends, threads, memory)()


def remainder_ends_raw(code_or_position, seat, stages, max_ends=None, threads=None, memory=None):
    """Every outcome of a remainder's stages (RULES §5.3); ``stages`` as (number, count) pairs."""
    return remainder_run_raw(code_or_position, seat, stages, max_ends, threads, memory)()
