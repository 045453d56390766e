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


def test_regression_every_rollout_defaults_to_the_net_policy():
    """selfplay.rollout defaulted to greedy, play_games and `gulbara selfplay` to random play
    and compare_plays to net: a forgotten policy gave another equity. Now all are net."""
    import inspect
    from gulbara.selfplay import games, rollouts
    assert games.DEFAULT_POLICY == "net"
    for function in (games.play_games, games.rollout, games.replay, games.opening_table,
                     rollouts.stratified_rollout, rollouts.compare_plays):
        assert inspect.signature(function).parameters["policy"].default == "net", function
    state = _after_opening()
    assert games.rollout(state, 8, seed=2, workers=1).rows.tolist() == \
        games.rollout(state, 8, "net", seed=2, workers=1).rows.tolist()


def test_regression_a_bad_policy_is_refused_naming_every_valid_one():
    """The message named random, first and greedy, not net or a network file."""
    with pytest.raises(GulBaraError, match="random, first, greedy, net, a network's .npz path"):
        play_games(2, "best", workers=1)


def test_regression_candidates_may_be_given_in_notation():
    """compare_plays(game, n, plays=["24/14"]) said "24/14 is not a legal play" although
    "24/14" in game.legal_plays() was true: a candidate is a Play, notation or steps."""
    game = gulbara.Game(seed=24)                   # White to play 6-4
    assert "24/14" in game.legal_plays()
    by_name = compare_plays(game, 36, plays=["24/14", "24/18 24/20"], policy="greedy", seed=1)
    by_play = compare_plays(game, 36, plays=[game.legal_plays().parse("24/14"),
                                             game.legal_plays().parse("24/18 24/20")],
                            policy="greedy", seed=1)
    assert [str(c.play) for c in by_name.candidates] == [str(c.play) for c in by_play.candidates]
    assert [c.equity for c in by_name.candidates] == [c.equity for c in by_play.candidates]
    with pytest.raises(gulbara.IllegalPlayError, match="24/12"):
        compare_plays(game, 36, plays=["24/12"])
    with pytest.raises(TypeError, match="list of candidates"):
        compare_plays(game, 36, plays="24/14")


def test_the_comparison_table_shows_each_candidate_against_the_best():
    game = gulbara.Game(seed=24)
    result = compare_plays(game, 36, policy="greedy", seed=1)
    rows = result.table().splitlines()[1:]
    assert len(rows) == len(result.candidates) == 2
    best_to_second = result.differences[(0, 1)]
    assert f"{-best_to_second.value:+11.3f}" in rows[1] and "to the best" in result.table()
