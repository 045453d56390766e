# cython: language_level=3
"""Native perft over full game states (RULES §10).

The recursion runs on :c:type:`GameState` of ``_state.pxd``, a plain struct
that holds exactly the state of a :class:`gulbara.Game`, with the twins of
the game driver's transitions; a child is a copy of its parent with one
transition applied, so nothing is undone and nothing points into anything.

perft itself (RULES §10.1-10.4):

* a finished game, or depth 0, is one leaf;
* a chance node (the opening or a roll) sums over the 21 distinct rolls
  (the 15 non-doubles at the opening under the default opening, RULES §10.5),
  at the same depth;
* a decision node sums perft(child, depth - 1) over the stage's distinct ends.

At depth 1 (a decision, or a chance node's 21 first stages) the leaves are
counted without building them: the nodes-only fast path, ``count_stage``. No
canonical steps, no end list, no position per end. While two or more of the
mover's checkers are outside its home board no step can bear off, and the
ends are counted in closed form with bit masks (two different dice:
``count_two_no_bear_off``; the last two steps of equal dice:
``count_last_two``). Otherwise the plays are enumerated (equal dice in
non-increasing source order, every end once; two different dice merged in a
small stamped hash set). ``tests/test_perft_native.py`` checks the count
against ``len(stage_ends)`` stage by stage.

Interior decision nodes enumerate their ends with ``stage_generate`` of the
``_movegen.pxd`` contract into a per-depth buffer (one ``malloc`` per call),
so the recursion never shares a buffer with the generator or with itself. The
GIL is released for the whole count, so perft calls in several threads run
side by side.

>>> from gulbara import Game
>>> perft_game(Game.new_perft_root(), 2)
1576
"""

from libc.stdint cimport uint8_t, int8_t, int32_t, uint32_t, uint64_t
from libc.stdlib cimport malloc, free
from libc.string cimport memset

from gulbara.core._bits cimport bit_length, pop_top, popcount
from gulbara.core._masks cimport rotate12, open_from as open_from_mask, movable as movable_mask
from gulbara.core._types cimport (Pos, StageEnd, N_CHECKERS, MAX_STAGE_DICE, HOME_BITS, BOARD_BITS,
                             STAGE_CAPACITY)
from gulbara.core._keys cimport UNIT_LO, UNIT_HI, no_bear_off_in_two
from gulbara.core._movegen cimport stage_generate, Position
from gulbara.game._state cimport (GameRules, GameState, PH_OPENING, PH_ROLL, PH_STAGE, PH_OVER,
                             play_end, roll_allowed, apply_roll, stage_dice,
                             read_game, state_code)

from gulbara.core._interrupt cimport Interrupt, interrupt_init, interrupted, interrupt_raise

import threading

from gulbara.core import _movegen

# Only the main thread runs signal handlers (_interrupt.pxd).
cdef unsigned long MAIN_THREAD = threading.main_thread().ident

cdef enum:
    # The stamped hash set that merges the ends of two different dice (at
    # most 24 x 2 x 24 = 1,152 plays, so at most 56% full).
    SET_SLOTS = 2048
    MAX_DEPTH = 64
    # Pending signals are looked at once per this many leaves counted at the
    # interior decision nodes (about a millisecond of work).
    CHECK_EVERY = 4096



ctypedef struct Work:
    StageEnd* ends             # STAGE_CAPACITY ends per depth
    uint64_t set_lo[SET_SLOTS]
    uint32_t set_hi[SET_SLOTS]
    uint32_t set_stamp[SET_SLOTS]
    uint32_t stamp
    int failed                 # a stage overflowed its buffer (cannot happen)
    Interrupt intr             # Ctrl-C: the recursion unwinds (_interrupt.pxd)


# ---------------------------------------------------------------------------
# The nodes-only count of one stage's distinct ends (RULES §3)
# ---------------------------------------------------------------------------

# The mover's side of a position in its own numbering, the opponent's points
# rotated into it (RULES §1.3), and the packed key of _types.pxd kept up to
# date step by step.
ctypedef struct Counter:
    uint8_t c[25]
    uint32_t mask              # points holding a checker
    uint32_t ones              # points holding exactly one
    uint32_t blocked
    int off
    uint64_t klo
    uint64_t khi


cdef inline void counter_load(Counter* g, const Pos* p, int seat) noexcept nogil:
    cdef int q
    cdef uint64_t lo = 0, hi = 0
    for q in range(25):
        g.c[q] = p.cnt[seat][q]
    for q in range(1, 17):
        lo |= (<uint64_t>p.cnt[seat][q]) << (4 * (q - 1))
    for q in range(17, 25):
        hi |= (<uint64_t>p.cnt[seat][q]) << (4 * (q - 17))
    g.mask = p.occ[seat]
    g.ones = 0
    for q in range(1, 25):
        if p.cnt[seat][q] == 1:
            g.ones |= (<uint32_t>1) << (q - 1)
    g.blocked = rotate12(p.occ[1 - seat])
    g.off = p.off[seat]
    g.klo = lo
    g.khi = hi


cdef inline uint32_t open_from(const Counter* g, int distance) noexcept nogil:
    return open_from_mask(g.blocked, distance)


cdef inline uint32_t movable(const Counter* g, int die) noexcept nogil:
    """The points (bit q - 1 for point q) from which a checker can step ``die``."""
    return movable_mask(g.mask, open_from_mask(g.blocked, die), die)


cdef inline void counter_take(Counter* g, int q) noexcept nogil:
    cdef uint32_t bit = (<uint32_t>1) << (q - 1)
    g.c[q] -= 1
    if g.c[q] == 0:
        g.mask &= ~bit
        g.ones &= ~bit
    elif g.c[q] == 1:
        g.ones |= bit
    g.klo -= UNIT_LO[q]
    g.khi -= UNIT_HI[q]


cdef inline void counter_put(Counter* g, int q) noexcept nogil:
    cdef uint32_t bit = (<uint32_t>1) << (q - 1)
    g.c[q] += 1
    if g.c[q] == 1:
        g.mask |= bit
        g.ones |= bit
    elif g.c[q] == 2:
        g.ones &= ~bit
    g.klo += UNIT_LO[q]
    g.khi += UNIT_HI[q]


cdef inline bint counter_do(Counter* g, int frm, int die) noexcept nogil:
    """Step a checker from ``frm`` by ``die``; whether that bore off the last (RULES §3.3)."""
    counter_take(g, frm)
    if frm > die:
        counter_put(g, frm - die)
    else:
        g.off += 1
    return g.off == N_CHECKERS


cdef inline void counter_undo(Counter* g, int frm, int die) noexcept nogil:
    if frm > die:
        counter_take(g, frm - die)
    else:
        g.off -= 1
    counter_put(g, frm)


cdef inline int set_add(Work* w, uint64_t lo, uint64_t hi) noexcept nogil:
    """Add a mover key to the stamped set: 1 if it is new, 0 if it was there."""
    cdef uint32_t h = <uint32_t>(((lo ^ (hi * <uint64_t>0xC2B2AE3D27D4EB4FULL))
                                  * <uint64_t>0x9E3779B97F4A7C15ULL) >> 53)
    while True:
        if w.set_stamp[h] != w.stamp:
            w.set_stamp[h] = w.stamp
            w.set_lo[h] = lo
            w.set_hi[h] = <uint32_t>hi
            return 1
        if w.set_lo[h] == lo and w.set_hi[h] == hi:
            return 0
        h = (h + 1) & (SET_SLOTS - 1)


cdef inline void set_clear(Work* w) noexcept nogil:
    w.stamp += 1
    if w.stamp == 0:                       # wrapped: forget every old stamp
        memset(w.set_stamp, 0, sizeof(w.set_stamp))
        w.stamp = 1


cdef int count_two_no_bear_off(const Counter* g, int high, int low) noexcept nogil:
    """The distinct ends of two different dice when no step can bear off.

    With two or more checkers outside the home board no step of the stage
    can bear off (RULES §2.3), so a step is legal exactly when its source is
    occupied and its target open, whatever was played before; the ends are
    then counted without enumerating a play:

    * one checker moved with both dice, from X to X - high - low through an
      open X - high or X - low: one end per such X;
    * two checker moves, X by high and Y by low, both legal in the position
      (X == Y needs two checkers there): one end per pair, except the pairs
      where one move continues the other (Y == X - high, or X == Y - low),
      which leave the end of the first kind already counted. No other two
      pairs leave the same position (the changes of the counts tell X, Y).

    When no play uses both dice, the single-die plays of the larger die count,
    else those of the smaller one (RULES §3.5), else the empty play (RULES §3.6)."""
    cdef uint32_t mask = g.mask
    cdef uint32_t move_high = mask & open_from(g, high)
    cdef uint32_t move_low = mask & open_from(g, low)
    cdef uint32_t through = mask & open_from(g, high + low) & (open_from(g, high)
                                                               | open_from(g, low))
    cdef int n
    n = (popcount(through) + popcount(move_high) * popcount(move_low)
         - popcount(move_high & move_low & g.ones)
         - popcount(move_high & (move_low << high)) - popcount(move_low & (move_high << low)))
    if n:
        return n
    if move_high:
        return popcount(move_high)
    if move_low:
        return popcount(move_low)
    return 1


cdef int count_two(Counter* g, int high, int low, Work* w) noexcept nogil:
    """The distinct ends of two different dice (RULES §3.2-3.5, §3.7).

    Every play is (first step, second step) with either die first; an end is
    counted once through the stamped set. When no play uses both dice (and
    none ends the game), the single-die plays count, only those of the
    larger die if there is one (RULES §3.5); each is from its own point, so
    they are distinct."""
    cdef int k, frm, q, die, other, target
    cdef int n_two = 0, n_high = 0, n_low = 0
    cdef bint any_two = False
    cdef uint32_t first, second
    if no_bear_off_in_two(g.mask, g.klo, g.khi):
        return count_two_no_bear_off(g, high, low)
    set_clear(w)
    for k in range(2):
        die = high if k == 0 else low
        other = low if k == 0 else high
        first = movable(g, die)
        while first:
            frm = pop_top(&first)
            if counter_do(g, frm, die):                # RULES §3.3: complete
                any_two = True
                n_two += set_add(w, g.klo, g.khi)
            else:
                second = movable(g, other)
                if second:
                    any_two = True
                    while second:
                        q = pop_top(&second)
                        target = q - other
                        if target >= 1:
                            n_two += set_add(w, g.klo - UNIT_LO[q] + UNIT_LO[target],
                                             g.khi - UNIT_HI[q] + UNIT_HI[target])
                        else:
                            n_two += set_add(w, g.klo - UNIT_LO[q], g.khi - UNIT_HI[q])
                elif k == 0:
                    n_high += 1
                else:
                    n_low += 1
            counter_undo(g, frm, die)
    if any_two:
        return n_two
    if n_high:
        return n_high
    if n_low:
        return n_low
    return 1                                           # RULES §3.6: the empty play


cdef inline void keep(int reach, int found, int* best, int* n) noexcept nogil:
    """``found`` ends of effective length ``reach``: keep the longest (RULES §3.4)."""
    if reach > best[0]:
        best[0] = reach
        n[0] = 0
    if reach == best[0]:
        n[0] += found


cdef void count_last_two(const Counter* g, int die, int n_dice, int depth, int max_from,
                         int* best, int* n) noexcept nogil:
    """The last two steps of ``n_dice`` equal dice, counted without playing them,
    when neither can bear off (see no_bear_off_in_two).

    A first step from X (a movable point <= max_from) is followed by a step
    from any movable point <= X in the position it leaves: the movable points
    <= X now, less X if its only checker left, plus X - die if the checker
    landed on an empty point that can itself move on. So X has
    rank(X) - lone(X) + new(X) second steps, each its own end. Only the
    lowest X can have none, so when the sum is 0 there was one first step,
    and its play is one step short."""
    cdef uint32_t open_die = open_from(g, die)
    cdef uint32_t sources = g.mask & open_die & (((<uint32_t>1) << max_from) - 1)
    cdef uint32_t arrive = ~(g.mask << die) & (open_die << die)
    cdef int m, total
    if not sources:
        keep(depth, 1, best, n)
        return
    m = popcount(sources)
    total = m * (m + 1) // 2 - popcount(sources & g.ones) + popcount(sources & arrive)
    if total:
        keep(n_dice, total, best, n)
    else:
        keep(depth + 1, 1, best, n)


cdef void count_equal(Counter* g, int die, int n_dice, int depth, int max_from,
                      int* best, int* n) noexcept nogil:
    """The ends of ``n_dice`` equal dice by effective length, sources in
    non-increasing order as in _movegen's eq_dfs: every end once
    (RULES §3.4, §3.7). Keeps the greatest length in ``best``, its ends in ``n``."""
    cdef uint32_t sources
    cdef int frm, found, reach
    if depth + 2 == n_dice and no_bear_off_in_two(g.mask, g.klo, g.khi):
        count_last_two(g, die, n_dice, depth, max_from, best, n)
        return
    sources = movable(g, die) & (((<uint32_t>1) << max_from) - 1)
    if not sources:
        found = 1
        reach = depth
    elif depth + 1 == n_dice:
        found = popcount(sources)                      # each last step its own end
        reach = n_dice
    else:
        while sources:
            frm = pop_top(&sources)
            if counter_do(g, frm, die):                # RULES §3.3: complete
                keep(n_dice, 1, best, n)
            else:
                count_equal(g, die, n_dice, depth + 1, frm, best, n)
            counter_undo(g, frm, die)
        return
    keep(reach, found, best, n)


cdef inline int count_loaded(Counter* g, int high, int low, int count, Work* w) noexcept nogil:
    cdef int best = 0, n = 0
    if g.off == N_CHECKERS:
        return 1
    if high != low:
        return count_two(g, high, low, w)
    count_equal(g, high, count, 0, 24, &best, &n)
    return n


cdef int count_stage(const Pos* p, int seat, int high, int low, int count,
                     Work* w) noexcept nogil:
    """The number of distinct ends of one stage (== len(stage_ends)), nothing built."""
    cdef Counter g
    counter_load(&g, p, seat)
    return count_loaded(&g, high, low, count, w)


cdef uint64_t count_chance(const GameRules* r, const GameState* s, Work* w) noexcept nogil:
    """perft(chance node, 1): the ends of the first stage of every roll (RULES §10.2).
    The first stage of a double is four dice, escalating or not (RULES §4.1-4.2)."""
    cdef Counter g
    cdef int a, b
    cdef uint64_t total = 0
    counter_load(&g, &s.pos, 0 if s.phase == PH_OPENING else s.seat)
    for a in range(6, 0, -1):
        for b in range(a, 0, -1):
            if roll_allowed(r, s, a, b):
                total += count_loaded(&g, a, b, 4 if a == b else 2, w)
    return total


# ---------------------------------------------------------------------------
# The recursion
# ---------------------------------------------------------------------------

cdef uint64_t perft_node(const GameRules* r, const GameState* s, int depth,
                         Work* w) noexcept nogil:
    cdef uint8_t dice[MAX_STAGE_DICE]
    cdef StageEnd* ends
    cdef int n_ends, playable, i, n_dice, a, b
    cdef GameState child
    cdef uint64_t total = 0
    if s.phase == PH_OVER or depth == 0:               # RULES §10.1, §10.4
        return 1
    if s.phase != PH_STAGE:                            # RULES §10.2, §10.5
        if depth == 1:
            return count_chance(r, s, w)
        for a in range(6, 0, -1):
            for b in range(a, 0, -1):
                if not roll_allowed(r, s, a, b):
                    continue
                child = s[0]
                apply_roll(r, &child, a, b)
                total += perft_node(r, &child, depth, w)
                if w.intr.raised:
                    return 0
        return total
    # RULES §10.3: the sum over the stage's distinct ends of perft(child, depth - 1)
    if depth == 1:
        return count_stage(&s.pos, s.seat, s.high, s.low, s.count, w)
    ends = w.ends + <size_t>depth * STAGE_CAPACITY
    n_dice = stage_dice(s, dice)
    if stage_generate(&s.pos, s.seat, dice, n_dice, ends, STAGE_CAPACITY, &n_ends, &playable):
        w.failed = 1
    if interrupted(&w.intr, n_ends):
        return 0
    for i in range(n_ends):
        child = s[0]
        play_end(r, &child, &ends[i])
        total += perft_node(r, &child, depth - 1, w)
        if w.intr.raised:
            return 0
    return total


cdef Work* work_new(int depth) noexcept nogil:
    cdef Work* w = <Work*>malloc(sizeof(Work))
    if w == NULL:
        return NULL
    # depth + 1 buffers: buffer d holds the ends of the decision at depth d (the count at
    # depth 1 builds none; buffer 0 is the helpers' scratch)
    w.ends = <StageEnd*>malloc(<size_t>(depth + 1) * STAGE_CAPACITY * sizeof(StageEnd))
    if w.ends == NULL:
        free(w)
        return NULL
    memset(w.set_stamp, 0, sizeof(w.set_stamp))
    w.stamp = 0
    w.failed = 0
    w.intr.armed = False
    w.intr.raised = False
    return w


cdef void work_free(Work* w) noexcept nogil:
    if w != NULL:
        free(w.ends)
        free(w)


# ---------------------------------------------------------------------------
# From a Game to the structs, and back to a state code (with the GIL)
# ---------------------------------------------------------------------------

cdef int check_depth(object depth, int minimum) except -1:
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < minimum:
        raise ValueError(f"perft depth must be an int >= {minimum}, got {depth!r}")
    if depth > MAX_DEPTH:
        raise ValueError(f"perft depth must be at most {MAX_DEPTH}, got {depth!r}")
    return depth


# ---------------------------------------------------------------------------
# Python entry points (gulbara.perft wraps them)
# ---------------------------------------------------------------------------

def perft_game(game, depth):
    """perft(game, depth) (RULES §10), natively, with the GIL released."""
    cdef GameState s
    cdef GameRules r
    cdef int d = check_depth(depth, 0)
    cdef uint64_t total
    cdef Work* w
    read_game(game, &s, &r)
    w = work_new(d)
    if w == NULL:
        raise MemoryError("no memory for perft's buffers")
    interrupt_init(&w.intr, CHECK_EVERY, MAIN_THREAD)
    with nogil:
        total = perft_node(&r, &s, d, w)
    failed = w.failed
    try:
        interrupt_raise(&w.intr)
    finally:
        work_free(w)
    if failed:
        raise RuntimeError("a stage overflowed perft's buffer")
    return total


def divide_game(game, depth):
    """perft split by the first choice: ``[(roll or None, steps, count), ...]`` in
    canonical order (rolls as in RULES §10.2, ends as in RULES §3.8)."""
    cdef GameState s, child, grandchild
    cdef GameRules r
    cdef int d = check_depth(depth, 1)
    cdef int a, b, i, n_ends, playable, n_dice, k
    cdef uint8_t dice[MAX_STAGE_DICE]
    cdef StageEnd* ends
    cdef Work* w
    cdef uint64_t count
    read_game(game, &s, &r)
    rows = []
    if s.phase == PH_OVER:
        return rows
    w = work_new(d + 1)
    if w == NULL:
        raise MemoryError("no memory for perft's buffers")
    interrupt_init(&w.intr, CHECK_EVERY, MAIN_THREAD)
    # ends of the first decision go into the buffer above every depth of the recursion
    ends = w.ends + <size_t>(d + 1) * STAGE_CAPACITY
    try:
        rolls = [None]
        if s.phase != PH_STAGE:
            rolls = [(a, b) for a in range(6, 0, -1) for b in range(a, 0, -1)
                     if roll_allowed(&r, &s, a, b)]
        for roll in rolls:
            child = s
            if roll is not None:
                apply_roll(&r, &child, roll[0], roll[1])
            n_dice = stage_dice(&child, dice)
            stage_generate(&child.pos, child.seat, dice, n_dice, ends, STAGE_CAPACITY,
                           &n_ends, &playable)
            for i in range(n_ends):
                grandchild = child
                play_end(&r, &grandchild, &ends[i])
                with nogil:
                    count = perft_node(&r, &grandchild, d - 1, w)
                interrupt_raise(&w.intr)
                steps = tuple([(ends[i].steps[k].frm, ends[i].steps[k].die)
                               for k in range(ends[i].n_steps)])
                rows.append((roll, steps, count))
        if w.failed:
            raise RuntimeError("a stage overflowed perft's buffer")
    finally:
        work_free(w)
    return rows


def _py_children(game):
    """The state codes of the children of ``game``'s node, in perft's order (tests):
    after each roll at a chance node, after each end at a decision."""
    cdef GameState s, child
    cdef GameRules r
    cdef int a, b, i, n_ends, playable, n_dice
    cdef uint8_t dice[MAX_STAGE_DICE]
    cdef Work* w
    read_game(game, &s, &r)
    out = []
    if s.phase == PH_OVER:
        return out
    if s.phase != PH_STAGE:
        for a in range(6, 0, -1):
            for b in range(a, 0, -1):
                if roll_allowed(&r, &s, a, b):
                    child = s
                    apply_roll(&r, &child, a, b)
                    out.append(state_code(&child))
        return out
    w = work_new(0)
    if w == NULL:
        raise MemoryError()
    n_dice = stage_dice(&s, dice)
    stage_generate(&s.pos, s.seat, dice, n_dice, w.ends, STAGE_CAPACITY, &n_ends, &playable)
    for i in range(n_ends):
        child = s
        play_end(&r, &child, &w.ends[i])
        out.append(state_code(&child))
    work_free(w)
    return out


def _py_count_stage(code, seat, dice):
    """The nodes-only count of one stage's distinct ends (tests: == len(stage_ends))."""
    cdef Position position = _movegen.Position.from_code(code)
    cdef Work* w = work_new(0)
    cdef int n
    dice = sorted(dice, reverse=True)
    if w == NULL:
        raise MemoryError()
    n = count_stage(&position.pos, seat, dice[0], dice[len(dice) - 1], len(dice), w)
    work_free(w)
    return n
