"""Bot against bot: many games, both seats, win rate and points per game with 95% intervals.

Game ``i`` of an arena is ``Game(rules, seed=seed + i)``; bot A plays White in
the even games and Black in the odd ones, so both bots see the same dice from
both seats. A bot given by name (see :data:`gulbara.bots.BOTS`) is built
fresh for the arena; ``"random"`` is seeded from ``seed`` so that the whole
arena is reproducible.

The intervals are 95% ones: the **Wilson score interval** for A's win rate
(wins / games; a draw of the stuck rule, RULES §7.2, is not a win), and the
**normal approximation** ``mean ± 1.96 · sd / sqrt(games)`` for A's points per
game (``+1``/``+2`` for a win or a mars, ``-1``/``-2`` for a loss, ``0`` for a
draw; RULES §7.1), clipped to ``[-2, 2]``.

>>> result = arena("greedy", "random", 4, seed=1)
>>> result.games, result.a_seats
(4, (0, 1, 0, 1))
>>> result.a_win_rate_low <= result.a_win_rate <= result.a_win_rate_high
True
>>> sorted(result.as_dict())[:4]
['a', 'a_points_per_game', 'a_points_per_game_high', 'a_points_per_game_low']
"""

import json
import math
import sys
import time
from dataclasses import dataclass
from typing import Optional, TextIO, Tuple, Union

from gulbara.bots import BOTS, Bot, RandomBot, play_out
from gulbara.conventions import Z95, mean_interval, wilson_interval
from gulbara.errors import GulBaraError, checked_int
from gulbara.game import Game
from gulbara.rules import DEFAULT_RULES, Rules, checked_rules

__all__ = ["arena", "ArenaResult", "make_bot", "wilson_interval", "mean_interval"]

@dataclass(frozen=True)
class ArenaResult:
    """The outcome of :func:`arena`, from bot A's side.

    ``a_seats[i]`` is A's seat in game ``i`` and ``a_points[i]`` what A scored
    there (negative for a loss). :meth:`as_dict` is what ``gulbara arena
    --json`` prints.
    """

    a: str
    b: str
    seed: int
    games: int
    a_wins: int
    b_wins: int
    draws: int
    a_win_rate: float
    a_win_rate_low: float
    a_win_rate_high: float
    a_points_per_game: float
    a_points_per_game_low: float
    a_points_per_game_high: float
    seconds: float
    a_seats: Tuple[int, ...]
    a_points: Tuple[int, ...]

    def as_dict(self) -> dict:
        """The summary as a JSON-ready dict (no per-game lists)."""
        return {
            "a": self.a, "b": self.b, "seed": self.seed, "games": self.games,
            "a_wins": self.a_wins, "b_wins": self.b_wins, "draws": self.draws,
            "a_win_rate": self.a_win_rate, "a_win_rate_low": self.a_win_rate_low,
            "a_win_rate_high": self.a_win_rate_high,
            "a_points_per_game": self.a_points_per_game,
            "a_points_per_game_low": self.a_points_per_game_low,
            "a_points_per_game_high": self.a_points_per_game_high,
            "seconds": self.seconds,
        }

    def describe(self) -> str:
        """A short human-readable summary."""
        return (f"{self.a} vs {self.b}: {self.games} games (seed {self.seed}), "
                f"{self.a} wins {self.a_wins}, loses {self.b_wins}, draws {self.draws}\n"
                f"  win rate        {self.a_win_rate:.3f}  "
                f"[{self.a_win_rate_low:.3f}, {self.a_win_rate_high:.3f}]\n"
                f"  points per game {self.a_points_per_game:+.3f}  "
                f"[{self.a_points_per_game_low:+.3f}, {self.a_points_per_game_high:+.3f}]\n"
                f"  {self.seconds:.1f} s, {self.games / max(self.seconds, 1e-9):.1f} games/s")


def make_bot(name: str, seed: Optional[int] = None) -> Bot:
    """A fresh bot from its :data:`gulbara.bots.BOTS` name (``random`` seeded with ``seed``).

    >>> make_bot("greedy").name
    'greedy'
    >>> make_bot("nobody")
    Traceback (most recent call last):
    ...
    gulbara.errors.GulBaraError: unknown bot 'nobody' (choose from expectimax1, expectimax2, first, greedy, net, net2, random)
    """
    if not isinstance(name, str):
        raise TypeError(f"a bot name is a str, not {type(name).__name__}")
    if name not in BOTS:
        raise GulBaraError(f"unknown bot {name!r} (choose from {', '.join(sorted(BOTS))})")
    if name == "random":
        return RandomBot(seed=seed)
    return BOTS[name]()


def _bot(bot: Union[str, Bot], seed: int) -> Tuple[Bot, str]:
    if isinstance(bot, str):
        return make_bot(bot, seed), bot
    if not callable(getattr(bot, "choose", None)):
        raise TypeError(f"a bot has a choose(game) method or is a name in BOTS, "
                        f"not {type(bot).__name__}")
    return bot, getattr(bot, "name", type(bot).__name__)


def check_seed(seed) -> int:
    """An arena's ``seed``: an int 0 .. 2**64 - 1 (``GulBaraError``; ``TypeError`` for a non-int)."""
    return checked_int(seed, "seed", 0, 2**64 - 1, bounds="0 .. 2**64 - 1")


def check_last_seed(seed: int, last: int, duplicate: bool) -> None:
    """Refuse a ``seed`` whose games would run past the last dice seed: game ``i`` is
    ``Game(rules, seed=seed + i)`` (``seed + i // 2`` with ``duplicate``), up to game ``last``."""
    top = seed + (last // 2 if duplicate else last)
    if top > 2**64 - 1:
        raise GulBaraError(f"seed {seed} is too large for {last + 1} games: game i plays the "
                           f"dice of seed + i{' // 2' if duplicate else ''}, which must be at "
                           f"most 2**64 - 1")


def progress_stream(progress) -> Optional[TextIO]:
    """The stream an arena's ``progress`` names: stderr for ``True``, none for ``False`` or
    ``None``, else a text stream (``TypeError`` for anything without ``write``)."""
    if progress is True:
        return sys.stderr
    if progress is None or progress is False:
        return None
    if not callable(getattr(progress, "write", None)):
        raise TypeError(f"progress must be True, False or a text stream, "
                        f"not {type(progress).__name__}")
    return progress


class _Progress:
    """A one-line progress bar with ``\\r`` updates: games done, games/s, A's score so far."""

    def __init__(self, stream: Optional[TextIO], total: int, label: str) -> None:
        self.stream, self.total, self.label = stream, total, label
        self.start = time.perf_counter()
        self.shown = 0.0

    def update(self, done: int, wins: int, points: int, final: bool = False) -> None:
        if self.stream is None:
            return
        now = time.perf_counter()
        if not final and now - self.shown < 0.2:
            return
        self.shown = now
        rate = done / max(now - self.start, 1e-9)
        width = 24
        filled = width * done // max(self.total, 1)
        bar = "#" * filled + "." * (width - filled)
        self.stream.write(f"\r{self.label} [{bar}] {done}/{self.total} games "
                          f"{rate:.1f} games/s  A wins {wins}, {points:+d} points  ")
        if final:
            self.stream.write("\n")
        self.stream.flush()


def arena(bot_a: Union[str, Bot], bot_b: Union[str, Bot], games: int, seed: int = 0, *,
          rules: Optional[Rules] = None, progress: Union[bool, TextIO, None] = False,
          duplicate: bool = False, workers: int = 1, first: int = 0,
          native: bool = False) -> ArenaResult:
    """Play ``games`` games of ``bot_a`` against ``bot_b``, alternating seats; see the module doc.

    Bots are objects with ``choose(game)`` or names in :data:`gulbara.bots.BOTS`.
    ``progress`` is ``True`` (a progress line on stderr), a text stream, or
    ``False``. ``duplicate``: game ``i`` uses dice seed ``seed + i // 2``, so each
    pair of games has the same dice with the seats swapped. ``workers`` > 1
    plays blocks of games in that many processes (bots given by name only; a
    ``random`` bot is then seeded per block). ``first`` is the index of the
    first game (for blocks of one arena). ``native`` plays bots that have a
    native policy (random, first, greedy, net) natively, on the self-play dice
    streams (``gulbara.arena_workers.native_arena``).
    """
    games = checked_int(games, "games", 1)
    seed = check_seed(seed)
    if native:
        from gulbara.arena_workers import native_arena
        return native_arena(bot_a, bot_b, games, seed, duplicate=duplicate, workers=workers,
                            rules=rules)
    first = checked_int(first, "first", 0)
    check_last_seed(seed, first + games - 1, duplicate)
    stream = progress_stream(progress)
    if workers != 1:
        from gulbara.arena_workers import parallel_arena
        return parallel_arena(bot_a, bot_b, games, seed, rules=rules, progress=progress,
                              duplicate=duplicate, workers=workers)
    rules = checked_rules(rules, DEFAULT_RULES)
    a, a_name = _bot(bot_a, seed)
    b, b_name = _bot(bot_b, seed + 1_000_003)
    bar = _Progress(stream, games, f"{a_name} vs {b_name}")
    start = time.perf_counter()
    seats, points = [], []
    wins = losses = draws = 0
    for i in range(first, first + games):
        game = Game(rules, seed=seed + (i // 2 if duplicate else i))
        a_seat = 0 if i % 2 == 0 else 1
        white, black = (a, b) if a_seat == 0 else (b, a)
        result = play_out(game, white, black)
        if result.winner is None:
            draws += 1
            score = 0
        elif result.winner == a_seat:
            wins += 1
            score = result.points
        else:
            losses += 1
            score = -result.points
        seats.append(a_seat)
        points.append(score)
        bar.update(i + 1 - first, wins, sum(points), final=i + 1 - first == games)
    seconds = time.perf_counter() - start
    low, high = wilson_interval(wins, games)
    mean, p_low, p_high = mean_interval(points)
    return ArenaResult(a_name, b_name, seed, games, wins, losses, draws, wins / games, low, high,
                       mean, p_low, p_high, seconds, tuple(seats), tuple(points))
