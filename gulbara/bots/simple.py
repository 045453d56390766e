"""The ``Bot`` protocol and the simple bots: :class:`RandomBot`, :class:`FirstBot`,
:class:`GreedyBot` and :class:`ExpectimaxBot`.

A bot has one method, ``choose(game) -> Play``: given a game (or a match) at a decision, it
returns one of ``game.legal_plays()``. :mod:`gulbara.bots.registry` names them.

>>> from gulbara.game import Game
>>> game = Game(seed=5)
>>> str(GreedyBot().choose(game)) in {str(play) for play in game.legal_plays()}
True
"""

import random
from typing import Callable, Optional, Protocol, cast, runtime_checkable

import numpy as np

from gulbara.game.driver import current_game
from gulbara.core.play import Play
from gulbara.eval.greedy import greedy_end, greedy_score

__all__ = ["Bot", "RandomBot", "FirstBot", "GreedyBot", "ExpectimaxBot"]


@runtime_checkable
class Bot(Protocol):
    """The interface of a player: pick a legal play of the current stage.

    Any object with a ``choose(game) -> Play`` method is a bot; the built-in
    ones also subclass this protocol and have a ``name``.

    >>> isinstance(GreedyBot(), Bot)
    True
    """

    def choose(self, game) -> Play:
        raise NotImplementedError


class RandomBot(Bot):
    """Picks one of the stage's distinct ends uniformly at random (seeded for reproducibility)."""

    name = "random"

    def __init__(self, seed: Optional[int] = None) -> None:
        self._rng = random.Random(seed)

    def choose(self, game) -> Play:
        ends = current_game(game).legal_plays()
        return ends[self._rng.randrange(len(ends))]


class FirstBot(Bot):
    """Plays the first end in canonical order (RULES §3.8)."""

    name = "first"

    def choose(self, game) -> Play:
        return current_game(game).legal_plays()[0]


class GreedyBot(Bot):
    """A one-stage greedy player, deterministic: the end with the highest
    :func:`greedy_score`, the first such end in canonical order (RULES §3.8) on
    a tie. The native self-play's ``"greedy"`` policy plays the same moves.

    With the compiled core the scores are computed natively (``_greedy.pxd``,
    the same integers, tested against :func:`greedy_score` on every decision
    of many games); a subclass that overrides :meth:`score` is scored by it,
    in Python."""

    name = "greedy"

    def score(self, seat: int, play: Play) -> int:
        """The heuristic score of a play for ``seat`` (higher is better)."""
        from gulbara.core._backend import Position
        # (a play of a stage's ends has its end's code)
        return greedy_score(Position.from_code(cast(str, play.code)), seat, play.ends_game)

    def choose(self, game) -> Play:
        ends = current_game(game).legal_plays()
        if type(self).score is GreedyBot.score:
            index = greedy_end(ends.raw)                    # the same end, computed natively
            if index is not None:
                return ends[index]
        seat = ends.seat
        best, best_score = None, None
        for play in ends:
            score = self.score(seat, play)
            if best_score is None or score > best_score:
                best, best_score = play, score
        assert best is not None                         # a stage has at least one end
        return best


class ExpectimaxBot(Bot):
    """Expectimax search (:func:`gulbara.bots.search.expectimax`) ``depth`` decisions deep.

    ``evaluate`` scores afterstates from the mover's point of view (``N x
    196`` features to ``N`` values in ``[-2, 2]``); the default is
    :func:`gulbara.bots.search.heuristic_evaluator`. ``budget_nodes`` and
    ``budget_seconds`` bound each decision's search (a node budget keeps
    games reproducible; a time budget does not). A stage with one legal end
    is played without a search. Deterministic for a deterministic evaluator.

    >>> from gulbara.game.driver import Game
    >>> game = Game(seed=24)
    >>> str(ExpectimaxBot(depth=1).choose(game))         # the opening 6-4: two points held
    '24/18 24/20'
    """

    name = "expectimax"

    def __init__(self, depth: int = 1, evaluate: Optional[Callable[[np.ndarray], np.ndarray]] = None,
                 *, budget_nodes: Optional[int] = None, budget_seconds: Optional[float] = None,
                 cache: bool = True) -> None:
        from gulbara.errors import GulBaraError
        from gulbara.bots.search import heuristic_evaluator

        if isinstance(depth, bool) or not isinstance(depth, int):
            raise TypeError(f"depth must be an int, not {type(depth).__name__}")
        if depth < 1:
            raise GulBaraError(f"depth must be >= 1, got {depth}")
        if evaluate is not None and not callable(evaluate):
            raise TypeError(f"evaluate must be callable, not {type(evaluate).__name__}")
        self.depth = depth
        self.evaluate = evaluate if evaluate is not None else heuristic_evaluator
        self.budget_nodes = budget_nodes
        self.budget_seconds = budget_seconds
        self.cache = cache
        self.name = f"expectimax{depth}"

    def choose(self, game) -> Play:
        from gulbara.bots.search import expectimax

        ends = game.legal_plays()
        if len(ends) == 1:
            return ends[0]
        play = expectimax(game, self.depth, self.evaluate, budget_nodes=self.budget_nodes,
                          budget_seconds=self.budget_seconds, cache=self.cache).play
        assert play is not None                         # at a decision
        return play

    def __repr__(self) -> str:
        return f"ExpectimaxBot(depth={self.depth})"
