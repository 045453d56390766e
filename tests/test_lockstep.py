"""Lockstep self-play with a user evaluator: the per-decision games, trajectories as arrays."""

import numpy as np
import pytest

from gulbara import Game, encoding
from gulbara.encoding import encode_afterstates
from gulbara.errors import GulBaraError
from gulbara.lockstep import play_games_batched
from gulbara.selfplay import Rng, play_games

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
