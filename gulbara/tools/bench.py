"""The headline measurements of ``gulbara bench``, in one process, as one table.

Every figure is a median over a few timed rounds, and every measurement first
checks its result against the hard-coded counts of :mod:`gulbara.tools.suites`.
Ratios are measured in the same run: the core against the naive reference
(``gulbara.core._reference``) on the same work.

    gulbara bench            # the table
    gulbara bench --json     # the same as one JSON object
    gulbara bench --engine "CMD ARGS"   # another engine next to gulbara's, over pipes
                                        # (gulbara.tools.engine_bench)
"""

import importlib.util
import os
import platform
import statistics
from typing import Callable, Dict, List, Optional, Sequence

import gulbara
from gulbara.core import _movegen
from gulbara.core import _reference
from gulbara.tools.suites import (count_with, DOUBLE_JOBS, DOUBLE_TOTAL, MID_GAME_11, NONDOUBLE_JOBS,
                            NONDOUBLE_TOTAL)
from gulbara.tools.timing import time_call

__all__ = ["run_benchmarks", "format_table", "time_chain_decisions", "chain_time_summary",
           "perft_rows"]


def _median_seconds(func: Callable[[], object], rounds: int, number: int = 1) -> float:
    return time_call(func, rounds, number).median


def _stage_rows(rounds: int) -> List[Dict]:
    rows = []
    for label, jobs, total, ref_rounds in (
            ("stage, non-double (us/call)", NONDOUBLE_JOBS, NONDOUBLE_TOTAL, 3),
            ("stage, double as 4 dice (us/call)", DOUBLE_JOBS, DOUBLE_TOTAL, 1)):
        for generator in (gulbara.stage_ends, _reference.stage_ends):
            got = count_with(generator, jobs)
            if got != total:
                raise AssertionError(f"{label}: {got} ends, expected {total}")
        core = _median_seconds(lambda: count_with(gulbara.stage_ends, jobs), rounds, 20)
        ref = _median_seconds(lambda: count_with(_reference.stage_ends, jobs), ref_rounds)
        rows.append(dict(measure=label, core=core / len(jobs) * 1e6,
                         reference=ref / len(jobs) * 1e6, ratio=ref / core,
                         work=f"{len(jobs)} stages, {total} ends"))
    return rows


def _chain_rows(rounds: int) -> List[Dict]:
    rows = []
    for first in (1, 3):
        expected: Sequence[int] = tuple(e.outcomes[first - 1] for e in MID_GAME_11)

        def suite():
            return tuple(len(gulbara.chain_ends(e.code, e.seat, first)) for e in MID_GAME_11)

        if suite() != expected:
            raise AssertionError(f"chain {first}-{first}: counts differ from the suite's")
        seconds = _median_seconds(suite, max(1, rounds // 2) if first == 1 else rounds)
        rows.append(dict(measure=f"chain {first}-{first}, ms per position", core=seconds
                         / len(MID_GAME_11) * 1e3, reference=None, ratio=None,
                         work=f"{len(MID_GAME_11)} positions, "
                              f"{sum(expected) // len(MID_GAME_11):,} outcomes each on average"))
    # The naive expansion: the reference's stage generator, stage by stage (small chains only).
    small = [(e, first) for e in MID_GAME_11 for first in (4, 5) if e.outcomes[first - 1] <= 400]

    def core_small():
        return [len(gulbara.chain_ends(e.code, e.seat, first)) for e, first in small]

    def naive_small():
        return [len(_reference.chain_outcomes(e.code, e.seat, [(n, 4) for n in range(first, 7)],
                                              True)) for e, first in small]

    expected = [e.outcomes[first - 1] for e, first in small]
    if core_small() != expected or naive_small() != expected:
        raise AssertionError("small chains: counts differ from the suite's")
    core = _median_seconds(core_small, rounds, 5)
    naive = _median_seconds(naive_small, 1)
    rows.append(dict(measure="chain, small ones, ms per chain", core=core / len(small) * 1e3,
                     reference=naive / len(small) * 1e3, ratio=naive / core,
                     work=f"{len(small)} chains, {sum(expected)} outcomes"))
    return rows


def time_chain_decisions(decisions, threads: int, plan=None) -> List[float]:
    """Seconds to enumerate each whole chain of ``decisions`` (suite entries
    with ``code``, ``seat``, ``first``, ``outcomes``) as ``plan`` says (a
    ``gulbara.chains.ChainPlan``; None: the default), each count checked."""
    return [time_call(lambda: len(gulbara.chain_ends(entry.code, entry.seat, entry.first,
                                                     threads=threads, plan=plan)),
                      expected=entry.outcomes,
                      what=f"chain from {entry.code} ({entry.seat}, {entry.first})").seconds[0]
            for entry in decisions]


def chain_time_summary(decisions, seconds: List[float]) -> Dict:
    """Mean, median and worst time (ms), and ns per distinct outcome over the
    chains with more than 10,000 outcomes."""
    big = [(entry.outcomes, t) for entry, t in zip(decisions, seconds) if entry.outcomes > 10_000]
    return dict(mean_ms=statistics.mean(seconds) * 1e3, median_ms=statistics.median(seconds) * 1e3,
                worst_ms=max(seconds) * 1e3, big=len(big),
                ns_per_outcome=(sum(t for _, t in big) / sum(n for n, _ in big) * 1e9
                                if big else None))


def _real_chain_rows(limit: int) -> List[Dict]:
    """The chain decisions met in play (gulbara.tools.suites.REAL_GAME_CHAINS, those
    of at most ``limit`` outcomes; 0: all), each enumerated once, on one
    thread and on two."""
    from gulbara.tools.suites import REAL_GAME_CHAINS
    chosen = [d for d in REAL_GAME_CHAINS if not limit or d.outcomes <= limit]
    one = chain_time_summary(chosen, time_chain_decisions(chosen, 1))
    two = chain_time_summary(chosen, time_chain_decisions(chosen, 2))
    work = (f"{len(chosen)} chains met in play ({sum(d.outcomes for d in chosen):,} outcomes"
            f"{'' if not limit else f', those of at most {limit:,}'}); "
            f"reference column: 1 thread, core: 2 threads")
    rows = []
    for key, label in (("mean_ms", "mean ms"), ("median_ms", "median ms"),
                       ("worst_ms", "worst ms")):
        rows.append(dict(measure=f"chain, real games, {label}", core=two[key], reference=one[key],
                         ratio=one[key] / two[key], work=work))
    if one["ns_per_outcome"] is not None:
        rows.append(dict(measure="chain, real games, ns per outcome (> 10,000 outcomes)",
                         core=two["ns_per_outcome"], reference=one["ns_per_outcome"],
                         ratio=one["ns_per_outcome"] / two["ns_per_outcome"],
                         work=f"the {one['big']} chains of more than 10,000 outcomes"))
    return rows


def _batch_rows(rounds: int) -> List[Dict]:
    """Stages per second through the batch API: the stage suite repeated to about 10,000 requests."""
    from gulbara.core.batch import arrays_from_requests, stage_ends_batch

    repeat = 56
    jobs = NONDOUBLE_JOBS + DOUBLE_JOBS
    arrays = arrays_from_requests(jobs * repeat)
    total = (NONDOUBLE_TOTAL + DOUBLE_TOTAL) * repeat
    if stage_ends_batch(*arrays).n_ends != total:
        raise AssertionError("batch: the total number of ends differs from the suite's")
    seconds = _median_seconds(lambda: stage_ends_batch(*arrays), rounds)
    single = _median_seconds(lambda: count_with(_movegen.stage_ends, jobs), rounds, 20)
    n = len(jobs) * repeat
    return [dict(measure="batch stages, M stages/s", core=n / seconds / 1e6,
                 reference=len(jobs) / single / 1e6, ratio=None,
                 work=f"{n:,} stages ({total:,} ends); reference column: single raw calls")]


def _selfplay_rows(rounds: int) -> List[Dict]:
    """Games per second of the native self-play (one process, then two workers), each run's
    totals checked against the suite; the reference column is the Python driver
    (:func:`gulbara.selfplay.games.replay`) playing the same games."""
    from gulbara.selfplay.games import replay
    from gulbara.tools.suites import SELFPLAY_PARALLEL, SELFPLAY_SUITE, selfplay_totals

    rows = []
    for policy, seed, games, decisions, rolls in SELFPLAY_SUITE:
        if selfplay_totals(policy, seed, games) != (decisions, rolls):
            raise AssertionError(f"self-play {policy}: the totals differ from the suite's")
        core = _median_seconds(lambda: selfplay_totals(policy, seed, games), rounds)
        sample = 20 if policy == "random" else 4
        python = _median_seconds(lambda: [replay(seed, i, policy) for i in range(sample)],
                                 max(1, rounds // 3)) / sample
        rows.append(dict(measure=f"self-play {policy}, games/s (1 process)", core=games / core,
                         reference=1 / python, ratio=python * games / core,
                         work=f"{games:,} games, {decisions:,} decisions; reference column: "
                              f"the Python driver on {sample} of them"))
    policy, seed, games, decisions, rolls = SELFPLAY_PARALLEL
    for workers in (1, 2):
        if selfplay_totals(policy, seed, games, workers) != (decisions, rolls):
            raise AssertionError(f"self-play on {workers} workers: the totals differ")
    one = _median_seconds(lambda: selfplay_totals(policy, seed, games, 1), max(1, rounds // 2))
    two = _median_seconds(lambda: selfplay_totals(policy, seed, games, 2), max(1, rounds // 2))
    rows.append(dict(measure="self-play random, games/s (2 worker processes)", core=games / two,
                     reference=games / one, ratio=one / two,
                     work=f"{games:,} games; reference column: 1 process; ratio: the speed-up"))
    return rows


#: Named states for :func:`perft_rows` (values from tests/data/start.perft and states.perft).
_PERFT_STATES = (
    ("start", "G:,,,,,,,,,,,-15,,,,,,,,,,,,15|0,0|0,0 next=opening rolls=0,0 stuck=0",
     ((3, 262_810), (4, 43_508_585))),
    ("mid-game", "G:1,,,,2,-4,,,,,1,-8,,1,,1,-1,2,2,,-1,-1,,5|0,0|0,0 next=roll:W rolls=8,8 "
                 "stuck=0", ((3, 53_173_422),)),
)


def perft_rows(rounds: int = 5) -> List[Dict]:
    """The perft rows: million leaves per second of the native perft (median of ``rounds``),
    each count checked; the reference column is the Python perft through :class:`gulbara.Game`
    on the same work, where it takes well under a second. Empty without the native perft."""
    from gulbara.game.perft import NATIVE, perft, perft_python

    def rate(func, nodes: int, n_rounds: int) -> float:
        timing = time_call(func, n_rounds, expected=nodes, what="perft")
        return nodes / timing.median / 1e6

    if not NATIVE:
        return []
    rows = []
    for name, code, lines in _PERFT_STATES:
        game = gulbara.Game.from_state_code(code)
        for depth, nodes in lines:
            core = rate(lambda: perft(game, depth), nodes, rounds)
            python = None
            if name == "start" and depth == 3:
                python = rate(lambda: perft_python(game, depth), nodes, max(1, rounds // 2))
            rows.append(dict(measure=f"perft, {name} depth {depth}, M leaves/s", core=core,
                             reference=python, ratio=None if python is None else core / python,
                             work=f"{nodes:,} leaves" + ("; reference column: the Python "
                                                          "perft through Game" if python else "")))
    return rows


def _optional_rows(rounds: int) -> List[Dict]:
    """Measurements of modules that may not be built in every version."""
    if importlib.util.find_spec("gulbara.game._perft") is None:
        return []
    return perft_rows(rounds)


def run_benchmarks(rounds: int = 5, chain_limit: int = 200_000) -> Dict:
    """Run every headline measurement; a dict with the environment and the rows.
    ``chain_limit``: the largest real-game chains timed (outcomes; 0: all)."""
    if gulbara.BACKEND_NAME != "core":
        raise RuntimeError("gulbara bench times the compiled core: unset GULBARA_BACKEND")
    rows = (_stage_rows(rounds) + _batch_rows(rounds) + _chain_rows(rounds)
            + _real_chain_rows(chain_limit) + _optional_rows(rounds) + _selfplay_rows(rounds))
    return dict(gulbara=gulbara.__version__, python=platform.python_version(),
                machine=platform.machine(), cpus=os.cpu_count(), rounds=rounds, rows=rows)


def format_table(result: Dict) -> str:
    """The result of :func:`run_benchmarks` as a Markdown table."""
    lines = [f"gulbara {result['gulbara']}, Python {result['python']} on {result['machine']}, "
             f"{result['cpus']} CPUs, medians of {result['rounds']} rounds", "",
             "| measure | core | reference | reference / core | work |",
             "|---|---:|---:|---:|---|"]

    def number(x: Optional[float]) -> str:
        if x is None:
            return "-"
        return f"{x:,.0f}" if x >= 100 else f"{x:.3g}"

    for row in result["rows"]:
        ratio = "-" if row["ratio"] is None else (
            f"{row['ratio']:,.0f}x" if row["ratio"] >= 10 else f"{row['ratio']:.2f}x")
        lines.append(f"| {row['measure']} | {number(row['core'])} | {number(row['reference'])} "
                     f"| {ratio} | {row['work']} |")
    return "\n".join(lines)
