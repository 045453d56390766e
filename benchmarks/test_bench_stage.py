"""Stage enumeration benchmarks over the fixed suite of ``bench_positions.py`` (STYLE §7).

One benchmark call is one pass over the whole suite: 12 positions x the 15
non-double rolls (180 stage calls) or x the 6 doubles as four dice (72 calls).
``extra_info["calls"]`` is the number of stage calls per pass, so the time per
call is ``median / calls`` (stored as ``extra_info["us_per_call_median"]`` when
timed). Every benchmark asserts the hard-coded total number of ends.

    python3 -m pytest benchmarks/                         # timed
    python3 -m pytest benchmarks/ --benchmark-disable     # each body once, as tests
    python3 benchmarks/report.py                          # the table the README quotes
"""

import pytest

import gulbara
from gulbara.core import _movegen
from gulbara.core import _reference
from bench_timing import finish
from bench_positions import (count_boards, count_with, DOUBLE_JOBS, DOUBLE_STAGES, DOUBLE_TOTAL, NONDOUBLE_JOBS,
                       NONDOUBLE_ROLLS, NONDOUBLE_TOTAL, SUITE)


def _board_jobs(stages):
    """(board, dice) per stage call; the boards are parsed here, outside the timing."""
    boards = [gulbara.Board.from_code(entry.code, entry.seat) for entry in SUITE]
    return tuple((board, dice) for board in boards for dice in stages)


NONDOUBLE_BOARD_JOBS = _board_jobs(NONDOUBLE_ROLLS)
DOUBLE_BOARD_JOBS = _board_jobs(DOUBLE_STAGES)


# -- one pass over the suite ------------------------------------------------------





def notation_of(jobs):
    """Every end of every stage as a Play, then as notation; the number of plays."""
    stage_ends = gulbara.stage_ends
    total = 0
    for code, seat, dice in jobs:
        total += len([str(play) for play in stage_ends(code, seat, dice)])
    return total


def _record(benchmark, api, calls, ends):
    benchmark.extra_info.update(
        api=api, calls=calls, ends=ends, positions=len(SUITE),
        public_backend=gulbara.BACKEND_NAME)


def _finish(benchmark, result, expected):
    finish(benchmark, result, expected, benchmark.extra_info["calls"],
           {"us_per_call_median": lambda calls, median: round(median / calls * 1e6, 4)})


# -- non-double rolls ----------------------------------------------------------------

@pytest.mark.benchmark(group="stage-nondouble")
def test_nondouble_public(benchmark):
    _record(benchmark, "gulbara.stage_ends", len(NONDOUBLE_JOBS), NONDOUBLE_TOTAL)
    result = benchmark(count_with, gulbara.stage_ends, NONDOUBLE_JOBS)
    _finish(benchmark, result, NONDOUBLE_TOTAL)


@pytest.mark.benchmark(group="stage-nondouble")
def test_nondouble_board(benchmark):
    _record(benchmark, "Board.stage_ends", len(NONDOUBLE_BOARD_JOBS), NONDOUBLE_TOTAL)
    result = benchmark(count_boards, NONDOUBLE_BOARD_JOBS)
    _finish(benchmark, result, NONDOUBLE_TOTAL)


@pytest.mark.benchmark(group="stage-nondouble")
def test_nondouble_raw_core(benchmark):
    _record(benchmark, "gulbara.core._movegen.stage_ends", len(NONDOUBLE_JOBS), NONDOUBLE_TOTAL)
    result = benchmark(count_with, _movegen.stage_ends, NONDOUBLE_JOBS)
    _finish(benchmark, result, NONDOUBLE_TOTAL)


# -- doubles as four dice ------------------------------------------------------------

@pytest.mark.benchmark(group="stage-double")
def test_double_public(benchmark):
    _record(benchmark, "gulbara.stage_ends", len(DOUBLE_JOBS), DOUBLE_TOTAL)
    result = benchmark(count_with, gulbara.stage_ends, DOUBLE_JOBS)
    _finish(benchmark, result, DOUBLE_TOTAL)


@pytest.mark.benchmark(group="stage-double")
def test_double_board(benchmark):
    _record(benchmark, "Board.stage_ends", len(DOUBLE_BOARD_JOBS), DOUBLE_TOTAL)
    result = benchmark(count_boards, DOUBLE_BOARD_JOBS)
    _finish(benchmark, result, DOUBLE_TOTAL)


@pytest.mark.benchmark(group="stage-double")
def test_double_raw_core(benchmark):
    _record(benchmark, "gulbara.core._movegen.stage_ends", len(DOUBLE_JOBS), DOUBLE_TOTAL)
    result = benchmark(count_with, _movegen.stage_ends, DOUBLE_JOBS)
    _finish(benchmark, result, DOUBLE_TOTAL)


# -- the naive reference, to track the speed-up ---------------------------------------

@pytest.mark.benchmark(group="stage-reference")
def test_nondouble_reference(benchmark):
    _record(benchmark, "gulbara.core._reference.stage_ends", len(NONDOUBLE_JOBS), NONDOUBLE_TOTAL)
    result = benchmark.pedantic(count_with, args=(_reference.stage_ends, NONDOUBLE_JOBS),
                                rounds=3, iterations=1)
    _finish(benchmark, result, NONDOUBLE_TOTAL)


@pytest.mark.benchmark(group="stage-reference")
def test_double_reference(benchmark):
    _record(benchmark, "gulbara.core._reference.stage_ends", len(DOUBLE_JOBS), DOUBLE_TOTAL)
    result = benchmark.pedantic(count_with, args=(_reference.stage_ends, DOUBLE_JOBS),
                                rounds=3, iterations=1)
    _finish(benchmark, result, DOUBLE_TOTAL)


# -- into Python objects: Play per end, then notation ------------------------------------

@pytest.mark.benchmark(group="stage-plays")
def test_nondouble_plays_notation(benchmark):
    _record(benchmark, "[str(p) for p in gulbara.stage_ends(...)]", len(NONDOUBLE_JOBS),
            NONDOUBLE_TOTAL)
    result = benchmark(notation_of, NONDOUBLE_JOBS)
    _finish(benchmark, result, NONDOUBLE_TOTAL)


@pytest.mark.benchmark(group="stage-plays")
def test_double_plays_notation(benchmark):
    _record(benchmark, "[str(p) for p in gulbara.stage_ends(...)]", len(DOUBLE_JOBS),
            DOUBLE_TOTAL)
    result = benchmark(notation_of, DOUBLE_JOBS)
    _finish(benchmark, result, DOUBLE_TOTAL)


def test_suite_counts_per_position():
    """Not timed: each entry's hard-coded counts, so a failure names the position."""
    for entry in SUITE:
        got = (sum(len(gulbara.stage_ends(entry.code, entry.seat, d)) for d in NONDOUBLE_ROLLS),
               sum(len(gulbara.stage_ends(entry.code, entry.seat, d)) for d in DOUBLE_STAGES))
        assert got == (entry.nondouble_ends, entry.double_ends), entry.name
