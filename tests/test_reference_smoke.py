"""Smoke tests of the reference backend (gulbara.core._reference) against the test vectors."""

import json
from pathlib import Path

import pytest

from gulbara.core import _reference
from gulbara.errors import (
    IllegalPlayError,
    InvalidDiceError,
    InvalidPositionError,
    InvalidSeatError,
)

DATA = Path(__file__).parent / "data"


def _vector_file(name):
    return DATA / name


def _cases(name):
    with open(_vector_file(name), encoding="utf-8") as handle:
        return json.load(handle)["cases"]


def _g_cases():
    cases = []
    for name in ("tricky.json", "moves-gyulbara.json"):
        for number, case in enumerate(_cases(name)):
            if case["position"].startswith("G:"):
                cases.append(pytest.param(case, id=f"{name}:{number}"))
    return cases


def _check_case(case, code):
    ends = _reference.stage_ends(code, case["seat"], case["dice"])
    assert ends.seat == case["seat"]
    assert ends.dice == tuple(sorted(case["dice"], reverse=True))
    assert ends.playable_dice == case["playableDice"]
    assert len(ends) == len(case["ends"])
    for i, expected in enumerate(case["ends"]):
        assert ends.code(i) == "G:" + expected["position"][2:]
        assert list(map(list, ends.steps(i))) == expected["steps"]
        assert ends.ends_game(i) == (expected["end"] == "borneOff")
        assert ends.position(i).code() == ends.code(i)
        assert ends.index(ends.position(i)) == i
        # The canonical steps replay to the end.
        start = _reference.Position.from_code(code)
        assert start.apply_steps(case["seat"], ends.steps(i)) == ends.position(i)


@pytest.mark.parametrize("case", _g_cases())
def test_gul_bara_vectors(case):
    _check_case(case, case["position"])


# tricky.json has no Gul Bara bearing-off or larger-die case. These plain
# backgammon ("O:") cases have seat 0 to move, no checker on the bar and no
# hit, so seat 0's plays are the same under Gul Bara rules (RULES §2-3).
BACKGAMMON_CASES_WITHOUT_HITS = {
    "both-dice-by-order",
    "larger-die",
    "smaller-die-only",
    "double-partly-playable",
    "bear-off-exact",
    "bear-off-higher-die",
    "no-bear-off-outside-home",
    "last-checker-mid-roll",
    "last-checker-double",
}


def _backgammon_cases():
    return [
        pytest.param(case, id=case["name"])
        for case in _cases("tricky.json")
        if case.get("name") in BACKGAMMON_CASES_WITHOUT_HITS
    ]


@pytest.mark.parametrize("case", _backgammon_cases())
def test_backgammon_cases_without_hits(case):
    assert case["seat"] == 0
    _check_case(case, "G:" + case["position"][2:])


def test_start_position():
    start = _reference.Position.from_code(_reference.START_CODE)
    assert start.code() == _reference.START_CODE
    assert start.pip_count(0) == start.pip_count(1) == 15 * 24
    assert start.borne_off(0) == start.borne_off(1) == 0
    assert start.points()[11] == -15 and start.points()[23] == 15
    assert _reference.Position.from_points(start.points(), 0, 0) == start
    assert hash(start) == hash(_reference.Position.from_code(_reference.START_CODE))
    assert 0 <= start.key() < 2**64


def test_code_is_canonical_and_key_follows_equality():
    loose = "G:+0,,,,,,,,,,,-15,,,,,,,,,,,-0,+15|0,0|0,0"
    position = _reference.Position.from_code(loose)
    assert position.code() == _reference.START_CODE
    assert position.key() == _reference.Position.from_code(_reference.START_CODE).key()
    moved = position.apply_steps(0, [(24, 6)])
    assert moved.key() != position.key()
    assert moved.pip_count(0) == 15 * 24 - 6


def test_black_numbering():
    # Black's own 24 is White's 12; Black's [24, 3] lands on White's 9 (RULES §1.3).
    start = _reference.Position.from_code(_reference.START_CODE)
    moved = start.apply_steps(1, [(24, 3)])
    assert moved.points()[8] == -1 and moved.points()[11] == -14


def test_dice_are_normalised():
    ends = _reference.stage_ends(_reference.START_CODE, 0, [1, 2])
    assert ends.dice == (2, 1)


@pytest.mark.parametrize(
    "dice", [[], [6, 5, 4], [7, 1], [0, 2], [3, 3, 3, 3, 3], [6, 6, 5]]
)
def test_invalid_dice(dice):
    with pytest.raises(InvalidDiceError):
        _reference.stage_ends(_reference.START_CODE, 0, dice)


@pytest.mark.parametrize("dice", [[6.0, 5], [True, 2], ["6", "5"]])
def test_non_int_dice(dice):
    with pytest.raises(TypeError):
        _reference.stage_ends(_reference.START_CODE, 0, dice)


def test_invalid_seat():
    with pytest.raises(InvalidSeatError, match="2"):
        _reference.stage_ends(_reference.START_CODE, 2, [6, 5])
    with pytest.raises(TypeError):
        _reference.stage_ends(_reference.START_CODE, True, [6, 5])
    with pytest.raises(TypeError):
        _reference.stage_ends(_reference.START_CODE, "0", [6, 5])


@pytest.mark.parametrize(
    "code",
    [
        "X:,,,,,,,,,,,-15,,,,,,,,,,,,15|0,0|0,0",  # no G: prefix
        "G:,,,,,,,,,,,-15,,,,,,,,,,,,15|0,0",  # two sections
        "G:,,,,,,,,,,-15,,,,,,,,,,,,15|0,0|0,0",  # 23 points
        "G:,,,,,,,,,,,-15,,,,,,,,,,,,1x|0,0|0,0",  # not an integer
        "G:,,,,,,,,,,,-15,,,,,,,,,,,1,14-1|0,0|0,0",  # both colours
        "G:,,,,,,,,,,,-15,,,,,,,,,,,,16|0,0|0,0",  # above 15
        "G:,,,,,,,,,,,-15,,,,,,,,,,,,15|1,0|0,0",  # bar
        "G:,,,,,,,,,,,-15,,,,,,,,,,,,14|0,0|1,16",  # borne off above 15
        "G:,,,,,,,,,,,-15,,,,,,,,,,,,14|0,0|0,0",  # 14 White checkers
    ],
)
def test_invalid_position(code):
    with pytest.raises(InvalidPositionError):
        _reference.Position.from_code(code)


def test_position_code_must_be_str():
    with pytest.raises(TypeError):
        _reference.Position.from_code(None)


def test_apply_steps_names_the_bad_step():
    start = _reference.Position.from_code(_reference.START_CODE)
    with pytest.raises(IllegalPlayError, match=r"\(23, 1\)"):
        start.apply_steps(0, [(24, 1), (23, 1), (23, 1)])
    with pytest.raises(IllegalPlayError, match=r"step 4 \(18, 6\)"):
        start.apply_steps(0, [(24, 6), (24, 6), (24, 6), (18, 6)])  # 12 is Black's
    with pytest.raises(IllegalPlayError):
        start.apply_steps(0, [(6, 6)])  # no checker there
    last = _reference.Position.from_code("G:1,,,,,,,,,,,-15,,,,,,,,,,,,|0,0|14,0")
    with pytest.raises(IllegalPlayError):
        last.apply_steps(0, [(1, 1), (1, 1)])  # nothing may follow the 15th off


def test_ends_index_errors():
    ends = _reference.stage_ends(_reference.START_CODE, 0, [6, 6, 6, 6])
    assert len(ends) == 1
    with pytest.raises(IndexError):
        ends.steps(1)
    with pytest.raises(IndexError):
        ends.code(-1)
    assert ends.index(_reference.Position.from_code(_reference.START_CODE)) == -1


def test_no_move_is_one_empty_end():
    code = "G:,,,,,2,2,2,2,2,2,-3,,,,,,,,,,,,3|0,0|0,12"
    ends = _reference.stage_ends(code, 1, [6, 5])
    assert len(ends) == 1 and ends.playable_dice == 0
    assert ends.steps(0) == () and ends.code(0) == code
