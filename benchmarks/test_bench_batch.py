"""Batch stage enumeration (``gulbara.core.batch.stage_ends_batch``) over the fixed suite (STYLE §7).

One benchmark call is one batch of about 10,000 requests: the suite of
``bench_positions.py`` (12 positions x the 15 non-double rolls, or x the 6
doubles as four dice) repeated, in the order of the suite. Every benchmark
asserts the total number of ends, which follows from the suite's hard-coded
counts. ``extra_info["stages"]`` is the batch size, and when timed
``extra_info["stages_per_s_median"]`` the stages enumerated per second (from
the median time of a batch, one thread, arrays in and arrays out; building the
input arrays from codes is outside the timing).

For comparison, ``test_*_single_calls`` times the same requests as a Python
loop over ``gulbara.core._movegen.stage_ends``.

    python3 -m pytest benchmarks/test_bench_batch.py                  # timed
    python3 -m pytest benchmarks/test_bench_batch.py --benchmark-disable
"""

import pytest

from gulbara.core import _movegen
from gulbara.core.batch import arrays_from_requests, stage_ends_batch
from bench_timing import finish, per_second
from bench_positions import DOUBLE_JOBS, DOUBLE_TOTAL, NONDOUBLE_JOBS, NONDOUBLE_TOTAL

NONDOUBLE_REPEATS = 56      # 180 x 56 = 10,080 requests
DOUBLE_REPEATS = 139        # 72 x 139 = 10,008 requests
MIXED_REPEATS = (28, 70)    # 180 x 28 + 72 x 70 = 10,080 requests

BATCHES = {
    "nondouble": (NONDOUBLE_JOBS * NONDOUBLE_REPEATS, NONDOUBLE_TOTAL * NONDOUBLE_REPEATS),
    "double": (DOUBLE_JOBS * DOUBLE_REPEATS, DOUBLE_TOTAL * DOUBLE_REPEATS),
    "mixed": (NONDOUBLE_JOBS * MIXED_REPEATS[0] + DOUBLE_JOBS * MIXED_REPEATS[1],
              NONDOUBLE_TOTAL * MIXED_REPEATS[0] + DOUBLE_TOTAL * MIXED_REPEATS[1]),
}
ARRAYS = {name: arrays_from_requests(jobs) for name, (jobs, _) in BATCHES.items()}


def total_ends(arrays, steps):
    return int(stage_ends_batch(*arrays, steps=steps).counts.sum())


def single_calls(jobs):
    total = 0
    for code, seat, dice in jobs:
        total += len(_movegen.stage_ends(code, seat, dice))
    return total


def _run(benchmark, name, steps):
    jobs, expected = BATCHES[name]
    benchmark.extra_info.update(api="gulbara.core.batch.stage_ends_batch", steps=steps,
                                stages=len(jobs), ends=expected)
    result = benchmark(total_ends, ARRAYS[name], steps)
    _finish(benchmark, result, expected)


def _finish(benchmark, result, expected):
    finish(benchmark, result, expected, benchmark.extra_info["stages"],
           {"stages_per_s_median": per_second,
            "ns_per_stage_median": lambda stages, median: round(median / stages * 1e9, 1)})


@pytest.mark.benchmark(group="batch-nondouble")
def test_nondouble_batch(benchmark):
    _run(benchmark, "nondouble", True)


@pytest.mark.benchmark(group="batch-nondouble")
def test_nondouble_batch_afterstates(benchmark):
    _run(benchmark, "nondouble", False)


@pytest.mark.benchmark(group="batch-nondouble")
def test_nondouble_single_calls(benchmark):
    jobs, expected = BATCHES["nondouble"]
    benchmark.extra_info.update(api="gulbara.core._movegen.stage_ends loop", stages=len(jobs),
                                ends=expected)
    result = benchmark(single_calls, jobs)
    _finish(benchmark, result, expected)


@pytest.mark.benchmark(group="batch-double")
def test_double_batch(benchmark):
    _run(benchmark, "double", True)


@pytest.mark.benchmark(group="batch-double")
def test_double_batch_afterstates(benchmark):
    _run(benchmark, "double", False)


@pytest.mark.benchmark(group="batch-double")
def test_double_single_calls(benchmark):
    jobs, expected = BATCHES["double"]
    benchmark.extra_info.update(api="gulbara.core._movegen.stage_ends loop", stages=len(jobs),
                                ends=expected)
    result = benchmark(single_calls, jobs)
    _finish(benchmark, result, expected)


@pytest.mark.benchmark(group="batch-mixed")
def test_mixed_batch(benchmark):
    _run(benchmark, "mixed", True)


@pytest.mark.benchmark(group="batch-mixed")
def test_mixed_batch_afterstates(benchmark):
    _run(benchmark, "mixed", False)
