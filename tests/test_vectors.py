"""The peer vectors (tests/data, MIT, see tests/data/README.md), byte for byte.

Every "G:" case of moves-gyulbara.json and tricky.json must be reproduced
exactly by the default rules: positions, canonical steps, end kinds,
playableDice and order, through the API and through ``gulbara ends``.
"""

import json
import subprocess
import sys

import pytest

import gulbara
from gulbara.core import _movegen
from gulbara.core import _reference
from gulbara.cli import answer_request, ends_as_case
from conftest import DATA, load_gul_bara_cases, same_package_environment

CASES = load_gul_bara_cases()
CASE_KEYS = ("position", "seat", "dice", "playableDice", "ends")


def expected_line(case):
    return json.dumps({k: case[k] for k in CASE_KEYS}, separators=(",", ":"), ensure_ascii=False)


def request_line(case):
    return json.dumps({"position": case["position"], "seat": case["seat"], "dice": case["dice"]})


def test_the_vectors_are_all_here():
    assert len(CASES) == 67
    assert sum(len(case["ends"]) for case in CASES) == 811


@pytest.mark.parametrize("backend", [_movegen, _reference], ids=["core", "reference"])
def test_every_case_through_the_backend(backend):
    for case in CASES:
        ends = backend.stage_ends(case["position"], case["seat"], case["dice"])
        got = json.dumps(ends_as_case(case["position"], ends), separators=(",", ":"))
        assert got == expected_line(case), f"mismatch for {request_line(case)}"


def test_every_case_through_the_public_api():
    for case in CASES:
        ends = gulbara.stage_ends(case["position"], case["seat"], case["dice"])
        assert ends.playable_dice == case["playableDice"]
        assert [p.code for p in ends] == [e["position"] for e in case["ends"]]
        assert [[list(s) for s in p.steps] for p in ends] == [e["steps"] for e in case["ends"]]
        assert [p.ends_game for p in ends] == [e["end"] == "borneOff" for e in case["ends"]]


def test_moves_file_lines_byte_for_byte():
    """Our answer to each request is the very line of the peer's file."""
    lines = (DATA / "moves-gyulbara.json").read_text().split("\n")
    case_lines = [line.rstrip(",") for line in lines[1:] if line.startswith("{")]
    assert len(case_lines) == 64
    for line in case_lines:
        case = json.loads(line)
        assert answer_request(request_line(case)) == line


def test_gulbara_ends_command_answers_every_request(tmp_path):
    requests = "".join(request_line(case) + "\n" for case in CASES)
    # Run outside the source tree so the installed package is the one imported.
    result = subprocess.run([sys.executable, "-m", "gulbara", "ends"], input=requests,
                            capture_output=True, text=True, timeout=120, check=True,
                            cwd=tmp_path, env=same_package_environment())
    answers = result.stdout.splitlines()
    assert answers == [expected_line(case) for case in CASES]


def test_gulbara_ends_stops_quietly_when_the_reader_goes_away(tmp_path):
    requests = tmp_path / "requests.jsonl"
    requests.write_text("".join(request_line(case) + "\n" for case in CASES) * 200)
    with open(requests) as stdin:
        process = subprocess.Popen([sys.executable, "-m", "gulbara", "ends"], stdin=stdin,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   cwd=tmp_path, env=same_package_environment())
        first = process.stdout.read(100)
        process.stdout.close()                 # like `gulbara ends < requests | head -c 100`
        err = process.stderr.read().decode()
        code = process.wait(timeout=120)
    assert first.startswith(b"{") and "Traceback" not in err
    assert code == 141
