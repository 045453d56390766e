"""The native vector env (group "vector-env"): agent steps per second over 256 games.

``gymnasium.make_vec("GulBara-v0", num_envs=256, vectorization_mode="vector_entry_point")``
stepped with masked uniformly random actions (drawn with numpy from ``infos["action_mask"]``,
inside the timed loop) for 400 steps: 102,400 agent steps, each sub-env playing its games
against the native opponent. Each round asserts the episodes finished and their total reward,
which the seeds fix (recorded from a run of this file; ``tests/test_vector_env.py`` checks the
masks and observations against the Python step driver). ``extra_info`` holds the agent steps per
second of the median round. Target: >= 100,000 on one core.

    python3 -m pytest benchmarks/test_bench_vector.py
"""

import numpy as np
import pytest

from bench_timing import finish, per_second

gymnasium = pytest.importorskip("gymnasium")
import gulbara.envs.gymnasium  # noqa: E402,F401  registers GulBara-v0

N_ENVS, STEPS, SEED = 256, 400, 1
#: (opponent, episodes finished, total reward of the agent) for N_ENVS, STEPS, SEED
CASES = [("random", 1032, -167.0), ("greedy", 1186, -1729.0)]


def _steps(envs, steps: int, seed: int):
    rng = np.random.default_rng(seed)
    obs, infos = envs.reset(seed=seed)
    episodes, total = 0, 0.0
    for _ in range(steps):
        mask = infos["action_mask"]
        actions = (rng.random(mask.shape) * mask).argmax(axis=1)
        obs, reward, terminated, truncated, infos = envs.step(actions)
        episodes += int(terminated.sum())
        total += float(reward.sum())
    return episodes, total


@pytest.mark.benchmark(group="vector-env")
@pytest.mark.parametrize("opponent, episodes, total", CASES, ids=[c[0] for c in CASES])
def test_vector_env_agent_steps(benchmark, opponent, episodes, total):
    envs = gymnasium.make_vec("GulBara-v0", num_envs=N_ENVS,
                              vectorization_mode="vector_entry_point", opponent=opponent)
    got = benchmark.pedantic(_steps, (envs, STEPS, SEED), rounds=5, iterations=1)
    benchmark.extra_info["agent_steps"] = N_ENVS * STEPS
    finish(benchmark, got, (episodes, total), N_ENVS * STEPS,
           {"agent_steps_per_second_median": per_second})
