# cython: language_level=3
"""gulbara's compiled move generator: positions, steps and stages.

Everything inside a loop over steps or positions is a ``cdef ... noexcept
nogil`` function on the plain structs of ``_types.pxd``. The Python-facing
classes ``Position`` and ``Ends`` implement the backend contract of
``docs/dev/backend.md``; the pure-Python reference (``gulbara.core._reference``)
implements the same contract and is the oracle this module is tested against.

>>> ends = stage_ends(START_CODE, 0, [6, 6, 6, 6])
>>> len(ends), ends.steps(0)
(1, ((24, 6), (24, 6), (24, 6), (24, 6)))
"""

from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport malloc, free
from libc.string cimport memset, memcpy, memcmp
from cpython.unicode cimport PyUnicode_AsUTF8AndSize, PyUnicode_DecodeASCII

from gulbara.core._bits cimport bit_length, pop_top, pop_top_bit, cpu_supported
from gulbara.cpu._features cimport compiled_lzcnt
from gulbara.core._masks cimport rotate12, open_from, movable, can_step, point_in_other_frame
from gulbara.core._keys cimport (UNIT_LO, UNIT_HI, DELTA_LO, DELTA_HI, LANDS, key_count, key_outside,
                            no_bear_off_in_two, key_pop_step, die_rows, DieRows, mix64,
                            pos_mover_key, pos_set_mover_key)
from gulbara.core._types cimport (Pos, Step, Key96, StageEnd, N_POINTS, N_CHECKERS,
                             MAX_STAGE_DICE, HOME_BITS, BOARD_BITS, STAGE_CAPACITY)

from operator import index as _index

from gulbara.errors import (InvalidPositionError, InvalidSeatError, InvalidDiceError,
                            IllegalPlayError, position_code_sections, shown)

if not cpu_supported():
    raise ImportError(
        "this build of gulbara's move generator uses the LZCNT instruction, which this CPU "
        "lacks (a build made with -march=native on another machine?); reinstall gulbara here")

#: Whether this module was compiled to use the LZCNT instruction: its LZCNT build, which
#: ``gulbara.cpu`` loads on a CPU that has LZCNT (or a build for the building machine's CPU,
#: ``GULBARA_NATIVE=1``).
BUILT_WITH_LZCNT = bool(compiled_lzcnt)

START_CODE = "G:,,,,,,,,,,,-15,,,,,,,,,,,,15|0,0|0,0"

cdef enum:
    CODE_BUFFER = 160

cdef StageEnd _scratch[STAGE_CAPACITY]


# ---------------------------------------------------------------------------
# Position primitives (RULES §1, §9.1)
# ---------------------------------------------------------------------------

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


cdef uint64_t pos_key64(const Pos* p) noexcept nogil:
    """64-bit hash of the whole position (formula in docs/dev/backend.md)."""
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
    """RULES §2.2-2.3 for one step of ``seat`` on ``p`` (any frm and die)."""
    cdef uint32_t mine = p.occ[seat]
    if frm < 1 or frm > 24 or die < 1 or die > 6 or p.off[seat] == N_CHECKERS:
        return False
    if not (mine >> (frm - 1)) & 1:
        return False
    return can_step(mine, rotate12(p.occ[1 - seat]), frm, die)


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


# ---------------------------------------------------------------------------
# Stage enumeration (RULES §3)
# ---------------------------------------------------------------------------

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


cdef inline bint sink_takes(Sink* s, int effective) noexcept nogil:
    """Whether a finished play of this effective length is kept (RULES §3.4):
    not if shorter than the best so far; a longer one empties the sink."""
    if effective < s.best:
        return False
    if effective > s.best:
        s.best = effective
        s.n = 0
    return True


cdef inline bint sink_put(Sink* s, uint64_t lo, uint64_t hi, int n_steps, bint ends_game,
                          uint64_t steps) noexcept nogil:
    """Append an end; False (and ``overflow`` set) when the sink is full."""
    if s.n >= s.capacity:
        s.overflow = 1
        return False
    put_end(&s.out[s.n], lo, hi, n_steps, ends_game, steps)
    s.n += 1
    return True


cdef inline void sink_record(Sink* s, uint64_t lo, uint64_t hi, int n_steps, int effective,
                             bint ends_game, uint64_t steps) noexcept nogil:
    """Keep a finished play if its effective length is the best so far (RULES §3.4)."""
    if sink_takes(s, effective):
        sink_put(s, lo, hi, n_steps, ends_game, steps)


# ---------------------------------------------------------------------------
# Equal dice
# ---------------------------------------------------------------------------

# One stage of equal dice.
ctypedef struct EqStage:
    int die
    int n_dice
    uint32_t open_d        # open_from(blocked, die)
    bint bear_off          # a step of the stage may bear off
    DieRows rows           # the die's step rows


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
            frm = pop_top(&sources)
            sink_record(s, lo + st.rows.dlo[frm], hi + st.rows.dhi[frm], depth + 1, depth + 1,
                        False, steps | ((<uint64_t>frm) << shift))
        return
    e = s.out + s.n
    while sources:
        frm = pop_top(&sources)
        put_end(e, lo + st.rows.dlo[frm], hi + st.rows.dhi[frm], depth + 1, False,
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
        child = key_pop_step(&sources, mask, lo, hi, &st.rows, &frm, &bit, &clo, &chi)
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
    cdef uint64_t steps, clo, chi
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
        child = key_pop_step(&sources, mask, lo, hi, &st.rows, &frm, &bit, &clo, &chi)
        steps = path | ((<uint64_t>frm) << (16 * depth))
        if not child:
            sink_record(s, clo, chi, depth + 1, st.n_dice, True, steps)    # RULES §3.3
        elif depth + 1 == st.n_dice:
            sink_record(s, clo, chi, depth + 1, st.n_dice, False, steps)
        else:
            eq_dfs(s, st, child, clo, chi, steps, depth + 1, (bit << 1) - 1)


# ---------------------------------------------------------------------------
# Two different dice
# ---------------------------------------------------------------------------

cdef inline int source_ends(StageEnd* out, int n, int capacity, uint32_t sources, uint64_t lo,
                            uint64_t hi, const uint64_t* dlo, const uint64_t* dhi,
                            int n_steps, uint64_t steps) noexcept nogil:
    """Append one end per source of ``sources``, highest first: its last step from
    that source (``dlo``, ``dhi``: the die's DELTA rows; the source goes in the
    low byte of step ``n_steps - 1`` of ``steps``, no game end). The new count,
    or -1 when ``capacity`` is reached (or already was: ``n`` is -1)."""
    cdef int frm, shift = 16 * (n_steps - 1)
    cdef StageEnd* e
    if n < 0:
        return n
    e = out + n
    if capacity - n < N_POINTS:
        while sources:
            frm = pop_top(&sources)
            if n >= capacity:
                return -1
            put_end(&out[n], lo + dlo[frm], hi + dhi[frm], n_steps, False,
                    steps | ((<uint64_t>frm) << shift))
            n += 1
        return n
    while sources:
        frm = pop_top(&sources)
        put_end(e, lo + dlo[frm], hi + dhi[frm], n_steps, False,
                steps | ((<uint64_t>frm) << shift))
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
        frm = pop_top_bit(&first, &bit)
        rest = mask
        if key_count(lo, hi, frm) == 1:
            rest &= ~bit
        if move_h & bit:
            second = (rest | LANDS[high][frm]) & open_l & ((bit << 1) - 1)
            n = source_ends(out, n, capacity, second, lo + hlo[frm], hi + hhi[frm], llo, lhi,
                            2, steps_h | <uint64_t>frm)
        if move_l & bit:
            second = (rest | LANDS[low][frm]) & open_h & (bit - 1)
            if move_h & bit:
                # (F, high), (F - high, low) reached the end of (F, low), (F - low, high)
                second &= ~LANDS[low][frm]
            n = source_ends(out, n, capacity, second, lo + llo[frm], hi + lhi[frm], hlo, hhi,
                            2, steps_l | <uint64_t>frm)
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
    return source_ends(out, n, capacity, first, lo, hi, DELTA_LO[die], DELTA_HI[die], 1,
                       packed_step(0, 0, die))


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
    cdef int i, n
    cdef uint32_t h = 0
    cdef uint16_t slot
    cdef int best = s.best
    if not sink_takes(s, effective):
        return
    if s.best != best:                       # a longer play: the sink was emptied
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
    n = s.n
    if sink_put(s, lo, hi, n_steps, ends_game, steps) and n < 192:
        t.slots[h] = n + 1


cdef inline uint32_t step_mask(uint32_t mask, uint64_t lo, uint64_t hi, int frm,
                               int die) noexcept nogil:
    """The occupancy after the step (frm, die)."""
    if key_count(lo, hi, frm) == 1:
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
        frm = pop_top(&first)
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
                frm2 = pop_top(&second)
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
# How many equal dice can be played (RULES §3.4), for the chains
# ---------------------------------------------------------------------------

# The mover's counts and occupancy, the opponent's points in the mover's numbering.
ctypedef struct Gen:
    uint8_t c[25]
    uint32_t mask
    uint32_t blocked
    int off


cdef inline void gen_do(Gen* g, int frm, int die) noexcept nogil:
    cdef int target = frm - die
    g.c[frm] -= 1
    if not g.c[frm]:
        g.mask &= ~((<uint32_t>1) << (frm - 1))
    if target >= 1:
        g.c[target] += 1
        g.mask |= (<uint32_t>1) << (target - 1)
    else:
        g.off += 1


cdef inline void gen_undo(Gen* g, int frm, int die) noexcept nogil:
    cdef int target = frm - die
    if target >= 1:
        g.c[target] -= 1
        if not g.c[target]:
            g.mask &= ~((<uint32_t>1) << (target - 1))
    else:
        g.off -= 1
    g.c[frm] += 1
    g.mask |= (<uint32_t>1) << (frm - 1)


cdef int gen_max_steps(Gen* g, int die, int count, int depth, int max_from) noexcept nogil:
    """How many of ``count`` equal dice can be played (RULES §3.4: a game-ending
    play counts as all); sources in non-increasing order, as in eq_dfs."""
    cdef uint32_t sources = g.mask & (((<uint32_t>1) << max_from) - 1)
    cdef int frm, reach, best = depth
    while sources and best < count:
        frm = pop_top(&sources)
        if not can_step(g.mask, g.blocked, frm, die):
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


cdef int stage_playable(Key96 key, uint32_t blocked, int die, int count) noexcept nogil:
    """How many of ``count`` dice ``die`` the mover of ``key`` can play (RULES
    §3.4), the opponent holding ``blocked`` (the mover's numbering)."""
    cdef Gen g
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
    return gen_max_steps(&g, die, count, 0, 24)


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
            die_rows(dice[0], &eq.rows)
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
    text = shown(code)
    if err == E_PREFIX or err == E_SECTIONS or err == E_TOKENS:
        try:
            position_code_sections(code)
        except InvalidPositionError as error:
            return error
        return InvalidPositionError(f"a position code is 'G:' and three sections, in {text}")
    if err == E_CHAR or err == E_BOTH or err == E_COUNT:
        token = shown(code[2:].split("|")[0].split(",")[where - 1])
        problem = ("has the bad token" if err == E_CHAR else
                   "holds checkers of both colours:" if err == E_BOTH else
                   "holds more than 15 checkers:")
        return InvalidPositionError(f"point {where} {problem} {token} in {text}")
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
# Python-facing classes (the backend contract of docs/dev/backend.md)
# ---------------------------------------------------------------------------

cdef class Position:
    """An immutable Gul Bara position (no side to move).

    >>> p = Position.from_code(START_CODE)
    >>> p.pip_count(0), p.borne_off(1), p.code() == START_CODE
    (360, 0, True)
    """

    def __cinit__(self, *args, **kwargs):
        memset(&self.pos, 0, sizeof(Pos))

    def __init__(self, points, off_white, off_black):
        """``Position(points, off_white, off_black)`` is :meth:`from_points` (as in the
        reference backend); read a code with :meth:`from_code`."""
        self.pos = (<Position>Position.from_points(points, off_white, off_black)).pos

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
        raise RuntimeError("a stage overflowed STAGE_CAPACITY")  # unreachable: _types.pxd
    cdef Ends ends = Ends.__new__(Ends)
    ends.ends = <StageEnd*>malloc(n_ends * sizeof(StageEnd))
    if ends.ends == NULL:
        raise MemoryError()
    memcpy(ends.ends, _scratch, n_ends * sizeof(StageEnd))
    ends.n, ends.seat, ends.playable_dice = n_ends, seat, playable
    ends.base = p[0]
    ends.dice = (d[0], d[1]) if n_dice == 2 else (d[0],) * n_dice
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
        pos_set_mover_key(out, self.seat, self.key_at(i))

    def __len__(self):
        return self.count()

    def start(self):
        """The position the mover starts from."""
        return wrap(&self.base)

    cdef Pos checked_end(self, Py_ssize_t i) except *:
        """End ``i`` (IndexError out of range)."""
        cdef Pos p
        self.check_index(i)
        self.end_pos(i, &p)
        return p

    def code(self, Py_ssize_t i):
        """The position code of end ``i``."""
        cdef Pos p = self.checked_end(i)
        return format_code(&p)

    def position(self, Py_ssize_t i):
        """End ``i`` as a ``Position``."""
        cdef Pos p = self.checked_end(i)
        return wrap(&p)


cdef class Ends(EndSet):
    """The distinct ends of one stage, in canonical order (RULES §3.7-3.8)."""

    def __dealloc__(self):
        free(self.ends)

    cdef Py_ssize_t count(self) noexcept:
        return self.n

    cdef Key96 key_at(self, Py_ssize_t i) noexcept nogil:
        return self.ends[i].key

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
        cdef Key96 key = pos_mover_key(&position.pos, self.seat)
        cdef int other = 1 - self.seat, i
        if (memcmp(position.pos.cnt[other], self.base.cnt[other], 25) != 0
                or position.pos.off[other] != self.base.off[other]):
            return -1
        for i in range(self.n):
            if self.ends[i].key.lo == key.lo and self.ends[i].key.hi == key.hi:
                return i
        return -1

    def __repr__(self):
        return f"<Ends seat={self.seat} dice={self.dice} playable_dice={self.playable_dice} n={self.n}>"

    def __reduce__(self):
        # pickled as its stage, enumerated again when loaded
        return (stage_ends, (format_code(&self.base), self.seat, self.dice))

    def __copy__(self):
        return self                         # immutable

    def __deepcopy__(self, memo):
        return self
