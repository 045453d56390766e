"""Built-in players: :class:`RandomBot`, :class:`GreedyBot`, :class:`ExpectimaxBot`, and a loop
that plays games out.

A bot (the :class:`Bot` protocol) has one method, ``choose(game) -> Play``:
given a game (or a match) at a decision, it returns one of
``game.legal_plays()``. :data:`BOTS` names them for the command line
(``gulbara play --bot``, ``gulbara arena``).

>>> from gulbara.game import Game
>>> game = Game(seed=5)
>>> result = play_out(game, GreedyBot(), RandomBot(seed=1))
>>> game.is_over(), result.winner in (0, 1, None)
(True, True)
"""

import functools
import random
from typing import Callable, Optional, Protocol, Sequence, runtime_checkable

import numpy as np

from gulbara.play import Play

__all__ = ["Bot", "RandomBot", "GreedyBot", "ExpectimaxBot", "play_out", "BOTS"]


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
        ends = game.legal_plays()
        return ends[self._rng.randrange(len(ends))]


def _points_held(position, seat: int) -> int:
    points = position.points()
    return sum(1 for n in points if (n > 0 if seat == 0 else n < 0))


class GreedyBot(Bot):
    """A one-stage greedy player with a small heuristic, deterministic.

    Among the stage's ends it picks, in this order of preference:

    1. a play that bears off its last checker (wins the game at once);
    2. the lowest own pip count after the play (the most progress: checkers
       moved furthest, borne off checkers count 0);
    3. the most points held (in Gul Bara a single checker holds a point and
       blocks the opponent, RULES §2.2);
    4. the first end in canonical order (RULES §3.8).
    """

    name = "greedy"

    def score(self, seat: int, play: Play):
        """The sort key of a play: smaller is better."""
        from gulbara._backend import Position
        end = Position.from_code(play.code)
        return (not play.ends_game, end.pip_count(seat), -_points_held(end, seat))

    def choose(self, game) -> Play:
        ends = game.legal_plays()
        seat = ends.seat
        best, best_key = None, None
        for play in ends:
            key = self.score(seat, play)
            if best_key is None or key < best_key:
                best, best_key = play, key
        return best


class ExpectimaxBot(Bot):
    """Expectimax search (:func:`gulbara.search.expectimax`) ``depth`` decisions deep.

    ``evaluate`` scores afterstates from the mover's point of view (``N x
    196`` features to ``N`` values in ``[-2, 2]``); the default is
    :func:`gulbara.search.race_evaluator`. ``budget_nodes`` and
    ``budget_seconds`` bound each decision's search (a node budget keeps
    games reproducible; a time budget does not). A stage with one legal end
    is played without a search. Deterministic for a deterministic evaluator.

    >>> from gulbara.game import Game
    >>> game = Game(seed=24)
    >>> str(ExpectimaxBot(depth=1).choose(game))         # the opening 6-4: two points held
    '24/18 24/20'
    """

    name = "expectimax"

    def __init__(self, depth: int = 1, evaluate: Optional[Callable[[np.ndarray], np.ndarray]] = None,
                 *, budget_nodes: Optional[int] = None, budget_seconds: Optional[float] = None,
                 cache: bool = True) -> None:
        from gulbara.errors import GulBaraError
        from gulbara.search import race_evaluator

        if isinstance(depth, bool) or not isinstance(depth, int):
            raise TypeError(f"depth must be an int, not {type(depth).__name__}")
        if depth < 1:
            raise GulBaraError(f"depth must be >= 1, got {depth}")
        if evaluate is not None and not callable(evaluate):
            raise TypeError(f"evaluate must be callable, not {type(evaluate).__name__}")
        self.depth = depth
        self.evaluate = evaluate if evaluate is not None else race_evaluator
        self.budget_nodes = budget_nodes
        self.budget_seconds = budget_seconds
        self.cache = cache
        self.name = f"expectimax{depth}"

    def choose(self, game) -> Play:
        from gulbara.search import expectimax

        ends = game.legal_plays()
        if len(ends) == 1:
            return ends[0]
        return expectimax(game, self.depth, self.evaluate, budget_nodes=self.budget_nodes,
                          budget_seconds=self.budget_seconds, cache=self.cache).play

    def __repr__(self) -> str:
        return f"ExpectimaxBot(depth={self.depth})"


#: The bots by name, for the command line: each value makes a bot when called
#: with no arguments (``RandomBot`` also takes ``seed=``).
BOTS = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "expectimax1": functools.partial(ExpectimaxBot, depth=1),
    "expectimax2": functools.partial(ExpectimaxBot, depth=2, budget_nodes=200_000),
}


def play_out(game, white: Bot, black: Bot, max_plies: Optional[int] = None):
    """Play ``game`` (a :class:`Game` or a :class:`Match` with ``auto_roll``) to its end.

    ``white`` and ``black`` choose the plays of their seats. Returns
    ``game.result()``. ``max_plies`` stops early (``None`` at the end if the game
    is not over).
    """
    bots: Sequence[Bot] = (white, black)
    plies = 0
    while not game.is_over():
        if max_plies is not None and plies >= max_plies:
            break
        decision = game.decision
        if decision is None:
            raise ValueError("play_out needs a game that rolls by itself (auto_roll=True)")
        game.play(bots[decision.seat].choose(game))
        plies += 1
    return game.result()
