# cython: language_level=3
"""Rollout games with luck subtraction, quasi-random dice and truncation, natively.

:func:`rollout_block` plays games ``first .. first + count - 1`` of a run seeded ``seed`` from
each of ``K`` start states (the candidates of one decision, or one position), every start on
the same dice (common random numbers), by the one native game loop (``_playloop.pxd``:
``play_game``) with two native policies. For each game it reports, for the side rolled out:

* its points (or, for a game stopped at ``truncate`` rolls, its equity there for the side to
  roll: the network's, or exactly the bear-off database's when both sides bear off), and its
  chances of winning, of winning and of losing with a mars (0 or 1, or those chances when
  stopped);
* with a luck network, the **luck** of every roll of the game, summed from the side's view
  (``luck_rolled``): each roll valued by its roller at one ply, by where its whole turn leads
  with every stage played as the native ``net`` policy plays it (``roll_value``), or by the
  "model" rule's fitted function of what the network sees before the roll (``luck_model``).
  docs/user/rollouts.md shows the estimator ``points - luck`` is unbiased whatever the policy;
* with ``quasi``, the first two rolls after the start (not the opening) are not drawn: game
  ``g``'s are ``DICE_36[g % 36]`` and ``DICE_36[(g % 36 + g // 36) % 36]``, so every 36
  consecutive games see each first roll once and every 1,296 each pair of rolls once.

:func:`luck_samples` gives the rows that function is fitted to.

Memory: two stage buffers (17,600 ends each), their values (70 KB) and the output arrays
(about 50 bytes a game a start); ``luck_samples``, about 1 KB a roll it returns. The GIL is released during each game; Ctrl-C stops between games.
"""

from libc.stdint cimport uint8_t, int8_t, int32_t, uint32_t, uint64_t
from libc.stdlib cimport malloc, free

from cpython.exc cimport PyErr_CheckSignals

from gulbara.core._types cimport Pos, StageEnd, STAGE_CAPACITY, HOME_BITS, BOARD_BITS
from gulbara.core._masks cimport rotate12
from gulbara.core._bits cimport pop_top
from gulbara.core._keys cimport pos_set_mover_key
from gulbara.eval._bearoff cimport rank_counts, race_chances, race_points
from gulbara.game._state cimport (GameRules, GameState, PH_OVER, PH_STAGE, K_CHAIN, begin_roll,
                                  escalates, play_end, read_game)
from gulbara.game._rng cimport Rng, rng_seed
from gulbara.game._playloop cimport (Policy, Watcher, GameEnd, play_game, game_end_start,
                                     pending_ends, alloc_ends, GAME_PLAYED)
from gulbara.net._net cimport Net, Network, N_OUT, MAX_HIDDEN, equity
from gulbara.net._choose cimport net_choose
from gulbara.net._search cimport (state_outputs, waiting_features, dense_head, head_width,
                                   MAX_HEAD, HEAD_OUT)
from gulbara.net._play cimport resolve_policy

import numpy as np

from gulbara.errors import GulBaraError

#: The most rolls a game plays when not truncated (as native self-play's max_rolls).
MAX_ROLLS = 10_000


cdef enum:
    HOME_POINTS = 6
    LUCK_FULL = 0              # the luck rules (LUCK_RULES)
    LUCK_FAST = 1
    LUCK_PIPS = 2
    LUCK_MODEL = 3
    N_ROLLS = 21               # the rolls a-b with a <= b, in order 1-1, 1-2, .., 1-6, 2-2, ..
    N_REACH = 18               # model_features: checkers that can go 1, 2 and 4 steps of each die
    MAX_FEATURES = 1 + MAX_HIDDEN + N_REACH + 6
    MAX_UNITS = 256            # gulbara.rollouts.luckmodel: a model's most units (MAX_HEAD)
    SAMPLE_ROWS = 1000         # luck_samples: the most rolls of one game it records
    N_RACE = 54264             # one side's bear-off positions (gulbara.eval.bearoff.N_BEAROFF)


#: The most softsign units a "model" rule's function may have (``check_model``).
MAX_MODEL_UNITS = MAX_UNITS

#: The luck rules by name (``luck_rolled``): ``rollout_block``'s ``luck_rule``.
LUCK_RULES = {"full": LUCK_FULL, "fast": LUCK_FAST, "pips": LUCK_PIPS, "model": LUCK_MODEL}


ctypedef struct Race:
    const double* dist         # the bear-off database's rows (NULL: none given), ``length``
    const double* first        # each: gulbara.eval.bearoff.BearoffTable's dist, first_dist
    int length


ctypedef struct Luck:
    const Net* net
    const GameRules* r
    Race race
    int side                   # the side rolled out
    int rule                   # LUCK_FULL, LUCK_FAST, LUCK_PIPS or LUCK_MODEL (luck_rolled)
    const float* model         # LUCK_MODEL: the packed arrays of each block (luck_model),
    Py_ssize_t model_stride    # ``model_stride`` floats apart,
    int units                  # with ``units`` softsign units
    int n_features             # 1 + the network's hidden units + N_REACH + 6
    StageEnd* ends             # scratch: a stage's ends
    float* values              # scratch: their values
    double total               # the game's luck so far, for ``side``
    int failed                 # a stage overflowed


cdef double roll_value(Luck* L, const GameState* before, int a, int b) noexcept nogil:
    """The value of rolling a-b at ``before`` for its roller, at one ply: the network's value of
    where its whole turn leads, each stage's end the best by the network's value of the state
    it leads to, as the native ``net`` policy plays (an escalating double's chain to its last
    stage, a remainder by its receiver: RULES §4-5); a bear-off's turn by its best end by the
    database (``gulbara.eval.bearoff``), exactly."""
    cdef GameState s = before[0]
    cdef int n_ends, best, mover
    cdef double v
    begin_roll(L.r, &s, a, b, False)
    if L.race.dist != NULL and s.kind != K_CHAIN and bearing_off(L.r, &s):
        if pending_ends(&s, L.ends, &n_ends):
            L.failed = 1
            return 0.0
        return best_race_end(L, &s, n_ends)           # one stage, nothing passes (RULES §5)
    while True:
        if pending_ends(&s, L.ends, &n_ends):
            L.failed = 1
            return 0.0
        best = net_choose(L.net, L.r, &s, L.ends, n_ends, L.values)
        v = L.values[best]
        mover = s.seat
        play_end(L.r, &s, &L.ends[best])
        if s.phase != PH_STAGE:                       # the turn is over
            return v if mover == before.seat else -v


cdef double best_race_end(Luck* L, const GameState* s, int n_ends) noexcept nogil:
    """The value, for its mover, of the best end of ``s``'s stage in a bear-off: each end
    valued exactly by the database, the other side to roll next."""
    cdef int seat = s.seat, i, p
    cdef int mine[HOME_POINTS + 1]
    cdef int theirs[HOME_POINTS + 1]
    cdef int other
    cdef double v, best = -3.0
    cdef Pos end
    mine[0] = theirs[0] = 0
    for p in range(1, HOME_POINTS + 1):
        theirs[p] = s.pos.cnt[1 - seat][p]
    other = rank_counts(theirs)
    for i in range(n_ends):
        if L.ends[i].ends_game:                  # RULES §7.1: a mars when they have none off
            v = 2.0 if L.r.mars and s.pos.off[1 - seat] == 0 else 1.0
        else:
            end = s.pos
            pos_set_mover_key(&end, seat, L.ends[i].key)
            for p in range(1, HOME_POINTS + 1):
                mine[p] = end.cnt[seat][p]
            v = -race_points(L.race.dist, L.race.first, L.race.length, other,
                             rank_counts(mine), L.r.mars)
        if v > best:
            best = v
    return best


cdef double chain_unplayed(Luck* L, const GameState* before, int d) noexcept nogil:
    """The network's value, for its roller, of a double d-d's chain begun and not played."""
    cdef GameState s = before[0]
    begin_roll(L.r, &s, d, d, False)
    return state_value(L.net, L.r, &s, s.seat)


cdef inline double pip_line(const double* anchor, int pips) noexcept nogil:
    """The "pips" rule's ``h`` of a non-double of ``pips`` pips: the line through the values
    of 1-2, 3-4 and 5-6 (``anchor``: 3, 7 and 11 pips), piecewise."""
    if pips <= 7:
        return anchor[0] + (pips - 3) * (anchor[1] - anchor[0]) / 4.0
    return anchor[1] + (pips - 7) * (anchor[2] - anchor[1]) / 4.0


cdef int model_features(Luck* L, const GameState* before, float* f) noexcept nogil:
    """The "model" rule's features of ``before`` (a side to roll): 1; the network's hidden
    activations of it; for each die k and m in 1, 2 and 4, the roller's checkers (/ 15) that
    could go m steps of k, each landing on a point the opponent does not hold (``reach``);
    and the network's value of each double's chain begun and not played when doubles
    escalate (else 0; ``waiting_features``). Returns the block of the function that
    applies: 1 when doubles escalate, else 0."""
    cdef float h[MAX_HIDDEN]
    cdef double chains[6]
    cdef int i, hidden = L.net.hidden
    cdef bint esc = escalates(L.r, before.rolls[before.seat] + 1, before.game_rolls + 1)
    waiting_features(L.net, L.r, before, esc, h, chains)
    f[0] = 1.0
    for i in range(hidden):
        f[1 + i] = h[i]
    reach(&before.pos, before.seat, &f[1 + hidden])
    for i in range(6):
        f[1 + hidden + N_REACH + i] = <float>chains[i] if esc else 0.0
    return 1 if esc else 0


cdef void reach(const Pos* pos, int me, float* f) noexcept nogil:
    """For k = 1..6 and m = 1, 2, 4 (``f[3 (k - 1) + j]``, j = 0, 1, 2): the checkers of
    ``me`` (/ 15) on a point p with p - k, .., p - m k all on the board (own numbering,
    RULES §1.2; the opponent's points mapped by §1.3) and none held by the opponent
    (§2.2; each die a separate step, §2.4). Bearing off (§2.3) is not counted."""
    cdef uint32_t free = ~rotate12(pos.occ[1 - me]) & BOARD_BITS
    cdef uint32_t ok, bits
    cdef int k, j, m, p, total
    for k in range(1, 7):
        ok = pos.occ[me]
        m = 0
        for j in range(3):
            while m < (1 << j):                    # 1, 2, 4 steps
                m += 1
                ok &= (free << (m * k)) & BOARD_BITS
            total = 0
            bits = ok
            while bits:
                p = pop_top(&bits)
                total += pos.cnt[me][p]
            f[3 * (k - 1) + j] = total / 15.0


cdef double luck_model(Luck* L, const GameState* before, int a, int b) noexcept nogil:
    """The "model" rule's luck of a-b at ``before``: ``h(a-b)`` minus the mean of ``h`` over
    the 36 rolls, ``h`` the fitted function of ``model_features`` (``f @ linear + softsign(f
    @ first) @ second``, ``softsign(z) = z / (1 + |z|)``: ``dense_head``,
    ``gulbara.rollouts.luckmodel.LuckModel``). Of mean zero whatever ``h`` is; nothing is
    played out."""
    cdef float f[MAX_FEATURES]
    cdef float h[HEAD_OUT]
    cdef double mean = 0.0
    cdef int n = L.n_features, K = L.units, block, k, x, y, drawn = 0
    cdef const float* layer1
    block = model_features(L, before, f)
    layer1 = L.model + block * L.model_stride
    dense_head(layer1, layer1 + n * head_width(K), n, K, f, h)
    k = 0
    for x in range(1, 7):
        for y in range(x, 7):
            mean += h[k] if x == y else 2.0 * h[k]
            if (x == a and y == b) or (x == b and y == a):
                drawn = k
            k += 1
    return h[drawn] - mean / 36.0


cdef void luck_rolled(void* context, const GameState* s, int a, int b) noexcept nogil:
    """The watcher: the luck of the roll a-b just begun in ``s``, for the side rolled out.

    The "full" rule: the roll's value minus the mean of the 36 (``roll_value``). When doubles
    escalate, the rolls fall in classes and the luck is the roll's value minus the mean of its
    class plus ``h`` of its class minus the mean of ``h`` over the 36 rolls, each term of
    mean zero for any ``h`` fixed before the roll; only the drawn roll's class is played out.
    "fast": two classes, the 30 non-doubles (``h``: their mean value) and the 6 doubles (``h``:
    the network's value of each chain unplayed). "pips": the doubles as in "fast", the
    non-doubles by their pips (3 to 11, one to three rolls each), ``h`` the line through the
    values of 1-2, 3-4 and 5-6 (``pip_line``). docs/user/rollouts.md derives them."""
    cdef Luck* L = <Luck*>context
    cdef double drawn = 0.0, total = 0.0, others = 0.0, doubles = 0.0, chains = 0.0, v
    cdef double group = 0.0
    cdef double anchor[3]
    cdef int x, y, members = 0
    cdef GameState before = s[0]                   # the side to roll, before the roll:
    before.rolls[s.roller] -= 1                    # begin_roll sets every other field it
    before.game_rolls -= 1                         # changes (RULES §4.5's counts)
    if L.rule == LUCK_MODEL:
        v = luck_model(L, &before, a, b)
    elif L.rule != LUCK_FULL and escalates(L.r, before.rolls[before.seat] + 1,
                                         before.game_rolls + 1):
        for x in range(1, 7):                      # h of each double: its chain unplayed
            chains += chain_unplayed(L, &before, x)
        if L.rule == LUCK_FAST:                    # others: h's mean over the non-doubles
            for x in range(1, 7):
                for y in range(x + 1, 7):          # the 15 other rolls, each twice
                    v = roll_value(L, &before, x, y)
                    others += v
                    if (x == a and y == b) or (x == b and y == a):
                        drawn = v
        else:
            anchor[0] = roll_value(L, &before, 1, 2)
            anchor[1] = roll_value(L, &before, 3, 4)
            anchor[2] = roll_value(L, &before, 5, 6)
            for x in range(1, 7):
                for y in range(x + 1, 7):
                    others += pip_line(anchor, x + y)
        others /= 15.0
        if L.rule == LUCK_PIPS:
            if a != b:                             # the drawn roll's class: its pips
                for x in range(1, 7):
                    if x < a + b - x <= 6:
                        members += 1
                if members > 1:                    # (a class of one: no luck within it)
                    for x in range(1, 7):
                        y = a + b - x
                        if x < y <= 6:
                            if y == x + 1 and x % 2 == 1:
                                v = anchor[x // 2]     # 1-2, 3-4 or 5-6: valued already
                            else:
                                v = roll_value(L, &before, x, y)
                            group += v
                            if x == a or x == b:
                                drawn = v
                    group /= members
                group -= pip_line(anchor, a + b)
        chains /= 6.0
        if a != b:       # (fast: group = 0, the class's mean and h being the same)
            v = drawn - group - others + (6.0 / 36.0) * (others - chains)
        else:
            for x in range(1, 7):
                v = roll_value(L, &before, x, x)
                doubles += v
                if x == a:
                    drawn = v
            v = drawn - doubles / 6.0 + (30.0 / 36.0) * (chains - others)
    else:
        for x in range(1, 7):
            for y in range(x, 7):                  # a-b and b-a play alike: 21 rolls
                v = roll_value(L, &before, x, y)
                total += v if x == y else 2.0 * v
                if (x == a and y == b) or (x == b and y == a):
                    drawn = v
        v = drawn - total / 36.0
    L.total += v if s.roller == L.side else -v


cdef double state_value(const Net* net, const GameRules* r, const GameState* s,
                        int seat) noexcept nogil:
    """The network's equity of ``s`` (not over) for ``seat``."""
    cdef float o[N_OUT]
    state_outputs(net, r, s, o)
    return equity(o, r.mars) if s.seat == seat else -equity(o, r.mars)


cdef void score_stopped(const Net* net, const Race* race, const GameRules* r,
                        const GameState* s, int side, double* out) noexcept nogil:
    """A game stopped at a roll: its equity and chances there, for ``side`` (``out``: points,
    win, win with a mars, lose with a mars); exactly by the database in a bear-off, else the
    network's."""
    cdef float o[N_OUT]
    cdef double c[3]
    cdef double points
    cdef int mine[HOME_POINTS + 1]
    cdef int theirs[HOME_POINTS + 1]
    cdef int p
    if race.dist != NULL and bearing_off(r, s):
        mine[0] = theirs[0] = 0
        for p in range(1, HOME_POINTS + 1):
            mine[p] = s.pos.cnt[s.seat][p]
            theirs[p] = s.pos.cnt[1 - s.seat][p]
        race_chances(race.dist, race.first, race.length, rank_counts(mine),
                     rank_counts(theirs), c)
        points = race_points(race.dist, race.first, race.length, rank_counts(mine),
                             rank_counts(theirs), r.mars)
    else:
        state_outputs(net, r, s, o)
        c[0], c[1], c[2] = o[0], o[1], o[2]
        points = equity(o, r.mars)
    if s.seat == side:
        out[0], out[1], out[2], out[3] = points, c[0], c[1], c[2]
    else:
        out[0], out[1], out[2], out[3] = -points, 1.0 - c[0], c[2], c[1]


cdef bint bearing_off(const GameRules* r, const GameState* s) noexcept nogil:
    """Whether the one-sided bear-off database values ``s`` (a side to roll) exactly: every
    checker of both sides home or off, and either side's next double escalating (RULES §4.2;
    ``gulbara.eval.bearoff.bearoff_applies``)."""
    cdef int seat
    for seat in range(2):
        if s.pos.occ[seat] & ~(<uint32_t>HOME_BITS):
            return False
        if not escalates(r, s.rolls[seat] + 1, s.game_rolls + 1):
            return False
    return True


def rollout_block(starts, int side, policies, networks, Network scorer not None, bint vr,
                  uint64_t seed, uint64_t first, Py_ssize_t count, int32_t truncate=0,
                  bint quasi=True, int luck_rule=LUCK_FULL,
                  const double[:, ::1] race_dist=None, const double[:, ::1] race_first=None,
                  const float[:, ::1] luck_model=None, int luck_units=0):
    """Games ``first .. first + count - 1`` of the run seeded ``seed`` from each state of
    ``starts`` (a list of :class:`gulbara.Game`, all of one rules), ``side`` rolled out.

    ``policies`` is (White's, Black's) native policy names, ``networks`` their networks (a
    ``_net.Network`` for ``"net"``, else None); ``scorer`` values the luck (with ``vr``, by
    ``luck_rule``, one of :data:`LUCK_RULES`) and the games stopped at ``truncate`` rolls
    (0: played out, at most :data:`MAX_ROLLS`). ``race_dist`` and ``race_first``
    (:class:`gulbara.eval.bearoff.BearoffTable`'s ``dist`` and ``first_dist``), when given,
    value bear-offs exactly instead: a roll's turn there and a game stopped there.
    ``luck_model`` and ``luck_units``: the "model" rule's arrays
    (``gulbara.rollouts.luckmodel.LuckModel.packed`` and ``.units``), needed by that rule
    only.
    Returns a dict of ``K x count`` arrays: ``points``, ``luck``, ``win``, ``win_mars``,
    ``lose_mars`` (float64, for ``side``), ``draw`` and ``stopped`` (uint8) and ``rolls``
    (int32).
    """
    cdef GameRules r
    cdef GameState* s0 = NULL
    cdef GameState s
    cdef Policy seats[2]
    cdef StageEnd* ends = NULL
    cdef Luck luck
    cdef Watcher w
    cdef GameEnd end
    cdef Rng dice, rng
    cdef uint8_t given[4]
    cdef double scored[4]
    cdef int32_t max_rolls = truncate if truncate > 0 else MAX_ROLLS
    cdef Py_ssize_t K, k, g
    cdef int status = GAME_PLAYED, q
    cdef uint64_t game
    if side not in (0, 1):
        raise GulBaraError(f"side must be 0 or 1, got {side}")
    if count < 0:
        raise GulBaraError(f"count must be >= 0, got {count}")
    if truncate < 0:
        raise GulBaraError(f"truncate must be >= 0, got {truncate}")
    check_race(race_dist, race_first)
    resolve_pair(policies, networks, seats)
    if luck_rule not in (LUCK_FULL, LUCK_FAST, LUCK_PIPS, LUCK_MODEL):
        raise GulBaraError(f"luck_rule must be one of {LUCK_RULES}, got {luck_rule}")
    if vr and luck_rule == LUCK_MODEL:
        check_model(luck_model, luck_units, scorer)
    starts = list(starts)
    K = len(starts)
    if K < 1:
        raise GulBaraError("no start state to roll out")
    out = {name: np.zeros((K, count), dtype=np.float64)
           for name in ("points", "luck", "win", "win_mars", "lose_mars")}
    out["draw"] = np.zeros((K, count), dtype=np.uint8)
    out["stopped"] = np.zeros((K, count), dtype=np.uint8)
    out["rolls"] = np.zeros((K, count), dtype=np.int32)
    cdef double[:, ::1] points = out["points"], luck_out = out["luck"], win = out["win"]
    cdef double[:, ::1] win_mars = out["win_mars"], lose_mars = out["lose_mars"]
    cdef uint8_t[:, ::1] draw = out["draw"], stopped = out["stopped"]
    cdef int32_t[:, ::1] rolls = out["rolls"]
    s0 = <GameState*>malloc(K * sizeof(GameState))
    luck.values = <float*>malloc(STAGE_CAPACITY * sizeof(float))
    luck.ends = NULL
    try:
        if s0 == NULL or luck.values == NULL:
            raise MemoryError("no memory for a rollout block")
        for k in range(K):
            if starts[k].rules != starts[0].rules:
                raise GulBaraError("every start state of a rollout needs the same rules")
            read_game(starts[k], &s0[k], &r)
        ends = alloc_ends()
        luck.ends = alloc_ends()
        luck.net = &scorer.net
        luck.r = &r
        luck.side = side
        luck.rule = luck_rule
        luck.model = NULL
        luck.n_features = 1 + scorer.hidden + N_REACH + 6
        luck.units = luck_units
        luck.model_stride = 0
        if vr and luck_rule == LUCK_MODEL:
            luck.model = &luck_model[0, 0]
            luck.model_stride = luck_model.shape[1]
        set_race(&luck.race, race_dist, race_first)
        w.rolled = NULL
        if vr:
            w.rolled = luck_rolled
        w.played = NULL
        w.context = &luck
        for g in range(count):
            PyErr_CheckSignals()                        # Ctrl-C between games
            game = first + <uint64_t>g
            given[0] = <uint8_t>((game % 36) // 6 + 1)
            given[1] = <uint8_t>((game % 36) % 6 + 1)
            q = <int>((game % 36 + (game // 36) % 36) % 36)
            given[2] = <uint8_t>(q // 6 + 1)
            given[3] = <uint8_t>(q % 6 + 1)
            for k in range(K):
                with nogil:
                    s = s0[k]
                    rng_seed(&dice, seed, game, 0)
                    rng_seed(&rng, seed, game, 1)
                    game_end_start(&end, &s)
                    if quasi:
                        end.given = given
                        end.n_given = 2
                    luck.total = 0.0
                    luck.failed = 0
                    status = play_game(&r, &s, seats, &dice, &rng, ends, max_rolls, &w, &end)
                    if status == GAME_PLAYED and not luck.failed:
                        luck_out[k, g] = luck.total
                        rolls[k, g] = end.rolls
                        if s.phase == PH_OVER:
                            if s.winner < 0:
                                draw[k, g] = 1
                            elif s.winner == side:
                                points[k, g] = s.points
                                win[k, g] = 1.0
                                win_mars[k, g] = 1.0 if s.points == 2 else 0.0
                            else:
                                points[k, g] = -<double>s.points
                                lose_mars[k, g] = 1.0 if s.points == 2 else 0.0
                        else:                           # stopped at a roll
                            stopped[k, g] = 1
                            score_stopped(&scorer.net, &luck.race, &r, &s, side, scored)
                            points[k, g] = scored[0]
                            win[k, g] = scored[1]
                            win_mars[k, g] = scored[2]
                            lose_mars[k, g] = scored[3]
                if status != GAME_PLAYED or luck.failed:
                    raise RuntimeError(f"rollout game {game} failed (status {status}): a stage "
                                       f"overflowed or a policy failed")
    finally:
        free(s0)
        free(ends)
        free(luck.ends)
        free(luck.values)
    return out


def check_race(const double[:, ::1] race_dist, const double[:, ::1] race_first):
    """Refuse a bear-off database that is not BearoffTable's ``dist`` and ``first_dist``."""
    if (race_dist is None) != (race_first is None) or (race_dist is not None and (
            race_dist.shape[0] != N_RACE or race_first.shape[0] != N_RACE
            or race_dist.shape[1] < 1 or race_first.shape[1] != race_dist.shape[1])):
        raise GulBaraError(f"race_dist and race_first must both be {N_RACE} x L distributions "
                           f"(BearoffTable's dist and first_dist), or both None")


cdef int resolve_pair(policies, networks, Policy* seats) except -1:
    """(White's, Black's) native policies and their networks into ``seats[0]``, ``seats[1]``."""
    policies = tuple(policies)
    networks = tuple(networks)
    if len(policies) != 2 or len(networks) != 2:
        raise GulBaraError("give (White's, Black's) policies and networks")
    resolve_policy(policies[0], networks[0], &seats[0])
    resolve_policy(policies[1], networks[1], &seats[1])
    return 0


cdef void set_race(Race* race, const double[:, ::1] race_dist,
                   const double[:, ::1] race_first):
    """``race`` reading the database checked by ``check_race`` (or none)."""
    race.dist = race.first = NULL
    race.length = 0
    if race_dist is not None:
        race.dist = &race_dist[0, 0]
        race.first = &race_first[0, 0]
        race.length = <int>race_dist.shape[1]


def check_model(const float[:, ::1] luck_model, int units, Network scorer):
    """Refuse arrays that are not the "model" rule's for ``scorer``'s hidden units."""
    cdef Py_ssize_t n = 1 + scorer.hidden + N_REACH + 6
    cdef Py_ssize_t size
    if not 0 <= units <= MAX_UNITS:
        raise GulBaraError(f"the model luck rule's units are 0 .. {MAX_UNITS}, got {units}")
    size = n * head_width(units) + units * HEAD_OUT
    got = None if luck_model is None else (luck_model.shape[0], luck_model.shape[1])
    if got != (2, size):
        raise GulBaraError(f"the model luck rule needs 2 x {size} packed floats for this "
                           f"network's {scorer.hidden} hidden units and {units} units, "
                           f"got {got}")
    if not np.all(np.isfinite(np.asarray(luck_model))):
        raise GulBaraError("the model luck rule's arrays must be finite")


ctypedef struct Samples:
    Luck* luck
    double* features           # SAMPLE_ROWS x n_features
    double* values             # SAMPLE_ROWS x N_ROLLS: each roll's value (roll_value)
    uint8_t* block             # SAMPLE_ROWS: model_features' block
    int n


cdef void sample_rolled(void* context, const GameState* s, int a, int b) noexcept nogil:
    """The watcher of ``luck_samples``: the features and the 21 roll values of the state
    before the roll a-b just begun in ``s`` (the first SAMPLE_ROWS rolls of a game)."""
    cdef Samples* S = <Samples*>context
    cdef GameState before = s[0]                   # as luck_rolled
    cdef float f[MAX_FEATURES]
    cdef int x, y, k = 0
    if S.n >= SAMPLE_ROWS:
        return
    before.rolls[s.roller] -= 1
    before.game_rolls -= 1
    S.block[S.n] = <uint8_t>model_features(S.luck, &before, f)
    for k in range(S.luck.n_features):
        S.features[S.n * S.luck.n_features + k] = f[k]
    k = 0
    for x in range(1, 7):
        for y in range(x, 7):
            S.values[S.n * N_ROLLS + k] = roll_value(S.luck, &before, x, y)
            k += 1
    S.n += 1


def luck_samples(start, policies, networks, Network scorer not None, uint64_t seed,
                 uint64_t first, Py_ssize_t count, const double[:, ::1] race_dist=None,
                 const double[:, ::1] race_first=None):
    """The training rows of the "model" luck rule: games ``first .. first + count - 1`` of
    the run seeded ``seed`` from ``start`` (a :class:`gulbara.Game`), played as
    ``rollout_block`` plays them (plain dice, no quasi-random rolls); before each roll (the
    first SAMPLE_ROWS of a game), its ``model_features`` and the value of each of the 21
    rolls (``roll_value``, as the "full" rule values them). Returns ``features`` (rows x
    (1 + scorer.hidden + N_REACH + 6), float64), ``values`` (rows x 21) and ``block`` (rows,
    uint8: 1 when doubles escalate)."""
    cdef GameRules r
    cdef GameState s0, s
    cdef Policy seats[2]
    cdef StageEnd* ends = NULL
    cdef Luck luck
    cdef Samples S
    cdef Watcher w
    cdef GameEnd end
    cdef Rng dice, rng
    cdef Py_ssize_t g
    cdef int status = GAME_PLAYED
    cdef int32_t max_rolls = MAX_ROLLS
    if count < 0:
        raise GulBaraError(f"count must be >= 0, got {count}")
    check_race(race_dist, race_first)
    resolve_pair(policies, networks, seats)
    read_game(start, &s0, &r)
    n_features = 1 + scorer.hidden + N_REACH + 6
    features, values, blocks = [], [], []
    S.features = <double*>malloc(SAMPLE_ROWS * n_features * sizeof(double))
    S.values = <double*>malloc(SAMPLE_ROWS * N_ROLLS * sizeof(double))
    S.block = <uint8_t*>malloc(SAMPLE_ROWS)
    luck.values = <float*>malloc(STAGE_CAPACITY * sizeof(float))
    luck.ends = NULL
    try:
        if S.features == NULL or S.values == NULL or S.block == NULL or luck.values == NULL:
            raise MemoryError("no memory for luck samples")
        ends = alloc_ends()
        luck.ends = alloc_ends()
        luck.net = &scorer.net
        luck.r = &r
        luck.side = 0
        luck.rule = LUCK_FULL
        luck.model = NULL
        luck.model_stride = 0
        luck.units = 0
        luck.n_features = n_features
        set_race(&luck.race, race_dist, race_first)
        S.luck = &luck
        w.rolled = sample_rolled
        w.played = NULL
        w.context = &S
        for g in range(count):
            PyErr_CheckSignals()                        # Ctrl-C between games
            S.n = 0
            luck.failed = 0
            with nogil:
                s = s0
                rng_seed(&dice, seed, first + <uint64_t>g, 0)
                rng_seed(&rng, seed, first + <uint64_t>g, 1)
                game_end_start(&end, &s)
                status = play_game(&r, &s, seats, &dice, &rng, ends, max_rolls, &w, &end)
            if status != GAME_PLAYED or luck.failed:
                raise RuntimeError(f"game {first + g} failed (status {status}): a stage "
                                   f"overflowed or a policy failed")
            features.append(np.asarray(<double[:S.n * n_features]>S.features).reshape(
                S.n, n_features).copy() if S.n else np.zeros((0, n_features)))
            values.append(np.asarray(<double[:S.n * N_ROLLS]>S.values).reshape(
                S.n, N_ROLLS).copy() if S.n else np.zeros((0, N_ROLLS)))
            blocks.append(np.asarray(<uint8_t[:S.n]>S.block).copy() if S.n
                          else np.zeros(0, np.uint8))
    finally:
        free(S.features)
        free(S.values)
        free(S.block)
        free(ends)
        free(luck.ends)
        free(luck.values)
    return {"features": np.concatenate(features) if features else np.zeros((0, n_features)),
            "values": np.concatenate(values) if values else np.zeros((0, N_ROLLS)),
            "block": np.concatenate(blocks) if blocks else np.zeros(0, np.uint8)}
