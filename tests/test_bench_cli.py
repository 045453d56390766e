"""``gulbara bench``: the headline table runs, checks its counts, and speaks JSON."""

import json

import pytest

import gulbara
from gulbara.chains.enumeration import STOP_COMPLETE
from gulbara.cli import main
from gulbara.tools.suites import MID_GAME_11


def test_bench_json(capsys):
    assert main(["bench", "--json", "--rounds", "1"]) == 0
    result = json.loads(capsys.readouterr().out)
    measures = {row["measure"]: row for row in result["rows"]}
    stage = measures["stage, non-double (us/call)"]
    assert stage["work"] == "180 stages, 2238 ends"
    assert 0 < stage["core"] < stage["reference"]
    assert stage["ratio"] > 1
    assert "chain 1-1, ms per position" in measures
    native = measures["self-play greedy, games/s (1 process)"]
    assert native["core"] > native["reference"] > 0          # native games against Game's
    assert measures["self-play random, games/s (2 worker processes)"]["core"] > 0
    assert result["cpus"] >= 1 and result["rounds"] == 1


def test_bench_table(capsys):
    # the table's form (the JSON test above times the real-game chains in full)
    assert main(["bench", "--rounds", "1", "--chain-limit", "2000"]) == 0
    out = capsys.readouterr().out
    assert "| measure | core | reference | reference / core | work |" in out
    assert "chain 3-3, ms per position" in out


def load_script(name):
    """A script of benchmarks/ as a module."""
    import importlib.util
    from pathlib import Path

    script = Path(__file__).resolve().parent.parent / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_compare_builds_times_the_installed_build(capsys):
    # benchmarks/compare_builds.py on the build under test (the directory that
    # holds the imported package): one row, every outcome count checked.
    from pathlib import Path

    import gulbara

    compare = load_script("compare_builds")
    here = str(Path(gulbara.__file__).resolve().parent.parent)
    compare.main([here, "--alternations", "1", "--runs", "1"])
    rows = capsys.readouterr().out.splitlines()
    assert rows[0].startswith("| build | mean ms | mid-a |")
    assert len(rows) == 3 and rows[2].startswith(f"| {here} | ")
    assert all(float(cell) > 0 for cell in rows[2].strip("|").split("|")[1:])


def test_compare_builds_times_the_real_game_chains(capsys):
    # --suite real: the real-game chains of more than 10,000 outcomes, counts checked.
    from pathlib import Path

    import gulbara
    from gulbara.tools.suites import REAL_GAME_CHAINS

    compare = load_script("compare_builds")
    here = str(Path(gulbara.__file__).resolve().parent.parent)
    compare.main([here, "--alternations", "1", "--runs", "1", "--suite", "real", "--threads", "2"])
    rows = capsys.readouterr().out.splitlines()
    big = sum(entry.outcomes > 10_000 for entry in REAL_GAME_CHAINS)
    assert rows[0].startswith("| build | mean ms | real-0 |") and rows[0].count("real-") == big
    assert len(rows) == 3 and all(float(cell) > 0 for cell in rows[2].strip("|").split("|")[1:])


def test_chain_profile_recounts_the_chains(capsys):
    # benchmarks/chain_profile.py expands mid-c stage by stage with the batch
    # generator and numpy, and checks the chains played in full against chain_ends.
    profile = load_script("chain_profile")
    totals = profile.main(["mid-c"])
    rows = capsys.readouterr().out.splitlines()
    assert rows[0].startswith("| position | stage | frontier | stalled | generated | distinct |")
    stages = [row for row in rows if row.startswith("| mid-c | ") and "-" in row.split("|")[2]]
    assert [row.split("|")[2].strip() for row in stages] == [f"{n}-{n}" for n in range(1, 7)]
    assert "| mid-c | played in full | | | | 31,190 |" in "\n".join(rows)
    assert totals["distinct"] < totals["generated"]


def test_chain_profile_from_a_later_number(capsys):
    profile = load_script("chain_profile")
    rows, complete = profile.profile_chain(MID_GAME_11[3].code, MID_GAME_11[3].seat, 5)
    assert [row["stage"] for row in rows] == ["5-5", "6-6"]
    chain = gulbara.chain_ends(MID_GAME_11[3].code, MID_GAME_11[3].seat, 5)
    assert complete == int((chain.stop == STOP_COMPLETE).sum())
    assert rows[1]["frontier"] == rows[0]["distinct"]


def test_regression_bench_refuses_a_negative_chain_limit_before_any_work(capsys):
    """gulbara bench --chain-limit -1 ran part of the benchmark, then died in a traceback."""
    from gulbara.cli import main
    assert main(["bench", "--chain-limit", "-1"]) == 2
    assert "--chain-limit must be >= 0, got -1" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["bench", "--engine", "true", "--chain-limit", "5"],
     "bench --engine (another engine's speed) does not take --chain-limit"),
    (["bench", "--timeout", "5"], "bench without --engine does not take --timeout"),
    (["bench", "--engine", "true", "--timeout", "inf"], "--timeout must be a number of seconds"),
    (["verify", "--engine", "true", "--timeout", "inf"], "--timeout must be a number of seconds"),
    (["verify", "--engine", "true", "--timeout", "nan"], "--timeout must be a number of seconds"),
    (["verify", "--engine", "true", "--perft", "99"], "--perft depth must be 0..64, got 99"),
    (["verify", "--engine", "true", "--perft", "2", "--positions", "5"],
     "verify --perft does not take --positions"),
    (["verify", "--engine", "true", "--perft", "2", "--show", "5"],
     "verify --perft does not take --show"),
    (["verify", "--engine", "true", "--perft-timeout", "5"],
     "verify without --perft does not take --perft-timeout"),
    (["verify", "--engine", "true", "--state", "start"],
     "verify without --perft does not take --state"),
])
def test_regression_options_a_mode_would_ignore_or_cannot_use_are_refused_in_one_line(
        argv, message, capsys):
    """`verify --timeout inf` and `--perft 99` printed tracebacks and exited 1 (as if the
    answers differed); options a mode does not use were ignored in silence."""
    from gulbara.cli import main
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.splitlines()) == 1 and "Traceback" not in err
