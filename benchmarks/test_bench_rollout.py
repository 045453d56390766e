"""Rollout benchmarks (group "rollout"): one position, plainly and by each luck rule.

Each plays 144 games of the mid-game position of ``benchmarks/rollout_precision.py`` by the net
policy on one thread (``gulbara.rollouts._rollout.rollout_block``, quasi-random first rolls,
seed 1) and asserts the games' total rolls: the luck rules change no game, so every rule plays
the same rolls. ``extra_info`` holds the games per second of the median round and the per-game
standard deviation of the estimate; the equal-time ratio of docs/user/rollouts.md is
``sqrt(sd_plain**2 t_plain / (sd**2 t))`` of two of them.

    python3 -m pytest benchmarks/test_bench_rollout.py
"""

import numpy as np
import pytest

from bench_timing import finish, per_second
from rollout_precision import positions

#: Games a round, and their total rolls from the mid-game position (seed 1).
GAMES = 144
ROLLS = 4_389


@pytest.fixture(scope="module")
def setting():
    from gulbara.eval.bearoff import bearoff_table
    from gulbara.net.model import default_net
    from gulbara.rollouts.luckmodel import luck_model
    start = dict(positions())["mid-game"]
    return start, default_net(start.rules), bearoff_table(), luck_model(start.rules)


@pytest.mark.benchmark(group="rollout")
@pytest.mark.parametrize("rule", ["plain", "model", "pips", "fast", "full"])
def test_rollout_rule(benchmark, setting, rule):
    from gulbara.rollouts import LUCK_RULES, _rollout
    start, net, race, model = setting
    vr = rule != "plain"

    def play():
        return _rollout.rollout_block(
            [start], start.to_move, ("net", "net"), (net.native,) * 2, net.native, vr, 1, 0,
            GAMES, 0, True, LUCK_RULES["full" if rule == "plain" else rule], race.dist,
            race.first_dist, model.packed(), model.units)

    out = benchmark.pedantic(play, rounds=3, iterations=1)
    estimate = out["points"][0] - out["luck"][0]
    benchmark.extra_info["sd_a_game"] = float(np.std(estimate, ddof=1))
    finish(benchmark, int(out["rolls"].sum()), ROLLS, GAMES,
           {"games_per_second_median": per_second})
