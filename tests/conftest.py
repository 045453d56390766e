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


@pytest.fixture(scope="session")
def gul_bara_cases():
    return load_gul_bara_cases()
