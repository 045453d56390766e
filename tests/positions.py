"""Seeded position generators for the differential and property tests.

Positions come from random play (every stage kind), from random valid
placements, and from hand-shaped families: bear-offs, primes and blocked
starts. Everything is reproducible from a seed.
"""

import itertools
import random
from typing import Callable, Iterator, List, Tuple

import gulbara

ROLLS = gulbara.ROLLS


def _code(points, off_white, off_black) -> str:
    tokens = ["" if n == 0 else str(n) for n in points]
    return "G:" + ",".join(tokens) + f"|0,0|{off_white},{off_black}"


def black_point(p: int) -> int:
    """Black's own point p in White's numbering (RULES §1.3)."""
    return ((p + 11) % 24) + 1


def random_stage(rng: random.Random) -> List[int]:
    """A random stage: a roll, or one to four equal dice."""
    a, b = rng.randint(1, 6), rng.randint(1, 6)
    if a != b:
        return [a, b]
    return [a] * rng.randint(1, 4)


def random_play_positions(seed: int, count: int) -> List[Tuple[str, int]]:
    """(code, seat to move) pairs reached by random play from the start."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        board = gulbara.Board()
        for _ in range(rng.randint(1, 120)):
            ends = board.stage_ends(random_stage(rng))
            board.push(ends[rng.randrange(len(ends))])
            if board.is_game_over():
                break
            out.append((board.code(), board.turn))
            if len(out) >= count:
                break
    return out


def random_games(seed: int) -> Iterator[Tuple["gulbara.Game", int]]:
    """(game, ply) before every play of seeded random-bot games, one game after
    another, and once more after each game's last play (``game.is_over()``)."""
    rng = random.Random(seed)
    while True:
        game = gulbara.Game(seed=rng.randrange(10**9))
        bot = gulbara.RandomBot(seed=rng.randrange(10**9))
        ply = 0
        while not game.is_over():
            yield game, ply
            game.play(bot.choose(game))
            ply += 1
        yield game, ply


def sample_games(n: int, seed: int, take: Callable[["gulbara.Game"], str],
                 keep: Callable[["gulbara.Game", int], bool]) -> List[str]:
    """``take(game)`` at the first ``n`` (game, ply) of :func:`random_games` that ``keep``."""
    return [take(game) for game, ply in itertools.islice(
        ((game, ply) for game, ply in random_games(seed) if keep(game, ply)), n)]


def random_valid_position(rng: random.Random) -> str:
    """Checkers of both sides scattered on distinct points, some borne off."""
    points = [0] * 24
    offs = []
    for sign in (1, -1):
        on_board = rng.choice([15, 15, rng.randint(0, 15)])
        offs.append(15 - on_board)
        free = [q for q in range(24) if points[q] == 0]
        spots = rng.sample(free, rng.randint(1, min(len(free), 12)))
        for _ in range(on_board):
            points[rng.choice(spots)] += sign
    return _code(points, offs[0], offs[1])


def bear_off_position(rng: random.Random, seat: int) -> str:
    """``seat`` with every checker in its home board (or off); the other side elsewhere."""
    points = [0] * 24
    on_board = rng.randint(1, 15)
    home = [rng.randint(1, 6) for _ in range(on_board)]
    sign = 1 if seat == 0 else -1
    for p in home:
        q = p if seat == 0 else black_point(p)
        points[q - 1] += sign
    other_on_board = rng.randint(0, 15)
    free = [q for q in range(24) if points[q] == 0]
    for _ in range(other_on_board):
        points[rng.choice(free)] -= sign
    offs = [0, 0]
    offs[seat] = 15 - on_board
    offs[1 - seat] = 15 - other_on_board
    return _code(points, offs[0], offs[1])


def prime_position(rng: random.Random) -> str:
    """White holds six (or five) points in a row; Black has checkers behind them."""
    points = [0] * 24
    length = rng.choice([5, 6])
    first = rng.randint(1, 24 - length)
    white_left = 15
    for q in range(first, first + length):
        points[q - 1] = 2
        white_left -= 2
    free = [q for q in range(1, 25) if points[q - 1] == 0]
    while white_left:
        q = rng.choice(free)
        if points[q - 1] >= 0:
            points[q - 1] += 1
            white_left -= 1
    black_left = 15
    black_free = [q for q in range(1, 25) if points[q - 1] == 0]
    black_spots = rng.sample(black_free, min(len(black_free), rng.randint(1, 5)))
    for _ in range(black_left):
        points[rng.choice(black_spots) - 1] -= 1
    return _code(points, 0, 0)


def blocked_start_position(rng: random.Random) -> str:
    """Black still on its start (White's 12) with White blocking points in front of it."""
    points = [0] * 24
    points[11] = -15
    blocked = rng.sample(range(6, 11), rng.randint(3, 5))   # White's 6..11 (indices 5..10)
    white_left = 15
    for index in blocked:
        points[index] = 2
        white_left -= 2
    points[23] += white_left
    return _code(points, 0, 0)


def mixed_positions(seed: int, count: int) -> List[Tuple[str, int]]:
    """``count`` (code, seat) pairs: half random play, the rest the shaped families."""
    rng = random.Random(seed)
    out = random_play_positions(seed, count // 2)
    makers = [
        lambda: (random_valid_position(rng), rng.randint(0, 1)),
        lambda: (bear_off_position(rng, 0), 0),
        lambda: (bear_off_position(rng, 1), 1),
        lambda: (prime_position(rng), 1),
        lambda: (blocked_start_position(rng), 1),
    ]
    k = 0
    while len(out) < count:
        out.append(makers[k % len(makers)]())
        k += 1
    return out
