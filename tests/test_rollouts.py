"""Rollouts with the first roll stratified and candidate plays on common dice."""

import numpy as np
import pytest

import gulbara
from gulbara.errors import GulBaraError
from gulbara.selfplay.rollouts import DICE_36, compare_plays, game_equities, stratified_rollout
from gulbara.selfplay.games import play_games


def _after_opening():
    game = gulbara.Game(seed=24)
    after = game.copy(auto_roll=False)
    after.play(after.legal_plays()[0])
    return after                                   # Black to roll


def test_stratified_mean_is_the_mean_of_the_36_first_rolls():
    after = _after_opening()
    estimate = stratified_rollout(after, 72, "greedy", seed=3)
    from gulbara.selfplay.rollouts import _stratum_seed
    means = []
    for k, (a, b) in enumerate(DICE_36):
        state = after.copy(auto_roll=False)
        state.roll(a, b)
        rows = play_games(2, "greedy", seed=_stratum_seed(3, k), start=state, workers=1).rows
        means.append(game_equities(rows, 1).mean())
    assert estimate.value == pytest.approx(np.mean(means))
    assert estimate.low < estimate.value < estimate.high


def test_a_play_against_itself_differs_by_nothing():
    game = gulbara.Game(seed=24)
    play = game.legal_plays()[0]
    result = compare_plays(game, 72, [play, play], policy="greedy", seed=1)
    d = result.differences[(0, 1)]
    assert (d.value, d.low, d.high) == (0.0, 0.0, 0.0)
    assert result.stratified and result.games == 72


def test_candidates_are_ranked_and_paired():
    game = gulbara.Game(seed=24)
    result = compare_plays(game, 72, policy="greedy", seed=1)
    values = [c.equity.value for c in result.candidates]
    assert values == sorted(values, reverse=True)
    d = result.differences[(0, 1)]
    assert d.value == pytest.approx(values[0] - values[1])
    assert "equity" in result.table()
    plain = compare_plays(game, 40, policy="greedy", seed=1, stratify=False)
    assert not plain.stratified and plain.games == 40


def test_bad_calls():
    game = gulbara.Game(seed=24)
    with pytest.raises(GulBaraError):
        stratified_rollout(game, 72, "greedy")        # a decision, not a side to roll
    with pytest.raises(GulBaraError):
        compare_plays(_after_opening(), 72, policy="greedy")
    other = gulbara.Game(seed=5).legal_plays()[0]
    with pytest.raises(GulBaraError, match="not a legal play"):
        compare_plays(game, 72, [other], policy="greedy")


def test_regression_stratified_seeds_are_checked_on_entry():
    """The stratified rollouts reduced the seed mod 2**64: -1 was 2**64 - 1, 'x' an OverflowError."""
    game = gulbara.Game(auto_roll=False)
    game.roll_opening(6, 1)
    game.play(game.legal_plays()[0])
    for seed in (-1, 2**64):
        with pytest.raises(GulBaraError, match="seed"):
            stratified_rollout(game, 36, "greedy", seed=seed)
        with pytest.raises(GulBaraError, match="seed"):
            compare_plays(gulbara.Game(seed=24), 36, policy="greedy", seed=seed)
    for seed in (True, "x", 1.5):
        with pytest.raises(TypeError, match="seed"):
            stratified_rollout(game, 36, "greedy", seed=seed)
        with pytest.raises(TypeError, match="seed"):
            compare_plays(gulbara.Game(seed=24), 36, policy="greedy", seed=seed)
