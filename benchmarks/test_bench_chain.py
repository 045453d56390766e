"""Whole-chain benchmarks (STYLE §7, group "chain"): the named mid-game suite of
``bench_chains.py``, one benchmark per first number, each asserting its counts;
and the stage-by-stage Python expansion on the small chains, to track the
speed-up.

    python3 -m pytest benchmarks/test_bench_chain.py
"""

import pytest

import gulbara
from gulbara.core import _movegen
from gulbara.core import _reference
from bench_chains import MID_GAME_11


def run_suite(first):
    return tuple(len(gulbara.chain_ends(e.code, e.seat, first)) for e in MID_GAME_11)


@pytest.mark.benchmark(group="chain")
@pytest.mark.parametrize("first", range(1, 7))
def test_chain_suite(benchmark, first):
    counts = benchmark(run_suite, first)
    assert counts == tuple(e.outcomes[first - 1] for e in MID_GAME_11)
    benchmark.extra_info.update(positions=len(MID_GAME_11), outcomes=sum(counts))


SMALL = [(e, first) for e in MID_GAME_11 for first in (3, 4)
         if e.outcomes[first - 1] <= 5000]


def expand_small():
    return tuple(len(_reference.chain_outcomes(e.code, e.seat, [(n, 4) for n in range(first, 7)],
                                               True, generate=_movegen.stage_ends))
                 for e, first in SMALL)


def core_small():
    return tuple(len(gulbara.chain_ends(e.code, e.seat, first)) for e, first in SMALL)


@pytest.mark.benchmark(group="chain-small")
def test_chain_small_core(benchmark):
    assert benchmark(core_small) == tuple(e.outcomes[first - 1] for e, first in SMALL)


@pytest.mark.benchmark(group="chain-small")
def test_chain_small_stage_by_stage_expansion(benchmark):
    counts = benchmark.pedantic(expand_small, rounds=3, iterations=1)
    assert counts == tuple(e.outcomes[first - 1] for e, first in SMALL)


# Chain decisions met in play (gulbara.tools.suites.REAL_GAME_CHAINS): the quick
# ones in every run, all of them (minutes) with ``-m slow``. extra_info has
# the mean, median and worst time and the ns per outcome over the chains of
# more than 10,000 outcomes (gulbara.tools.bench.chain_time_summary).
from gulbara.tools.bench import chain_time_summary, time_chain_decisions  # noqa: E402
from gulbara.tools.suites import REAL_GAME_CHAINS  # noqa: E402

REAL_QUICK = [d for d in REAL_GAME_CHAINS if d.outcomes <= 200_000]


def run_real(decisions, threads, summaries):
    seconds = time_chain_decisions(decisions, threads)
    summaries.append(chain_time_summary(decisions, seconds))
    return len(seconds)


@pytest.mark.benchmark(group="chain-real")
@pytest.mark.parametrize("threads", [1, 2])
def test_chain_real_games_quick(benchmark, threads):
    summaries = []
    assert benchmark.pedantic(run_real, (REAL_QUICK, threads, summaries), rounds=1,
                              iterations=1) == len(REAL_QUICK)
    benchmark.extra_info.update(positions=len(REAL_QUICK), threads=threads, **summaries[-1])


@pytest.mark.slow
@pytest.mark.benchmark(group="chain-real")
@pytest.mark.parametrize("threads", [1, 2])
def test_chain_real_games_all(benchmark, threads):
    summaries = []
    assert benchmark.pedantic(run_real, (list(REAL_GAME_CHAINS), threads, summaries), rounds=1,
                              iterations=1) == len(REAL_GAME_CHAINS)
    benchmark.extra_info.update(positions=len(REAL_GAME_CHAINS), threads=threads,
                                **summaries[-1])


# The chains of more than 10,000 outcomes (the measure of ns per outcome and
# of two threads against one), each enumerated once untimed first so that every
# timed round finds the outcome buffers kept for its size (gulbara.chains.enumeration.buffer_pool).
REAL_BIG = [d for d in REAL_GAME_CHAINS if d.outcomes > 10_000]


@pytest.mark.benchmark(group="chain-real-big")
@pytest.mark.parametrize("threads", [1, 2])
def test_chain_real_games_big(benchmark, threads):
    summaries = []
    time_chain_decisions(REAL_BIG, threads)                       # untimed
    assert benchmark.pedantic(run_real, (REAL_BIG, threads, summaries), rounds=3,
                              iterations=1) == len(REAL_BIG)
    best = min(summaries, key=lambda summary: summary["ns_per_outcome"])
    benchmark.extra_info.update(positions=len(REAL_BIG), threads=threads, **best)


# The stress chain (gulbara.tools.suites.STRESS_CHAINS, 27,070,371 outcomes, default
# threads): counted on its decision diagram, no outcome written; and listed in
# full (``-m slow``: seconds and about 1 GB).
from gulbara.tools.suites import STRESS_CHAINS  # noqa: E402


@pytest.mark.benchmark(group="chain-stress")
def test_chain_stress_count(benchmark):
    entry = STRESS_CHAINS[0]
    assert benchmark.pedantic(gulbara.chain_count, (entry.code, entry.seat, entry.first),
                              rounds=3, iterations=1) == entry.outcomes


@pytest.mark.slow
@pytest.mark.benchmark(group="chain-stress")
def test_chain_stress_ends(benchmark):
    entry = STRESS_CHAINS[0]
    assert benchmark.pedantic(lambda: len(gulbara.chain_ends(entry.code, entry.seat, entry.first)),
                              rounds=3, iterations=1) == entry.outcomes
