"""The class model of a bucket's expansion (class_model.py) against remainder_ends.

The model is a design study, not a generator; these checks keep its counts honest.
"""

import pytest

from gulbara.tools import suites

import class_model


def _stage(seed, ply, before, die):
    chain = next(c for c in suites.REAL_GAME_CHAINS if (c.seed, c.ply) == (seed, ply))
    return chain, class_model.Stage(chain.code, chain.seat, before, die)


@pytest.mark.parametrize("seed, ply, before, die", [(5, 35, [2, 3], 4), (0, 31, [2], 3)])
def test_model_ends_are_remainder_ends(seed, ply, before, die):
    chain, stage = _stage(seed, ply, before, die)
    positions, same, ends = class_model.check_bucket(stage, chain.code, chain.seat)
    assert same and positions > 1 and ends > positions


def test_every_expansion_makes_at_least_the_distinct_ends():
    _, stage = _stage(5, 35, [2, 3], 4)
    positions, ends, steps, factored, by_class = class_model.model_bucket(stage, 3)
    assert min(steps, factored, by_class) >= ends > positions
