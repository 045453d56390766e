"""Lockstep self-play with a user evaluator: the per-decision games, trajectories as arrays."""

import numpy as np
import pytest

from gulbara import Game
from gulbara.encoding import features as encoding
from gulbara.encoding.features import encode_afterstates
from gulbara.errors import GulBaraError
from gulbara.selfplay.lockstep import play_games_batched
from gulbara.selfplay.games import Rng, play_games

W = np.random.default_rng(0).normal(size=196).astype(np.float32)


def linear(x):
    """Scores each row on its own (so batching cannot change a score)."""
    return (x * W).sum(axis=1, dtype=np.float64)


@pytest.mark.parametrize("lockstep", [1, 7, 64])
def test_same_games_as_the_per_decision_path(lockstep):
    batched = play_games_batched(60, linear, seed=4, lockstep=lockstep)
    per_decision = play_games(60, linear, seed=4, workers=1)
    for name in ("winner", "points", "rolls", "decisions", "starter"):
        assert np.array_equal(batched.column(name), per_decision.column(name)), name
    assert batched.calls < per_decision.column("decisions").sum()


def test_one_call_serves_many_games():
    result = play_games_batched(64, linear, seed=1, lockstep=64)
    assert result.rows / result.calls > 200


def test_trajectories_are_the_games_decisions():
    result = play_games_batched(6, linear, seed=8, lockstep=3, trajectories=True)
    t = result.trajectories
    m = len(t["game"])
    assert t["state"].shape == (m, 220) and t["afterstate"].shape == (m, 196)
    assert t["state"].dtype == np.float32 and t["outcome"].dtype == np.float32
    assert m == int(result.column("decisions").sum())
    for g in range(6):
        rows = np.nonzero(t["game"] == g)[0]
        game = Game(auto_roll=False)
        dice = Rng(8, g, 0)
        k = 0
        while not game.is_over():
            if game.is_opening():
                game.roll_opening(dice.die() + 1, dice.die() + 1)
            elif game.is_chance():
                game.roll(dice.die() + 1, dice.die() + 1)
            else:
                r = rows[k]
                ends = game.legal_plays()
                assert t["seat"][r] == game.decision.seat and t["n_ends"][r] == len(ends)
                assert np.array_equal(t["state"][r], encoding.encode_game(game))
                features = encode_afterstates(ends)
                i = int(np.argmax(linear(features))) if len(ends) > 1 else 0
                assert t["chosen"][r] == i
                assert np.array_equal(t["afterstate"][r], features[i])
                game.play(ends[i])
                k += 1
        assert k == len(rows)
        res = game.result()
        for r in rows:
            expected = 0 if res.winner is None else (res.points if res.winner == t["seat"][r]
                                                     else -res.points)
            assert t["outcome"][r] == expected


def test_bad_evaluators():
    with pytest.raises(GulBaraError, match="scores"):
        play_games_batched(2, lambda x: np.zeros(3), seed=1)
    with pytest.raises(GulBaraError, match="NaN"):
        play_games_batched(2, lambda x: np.full(len(x), np.nan), seed=1)
    with pytest.raises(TypeError):
        play_games_batched(2, None)
    with pytest.raises(ValueError):
        play_games_batched(0, linear)


def test_regression_rules_given_with_a_start_game_are_checked():
    """With start, play_games_batched silently dropped rules (and took rules that are not Rules)."""
    from gulbara import Rules
    with pytest.raises(GulBaraError, match="rules"):
        play_games_batched(2, linear, seed=1, rules=Rules(mars=False), start=Game(auto_roll=False))
    with pytest.raises(TypeError, match="rules"):
        play_games_batched(2, linear, seed=1, rules="not rules", start=Game(auto_roll=False))
    with pytest.raises(TypeError, match="rules"):
        play_games_batched(2, linear, seed=1, rules="not rules")
    same = play_games_batched(4, linear, seed=1, rules=Rules(), start=Game(Rules(), auto_roll=False))
    assert np.array_equal(same.results, play_games_batched(4, linear, seed=1).results)


def test_regression_scores_must_be_finite_real_numbers():
    """play_games_batched played on with infinite or complex scores (only NaN was refused)."""
    for scores in (lambda x: np.full(len(x), np.inf), lambda x: np.zeros(len(x), complex),
                   lambda x: ["a"] * len(x)):
        with pytest.raises(GulBaraError):
            play_games_batched(2, scores, seed=1)


def test_regression_sizes_are_bounded():
    """lockstep or max_rolls past a C int overflowed, and a huge n ran out of memory."""
    with pytest.raises(GulBaraError, match="lockstep"):
        play_games_batched(2, linear, lockstep=2**31)
    with pytest.raises(GulBaraError, match="max_rolls"):
        play_games_batched(2, linear, max_rolls=2**40)
    with pytest.raises(GulBaraError, match="at most"):
        play_games_batched(10**12, linear, lockstep=1)
    assert play_games_batched(3, linear, seed=2, lockstep=10**6).games == 3
