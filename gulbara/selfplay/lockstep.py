"""User evaluators at scale: ``K`` self-play games in lockstep, one evaluator call per step.

:func:`play_games_batched` plays the games of :func:`gulbara.selfplay.games.play_games`
with a caller's ``evaluate(features) -> scores`` (the same features: ``N x
196`` float32 board blocks of the afterstates, seen by the mover), but calls
it once for all ``lockstep`` games waiting at a decision instead of once per
decision: thousands of rows per call. Game ``i`` is the same game as game
``i`` of ``play_games(n, evaluate, seed=seed)`` for an evaluator that scores
each row on its own. With ``trajectories=True`` it also returns every
decision's state features, the chosen afterstate's features and the game's
result as numpy arrays, to train a model on.

>>> import numpy as np
>>> w = np.linspace(-1, 1, 196).astype(np.float32)
>>> result = play_games_batched(20, lambda x: (x * w).sum(axis=1), seed=1, lockstep=8,
...                             trajectories=True)
>>> result.games, result.trajectories["state"].shape[1], result.trajectories["afterstate"].shape[1]
(20, 220, 196)
"""

import time
from dataclasses import dataclass
from typing import Callable, Dict, Optional

import numpy as np

from gulbara.selfplay import _lockstep
from gulbara.errors import GulBaraError, checked_int, checked_scores
from gulbara.game.driver import Game
from gulbara.rules import Rules, checked_rules
from gulbara.selfplay.games import MAX_GAMES, _check_max_rolls, _check_seed

__all__ = ["play_games_batched", "BatchedResult", "RESULT_COLUMNS"]

RESULT_COLUMNS = _lockstep.RESULT_COLUMNS


@dataclass
class BatchedResult:
    """Per-game results (``RESULT_COLUMNS``), timing, and the trajectories if asked for.

    ``trajectories`` (or ``None``): ``game`` (int64), ``seat`` (int8, the mover),
    ``state`` (``M x 220`` float32, the state block of docs/user/encoding.md),
    ``afterstate`` (``M x 196`` float32, the chosen end's board block), ``n_ends``
    and ``chosen`` (int32), ``outcome`` (float32: the points the mover scored in
    that game, negative for a loss, 0 for a draw or an unfinished game), sorted
    by game and in play order within a game.
    """

    results: np.ndarray
    seconds: float
    calls: int
    rows: int
    trajectories: Optional[Dict[str, np.ndarray]]

    @property
    def games(self) -> int:
        return len(self.results)

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else float("inf")

    def column(self, name: str) -> np.ndarray:
        return self.results[:, RESULT_COLUMNS.index(name)]


def play_games_batched(n: int, evaluate: Callable[[np.ndarray], np.ndarray], *, seed: int = 0,
                       lockstep: int = 256, start: Optional[Game] = None,
                       rules: Optional[Rules] = None, max_rolls: int = 10_000,
                       trajectories: bool = False) -> BatchedResult:
    """Play ``n`` games, ``lockstep`` at a time, calling ``evaluate`` once per lockstep step.

    The arguments are those of :func:`gulbara.selfplay.games.play_games`, checked alike:
    ``evaluate`` returns one finite real score per row (``GulBaraError``
    otherwise), and the rules of a ``start`` game are given through it (a
    ``rules`` that differs raises ``GulBaraError``)."""
    bounds = f"at least 1 and at most {MAX_GAMES:,}"
    n = checked_int(n, "n", 1, MAX_GAMES, bounds=bounds)
    lockstep = checked_int(lockstep, "lockstep", 1, MAX_GAMES, bounds=bounds)
    seed = _check_seed(seed)
    max_rolls = _check_max_rolls(max_rolls)
    if not callable(evaluate):
        raise TypeError(f"evaluate must be callable, not {type(evaluate).__name__}")
    rules = checked_rules(rules)
    if start is None:
        start = Game(rules, auto_roll=False)
    elif not isinstance(start, Game):
        raise TypeError(f"start must be a gulbara.Game, not {type(start).__name__}")
    elif rules is not None and rules != start.rules:
        raise GulBaraError("give the rules through the start game: they differ")
    engine = _lockstep.Lockstep(start, seed, n, min(lockstep, n), max_rolls, trajectories)
    began = time.perf_counter()
    calls = total_rows = 0
    while True:
        rows = engine.prepare()
        if rows == 0:
            break
        scores = checked_scores(evaluate(engine.features[:rows]), rows)
        engine.apply(np.ascontiguousarray(scores))
        calls += 1
        total_rows += rows
    seconds = time.perf_counter() - began
    results = engine.results
    traj = None
    if trajectories:
        traj = engine.trajectories()
        winner = results[traj["game"], 0]
        points = results[traj["game"], 1].astype(np.float32)
        sign = np.where(winner < 0, 0.0, np.where(winner == traj["seat"], 1.0, -1.0))
        traj["outcome"] = (sign * points).astype(np.float32)
    return BatchedResult(results, seconds, calls, total_rows, traj)
