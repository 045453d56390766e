"""Built-in players: :class:`RandomBot` and :class:`GreedyBot`, and a loop that plays games out.

A bot has one method, ``choose(game) -> Play``: given a game (or a match) at a
decision, it returns one of ``game.legal_plays()``.

>>> from gulbara.game import Game
>>> game = Game(seed=5)
>>> result = play_out(game, GreedyBot(), RandomBot(seed=1))
>>> game.is_over(), result.winner in (0, 1, None)
(True, True)
"""

import random
from typing import Optional, Sequence

from gulbara.play import Play

__all__ = ["Bot", "RandomBot", "GreedyBot", "play_out", "BOTS"]


class Bot:
    """The interface of a player: pick a legal play of the current stage."""

    name = "bot"

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


#: The bots by name, for the command line.
BOTS = {"random": RandomBot, "greedy": GreedyBot}


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
