"""The engine protocol's cost: the stage suite through ``gulbara ends`` over a pipe, and
through its answer function in process (STYLE §7).

One benchmark call is one pass over the 252 requests of the stage suite (12 positions x
21 rolls), one request at a time; each asserts the suite's total of 4,492 ends.
``extra_info["requests_per_second"]`` is recorded when timed. ``gulbara bench --engine``
(gulbara.tools.engine_bench) puts another engine next to the pipe figure.
"""

import json
from pathlib import Path

import pytest

import gulbara
from gulbara.cli import answer_request
from gulbara.tools.engine_bench import GULBARA_ENDS
from gulbara.tools.protocol import EngineProcess, stage_request
from bench_timing import finish, per_second
from bench_positions import DOUBLE_JOBS, DOUBLE_TOTAL, NONDOUBLE_JOBS, NONDOUBLE_TOTAL

LINES = [stage_request(code, seat, dice) for code, seat, dice in NONDOUBLE_JOBS + DOUBLE_JOBS]
TOTAL = NONDOUBLE_TOTAL + DOUBLE_TOTAL


def ends_in(answers):
    return sum(len(json.loads(answer)["ends"]) for answer in answers)


@pytest.fixture(scope="module")
def engine():
    home = str(Path(gulbara.__file__).resolve().parent.parent)
    with EngineProcess(GULBARA_ENDS, cwd=home) as process:
        process.request(LINES[0])             # start-up outside the timing
        yield process


@pytest.mark.benchmark(group="protocol")
def test_protocol_over_a_pipe(benchmark, engine):
    benchmark.extra_info.update(requests=len(LINES), ends=TOTAL)
    answers = benchmark(lambda: [engine.request(line) for line in LINES])
    finish(benchmark, ends_in(answers), TOTAL, len(LINES), {"requests_per_second": per_second})


@pytest.mark.benchmark(group="protocol")
def test_protocol_in_process(benchmark):
    benchmark.extra_info.update(requests=len(LINES), ends=TOTAL)
    answers = benchmark(lambda: [answer_request(line) for line in LINES])
    finish(benchmark, ends_in(answers), TOTAL, len(LINES), {"requests_per_second": per_second})
