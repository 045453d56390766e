"""``arena(..., workers=W)``: blocks of an arena's games in ``W`` processes.

Game ``i`` is the same game as in a serial arena (its dice seed and seats
depend on ``i`` only) for deterministic bots; a ``random`` bot is seeded per
block (``seed + block start``). The per-game scores are joined in game order
and the statistics computed once, as :func:`gulbara.arena.arena` does.
:func:`native_arena` plays the bots that have a native policy natively.

>>> result = native_arena("greedy", "first", 4, seed=1, duplicate=True)
>>> result.games, result.a_seats
(4, (0, 1, 0, 1))
"""

import concurrent.futures
import multiprocessing
import time
from typing import List, Optional, TextIO, Tuple, Union

from gulbara.errors import checked_int

__all__ = ["parallel_arena", "BLOCK_GAMES"]

#: Games per block handed to a worker.
BLOCK_GAMES = 50


def _block(a: str, b: str, games: int, seed: int, rules, duplicate: bool, first: int):
    from gulbara.arena import arena, make_bot
    bot_a = make_bot(a, seed + first)
    bot_b = make_bot(b, seed + first + 1_000_003)
    result = arena(bot_a, bot_b, games, seed, rules=rules, duplicate=duplicate, first=first)
    return result.a_seats, result.a_points


def parallel_arena(bot_a: Union[str, object], bot_b: Union[str, object], games: int,
                   seed: int = 0, *, rules=None, progress: Union[bool, TextIO, None] = False,
                   duplicate: bool = False, workers: int = 2):
    from gulbara.arena import (ArenaResult, check_last_seed, check_seed, make_bot, mean_interval,
                               progress_stream, wilson_interval)
    workers = checked_int(workers, "workers", 1)
    games = checked_int(games, "games", 1)
    seed = check_seed(seed)
    check_last_seed(seed, games - 1, duplicate)
    if not (isinstance(bot_a, str) and isinstance(bot_b, str)):
        raise TypeError("an arena with workers takes bots by name (BOTS), not objects")
    make_bot(bot_a)
    make_bot(bot_b)                                  # unknown names fail here
    stream = progress_stream(progress)
    step = BLOCK_GAMES + BLOCK_GAMES % 2
    blocks = [(lo, min(step, games - lo)) for lo in range(0, games, step)]
    results: List[Optional[Tuple[tuple, tuple]]] = [None] * len(blocks)
    started = time.perf_counter()
    context = multiprocessing.get_context("fork" if "fork" in
                                          multiprocessing.get_all_start_methods() else "spawn")
    done = 0
    with concurrent.futures.ProcessPoolExecutor(workers, mp_context=context) as pool:
        futures = {pool.submit(_block, bot_a, bot_b, count, seed, rules, duplicate, lo): k
                   for k, (lo, count) in enumerate(blocks)}
        for future in concurrent.futures.as_completed(futures):
            results[futures[future]] = future.result()
            done += blocks[futures[future]][1]
            if stream is not None:
                stream.write(f"\r{bot_a} vs {bot_b}: {done}/{games} games "
                             f"{done / max(time.perf_counter() - started, 1e-9):.1f} games/s  ")
                stream.flush()
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
    return ArenaResult(bot_a, bot_b, seed, games, wins, losses, draws, wins / games, low, high,
                       mean, p_low, p_high, seconds, seats, points)


#: The bots that have a native policy, for ``arena(..., native=True)``.
NATIVE_BOTS = ("random", "first", "greedy", "net")


def native_arena(bot_a: str, bot_b: str, games: int, seed: int = 0, *,
                 duplicate: bool = False, workers: int = 1, rules=None):
    """An arena played by the native policies (``gulbara._net.play_match``), threads for workers.

    Game ``i`` uses the self-play dice streams of ``(seed, i)`` (``(seed, i // 2)`` with
    ``duplicate``), A White in the even games; ``net`` is the shipped network's native
    policy (docs/bots.md: chain stages by the network's learned continuation).
    """
    from gulbara import _net
    from gulbara.arena import ArenaResult, check_seed, mean_interval, wilson_interval
    from gulbara.game import Game
    from gulbara.net import default_net
    games = checked_int(games, "games", 1)
    seed = check_seed(seed)
    workers = checked_int(workers, "workers", 1)
    for name in (bot_a, bot_b):
        if name not in NATIVE_BOTS:
            raise TypeError(f"a native arena plays {', '.join(NATIVE_BOTS)}, not {name!r}")
    net = default_net(rules).native if "net" in (bot_a, bot_b) else None
    codes = [_net.POLICY_CODES[name] for name in (bot_a, bot_b)]
    start = Game(rules, auto_roll=False)
    step = max(2, -(-games // workers))
    step += step % 2
    blocks = [(lo, min(step, games - lo)) for lo in range(0, games, step)]

    def block(bounds):
        lo, count = bounds
        first = lo // 2 if duplicate else lo
        rows, _ = _net.play_match(net, net, codes[0], codes[1], start, seed, first, count,
                                  duplicate)
        return rows

    began = time.perf_counter()
    if len(blocks) == 1:
        parts = [block(blocks[0])]
    else:
        with concurrent.futures.ThreadPoolExecutor(len(blocks)) as pool:
            parts = list(pool.map(block, blocks))
    seconds = time.perf_counter() - began
    import numpy as np
    rows = np.concatenate(parts)
    seats = tuple(int(s) for s in rows[:, 0])
    sign = np.where(rows[:, 1] == rows[:, 0], 1, np.where(rows[:, 1] < 0, 0, -1))
    points = tuple(int(p) for p in sign * rows[:, 2])
    wins = sum(1 for p in points if p > 0)
    losses = sum(1 for p in points if p < 0)
    low, high = wilson_interval(wins, games)
    mean, p_low, p_high = mean_interval(points)
    return ArenaResult(bot_a, bot_b, seed, games, wins, losses, games - wins - losses,
                       wins / games, low, high, mean, p_low, p_high, seconds, seats, points)
