"""Rollouts with variance reduction: the first roll stratified, candidate plays on the same dice.

:func:`stratified_rollout` rolls a state that waits for a roll out with its
first roll *stratified*: each of the 36 ordered dice is the first roll of
``n / 36`` games (the rest of each game on random dice), so the luck of the
first roll, the biggest in Gul Bara, adds no noise. :func:`compare_plays`
rolls several candidate plays of one decision out on the *same* dice (game
``i`` of every candidate uses the dice of ``(seed, i)``, and the opponent's
first roll is stratified), and reports each candidate's equity and every
pairwise difference with its own 95% interval from the paired games: the
differences are far tighter than the equities.

Equities are in points for the side that acts at the start (the mover of
the candidates), from the native self-play of :func:`gulbara.selfplay.games.play_games`
with any of its policies (``"net"`` by default).

>>> import gulbara
>>> game = gulbara.Game(seed=24)
>>> result = compare_plays(game, 72, policy="greedy", seed=1)
>>> [str(c.play) for c in result.candidates]
['24/18 24/20', '24/14']
>>> d = result.differences[(0, 1)]
>>> d.low <= d.value <= d.high
True
"""

import math
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from gulbara.conventions import DICE_36, Z95
from gulbara.core.play import Play
from gulbara.errors import GulBaraError, IllegalPlayError, checked_int, shown
from gulbara.game.driver import Game
from gulbara.selfplay.games import DEFAULT_POLICY, Estimate, _check_seed, play_games

__all__ = ["stratified_rollout", "compare_plays", "Candidate", "Comparison", "game_equities",
           "DICE_36"]



def game_equities(rows: np.ndarray, seat: int) -> np.ndarray:
    """Points for ``seat`` in each game of :attr:`SelfPlayResult.rows` (0 for a draw or unfinished)."""
    winner, points = rows[:, 0], rows[:, 1]
    return np.where(winner == seat, points, np.where(winner < 0, 0, -points)).astype(np.float64)


def _stratified_estimate(per_stratum: np.ndarray) -> Estimate:
    """Mean and 95% interval of equal-weight strata (``strata x games`` array)."""
    strata, m = per_stratum.shape
    mean = float(per_stratum.mean())
    if m < 2:
        return Estimate(mean, -math.inf, math.inf)
    variance = float(per_stratum.var(axis=1, ddof=1).sum()) / (strata * strata * m)
    half = Z95 * math.sqrt(variance)
    return Estimate(mean, mean - half, mean + half)


def _games(start: Game, n: int, policy, seed: int, workers: int) -> np.ndarray:
    return play_games(n, policy, seed=seed, start=start, workers=workers).rows


def _per_game(start: Game, seat: int, n: int, policy, seed: int, workers: int,
              stratify: bool) -> np.ndarray:
    """Equities for ``seat`` of ``n`` games from ``start``: ``36 x n/36`` when stratified."""
    if not stratify:
        return game_equities(_games(start, n, policy, seed, workers), seat)[None, :]
    per = n // 36
    out = np.zeros((36, per))
    for k, (a, b) in enumerate(DICE_36):
        state = start.copy(auto_roll=False)
        state.roll(a, b)
        out[k] = game_equities(_games(state, per, policy, _stratum_seed(seed, k), workers), seat)
    return out


def _stratum_seed(seed: int, k: int) -> int:
    """Stratum ``k``'s own dice seed: the strata must not share their later dice."""
    return (seed * 0x9E3779B97F4A7C15 + (k + 1) * 0xD1B54A32D192ED03) % (1 << 64)


def _can_stratify(game: Game) -> bool:
    return game.is_chance() and not game.is_opening()


def stratified_rollout(game: Game, n: int, policy=DEFAULT_POLICY, *, seed: int = 0,
                       workers: int = 1) -> Estimate:
    """The equity of ``game`` (waiting for a roll) for its side to roll, the first roll
    stratified over the 36 dice; ``n`` is rounded down to a multiple of 36."""
    n = checked_int(n, "n", 36)
    seed = _check_seed(seed)
    if not isinstance(game, Game):
        raise TypeError(f"stratified_rollout needs a gulbara.Game, not {type(game).__name__}")
    if not _can_stratify(game):
        raise GulBaraError("a stratified rollout starts from a side to roll (not the opening, "
                           "not a decision)")
    seat = game.to_move
    assert seat is not None                             # a side to roll
    return _stratified_estimate(_per_game(game.copy(auto_roll=False), seat, n - n % 36, policy,
                                          seed, workers, True))


@dataclass(frozen=True)
class Candidate:
    """One candidate play and its rolled-out equity (points for the mover)."""

    play: object
    equity: Estimate


@dataclass
class Comparison:
    """:func:`compare_plays`' answer: candidates best first, and their paired differences.

    ``differences[(i, j)]`` is candidate ``i``'s equity minus candidate ``j``'s
    (``i < j``, indices into :attr:`candidates`), with its 95% interval.
    """

    candidates: List[Candidate]
    differences: Dict[Tuple[int, int], Estimate] = field(default_factory=dict)
    games: int = 0
    stratified: bool = False

    def table(self) -> str:
        """One row a candidate, best first: its equity and, from the second on, its
        difference to the best with the interval of the paired games."""
        lines = [f"{'play':<28} {'equity':>7}  {'95% interval':<18} {'to the best':>11}  "
                 f"95% interval"]
        for k, c in enumerate(self.candidates):
            e = c.equity
            row = f"{str(c.play):<28} {e.value:+7.3f}  [{e.low:+.3f}, {e.high:+.3f}]"
            d = self.differences.get((0, k))
            if d is not None:
                row += f"  {-d.value:+11.3f}  [{-d.high:+.3f}, {-d.low:+.3f}]"
            lines.append(row)
        return "\n".join(lines)


def _candidate(legal, play) -> Play:
    """The legal play ``play`` names (a Play, notation or steps), or ``IllegalPlayError``."""
    found = legal.find(play)
    if found is None:
        raise IllegalPlayError(f"{shown(str(play))} is not a legal play of this decision "
                               f"({len(legal)} legal plays, e.g. {legal[0]})")
    return found


def compare_plays(game: Game, n: int, plays: Optional[Sequence] = None,
                  policy=DEFAULT_POLICY, *,
                  seed: int = 0, workers: int = 1, stratify: bool = True) -> Comparison:
    """Roll ``n`` games out after each candidate play of ``game``'s decision on the same dice.

    ``plays`` are some of ``game.legal_plays()`` (default: all of them), as :class:`Play`
    objects, notation (``"24/18 24/20"``) or lists of steps. When
    every candidate hands the roll to a side (no chain stage or remainder left
    in the turn) and ``stratify`` is on, the first roll after the play is
    stratified over the 36 dice (``n`` rounded down to a multiple of 36).
    """
    n = checked_int(n, "n", 2)
    seed = _check_seed(seed)
    if not isinstance(game, Game) or not game.is_decision():
        raise GulBaraError("compare_plays needs a gulbara.Game at a decision")
    decision = game.decision
    assert decision is not None                         # checked above
    mover = decision.seat
    legal = game.legal_plays()
    if plays is None:
        plays = list(legal)
    elif isinstance(plays, (str, Play)):
        raise TypeError("plays is a list of candidates (Play objects or notation), "
                        f"not one {type(plays).__name__}")
    else:
        plays = [_candidate(legal, play) for play in plays]
    if not plays:
        raise GulBaraError("no candidate plays")
    afters = []
    for play in plays:
        after = game.copy(auto_roll=False)
        after.play(play)
        afters.append(after)
    strat = stratify and n >= 36 and all(_can_stratify(a) for a in afters)
    count = n - n % 36 if strat else n
    per_game = []
    for after in afters:
        if after.is_over():
            ended = after.result()
            assert ended is not None
            value = game_equities(np.array([[ended.winner if ended.winner
                                              is not None else -1, ended.points]]),
                                  mover)[0]
            per_game.append(np.full((36, count // 36) if strat else (1, count), value))
        else:
            per_game.append(_per_game(after, mover, count, policy, seed, workers, strat))
    estimate = _stratified_estimate if strat else (lambda a: Estimate.mean(a.ravel()))
    equities = [estimate(a) for a in per_game]
    order = sorted(range(len(plays)), key=lambda i: -equities[i].value)
    result = Comparison([Candidate(plays[i], equities[i]) for i in order], games=count,
                        stratified=strat)
    for x in range(len(order)):
        for y in range(x + 1, len(order)):
            result.differences[(x, y)] = estimate(per_game[order[x]] - per_game[order[y]])
    return result
