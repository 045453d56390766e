"""push/pop benchmarks (STYLE §7, group "push-pop"): a Board plays and takes back a
seeded sequence of stages; each round asserts the board is back at its start."""

import random

import pytest

import gulbara


def _plays(n=200, seed=5):
    """A seeded random game's plays, stage by stage, until the game ends (89 plays)."""
    rng = random.Random(seed)
    board = gulbara.Board()
    plays = []
    while len(plays) < n and not board.is_game_over():
        a, b = rng.randint(1, 6), rng.randint(1, 6)
        ends = board.stage_ends([a, b] if a != b else [a] * 4)
        play = ends[rng.randrange(len(ends))]
        plays.append(play)
        board.push(play)
    return plays


PLAYS = _plays()


def push_all_pop_all(board):
    for play in PLAYS:
        board.push(play)
    for _ in PLAYS:
        board.pop()
    return board.code()


@pytest.mark.benchmark(group="push-pop")
def test_push_pop(benchmark):
    board = gulbara.Board()
    assert benchmark(push_all_pop_all, board) == gulbara.START_CODE
    benchmark.extra_info["plays"] = len(PLAYS)   # push + pop per play: median / plays
    assert len(PLAYS) == 89
