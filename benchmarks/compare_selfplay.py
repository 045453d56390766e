"""Self-play, the native arena and training on two or more builds of gulbara, side by side.

Each build (a directory that gulbara imports from, built in place) runs in a fresh process, turn
about, ``--alternations`` times; the best games/s of each figure is kept: ``play_games(n,
policy, seed=1, workers=1)`` for random (4,000 games), greedy (400) and net (200), each the
best of three rounds, the native arena greedy against first (400 games) and ``train(2000,
seed=1)``. Usage::

    python benchmarks/compare_selfplay.py ../gulbara-before .

``DIR@VAR=VALUE`` runs DIR's build under an environment variable too (as
``.@GULBARA_DISABLE_CPU_FEATURES=lzcnt``, the same build on its portable paths).

Works on builds from before the subpackages (one flat ``gulbara/``) too.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

from compare_builds import build_spec     # the same DIR@VAR=VALUE arguments (beside this file)

CHILD = r"""
import json, time
from gulbara.selfplay import play_games
try:
    from gulbara.selfplay.arena import arena
    from gulbara.net.train import train
except ImportError:             # a build from before the subpackages
    from gulbara.arena import arena
    from gulbara.train import train

def best_rate(call, n, rounds=3):
    best = float("inf")
    for _ in range(rounds):
        began = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - began)
    return n / best

out = {}
for policy, n in (("random", 4000), ("greedy", 400), ("net", 200)):
    out[policy] = best_rate(lambda: play_games(n, policy, seed=1, workers=1), n)
out["native arena"] = best_rate(lambda: arena("greedy", "first", 400, seed=3, native=True), 400)
out["train"] = best_rate(lambda: train(2000, seed=1, checkpoint=2000, eval_pairs=1,
                                       progress=None), 2000, rounds=1)
print(json.dumps(out))
"""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("builds", nargs="+", metavar="DIR[@VAR=VALUE]")
    parser.add_argument("--alternations", type=int, default=3)
    args = parser.parse_args(argv)
    results = {build: [] for build in args.builds}
    with tempfile.TemporaryDirectory() as folder:      # no source tree on the path but DIR's
        for _ in range(args.alternations):
            for build in args.builds:
                directory, extra = build_spec(build)
                env = dict(os.environ, PYTHONPATH=os.path.abspath(directory), **extra)
                done = subprocess.run([sys.executable, "-c", CHILD], capture_output=True,
                                      text=True, env=env, cwd=folder)
                if done.returncode:
                    print(done.stderr, file=sys.stderr)
                    return 1
                results[build].append(json.loads(done.stdout))
    keys = list(results[args.builds[0]][0])
    print("| build | " + " | ".join(keys) + " |")
    print("|---|" + "---:|" * len(keys))
    for build, runs in results.items():
        print(f"| {build} | " + " | ".join(f"{max(r[k] for r in runs):,.0f}" for k in keys)
              + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
