"""The per-checker model of whole chains (checker_model.py) against chain_ends.

The model is a design study, not a generator; these checks keep its counts honest.
"""

import numpy as np
import pytest

import gulbara
from gulbara.tools import suites
from gulbara.chains.enumeration import STOP_COMPLETE

import checker_model


def decision(seed, ply):
    return next(c for c in suites.REAL_GAME_CHAINS if (c.seed, c.ply) == (seed, ply))


@pytest.mark.parametrize("seed, ply", [(4, 20), (0, 31)])
def test_model_counts_the_complete_outcomes_of_chain_ends(seed, ply):
    chain = decision(seed, ply)
    counts, blocked = checker_model.mover_counts(chain.code, chain.seat)
    ends, counters = checker_model.complete_outcomes(counts, blocked,
                                                     list(range(chain.first, 7)))
    exact = gulbara.chain_ends(chain.code, chain.seat, chain.first)
    assert len(ends) == int(np.count_nonzero(exact.stop == STOP_COMPLETE)) > 0
    # the same positions, not only as many: the mover's 24 counts of each end
    packed, _ = checker_model.complete_keys(chain)
    assert packed == ends
    assert counters["largest_layer"] >= 1


def test_model_mover_counts_follow_the_black_frame():
    counts, blocked = checker_model.mover_counts("G:,,,,,,,,,,,-15,,,,,,,,,,,,15|0,0|0,0", 1)
    assert counts[24] == 15 and sum(counts) == 15
    assert blocked == {12}


def test_pip_candidates_hold_every_complete_outcome():
    chain = decision(0, 31)
    counts, blocked = checker_model.mover_counts(chain.code, chain.seat)
    numbers = list(range(chain.first, 7))
    ends, _ = checker_model.complete_outcomes(counts, blocked, numbers)
    candidates, written = checker_model.pip_candidates(counts, blocked, numbers)
    assert ends and ends <= candidates
    assert written >= len(candidates)

