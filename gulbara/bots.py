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
from typing import Callable, Optional, Protocol, Sequence, Tuple, runtime_checkable

import numpy as np

from gulbara._backend import BACKEND_NAME
from gulbara.conventions import other_point
from gulbara.errors import GameStateError
from gulbara.game import current_game
from gulbara.play import Play

__all__ = ["Bot", "RandomBot", "FirstBot", "GreedyBot", "ExpectimaxBot", "greedy_score",
           "play_out", "BOTS"]


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


if BACKEND_NAME == "core":
    # GreedyBot's end from the native twin of greedy_score (_greedy.pxd)
    from gulbara._selfplay import greedy_end as _native_greedy_end
else:       # GULBARA_BACKEND=reference: the Python heuristic only
    _native_greedy_end = None


class RandomBot(Bot):
    """Picks one of the stage's distinct ends uniformly at random (seeded for reproducibility)."""

    name = "random"

    def __init__(self, seed: Optional[int] = None) -> None:
        self._rng = random.Random(seed)

    def choose(self, game) -> Play:
        ends = current_game(game).legal_plays()
        return ends[self._rng.randrange(len(ends))]


def own_counts(position, seat: int) -> Tuple[int, ...]:
    """``seat``'s checker counts on its own points 1..24 (index 0 unused), RULES §1.2-1.3."""
    points = position.points()                       # White's numbering, signed
    if seat == 0:
        return (0,) + tuple(max(n, 0) for n in points)
    # Black's own point p is White's point other_point(p) (RULES §1.3)
    return (0,) + tuple(max(-points[other_point(p) - 1], 0) for p in range(1, 25))


#: The greedy heuristic's weights (:func:`greedy_score`; its numpy batch form is
#: :func:`gulbara.chains.greedy_scores`, the native one ``_greedy.pxd``).
GREEDY_WEIGHTS = dict(pips=-4, held=3, blocks=4, prime=6, home=2)
#: The greedy score of a play that ends the game.
GREEDY_WIN = 1_000_000


def greedy_score(position, seat: int, ends_game: bool = False) -> int:
    """The greedy heuristic: the score of an end ``position`` for the side ``seat`` that moved.

    A play that ends the game scores 1,000,000. Otherwise, in the mover's own
    numbering (RULES §1.2-1.3)::

        - 4 x pips      the mover's pip count (progress)
        + 3 x held      points the mover holds (a single checker holds a point, RULES §2.2)
        + 4 x blocks    held points in front of the opponent's rearmost checker
        + 6 x prime     the longest run of such points in a row
        + 2 x home      checkers on points 1..6 or borne off

    The native self-play's greedy policy computes the same integer.

    >>> from gulbara import Position, START_CODE
    >>> greedy_score(Position.from_code(START_CODE), 0)
    -1427
    """
    mine = own_counts(position, seat)
    theirs = own_counts(position, 1 - seat)
    if ends_game:
        return GREEDY_WIN
    pips = sum(p * mine[p] for p in range(1, 25))
    held = sum(1 for p in range(1, 25) if mine[p])
    home = position.borne_off(seat) + sum(mine[1:7])
    back = max((p for p in range(1, 25) if theirs[p]), default=0)
    # my point p is the opponent's point other_point(p) (RULES §1.3); "ahead" of its
    # rearmost checker means a lower number than ``back`` in its numbering
    ahead = sorted(other_point(p) for p in range(1, 25) if mine[p])
    ahead = [q for q in ahead if q < back]
    prime = run = 0
    for i, q in enumerate(ahead):
        run = run + 1 if i and q == ahead[i - 1] + 1 else 1
        prime = max(prime, run)
    w = GREEDY_WEIGHTS
    return (w["pips"] * pips + w["held"] * held + w["blocks"] * len(ahead) + w["prime"] * prime
            + w["home"] * home)


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
        from gulbara._backend import Position
        return greedy_score(Position.from_code(play.code), seat, play.ends_game)

    def choose(self, game) -> Play:
        ends = current_game(game).legal_plays()
        if _native_greedy_end is not None and type(self).score is GreedyBot.score:
            return ends[_native_greedy_end(ends.raw)]       # the same end, computed natively
        seat = ends.seat
        best, best_score = None, None
        for play in ends:
            score = self.score(seat, play)
            if best_score is None or score > best_score:
                best, best_score = play, score
        return best


class ExpectimaxBot(Bot):
    """Expectimax search (:func:`gulbara.search.expectimax`) ``depth`` decisions deep.

    ``evaluate`` scores afterstates from the mover's point of view (``N x
    196`` features to ``N`` values in ``[-2, 2]``); the default is
    :func:`gulbara.search.heuristic_evaluator`. ``budget_nodes`` and
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
        from gulbara.search import heuristic_evaluator

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
    "first": FirstBot,
    "greedy": GreedyBot,
    "expectimax1": functools.partial(ExpectimaxBot, depth=1),
    "expectimax2": functools.partial(ExpectimaxBot, depth=2, budget_nodes=200_000),
}


def _net_bot(name: str, **options) -> Bot:
    from gulbara import netbot                   # numpy network, loaded on first use
    return {"net": netbot.NetBot, "net2": netbot.Net2Bot}[name](**options)


# the value network's bots (gulbara.netbot), by default on the network shipped for the
# game's rules (gulbara.net.bot_net)
BOTS["net"] = functools.partial(_net_bot, "net")
BOTS["net2"] = functools.partial(_net_bot, "net2")


def play_out(game, white: Bot, black: Bot, max_plies: Optional[int] = None):
    """Play ``game`` (a :class:`Game` or a :class:`Match` with ``auto_roll``) to its end.

    ``white`` and ``black`` choose the plays of their seats: bots, or names of
    :data:`BOTS` (``"greedy"``). Returns ``game.result()``. ``max_plies`` stops
    early (``None`` at the end if the game is not over).
    """
    current_game(game)
    if isinstance(white, str) or isinstance(black, str):
        from gulbara.arena import make_bot
        white = make_bot(white) if isinstance(white, str) else white
        black = make_bot(black, 1) if isinstance(black, str) else black
    for seat, bot in (("white", white), ("black", black)):
        if not callable(getattr(bot, "choose", None)):
            raise TypeError(f"{seat} must be a bot (with choose(game)) or a name in BOTS, "
                            f"not {type(bot).__name__}")
    bots: Sequence[Bot] = (white, black)
    plies = 0
    while not game.is_over():
        if max_plies is not None and plies >= max_plies:
            break
        decision = game.decision
        if decision is None:
            raise GameStateError("play_out needs a game that rolls by itself (auto_roll=True)")
        game.play(bots[decision.seat].choose(game))
        plies += 1
    return game.result()
