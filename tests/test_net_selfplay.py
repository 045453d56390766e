"""Native self-play with the net policy: the Python Game with the numpy forward pass replays it."""

import numpy as np
import pytest

from gulbara import Game
from gulbara.selfplay import _selfplay
from gulbara.net import _play
from gulbara.net.model import ValueNet
from gulbara.selfplay.games import play_games, replay, rollout
from gulbara.cli.selfplay import run as selfplay_run, add_arguments
from gulbara.net.train import train


@pytest.fixture(scope="module")
def weights(tmp_path_factory):
    """A tiny network trained a little, so that its choices are not arbitrary."""
    path = tmp_path_factory.mktemp("net") / "tiny.npz"
    result = train(200, seed=4, hidden=12, batch=20, checkpoint=200, eval_pairs=5, progress=None)
    result.net.save(str(path))
    return str(path)


def test_native_net_games_replay_decision_for_decision(weights):
    net = ValueNet.load(weights)
    rows, _, traces = _selfplay.play_games(Game(auto_roll=False), 9, 0, 12, ("net", "net"), None, 10000,
                                           True, (net.native, net.native))
    decisions = 0
    for i in range(12):
        trace = []
        game = replay(9, i, weights, trace=trace)
        assert [tuple(pair) for pair in traces[i][0]] == trace
        assert game.state_code() == traces[i][1]
        assert rows[i, 6] == len(game.plays)
        decisions += len(trace)
    assert decisions > 500


def test_net_against_greedy_by_seat(weights):
    result = play_games(40, (weights, "greedy"), seed=2, workers=1)
    assert result.games == 40 and result.policy == (weights, "greedy")
    trace = []
    game = replay(2, 5, (weights, "greedy"), trace=trace)
    assert int(result.column("decisions")[5]) == len(trace) == len(game.plays)


def test_same_numbers_for_any_workers(weights):
    one = play_games(60, weights, seed=3, workers=1)
    two = play_games(60, weights, seed=3, workers=2)
    assert np.array_equal(one.rows, two.rows)


def test_rollout_with_the_net(weights):
    game = Game(auto_roll=False)
    game.roll_opening(6, 1)
    result = rollout(game, 100, weights, seed=1, workers=1)
    white, black = result.win_probability
    assert abs(white.value + black.value - 1) < 1e-9


def test_net_policy_needs_a_network():
    with pytest.raises(ValueError, match="network"):
        _selfplay.play_games(Game(auto_roll=False), 1, 0, 1, ("net", "net"), None, 100, False,
                             (None, None))


def test_selfplay_cli_policy_path(weights):
    import argparse
    import io
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--games", "20", "--policy", weights, "--workers", "1", "--quiet"])
    out, err = io.StringIO(), io.StringIO()
    assert selfplay_run(args, None, out, err) == 0, err.getvalue()
    assert weights in out.getvalue() and "20" in out.getvalue()
    with pytest.raises(SystemExit):
        parser.parse_args(["--games", "20", "--policy", "nobody"])


@pytest.mark.parametrize("what", ["match", "train"])
def test_long_native_runs_stop_on_ctrl_c(weights, what):
    import os
    import signal
    import threading
    import time
    net = ValueNet.load(weights)
    # Python's own handler, even where the process was started with SIGINT ignored
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    began = time.perf_counter()
    try:
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            if what == "match":
                _play.play_match("net", "greedy", Game(auto_roll=False), 1, 0, 10_000_000,
                                 True, network_a=net.native)
            else:
                train(10_000_000, seed=1, hidden=8, checkpoint=1_000_000, progress=None)
    finally:
        timer.join()
        signal.signal(signal.SIGINT, previous)
    assert time.perf_counter() - began < 5
