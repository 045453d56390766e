"""Self-play benchmarks (groups "selfplay" and "selfplay-parallel"): the native game loop.

Each benchmark plays the suite's games (``gulbara.tools.suites.SELFPLAY_SUITE``) and
asserts their total decisions and rolls; ``extra_info`` holds the games per
second of the median round. The parallel group plays the same random games on
one and on two worker processes (the scaling of the local path),
``SELFPLAY_PARALLEL``. ``test_selfplay_evaluator`` plays 200 games of a fixed
linear evaluator (one numpy call per decision, on a fresh features array).

    python3 -m pytest benchmarks/test_bench_selfplay.py
"""

import pytest

from gulbara.tools.suites import SELFPLAY_PARALLEL, SELFPLAY_SUITE, selfplay_totals
from bench_timing import finish, per_second


def _finish(benchmark, got, expected, games):
    benchmark.extra_info["games"] = games
    finish(benchmark, got, expected, games, {"games_per_second_median": per_second})


@pytest.mark.benchmark(group="selfplay")
@pytest.mark.parametrize("policy, seed, games, decisions, rolls", SELFPLAY_SUITE,
                         ids=[case[0] for case in SELFPLAY_SUITE])
def test_selfplay_one_core(benchmark, policy, seed, games, decisions, rolls):
    got = benchmark.pedantic(selfplay_totals, (policy, seed, games), rounds=5, iterations=1)
    _finish(benchmark, got, (decisions, rolls), games)


@pytest.mark.benchmark(group="selfplay-parallel")
@pytest.mark.parametrize("workers", [1, 2])
def test_selfplay_random_workers(benchmark, workers):
    policy, seed, games, decisions, rolls = SELFPLAY_PARALLEL
    got = benchmark.pedantic(selfplay_totals, (policy, seed, games, workers), rounds=3,
                             iterations=1)
    _finish(benchmark, got, (decisions, rolls), games)


def _linear_evaluator():
    """A fixed linear evaluator: the cost of one numpy call per decision."""
    import numpy as np
    from gulbara.encoding.features import BOARD_FEATURES
    weights = np.random.default_rng(0).standard_normal(BOARD_FEATURES).astype(np.float32)

    def linear(features):
        return features @ weights
    return linear


#: 200 games of a linear evaluator against itself, seed 2026, and their (decisions, rolls).
EVALUATOR_SUITE = (200, 2026)
EVALUATOR_TOTALS = (13_443, 9_864)


@pytest.mark.benchmark(group="selfplay")
def test_selfplay_evaluator(benchmark):
    from gulbara.selfplay.games import play_games
    games, seed = EVALUATOR_SUITE
    evaluate = _linear_evaluator()

    def run():
        result = play_games(games, evaluate, seed=seed, workers=1)
        if result.unfinished:
            raise AssertionError("self-play: games left unfinished")
        return int(result.column("decisions").sum()), int(result.column("rolls").sum())

    got = benchmark.pedantic(run, rounds=5, iterations=1)
    _finish(benchmark, got, EVALUATOR_TOTALS, games)
