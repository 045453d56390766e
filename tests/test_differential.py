"""The compiled core against the naive reference (STYLE §6).

Every position x all 21 rolls + one random partial stage of 1-3 equal dice:
the same playable dice, the same ends in the same order, the same canonical
steps and the same game-end flags: 26,400 position-stage pairs, and ``pytest -m slow`` the
long version (101,200).
"""

import os
import random

import pytest

from gulbara.core import _movegen

from gulbara.core import _reference
from positions import mixed_positions

ROLL_STAGES = [[a, b] if a != b else [a] * 4 for a in range(1, 7) for b in range(a, 7)]

N_POSITIONS = int(os.environ.get("GULBARA_DIFF_POSITIONS", "1200"))   # x 22 stages
LONG_POSITIONS = 4600   # x 22 stages = 101,200 pairs


def describe(ends):
    return [(ends.code(i), ends.steps(i), ends.ends_game(i)) for i in range(len(ends))]


def compare(code, seat, dice):
    core = _movegen.stage_ends(code, seat, dice)
    ref = _reference.stage_ends(code, seat, dice)
    got, want = describe(core), describe(ref)
    if core.playable_dice != ref.playable_dice or got != want or core.dice != ref.dice:
        missing = [e for e in want if e not in got]
        extra = [e for e in got if e not in want]
        pytest.fail(
            f"core != reference for {code} seat {seat} dice {dice}:\n"
            f"playable core {core.playable_dice} ref {ref.playable_dice}\n"
            f"missing from core: {missing[:10]}\nextra in core: {extra[:10]}\n"
            f"order core: {[e[1] for e in got][:20]}\norder ref: {[e[1] for e in want][:20]}")


def stages_for(rng):
    stages = list(ROLL_STAGES)
    stages.append([rng.randint(1, 6)] * rng.randint(1, 3))
    return stages


def run(seed, count):
    rng = random.Random(seed)
    pairs = 0
    for code, seat in mixed_positions(seed, count):
        for dice in stages_for(rng):
            compare(code, seat, dice)
            pairs += 1
    return pairs


@pytest.mark.parametrize("chunk", range(8))
def test_core_matches_reference(chunk):
    per_chunk = N_POSITIONS // 8
    assert run(1000 + chunk, per_chunk) == per_chunk * 22


@pytest.mark.slow
def test_core_matches_reference_long():
    assert run(777, LONG_POSITIONS) == LONG_POSITIONS * 22


def test_both_seats_of_the_same_positions():
    """Each position from both sides, so every code path runs for White and Black."""
    rng = random.Random(5)
    for code, _ in mixed_positions(99, 120):
        for seat in (0, 1):
            for dice in stages_for(rng):
                compare(code, seat, dice)
