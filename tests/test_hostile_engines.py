"""The engine harness (gulbara.tools.protocol.EngineProcess, under ``verify --engine`` and
``bench --engine``) against hostile engines, the small scripts of tests/engines/: it never
blocks longer than a request's deadline, keeps its memory bounded, names what the engine did,
and leaves no process of the engine's behind."""

import os
import sys
import time
from pathlib import Path

import pytest

from gulbara.cli import main
from gulbara.tools.protocol import EngineError, EngineProcess
from gulbara.tools.verify import EXCERPT_CHARS, KEPT_ANSWER_CHARS, run_verify, verify_cases

ENGINES = Path(__file__).resolve().parent / "engines"


def engine(name):
    return [sys.executable, str(ENGINES / name)]


def group_members(pgid):
    """The live processes of process group ``pgid`` (Linux: /proc), or None elsewhere; waits
    up to 2 s for the killed ones to go (a kill is delivered, not awaited)."""
    if not sys.platform.startswith("linux"):
        return None
    deadline = time.monotonic() + 2.0
    while True:
        found = _members(pgid)
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.02)


def _members(pgid):
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                text = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            fields = text[text.rindex(")") + 2:].split()
            if fields[0] != "Z" and int(fields[2]) == pgid:
                found.append(int(entry))
    return found


def fails_within(seconds, process, line, match, **kwargs):
    began = time.monotonic()
    with pytest.raises(EngineError, match=match) as info:
        process.request(line, **kwargs)
    took = time.monotonic() - began
    assert took < seconds, f"{took:.1f} s"
    return info.value


def test_regression_an_engine_that_stops_reading_cannot_block_a_request():
    """A request written with a blocking write to an engine that reads nothing blocked for
    good once the pipe was full."""
    with EngineProcess(engine("noread_silent.py"), timeout=1, startup=0) as silent:
        fails_within(3, silent, "x" * (4 << 20),
                     "stopped reading its input: the request was not taken within 1 s")


def test_regression_an_engine_answering_without_reading_is_stopped_for_flooding(capsys):
    """`verify --engine eng_noread.py --timeout 5` ran on past 100 s: each busy line was
    taken as an answer until the requests filled the pipe, then the write blocked."""
    began = time.monotonic()
    assert main(["verify", "--engine", " ".join(engine("noread_busy.py")),
                 "--timeout", "2"]) == 3
    assert time.monotonic() - began < 30
    out = capsys.readouterr().out
    assert "ENGINE FAILURE" in out
    assert "lines it was not asked for" in out or "stopped reading its input" in out


def test_regression_a_flooding_engine_keeps_memory_bounded():
    """A `yes`-like engine filled an unbounded answer queue (7.8 GB in 120 s)."""
    with EngineProcess(engine("flood.py"), timeout=5, startup=0) as flood:
        time.sleep(0.5)                             # it writes before anything is asked
        error = fails_within(3, flood, "{}", "flood|not asked for")
        assert len(error.wrote) <= 300
        assert len(flood._lines) == 0 and flood._queued <= flood.max_line


def test_regression_an_endless_answer_line_is_cut_at_the_limit():
    with EngineProcess(engine("endless_line.py"), timeout=5, startup=0,
                       max_line=1 << 20) as endless:
        error = fails_within(5, endless, "{}", "answered a line over 1,048,576 bytes")
        assert len(error.wrote) <= 300 and len(endless._partial) <= 300


def test_regression_an_engine_that_exits_leaving_a_child_on_its_output():
    """`--engine "sh -c 'sleep 200 & exit 0'"`: the engine had exited, so close() skipped the
    process-group kill and then blocked reading the pipe its child held."""
    began = time.monotonic()
    process = EngineProcess(engine("leaves_child.py"), timeout=10, startup=20)
    fails_within(5, process, "{}", r"exited \(status 0\) after 0 answers, leaving a child "
                                   "process that held its output")
    process.close()
    assert time.monotonic() - began < 8
    members = group_members(process._process.pid)
    assert members in (None, [])                    # the child was killed with its group


def test_regression_close_kills_the_group_of_an_engine_that_exited():
    """The same engine shut down without a request: close() kills what it left too."""
    process = EngineProcess(engine("leaves_child.py"), timeout=10)
    time.sleep(0.5)                                 # the engine has exited; its child lives
    assert process._process.poll() == 0
    began = time.monotonic()
    process.close()
    assert time.monotonic() - began < 3
    assert group_members(process._process.pid) in (None, [])


def test_regression_verify_keeps_bounded_excerpts_of_failing_answers(monkeypatch):
    """verify kept every failing answer whole: 15 MB lines took it to 8.4 GB."""
    from gulbara.tools import verify
    monkeypatch.setattr(verify, "FULL_FAILURES", 3)
    cases = verify_cases(0, 1)[:8]
    with EngineProcess(engine("huge_answers.py"), timeout=10) as huge:
        report = run_verify(huge, cases)
    assert report.answered == 8 and len(report.failures) == 8
    lengths = sorted(len(f.answer) for f in report.failures)
    assert lengths[-1] <= KEPT_ANSWER_CHARS + 40     # (an error answer lists no ends)
    assert lengths[4] <= EXCERPT_CHARS + 40          # 3 kept longer, 5 cut to an excerpt
    assert "the engine answered an error" in report.format(2)
