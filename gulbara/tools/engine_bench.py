"""Another engine's speed next to gulbara's, both over a pipe, on the same work.

The named stage suite (:mod:`gulbara.tools.suites`: 12 positions x 21 rolls, 252
requests, 4,492 ends) is sent, one request at a time, to the other engine and
to gulbara's own ``gulbara ends`` (a ``python -m gulbara ends`` subprocess on
the compiled core), alternating which goes first from round to round. Each
round's rate and every request's latency (from writing the request to reading
the answer) are recorded; the answers' end counts are checked against the
suite's after each pass. gulbara's in-process speed on the same requests is
measured alongside: through the JSON answer function (the protocol without the
pipe) and through :func:`gulbara.stage_ends` (no JSON), so the cost of the
protocol itself shows.
"""

import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Sequence, Tuple

import gulbara
from gulbara.errors import GulBaraError
from gulbara.tools.protocol import EngineProcess, answer_request, stage_request
from gulbara.tools.suites import DOUBLE_JOBS, DOUBLE_TOTAL, NONDOUBLE_JOBS, NONDOUBLE_TOTAL

__all__ = ["bench_engine", "format_engine_table", "GULBARA_ENDS"]

#: gulbara's own engine, as the benchmark starts it.
GULBARA_ENDS = (sys.executable, "-m", "gulbara", "ends")
_PERCENTILES = (50, 90, 99)


def _percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def _pass(send: Callable[[Any], Any], lines: Sequence[Any]):
    """(seconds, per-request latencies, answers) of one pass over the requests."""
    latencies, answers = [], []
    clock = time.perf_counter
    began = clock()
    for line in lines:
        start = clock()
        answers.append(send(line))
        latencies.append(clock() - start)
    return clock() - began, latencies, answers


def _end_counts(answers: Sequence[str]) -> List[int]:
    counts = []
    for answer in answers:
        try:
            counts.append(len(json.loads(answer)["ends"]))
        except (ValueError, KeyError, TypeError, RecursionError):
            counts.append(-1)
    return counts


def _summary(seconds: List[float], latencies: List[float], n: int, ends: int) -> Dict:
    row = {"requests_per_second": n / statistics.median(seconds),
           "ends_per_second": ends / statistics.median(seconds)}
    for q in _PERCENTILES:
        row[f"latency_p{q}_us"] = _percentile(latencies, q) * 1e6
    return row


def bench_engine(command: str, rounds: int = 5, timeout: float = 10.0) -> Dict:
    """Time the engine ``command`` against gulbara's ``gulbara ends`` on the stage suite.

    Returns a dict with the work, one summary per column (``engine``, ``gulbara``,
    ``in_process_json``, ``in_process_api``: requests/s, ends/s, latency percentiles
    in microseconds; rates are medians over ``rounds``) and ``mismatched``, the
    requests whose end count in the engine's answers differs from the suite's.
    Raises :class:`gulbara.tools.protocol.EngineError` if an engine fails.
    """
    if gulbara.BACKEND_NAME != "core":
        raise RuntimeError("gulbara bench times the compiled core: unset GULBARA_BACKEND")
    if rounds < 1:
        raise GulBaraError(f"rounds must be >= 1, got {rounds}")
    jobs = NONDOUBLE_JOBS + DOUBLE_JOBS
    total = NONDOUBLE_TOTAL + DOUBLE_TOTAL
    lines = [stage_request(code, seat, dice) for code, seat, dice in jobs]
    want = [len(gulbara.stage_ends(code, seat, dice)) for code, seat, dice in jobs]
    if sum(want) != total:
        raise AssertionError(f"the suite has {sum(want)} ends, expected {total}")
    env = {k: v for k, v in os.environ.items() if k != "GULBARA_BACKEND"}
    # started next to this very package, so that ``-m gulbara`` imports it (and not a
    # source tree in the current directory)
    home = str(Path(gulbara.__file__).resolve().parent.parent)
    samples: Dict[str, Tuple[List[float], List[float]]] = {
        name: ([], []) for name in ("engine", "gulbara")}
    mismatched = {"engine": 0, "gulbara": 0}
    with EngineProcess(command, timeout) as other, \
            EngineProcess(GULBARA_ENDS, timeout, env=env, cwd=home) as own:
        engines = {"engine": other, "gulbara": own}
        for name, engine in engines.items():          # warm-up: start-up and first calls
            _pass(engine.request, lines)
        for r in range(rounds):
            for name in (("engine", "gulbara") if r % 2 == 0 else ("gulbara", "engine")):
                seconds, latencies, answers = _pass(engines[name].request, lines)
                samples[name][0].append(seconds)
                samples[name][1].extend(latencies)
                got = _end_counts(answers)
                mismatched[name] = max(mismatched[name],
                                       sum(1 for g, w in zip(got, want) if g != w))
    if mismatched["gulbara"]:
        raise AssertionError("gulbara ends gave end counts that differ from the suite's")
    columns = {name: _summary(seconds, latencies, len(lines), total)
               for name, (seconds, latencies) in samples.items()}
    # In process: the protocol's answer function (JSON in and out), and the API alone.
    in_process: Dict[str, Tuple[Callable[[Any], Any], Sequence[Any], Callable[[Any], Any]]] = {
        "in_process_json": (answer_request, lines, _end_counts),
        "in_process_api": (lambda job: len(gulbara.stage_ends(*job)), jobs, list)}
    for name, (call, work, counts) in in_process.items():
        seconds_list, latency_list = [], []
        for _ in range(rounds):
            seconds, latencies, answers = _pass(call, work)
            if sum(counts(answers)) != total:
                raise AssertionError(f"{name}: the end counts differ from the suite's")
            seconds_list.append(seconds)
            latency_list.extend(latencies)
        columns[name] = _summary(seconds_list, latency_list, len(work), total)
    return {"engine": command, "gulbara": " ".join(["python", *GULBARA_ENDS[1:]]),
            "requests": len(lines), "ends": total, "rounds": rounds, "columns": columns,
            "mismatched": mismatched["engine"], "cpus": os.cpu_count()}


_MEASURES = (("requests/s", "requests_per_second"), ("ends/s", "ends_per_second"),
             ("latency p50 (us)", "latency_p50_us"), ("latency p90 (us)", "latency_p90_us"),
             ("latency p99 (us)", "latency_p99_us"))


def format_engine_table(result: Dict) -> str:
    """The side-by-side table of :func:`bench_engine`'s result (Markdown)."""
    def number(x: float) -> str:
        return f"{x:,.0f}" if x >= 100 else f"{x:.3g}"

    columns = result["columns"]
    lines = [f"engine:  {result['engine']}",
             f"gulbara: {result['gulbara']} (compiled core)",
             f"work: the stage suite, {result['requests']} requests, {result['ends']:,} ends, "
             f"one request at a time, {result['rounds']} rounds alternating; rates are "
             f"medians of the rounds; {result['cpus']} CPUs", "",
             "| measure | engine | gulbara ends | engine's speed / gulbara's | gulbara "
             "in-process, JSON | gulbara in-process, API (count only) |",
             "|---|---:|---:|---:|---:|---:|"]
    for label, key in _MEASURES:
        # below 1 the engine is slower: its rate is lower, or its latency longer
        ratio = columns["engine"][key] / columns["gulbara"][key]
        if key.startswith("latency"):
            ratio = 1 / ratio
        lines.append(f"| {label} | {number(columns['engine'][key])} | "
                     f"{number(columns['gulbara'][key])} | {ratio:.2f}x | "
                     f"{number(columns['in_process_json'][key])} | "
                     f"{number(columns['in_process_api'][key])} |")
    lines += ["", "engine's speed / gulbara's: below 1 the engine is slower (a lower rate, a "
                  "longer latency); the in-process columns are gulbara without the pipe "
                  "(JSON in and out) and without the protocol (gulbara.stage_ends, counting)"]
    if result["mismatched"]:
        lines += ["", f"WARNING: {result['mismatched']} of the engine's answers have another "
                      "number of ends than gulbara's: run gulbara verify --engine on it"]
    return "\n".join(lines)
