"""Whole-chain benchmarks (STYLE §7, group "chain"): the named mid-game suite of
``bench_chains.py``, one benchmark per first number, each asserting its counts;
and the stage-by-stage Python expansion on the small chains, to track the
speed-up.

    python3 -m pytest benchmarks/test_bench_chain.py
"""

import pytest

import gulbara
from gulbara import _movegen, _reference
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
