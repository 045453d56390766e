"""Shared test set-up: the tests run against the installed gulbara package."""

import json
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))


def load_gul_bara_cases():
    """Every "G:" case of the peer vectors (tests/data, see its README)."""
    cases = list(json.loads((DATA / "moves-gyulbara.json").read_text())["cases"])
    tricky = json.loads((DATA / "tricky.json").read_text())["cases"]
    cases += [case for case in tricky if case["position"].startswith("G:")]
    return cases


def read_perft_table(path):
    """The lines of a perft table (tests/data/*.perft; format at the top of each file)."""
    rows = []
    for line in path.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        slow = line.startswith("slow ")
        if slow:
            line = line[len("slow "):]
        rules, depth, nodes, state = line.split(" ", 3)
        rows.append({"rules": rules, "depth": int(depth), "nodes": int(nodes), "state": state,
                     "slow": slow, "file": path.name})
    return rows


@pytest.fixture(scope="session")
def gul_bara_cases():
    return load_gul_bara_cases()


def same_package_environment():
    """Environment variables under which a subprocess (or a Ray worker) imports the very
    gulbara package these tests import (installed, or a source tree built in place)."""
    import os
    import gulbara
    home = str(Path(gulbara.__file__).resolve().parent.parent)
    paths = [home] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}
