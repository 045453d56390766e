# cython: language_level=3
"""Rollout games with luck subtraction, quasi-random dice and truncation, natively.

:func:`rollout_block` plays games ``first .. first + count - 1`` of a run seeded ``seed`` from
each of ``K`` start states (the candidates of one decision, or one position), every start on
the same dice (common random numbers), by the one native game loop (``_playloop.pxd``:
``play_game``) with two native policies. For each game it reports, for the side rolled out:

* its points (or, for a game stopped at ``truncate`` rolls, the network's equity of the state
  there, for the side to roll), and its chances of winning, of winning and of losing with a
  mars (0 or 1, or the network's probabilities when stopped);
* with a luck network, the **luck** of every roll of the game: the value of the roll drawn
  minus the mean over the 36 rolls, each roll valued by its roller at one ply with the network
  (the best end of the roll's first stage by the value of the state it leads to: an escalating
  double's stage by the network's value of the rest of its chain, the native ``net`` policy's
  rule), summed from the side's view (docs/user/rollouts.md shows the estimator
  ``points - luck`` is unbiased whatever the policy);
* with ``quasi``, the first two rolls after the start (not the opening) are not drawn: game
  ``g``'s are ``DICE_36[g % 36]`` and ``DICE_36[(g % 36 + g // 36) % 36]``, so every 36
  consecutive games see each first roll once and every 1,296 each pair of rolls once.

Memory: one stage buffer (17,600 ends), its values (70 KB) and the output arrays (about 60
bytes a game a start). The GIL is released during each game; Ctrl-C stops between games.
"""

from libc.stdint cimport uint8_t, int8_t, int32_t, uint32_t, uint64_t
from libc.stdlib cimport malloc, free

from cpython.exc cimport PyErr_CheckSignals

from gulbara.core._types cimport Pos, StageEnd, STAGE_CAPACITY, HOME_BITS
from gulbara.core._keys cimport pos_set_mover_key
from gulbara.eval._greedy cimport greedy_score
from gulbara.game._state cimport (GameRules, GameState, PH_OVER, K_CHAIN, begin_roll,
                                  escalates, read_game)
from gulbara.game._rng cimport Rng, rng_seed
from gulbara.game._playloop cimport (Policy, Watcher, GameEnd, play_game, game_end_start,
                                     pending_ends, alloc_ends, GAME_PLAYED)
from gulbara.net._net cimport Net, Network, N_OUT
from gulbara.net._choose cimport net_choose
from gulbara.net._search cimport state_outputs
from gulbara.net._play cimport resolve_policy

import numpy as np

from gulbara.errors import GulBaraError

#: The most rolls a game plays when not truncated (as native self-play's max_rolls).
MAX_ROLLS = 10_000


cdef enum:
    MAX_SHORTLIST = 64


ctypedef struct Luck:
    const Net* net
    const GameRules* r
    int side                   # the side rolled out
    int shortlist              # value only this many ends a roll, the greedy score's best; 0 all
    bint whole_chains          # an escalating double by the network's value of its chain
    StageEnd* ends             # scratch: a roll's first stage
    float* values              # scratch: its ends' values
    double total               # the game's luck so far, for ``side``
    int failed                 # a stage overflowed


cdef double roll_value(Luck* L, const GameState* before, int a, int b) noexcept nogil:
    """The value of rolling a-b at ``before`` for its roller: its best first-stage end by the
    network (the native ``net`` policy's valuation)."""
    cdef GameState s = before[0]
    cdef int n_ends, best
    begin_roll(L.r, &s, a, b, False)
    if s.kind == K_CHAIN and L.whole_chains:       # the network values the chain, unplayed
        return state_value(L.net, L.r, &s, s.seat)
    if pending_ends(&s, L.ends, &n_ends):
        L.failed = 1
        return 0.0
    if 0 < L.shortlist < n_ends:
        n_ends = keep_best_by_greedy(&s, L.ends, n_ends, L.shortlist)
    best = net_choose(L.net, L.r, &s, L.ends, n_ends, L.values)
    return L.values[best]


cdef int keep_best_by_greedy(const GameState* s, StageEnd* ends, int n_ends,
                             int keep) noexcept nogil:
    """Move the ``keep`` ends with the best greedy scores (``gulbara.eval.greedy``; the first
    on a tie) to the front of ``ends``, in their order; returns ``keep``."""
    cdef int score[MAX_SHORTLIST]
    cdef int index[MAX_SHORTLIST]
    cdef StageEnd kept[MAX_SHORTLIST]
    cdef int n = 0, i, j, v
    cdef Pos end
    for i in range(n_ends):
        if ends[i].ends_game:
            v = 1000000
        else:
            end = s.pos
            pos_set_mover_key(&end, s.seat, ends[i].key)
            v = greedy_score(&end, s.seat, False)
        if n == keep and v <= score[n - 1]:
            continue
        j = n if n < keep else keep - 1                # insert, dropping the last if full
        while j > 0 and score[j - 1] < v:
            score[j] = score[j - 1]
            index[j] = index[j - 1]
            j -= 1
        score[j] = v
        index[j] = i
        if n < keep:
            n += 1
    for i in range(n):                                 # back into canonical order
        kept[i] = ends[index[i]]
    sort_by_index(kept, index, n)
    for i in range(n):
        ends[i] = kept[i]
    return n


cdef void sort_by_index(StageEnd* kept, int* index, int n) noexcept nogil:
    cdef int i, j, t
    cdef StageEnd e
    for i in range(1, n):
        j = i
        while j > 0 and index[j - 1] > index[j]:
            t = index[j]; index[j] = index[j - 1]; index[j - 1] = t
            e = kept[j]; kept[j] = kept[j - 1]; kept[j - 1] = e
            j -= 1


cdef void luck_rolled(void* context, const GameState* s, int a, int b) noexcept nogil:
    """The watcher: the luck of the roll a-b just begun in ``s`` (its value minus the mean of
    the 36), for the side rolled out."""
    cdef Luck* L = <Luck*>context
    cdef double total = 0.0, drawn = 0.0, v
    cdef int x, y
    cdef GameState before = s[0]                   # the side to roll, before the roll:
    before.rolls[s.roller] -= 1                    # begin_roll sets every other field it
    before.game_rolls -= 1                         # changes (RULES §4.5's counts)
    for x in range(1, 7):
        for y in range(x, 7):                      # a-b and b-a play alike: 21 rolls
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
    cdef double e
    state_outputs(net, r, s, o)
    e = 2.0 * o[0] - 1.0                           # the equity in points (RULES §7.1, §8)
    if r.mars:
        e += o[1] - o[2]
    return e if s.seat == seat else -e


cdef void score_stopped(const Net* net, const GameRules* r, const GameState* s, int side,
                        double* out) noexcept nogil:
    """A game stopped at a roll: the network's equity and chances there, for ``side``."""
    cdef float o[N_OUT]
    cdef double e
    state_outputs(net, r, s, o)
    e = 2.0 * o[0] - 1.0                           # the equity in points (RULES §7.1, §8)
    if r.mars:
        e += o[1] - o[2]
    if s.seat == side:
        out[0], out[1], out[2], out[3] = e, o[0], o[1], o[2]
    else:
        out[0], out[1], out[2], out[3] = -e, 1.0 - o[0], o[2], o[1]


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
                  bint quasi=True, int shortlist=0, bint whole_chains=False):
    """Games ``first .. first + count - 1`` of the run seeded ``seed`` from each state of
    ``starts`` (a list of :class:`gulbara.Game`, all of one rules), ``side`` rolled out.

    ``policies`` is (White's, Black's) native policy names, ``networks`` their networks (a
    ``_net.Network`` for ``"net"``, else None); ``scorer`` values the luck (with ``vr``) and
    the games stopped at ``truncate`` rolls (0: played out, at most :data:`MAX_ROLLS`).
    Returns a dict of ``K x count`` arrays: ``points``, ``luck``, ``win``, ``win_mars``,
    ``lose_mars`` (float64, for ``side``), ``draw`` and ``stopped`` (uint8), ``rolls``
    (int32), and ``home`` (``K x count x 2 x 6`` int8: each side's checkers on its own points
    1..6 when stopped, for an exact bear-off score; -1 when a checker is outside).
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
    cdef int status = GAME_PLAYED, seat, q, i
    cdef uint64_t game
    if side not in (0, 1):
        raise GulBaraError(f"side must be 0 or 1, got {side}")
    if count < 0:
        raise GulBaraError(f"count must be >= 0, got {count}")
    if truncate < 0:
        raise GulBaraError(f"truncate must be >= 0, got {truncate}")
    if not 0 <= shortlist <= MAX_SHORTLIST:
        raise GulBaraError(f"shortlist must be 0..{MAX_SHORTLIST}, got {shortlist}")
    policies = tuple(policies)
    networks = tuple(networks)
    if len(policies) != 2 or len(networks) != 2:
        raise GulBaraError("give (White's, Black's) policies and networks")
    resolve_policy(policies[0], networks[0], &seats[0])
    resolve_policy(policies[1], networks[1], &seats[1])
    starts = list(starts)
    K = len(starts)
    if K < 1:
        raise GulBaraError("no start state to roll out")
    out = {name: np.zeros((K, count), dtype=np.float64)
           for name in ("points", "luck", "win", "win_mars", "lose_mars")}
    out["draw"] = np.zeros((K, count), dtype=np.uint8)
    out["stopped"] = np.zeros((K, count), dtype=np.uint8)
    out["rolls"] = np.zeros((K, count), dtype=np.int32)
    out["home"] = np.full((K, count, 2, 6), -1, dtype=np.int8)
    out["to_roll"] = np.full((K, count), -1, dtype=np.int8)
    cdef double[:, ::1] points = out["points"], luck_out = out["luck"], win = out["win"]
    cdef double[:, ::1] win_mars = out["win_mars"], lose_mars = out["lose_mars"]
    cdef uint8_t[:, ::1] draw = out["draw"], stopped = out["stopped"]
    cdef int32_t[:, ::1] rolls = out["rolls"]
    cdef int8_t[:, :, :, ::1] home = out["home"]
    cdef int8_t[:, ::1] to_roll = out["to_roll"]
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
        luck.shortlist = shortlist
        luck.whole_chains = whole_chains
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
                            score_stopped(&scorer.net, &r, &s, side, scored)
                            points[k, g] = scored[0]
                            win[k, g] = scored[1]
                            win_mars[k, g] = scored[2]
                            lose_mars[k, g] = scored[3]
                            to_roll[k, g] = s.seat
                            if bearing_off(&r, &s):
                                for seat in range(2):
                                    for i in range(6):
                                        home[k, g, seat, i] = <int8_t>s.pos.cnt[seat][i + 1]
                if status != GAME_PLAYED or luck.failed:
                    raise RuntimeError(f"rollout game {game} failed (status {status}): a stage "
                                       f"overflowed or a policy failed")
    finally:
        free(s0)
        free(ends)
        free(luck.ends)
        free(luck.values)
    return out
