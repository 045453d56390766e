"""``gulbara bench``: the headline table runs, checks its counts, and speaks JSON."""

import json

from gulbara.cli import main


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
    assert main(["bench", "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    assert "| measure | core | reference | reference / core | work |" in out
    assert "chain 3-3, ms per position" in out


def test_compare_builds_times_the_installed_build(capsys):
    # benchmarks/compare_builds.py on the build under test (the directory that
    # holds the imported package): one row, every outcome count checked.
    import importlib.util
    from pathlib import Path

    import gulbara

    script = Path(__file__).resolve().parent.parent / "benchmarks" / "compare_builds.py"
    spec = importlib.util.spec_from_file_location("compare_builds", script)
    compare = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(compare)
    here = str(Path(gulbara.__file__).resolve().parent.parent)
    compare.main([here, "--alternations", "1", "--runs", "1"])
    rows = capsys.readouterr().out.splitlines()
    assert rows[0].startswith("| build | mean ms | mid-a |")
    assert len(rows) == 3 and rows[2].startswith(f"| {here} | ")
    assert all(float(cell) > 0 for cell in rows[2].strip("|").split("|")[1:])
