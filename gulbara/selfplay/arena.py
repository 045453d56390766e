"""Bot against bot: many games, both seats, win rate and points per game with 95% intervals.

Game ``i`` of an arena plays the dice of game ``i`` of the run seeded ``seed`` (those of
native self-play's game ``i``, :class:`gulbara.game.rng.Rng`; ``Game(seed=seed)`` is game 0);
bot A plays White in the even games and Black in the odd ones, so both bots see the same dice
from both seats. The Python and the native arena (``native=True``) play the same games for
the same seed: the same dice, and the same plays by the deterministic bots. A bot given by name (see :data:`gulbara.bots.REGISTRY`) is built
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

``workers=W`` plays blocks of games in ``W`` processes (game ``i`` is the same game as in a
serial arena for deterministic bots; a ``random`` bot is seeded per block, ``seed + block
start``); ``native=True`` plays the bots that have a native policy natively:

>>> result = native_arena("greedy", "first", 4, seed=1, duplicate=True)
>>> result.games, result.a_seats
(4, (0, 1, 0, 1))
"""

import concurrent.futures
import os
import sys
import time
from dataclasses import dataclass
from typing import Any, List, Optional, TextIO, Tuple, Union

import numpy as np

from gulbara.bots.registry import Bot, bot_label, make_bot, native_policy, play_out
from gulbara.conventions import mean_interval, wilson_interval
from gulbara.errors import GulBaraError, checked_int
from gulbara.game.driver import DiceStream, Game
from gulbara.net import _play
from gulbara.rules import DEFAULT_RULES, Rules, checked_rules
from gulbara.workers import on_stop, run_processes

__all__ = ["arena", "ArenaResult", "native_arena", "parallel_arena", "BLOCK_GAMES"]

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


def _bot(bot: Union[str, Bot], seed: int) -> Tuple[Bot, str]:
    if isinstance(bot, (str, os.PathLike)):
        return make_bot(bot, seed), bot_label(bot)
    if not callable(getattr(bot, "choose", None)):
        raise TypeError(f"a bot has a choose(game) method or is a name in BOTS, "
                        f"not {type(bot).__name__}")
    return bot, getattr(bot, "name", type(bot).__name__)


def check_seed(seed) -> int:
    """An arena's ``seed``: an int 0 .. 2**64 - 1 (``GulBaraError``; ``TypeError`` for a non-int)."""
    return checked_int(seed, "seed", 0, 2**64 - 1, bounds="0 .. 2**64 - 1")


def check_last_seed(seed: int, last: int, duplicate: bool) -> None:
    """Refuse games past the last game of a run: game ``i`` plays the dice of game ``i`` of the
    run seeded ``seed`` (``i // 2`` with ``duplicate``), up to game ``last``."""
    top = last // 2 if duplicate else last
    if top > 2**64 - 1:
        raise GulBaraError(f"{last + 1} games run past the last game of a run (2**64)")


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

    Bots are objects with ``choose(game)`` or names in :data:`gulbara.bots.REGISTRY`.
    ``progress`` is ``True`` (a progress line on stderr), a text stream, or
    ``False``. ``duplicate``: game ``i`` plays the dice of game ``i // 2``, so each
    pair of games has the same dice with the seats swapped. ``workers`` > 1
    plays blocks of games in that many processes (bots given by name only; a
    ``random`` bot is then seeded per block). ``first`` is the index of the
    first game (for blocks of one arena). ``native`` plays bots that have a
    native policy (random, first, greedy, net) natively, on the self-play dice
    streams (:func:`native_arena`).
    """
    games = checked_int(games, "games", 1)
    seed = check_seed(seed)
    if native:
        # (a bot object: native_policy's TypeError)
        return native_arena(bot_a, bot_b,  # type: ignore[arg-type]
                            games, seed, duplicate=duplicate, workers=workers, rules=rules)
    first = checked_int(first, "first", 0)
    check_last_seed(seed, first + games - 1, duplicate)
    stream = progress_stream(progress)
    if workers != 1:
        return parallel_arena(bot_a, bot_b, games, seed, rules=rules, progress=progress,
                              duplicate=duplicate, workers=workers)
    rules = checked_rules(rules, DEFAULT_RULES)
    a, a_name = _bot(bot_a, seed)
    b, b_name = _bot(bot_b, seed + 1_000_003)
    bar = _Progress(stream, games, f"{a_name} vs {b_name}")
    start = time.perf_counter()
    seats: List[int] = []
    points: List[int] = []
    with on_stop(say=lambda: so_far(a_name, points, games)):
        _play_serial(a, b, rules, seed, first, games, duplicate, bar, seats, points)
    wins = sum(1 for p in points if p > 0)
    losses = sum(1 for p in points if p < 0)
    draws = games - wins - losses
    seconds = time.perf_counter() - start
    low, high = wilson_interval(wins, games)
    mean, p_low, p_high = mean_interval(points)
    return ArenaResult(a_name, b_name, seed, games, wins, losses, draws, wins / games, low, high,
                       mean, p_low, p_high, seconds, tuple(seats), tuple(points))


def so_far(a_name: str, points: List[int], games: int) -> str:
    """What an arena stopped early had played: A's win rate and points per game so far, with
    their 95% intervals (the line a stop signal prints, :mod:`gulbara.workers`)."""
    n = len(points)
    if not n:
        return f"0 of {games:,} games played"
    wins = sum(1 for p in points if p > 0)
    low, high = wilson_interval(wins, n)
    mean, p_low, p_high = mean_interval(points)
    return (f"{n:,} of {games:,} games played: {a_name} won {wins / n:.3f} [{low:.3f}, "
            f"{high:.3f}], {mean:+.3f} [{p_low:+.3f}, {p_high:+.3f}] points per game")


def _play_serial(a, b, rules, seed: int, first: int, games: int, duplicate: bool, bar,
                 seats: List[int], points: List[int]) -> None:
    wins = 0
    for i in range(first, first + games):
        game = Game(rules, dice=DiceStream(seed, game=i // 2 if duplicate else i))
        a_seat = 0 if i % 2 == 0 else 1
        white, black = (a, b) if a_seat == 0 else (b, a)
        result = play_out(game, white, black)
        if result.winner is None:
            score = 0
        elif result.winner == a_seat:
            wins += 1
            score = result.points
        else:
            score = -result.points
        seats.append(a_seat)
        points.append(score)
        bar.update(i + 1 - first, wins, sum(points), final=i + 1 - first == games)


#: Games per block handed to a worker.
BLOCK_GAMES = 50


def _block(a: Union[str, "os.PathLike[str]"], b: Union[str, "os.PathLike[str]"], games: int,
           seed: int, rules, duplicate: bool, first: int):
    bot_a = make_bot(a, seed + first)
    bot_b = make_bot(b, seed + first + 1_000_003)
    result = arena(bot_a, bot_b, games, seed, rules=rules, duplicate=duplicate, first=first)
    return result.a_seats, result.a_points


def parallel_arena(bot_a: Union[str, object], bot_b: Union[str, object], games: int,
                   seed: int = 0, *, rules=None, progress: Union[bool, TextIO, None] = False,
                   duplicate: bool = False, workers: int = 2):
    workers = checked_int(workers, "workers", 1)
    games = checked_int(games, "games", 1)
    seed = check_seed(seed)
    check_last_seed(seed, games - 1, duplicate)
    if not (isinstance(bot_a, (str, os.PathLike)) and isinstance(bot_b, (str, os.PathLike))):
        raise TypeError("an arena with workers takes bots by name (or network path), not objects")
    make_bot(bot_a)
    make_bot(bot_b)                                  # unknown names fail here
    stream = progress_stream(progress)
    step = BLOCK_GAMES + BLOCK_GAMES % 2
    blocks = [(lo, min(step, games - lo)) for lo in range(0, games, step)]
    results: List[Any] = [None] * len(blocks)   # each block's (seats, points) once played
    started = time.perf_counter()
    done = 0

    def finished(k: int, result) -> None:
        nonlocal done
        results[k] = result
        done += blocks[k][1]
        if stream is not None:
            stream.write(f"\r{bot_label(bot_a)} vs {bot_label(bot_b)}: {done}/{games} games "
                         f"{done / max(time.perf_counter() - started, 1e-9):.1f} games/s  ")
            stream.flush()

    def said() -> str:
        return so_far(bot_label(bot_a), [p for r in list(results) if r is not None
                                         for p in r[1]], games)

    with on_stop(say=said):
        run_processes(_block, [(bot_a, bot_b, count, seed, rules, duplicate, lo)
                               for lo, count in blocks], workers, finished, what="arena worker")
    if stream is not None:
        stream.write("\n")
    seats = tuple(s for r in results for s in r[0])
    points = tuple(p for r in results for p in r[1])
    seconds = time.perf_counter() - started
    wins = sum(1 for p in points if p > 0)
    losses = sum(1 for p in points if p < 0)
    draws = games - wins - losses
    low, high = wilson_interval(wins, games)
    mean, p_low, p_high = mean_interval(points)
    return ArenaResult(bot_label(bot_a), bot_label(bot_b), seed, games, wins, losses, draws,
                       wins / games, low, high, mean, p_low, p_high, seconds, seats, points)


def native_arena(bot_a: Union[str, "os.PathLike[str]"], bot_b: Union[str, "os.PathLike[str]"],
                 games: int, seed: int = 0, *,
                 duplicate: bool = False, workers: int = 1, rules=None):
    """An arena played by the native policies (``gulbara.net._play.play_match``), threads for workers.

    Game ``i`` uses the self-play dice streams of ``(seed, i)`` (``(seed, i // 2)`` with
    ``duplicate``), A White in the even games; ``net`` is the shipped network's native
    policy (docs/user/bots.md: chain stages by the network's learned continuation).
    """
    games = checked_int(games, "games", 1)
    seed = check_seed(seed)
    workers = checked_int(workers, "workers", 1)
    played = [native_policy(bot, rules, player="a native arena") for bot in (bot_a, bot_b)]
    policies = [policy for policy, _ in played]
    nets = [network for _, network in played]
    start = Game(rules, auto_roll=False)
    step = max(2, -(-games // workers))
    step += step % 2
    blocks = [(lo, min(step, games - lo)) for lo in range(0, games, step)]

    def block(bounds):
        lo, count = bounds
        first = lo // 2 if duplicate else lo
        rows, _ = _play.play_match(policies[0], policies[1], start, seed, first, count,
                                   duplicate, network_a=nets[0], network_b=nets[1])
        return rows

    began = time.perf_counter()
    if len(blocks) == 1:
        parts = [block(blocks[0])]
    else:
        with concurrent.futures.ThreadPoolExecutor(len(blocks)) as pool:
            parts = list(pool.map(block, blocks))
    seconds = time.perf_counter() - began
    rows = np.concatenate(parts)
    seats = tuple(int(s) for s in rows[:, 0])
    sign = np.where(rows[:, 1] == rows[:, 0], 1, np.where(rows[:, 1] < 0, 0, -1))
    points = tuple(int(p) for p in sign * rows[:, 2])
    wins = sum(1 for p in points if p > 0)
    losses = sum(1 for p in points if p < 0)
    low, high = wilson_interval(wins, games)
    mean, p_low, p_high = mean_interval(points)
    return ArenaResult(bot_label(bot_a), bot_label(bot_b), seed, games, wins, losses,
                       games - wins - losses,
                       wins / games, low, high, mean, p_low, p_high, seconds, seats, points)
