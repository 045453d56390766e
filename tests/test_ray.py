"""The Ray backend against the local path: the same numbers for the same seed.

Runs on a local Ray instance (``ray.init(num_cpus=2)``); Ray comes with the
``ray`` extra, which CI installs.
"""

import os

import numpy as np
import pytest

# the optional extra: skipped cleanly where it is absent (CI installs it, so there it runs)
ray = pytest.importorskip("ray")

from gulbara import Game  # noqa: E402  (after the extra's importorskip)
from gulbara.cli import main  # noqa: E402  (after the extra's importorskip)
from gulbara.selfplay.games import CHUNK_GAMES, play_games, rollout  # noqa: E402  (after the extra's importorskip)

from conftest import same_package_environment  # noqa: E402  (after the extra's importorskip)


@pytest.fixture(scope="module")
def local_ray(tmp_path_factory):
    # Ray workers start in the driver's directory and put it on their path: start them
    # outside the source tree, importing the package these tests import.
    here = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("ray"))
    try:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
                 runtime_env={"env_vars": {"PYTHONPATH": same_package_environment()["PYTHONPATH"]}})
        yield
    finally:
        ray.shutdown()
        os.chdir(here)


def test_ray_gives_the_local_numbers(local_ray):
    n = 2 * CHUNK_GAMES + 77
    local = play_games(n, "random", seed=123, workers=2)
    distributed = play_games(n, "random", seed=123, backend="ray")
    assert np.array_equal(local.rows, distributed.rows)
    assert np.array_equal(local.chain_histogram, distributed.chain_histogram)


def test_ray_rollout_from_a_state_with_an_evaluator(local_ray):
    game = Game(seed=6)
    for _ in range(20):
        game.play(game.legal_plays()[0])

    def evaluator(features):
        return -features[:, 194] + 0.1 * features[:, 192]

    local = rollout(game, 600, evaluator, seed=9, workers=1)
    distributed = rollout(game, 600, evaluator, seed=9, backend="ray")
    assert np.array_equal(local.rows, distributed.rows)
    assert local.as_dict()["white_equity"] == distributed.as_dict()["white_equity"]


def test_selfplay_cli_on_ray(local_ray, capsys):
    assert main(["selfplay", "--games", "500", "--backend", "ray", "--seed", "2",
                 "--json", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert '"backend": "ray"' in out
    assert f'"mean_rolls": {play_games(500, seed=2, workers=1).mean_rolls.value}' in out


def test_a_rollout_with_luck_subtracted_gives_the_local_numbers_on_ray(local_ray):
    from gulbara.rollouts import rollout as luck_rollout
    game = Game(seed=24)
    local = luck_rollout(game, 144, policy="greedy", seed=3, truncate=20,
                         candidates=["24/14", "24/18 24/20"])
    distributed = luck_rollout(game, 144, policy="greedy", seed=3, truncate=20,
                               candidates=["24/14", "24/18 24/20"], backend="ray")
    assert [c.tally for c in local.candidates_in_order] == \
        [c.tally for c in distributed.candidates_in_order]
    assert local.pairs == distributed.pairs
