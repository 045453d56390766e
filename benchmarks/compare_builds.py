"""Time a chain suite on two or more builds of gulbara, side by side.

    python3 benchmarks/compare_builds.py DIR [DIR ...] [--alternations 4] [--runs 3]
                                         [--suite mid|real] [--threads N]

Each DIR is a source tree with its extensions built in place (for example a
``git worktree`` of another commit after ``python setup.py build_ext
--inplace``); ``DIR@VAR=VALUE`` runs it under an environment variable too, as
``DIR@GULBARA_DISABLE_CPU_FEATURES=lzcnt`` (the same build on its portable paths). The builds take turns, each in a fresh process that imports
gulbara from its DIR and enumerates the chains of the suite ``--runs`` times,
checking every outcome count: ``mid`` (the default), the eight chains of
``gulbara.tools.suites.MID_GAME_11`` from 1 (default threads); ``real``, the chains
of ``gulbara.tools.suites.REAL_GAME_CHAINS`` with more than 10,000 outcomes, on
``--threads`` threads (1 by default). A chain's time is its best over all runs and alternations
(the machine's noise only ever adds time); the table gives each build's mean
over the eight chains and each chain's time, in milliseconds. Every build is
timed by the same loop, this checkout's ``gulbara/tools/timing.py``, loaded by path
(it needs only the standard library), so builds older than it are timed alike.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

TIMING = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "gulbara", "tools",
                      "timing.py")

CHILD = r"""
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("shared_timing", sys.argv[2])
timing = importlib.util.module_from_spec(spec)
spec.loader.exec_module(timing)
import gulbara
try:
    from gulbara.tools import suites
except ImportError:             # a build from before the subpackages (one flat gulbara/)
    from gulbara import suites
runs, suite, threads = int(sys.argv[1]), sys.argv[3], int(sys.argv[4])
best = {}
if suite == "mid":
    for entry in suites.MID_GAME_11:
        result = timing.time_call(lambda: len(gulbara.chain_ends(entry.code, entry.seat, 1)), runs,
                                  expected=entry.outcomes[0], what=entry.name)
        best[entry.name] = result.best
else:
    big = [entry for entry in suites.REAL_GAME_CHAINS if entry.outcomes > 10_000]
    for i, entry in enumerate(big):
        result = timing.time_call(
            lambda: len(gulbara.chain_ends(entry.code, entry.seat, entry.first, threads=threads)),
            runs, expected=entry.outcomes, what=entry.code)
        best[f"real-{i}"] = result.best
print(json.dumps({"file": gulbara.__file__, "best": best}))
"""


def build_spec(spec):
    """A build argument: ``DIR``, or ``DIR@VAR=VALUE[@VAR=VALUE...]`` to run DIR's build under
    those environment variables too (``DIR@GULBARA_DISABLE_CPU_FEATURES=lzcnt``: the same build
    on its portable paths). Returns the directory and the variables."""
    directory, *settings = spec.split("@")
    extra = {}
    for setting in settings:
        name, equals, value = setting.partition("=")
        if not equals or not name:
            raise SystemExit(f"{spec}: expected DIR@VAR=VALUE, got {setting!r}")
        extra[name] = value
    return directory, extra


def run_build(spec, runs, suite="mid", threads=1):
    directory, extra = build_spec(spec)
    env = dict(os.environ, PYTHONPATH=os.path.abspath(directory), OPENBLAS_NUM_THREADS="1",
               **extra)
    done = subprocess.run([sys.executable, "-c", CHILD, str(runs), os.path.abspath(TIMING), suite,
                           str(threads)],
                          cwd=directory, env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{directory}: {done.stderr.strip() or done.stdout.strip()}")
    result = json.loads(done.stdout)
    if not os.path.abspath(result["file"]).startswith(os.path.abspath(directory)):
        raise SystemExit(f"{directory}: imported gulbara from {result['file']}, not from here")
    return result["best"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("builds", nargs="+", metavar="DIR[@VAR=VALUE]")
    parser.add_argument("--alternations", type=int, default=4)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--suite", choices=("mid", "real"), default="mid")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    best = {build: {} for build in args.builds}
    for _ in range(args.alternations):
        for build in args.builds:
            for name, seconds in run_build(build, args.runs, args.suite, args.threads).items():
                best[build][name] = min(best[build].get(name, seconds), seconds)
    names = list(best[args.builds[0]])
    print("| build | mean ms | " + " | ".join(names) + " |")
    print("|---|---:|" + "---:|" * len(names))
    for build in args.builds:
        times = [best[build][name] * 1000 for name in names]
        print(f"| {build} | {statistics.mean(times):.1f} | "
              + " | ".join(f"{t:.1f}" for t in times) + " |")


if __name__ == "__main__":
    main()
