"""Time the stage generator against the naive reference, in one process, and print a table.

    python3 benchmarks/report.py [--rounds 7]

Over the fixed suite of ``bench_positions.py`` (12 positions x the 15 non-double
rolls, and x the 6 doubles as four dice), it first checks that every API
returns the hard-coded totals, then times, round by round and side by side:

* core (public API): ``gulbara.stage_ends(code, seat, dice)``;
* core (Board): ``Board.stage_ends(dice)`` on boards parsed beforehand;
* core (raw): ``gulbara.core._movegen.stage_ends(code, seat, dice)``;
* reference: ``gulbara.core._reference.stage_ends(code, seat, dice)``.

Each figure is the median over the rounds of (pass time / stage calls per
pass), in microseconds per call, including the loop and ``len()``. The
ratio is reference / core (public API). Absolute times move with the machine;
the ratios are the signal (docs/dev/performance.md).
"""

import argparse
import importlib.util
import os
import platform
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))
if importlib.util.find_spec("gulbara") is None:
    # Not installed: use the checkout (built with ``setup.py build_ext --inplace``).
    sys.path.insert(1, str(HERE.parent))

import gulbara  # noqa: E402
from gulbara.core import _movegen  # noqa: E402
from gulbara.core import _reference  # noqa: E402
from gulbara.tools.timing import calibrate, time_call  # noqa: E402
from bench_chains import MID_GAME_11  # noqa: E402
from bench_positions import (count_boards, count_with, DOUBLE_JOBS, DOUBLE_STAGES, DOUBLE_TOTAL,  # noqa: E402
                       NONDOUBLE_JOBS, NONDOUBLE_ROLLS, NONDOUBLE_TOTAL, SUITE)

TARGET_US_PER_CALL = 5.0     # non-double stage, public API
TARGET_SPEEDUP = 50.0        # reference / core (public API), non-double


def board_jobs(stages):
    boards = [gulbara.Board.from_code(entry.code, entry.seat) for entry in SUITE]
    return tuple((board, dice) for board in boards for dice in stages)


def time_pass(func, number):
    """Seconds per call of ``func()``, over ``number`` back-to-back calls (one round)."""
    return time_call(func, 1, number).seconds[0]


def measure(kind, jobs, bjobs, total, rounds):
    """Median microseconds per stage call for each API; each round times all of them."""
    variants = {
        "public": lambda: count_with(gulbara.stage_ends, jobs),
        "board": lambda: count_boards(bjobs),
        "raw": lambda: count_with(_movegen.stage_ends, jobs),
        "reference": lambda: count_with(_reference.stage_ends, jobs),
    }
    for name, func in variants.items():
        got = func()
        if got != total:
            sys.exit(f"{kind}: {name} counted {got} ends, the suite says {total}")
    numbers = {name: (1 if name == "reference" else calibrate(func))
               for name, func in variants.items()}
    samples = {name: [] for name in variants}
    for _ in range(rounds):
        for name, func in variants.items():
            samples[name].append(time_pass(func, numbers[name]) / len(jobs) * 1e6)
    return {name: statistics.median(values) for name, values in samples.items()}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=7,
                        help="timed rounds per figure (median taken); default 7")
    parser.add_argument("--no-chains", action="store_true", help="skip the whole-chain table")
    args = parser.parse_args(argv)
    if gulbara.BACKEND_NAME != "core":
        sys.exit(f"GULBARA_BACKEND selects {gulbara.BACKEND_NAME!r}: unset it to time the core")

    print(f"gulbara {gulbara.__version__} ({Path(gulbara.__file__).parent}), "
          f"Python {platform.python_version()} on {platform.machine()}, "
          f"{os.cpu_count()} CPUs, {args.rounds} rounds, medians")
    print()
    rows = [
        ("non-double rolls", NONDOUBLE_JOBS, board_jobs(NONDOUBLE_ROLLS), NONDOUBLE_TOTAL),
        ("doubles as 4 dice", DOUBLE_JOBS, board_jobs(DOUBLE_STAGES), DOUBLE_TOTAL),
    ]
    results = []
    for label, jobs, bjobs, total in rows:
        results.append(measure(label, jobs, bjobs, total, args.rounds))
    noop = lambda code, seat, dice: ()  # noqa: E731
    overhead = statistics.median(
        time_pass(lambda: count_with(noop, NONDOUBLE_JOBS), 200) / len(NONDOUBLE_JOBS) * 1e6
        for _ in range(args.rounds))

    print("| us per stage call | calls | core (public API) | core (Board) | core (raw) "
          "| reference | reference / core |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for (label, jobs, _, _), r in zip(rows, results):
        print(f"| {label} | {len(jobs)} | {r['public']:.2f} | {r['board']:.2f} | {r['raw']:.2f} "
              f"| {r['reference']:.1f} | {r['reference'] / r['public']:.0f}x |")
    print()
    print(f"counts checked (every API, before timing): {NONDOUBLE_TOTAL} ends over "
          f"{len(SUITE)} positions x {len(NONDOUBLE_ROLLS)} non-double rolls "
          f"({NONDOUBLE_TOTAL / len(NONDOUBLE_JOBS):.1f} per call); {DOUBLE_TOTAL} over "
          f"{len(SUITE)} x {len(DOUBLE_STAGES)} doubles "
          f"({DOUBLE_TOTAL / len(DOUBLE_JOBS):.1f} per call)")
    print(f"harness share of each figure (loop, a no-op call and len()): "
          f"{overhead:.2f} us per call")
    nd = results[0]
    ok_time = nd["public"] <= TARGET_US_PER_CALL
    ok_ratio = nd["reference"] / nd["public"] >= TARGET_SPEEDUP
    print(f"target: non-double stage via the public API <= {TARGET_US_PER_CALL:g} us: "
          f"{nd['public']:.2f} us, {'met' if ok_time else 'NOT MET'}")
    print(f"target: >= {TARGET_SPEEDUP:g}x the reference (non-double, public API): "
          f"{nd['reference'] / nd['public']:.0f}x, {'met' if ok_ratio else 'NOT MET'}")
    if not args.no_chains:
        print()
        report_chains(args.rounds)
    return 0


def report_chains(rounds):
    """Whole chains over the mid-game suite, and the stage-by-stage expansion on small ones."""
    print(f"Whole chains, {len(MID_GAME_11)} mid-game positions (benchmarks/bench_chains.py):")
    print()
    print("| chain | outcomes per position | ms per position | ns per outcome |")
    print("|---|---:|---:|---:|")
    for first in range(1, 7):
        expected = tuple(e.outcomes[first - 1] for e in MID_GAME_11)
        got = tuple(len(gulbara.chain_ends(e.code, e.seat, first)) for e in MID_GAME_11)
        assert got == expected, (first, got, expected)
        repeats = 1 if first <= 2 else 5
        seconds = statistics.median(
            time_pass(lambda: [gulbara.chain_ends(e.code, e.seat, first) for e in MID_GAME_11],
                      repeats)
            for _ in range(max(3, rounds // 2)))
        n = sum(expected)
        print(f"| {first}-{first} | {n / len(MID_GAME_11):,.0f} | "
              f"{seconds / len(MID_GAME_11) * 1e3:.2f} | {seconds / n * 1e9:.0f} |")
    print()
    print("Speed-up over the stage-by-stage Python expansion (gulbara.core._reference.chain_outcomes):")
    print()
    print("| case | outcomes | core ms | expansion over core stages, ms | ratio "
          "| expansion over reference stages, ms | ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    cases = [("mid-a", 5), ("mid-a", 4), ("mid-e", 4), ("mid-d", 3)]
    by_name = {e.name: e for e in MID_GAME_11}
    for name, first in cases:
        entry = by_name[name]
        stages = [(n, 4) for n in range(first, 7)]
        core = statistics.median(time_pass(
            lambda: gulbara.chain_ends(entry.code, entry.seat, first), 5) for _ in range(3))
        slow_core = time_pass(lambda: _reference.chain_outcomes(
            entry.code, entry.seat, stages, True, generate=_movegen.stage_ends), 1)
        if entry.outcomes[first - 1] <= 1000:
            slow_ref = time_pass(lambda: _reference.chain_outcomes(
                entry.code, entry.seat, stages, True), 1)
            ref_cells = f"{slow_ref * 1e3:.0f} | {slow_ref / core:.0f}x"
        else:
            ref_cells = "(too slow) | -"
        print(f"| {name} {first}-{first} | {entry.outcomes[first - 1]:,} | {core * 1e3:.2f} | "
              f"{slow_core * 1e3:.1f} | {slow_core / core:.1f}x | {ref_cells} |")


if __name__ == "__main__":
    sys.exit(main())
