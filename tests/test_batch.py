"""The batch API (gulbara.core.batch) against the single-stage API (STYLE §6: batch == single).

Thousands of (position, stage) requests from the generators of ``positions.py``
(random play, random placements, bear-offs, primes, blocked starts), both
seats, every stage kind (two different dice in either order, one to four equal
dice): the same ends in the same order, the same canonical steps, the same
playable dice and the same game-end flags as ``gulbara.stage_ends``. Then the
input checks (a bad row names its index and its problem; a wrong dtype or shape
names the expected one), the empty batch, the afterstates-only mode, threads,
and the Python stand-in used under ``GULBARA_BACKEND=reference``.
"""

import os
import random
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gulbara
from gulbara.core import _movegen
from gulbara.core import _reference
from gulbara.core import batch
from gulbara.core.batch import (arrays_from_requests, boards_from_codes, code_from_board, dice_array,
                           stage_ends_batch)
from gulbara.errors import InvalidDiceError, InvalidPositionError, InvalidSeatError
from positions import bear_off_position, mixed_positions, random_valid_position

START = gulbara.START_CODE
ROLL_STAGES = [(a, b) if a != b else (a,) * 4 for a in range(1, 7) for b in range(a, 7)]


def make_requests(seed, n_positions):
    """Every position x the 21 rolls (half of the non-doubles given smaller die first)
    + a partial stage of one to three equal dice, the seat to move or, for a quarter
    of the positions, the other seat."""
    rng = random.Random(seed)
    requests = []
    for code, seat in mixed_positions(seed, n_positions):
        if rng.random() < 0.25:
            seat = 1 - seat
        for dice in ROLL_STAGES:
            if len(dice) == 2 and rng.random() < 0.5:
                dice = dice[::-1]
            requests.append((code, seat, dice))
        requests.append((code, seat, (rng.randint(1, 6),) * rng.randint(1, 3)))
    return requests


REQUESTS = make_requests(31, 300)        # 6,600 requests


def single_description(code, seat, dice):
    ends = _movegen.stage_ends(code, seat, list(dice))
    return ends.playable_dice, [(ends.code(i), ends.steps(i), ends.ends_game(i))
                                for i in range(len(ends))]


def batch_description(out, i):
    return int(out.playable_dice[i]), [(play.code, play.steps, play.ends_game)
                                       for play in out.plays(i)]


def assert_batch_equals_single(requests, out):
    assert len(out) == len(requests)
    assert out.offsets[0] == 0 and out.offsets[-1] == out.n_ends
    assert (np.diff(out.offsets) == out.counts).all()
    for i, (code, seat, dice) in enumerate(requests):
        want = single_description(code, seat, dice)
        got = batch_description(out, i)
        if got != want:
            missing = [e for e in want[1] if e not in got[1]]
            extra = [e for e in got[1] if e not in want[1]]
            pytest.fail(f"batch != single for request {i}: {code} seat {seat} dice {dice}\n"
                        f"playable batch {got[0]} single {want[0]}\n"
                        f"missing from batch: {missing[:10]}\nextra in batch: {extra[:10]}\n"
                        f"order batch: {[e[1] for e in got[1]][:20]}\n"
                        f"order single: {[e[1] for e in want[1]][:20]}")


@pytest.fixture(scope="module")
def arrays():
    return arrays_from_requests(REQUESTS)


@pytest.fixture(scope="module")
def result(arrays):
    return stage_ends_batch(*arrays)


# ---------------------------------------------------------------------------
# batch == single
# ---------------------------------------------------------------------------

def test_batch_equals_single(result):
    assert_batch_equals_single(REQUESTS, result)


def test_the_requests_cover_every_kind(arrays, result):
    boards, borne_off, seats, dice = arrays
    n_dice = (dice > 0).sum(axis=1)
    assert set(n_dice.tolist()) == {1, 2, 3, 4}
    assert ((n_dice == 2) & (dice[:, 0] < dice[:, 1])).any()     # smaller die first
    assert ((n_dice == 2) & (dice[:, 0] == dice[:, 1])).any()    # two equal dice
    assert set(seats.tolist()) == {0, 1}
    assert set(result.end_n_steps.tolist()) == {0, 1, 2, 3, 4}
    assert result.end_game.any() and (result.playable_dice == 0).any()
    assert result.n_ends > 4096        # the output buffers grew


def test_array_layout(result):
    n, m = len(REQUESTS), result.n_ends
    expected = {"counts": ((n,), np.int32), "playable_dice": ((n,), np.uint8),
                "offsets": ((n + 1,), np.int64), "end_boards": ((m, 24), np.int8),
                "end_borne_off": ((m, 2), np.uint8), "end_steps": ((m, 4, 2), np.uint8),
                "end_n_steps": ((m,), np.uint8), "end_game": ((m,), np.bool_)}
    for name, (shape, dtype) in expected.items():
        array = getattr(result, name)
        assert array.shape == shape and array.dtype == dtype, name
        assert array.flags.c_contiguous and array.flags.writeable, name
    # steps are zero after the last one
    k = np.arange(4)[None, :] >= result.end_n_steps[:, None]
    assert (result.end_steps[k] == 0).all()
    # 15 checkers a side, and the opponent's side unchanged by the play
    for sign, side in ((1, 0), (-1, 1)):
        on_board = np.clip(result.end_boards.astype(np.int64) * sign, 0, None).sum(axis=1)
        assert (on_board + result.end_borne_off[:, side] == 15).all()


def test_end_game_flag_is_the_mover_bearing_off_its_last(arrays, result):
    boards, borne_off, seats, dice = arrays
    movers = np.repeat(seats, result.counts)
    mover_off = result.end_borne_off[np.arange(result.n_ends), movers]
    before = np.repeat(borne_off[np.arange(len(seats)), seats], result.counts)
    assert (result.end_game == ((mover_off == 15) & (before < 15))).all()


def test_afterstates_only(arrays, result):
    fast = stage_ends_batch(*arrays, steps=False)
    assert fast.end_steps is None and fast.end_n_steps is None
    for name in ("counts", "playable_dice", "offsets", "end_boards", "end_borne_off", "end_game"):
        assert np.array_equal(getattr(fast, name), getattr(result, name)), name
    with pytest.raises(ValueError, match="steps=False"):
        fast.plays(0)
    assert fast.codes(5) == result.codes(5)


def test_borne_off_derived_from_the_board(arrays, result):
    boards, borne_off, seats, dice = arrays
    derived = stage_ends_batch(boards, None, seats, dice)
    for name in ("counts", "offsets", "end_boards", "end_borne_off", "end_steps", "end_game"):
        assert np.array_equal(getattr(derived, name), getattr(result, name)), name


def test_int8_seats_and_dice_and_non_contiguous_input(arrays, result):
    boards, borne_off, seats, dice = arrays
    out = stage_ends_batch(boards, borne_off, seats.astype(np.int8), dice.astype(np.int8))
    assert np.array_equal(out.end_boards, result.end_boards)
    # every other request, through strided views
    out = stage_ends_batch(boards[::2], borne_off[::2], seats[::2], dice[::2])
    even = result.request_index() % 2 == 0
    assert np.array_equal(out.counts, result.counts[::2])
    assert np.array_equal(out.end_boards, result.end_boards[even])
    assert np.array_equal(out.end_steps, result.end_steps[even])
    # Fortran-ordered boards
    out = stage_ends_batch(np.asfortranarray(boards), borne_off, seats, dice)
    assert np.array_equal(out.end_boards, result.end_boards)


def test_threads_share_nothing(arrays, result):
    """The GIL is released for the batch: concurrent calls give the same answers."""
    boards, borne_off, seats, dice = arrays
    chunks = [slice(k, k + 700) for k in range(0, len(boards), 700)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        parts = list(pool.map(
            lambda s: stage_ends_batch(boards[s], borne_off[s], seats[s], dice[s]), chunks))
    assert np.array_equal(np.concatenate([p.end_boards for p in parts]), result.end_boards)
    assert np.array_equal(np.concatenate([p.end_steps for p in parts]), result.end_steps)
    assert np.array_equal(np.concatenate([p.counts for p in parts]), result.counts)


BIG_STAGE = "G:1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,,,,,,,,,|0,0|0,15"
# White on its 24, 22, ..., 2 and 23, 21, 19: 2,208 ends for 1-1-1-1, more than the
# first scratch of the compiled loop holds (1,024), so it generates that stage again.
HUGE_STAGE = "G:,1,,1,,1,,1,,1,,1,,1,,1,,1,1,1,1,1,1,1|0,0|0,15"


def test_stages_with_thousands_of_ends():
    requests = ([(BIG_STAGE, 0, (1, 1, 1, 1))] * 3 + [(START, 1, (6, 5))]
                + [(HUGE_STAGE, 0, (1, 1, 1, 1)), (HUGE_STAGE, 0, (4, 4, 4, 4)),
                   (START, 0, (2, 1))])
    out = stage_ends_batch(*arrays_from_requests(requests))
    assert out.counts[0] > 300 and out.counts[4] == 2208
    assert_batch_equals_single(requests, out)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32), st.lists(st.tuples(st.integers(0, 1), st.integers(1, 6),
                                                 st.integers(1, 6), st.integers(1, 4)),
                                       min_size=1, max_size=12))
def test_property_batch_equals_single(seed, stages):
    rng = random.Random(seed)
    requests = []
    for seat, a, b, count in stages:
        code = random_valid_position(rng) if rng.random() < 0.7 else bear_off_position(rng, seat)
        dice = (a, b) if a != b else (a,) * count
        requests.append((code, seat, dice))
    assert_batch_equals_single(requests, stage_ends_batch(*arrays_from_requests(requests)))


def test_empty_batch():
    out = stage_ends_batch(np.zeros((0, 24), np.int8), np.zeros((0, 2), np.uint8),
                           np.zeros(0, np.uint8), np.zeros((0, 4), np.uint8))
    assert len(out) == 0 and out.n_ends == 0
    assert out.offsets.tolist() == [0]
    assert out.end_boards.shape == (0, 24) and out.end_boards.dtype == np.int8
    assert out.end_steps.shape == (0, 4, 2) and out.end_game.dtype == np.bool_
    assert out.request_index().shape == (0,)
    out = stage_ends_batch(np.zeros((0, 24), np.int8), None, np.zeros(0, np.int8),
                           np.zeros((0, 4), np.uint8), steps=False)
    assert out.n_ends == 0 and out.end_steps is None
    boards, borne_off, seats, dice = arrays_from_requests([])
    assert boards.shape == (0, 24) and dice.shape == (0, 4)


def test_helpers():
    assert code_from_board(*[a[0] for a in boards_from_codes([START])]) == START
    out = stage_ends_batch(*arrays_from_requests([(START, 0, (6, 5)), (START, 1, (2, 1))]))
    assert out.ends_of(-1) == slice(2, int(out.offsets[2]))
    assert out.request_index().tolist() == [0] * int(out.counts[0]) + [1] * int(out.counts[1])
    assert out.plays(1) == list(gulbara.stage_ends(START, 1, [2, 1]))
    with pytest.raises(IndexError, match="request index 2 out of range for 2 requests"):
        out.ends_of(2)
    with pytest.raises(InvalidPositionError, match="code 1: "):
        boards_from_codes([START, "G:nonsense"])
    with pytest.raises(InvalidDiceError, match=r"stage 1: .*\[7, 1\]"):
        dice_array([(6, 5), (7, 1)])
    with pytest.raises(InvalidSeatError, match="request 1: .* got 2"):
        arrays_from_requests([(START, 0, (6, 5)), (START, 2, (6, 5))])
    with pytest.raises(Exception):
        out.counts = None      # frozen
    assert repr(out) == "<BatchEnds requests=2 ends=4 steps=True>"


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------

def five_rows():
    boards, borne_off, seats, dice = arrays_from_requests(
        [(START, 0, (6, 5)), (START, 1, (3, 3, 3)), (START, 0, (1,)),
         ("G:,,,,,,,,,-1,,,1,,,,,,,,,,,|0,0|14,14", 1, (2, 2)), (START, 0, (4, 1))])
    return boards.copy(), borne_off.copy(), seats.copy(), dice.copy()


def _seat(a):
    a[2][3] = 2


def _point(a):
    a[0][3, 9] = -16


def _point_white(a):
    a[0][3, 0] = 16


def _off(a):
    a[1][3, 1] = 16


def _total_white(a):
    a[1][3, 0] = 13


def _total_black(a):
    a[0][3, 4] = -1


def _die(a):
    a[3][3] = (7, 2, 0, 0)


def _no_dice(a):
    a[3][3] = 0


def _gap(a):
    a[3][3] = (2, 0, 2, 0)


def _unequal(a):
    a[3][3] = (2, 2, 3, 0)


def _unequal4(a):
    a[3][3] = (2, 2, 2, 3)


BAD_ROWS = [
    (_seat, InvalidSeatError, r"row 3: seat must be 0 \(White\) or 1 \(Black\), got 2"),
    (_point, InvalidPositionError, "row 3: board .*: point 10 holds 16 checkers"),
    (_point_white, InvalidPositionError, "row 3: board .*: point 1 holds 16 checkers"),
    (_off, InvalidPositionError, "row 3: board .*: Black has borne off 16 checkers"),
    (_total_white, InvalidPositionError,
     "row 3: board .*: White has 1 checkers on the board and 13 borne off; the sum must be 15"),
    (_total_black, InvalidPositionError,
     "row 3: board .*: Black has 2 checkers on the board and 14 borne off"),
    (_die, InvalidDiceError,
     r"row 3: dice \[7, 2, 0, 0\]: a die must be 1 to 6 .*got 7 in column 0"),
    (_no_dice, InvalidDiceError, r"row 3: dice \[0, 0, 0, 0\]: no dice"),
    (_gap, InvalidDiceError, r"row 3: dice \[2, 0, 2, 0\]: the dice come first"),
    (_unequal, InvalidDiceError, r"row 3: dice \[2, 2, 3, 0\]: .* must have equal dice"),
    (_unequal4, InvalidDiceError, r"row 3: dice \[2, 2, 2, 3\]: .* must have equal dice"),
]


@pytest.mark.parametrize("spoil, error, message", BAD_ROWS, ids=[b[0].__name__ for b in BAD_ROWS])
def test_a_bad_row_is_named(spoil, error, message):
    a = five_rows()
    stage_ends_batch(*a)          # fine before
    spoil(a)
    with pytest.raises(error, match=message):
        stage_ends_batch(*a)
    # the Python stand-in reports the same row and problem, word for word
    with pytest.raises(error) as loop_error:
        batch._stage_ends_batch_loop(*a, True, _reference)
    with pytest.raises(error) as core_error:
        stage_ends_batch(*a)
    assert str(loop_error.value) == str(core_error.value)


def test_the_first_bad_row_is_named():
    a = five_rows()
    a[3][4] = (9, 1, 0, 0)
    a[2][1] = 5
    with pytest.raises(InvalidSeatError, match="row 1: "):
        stage_ends_batch(*a)


def test_derived_borne_off_errors():
    boards, _, seats, dice = five_rows()
    boards[2, 0] = 3           # White: 18 checkers on the board
    with pytest.raises(InvalidPositionError, match="row 2: .*White has 18 checkers on the "
                                                   r"board \(at most 15\)"):
        stage_ends_batch(boards, None, seats, dice)
    boards, _, seats, dice = five_rows()
    boards[4, 0] = -128        # the most negative int8
    with pytest.raises(InvalidPositionError, match="row 4: .*point 1 holds 128 checkers"):
        stage_ends_batch(boards, None, seats, dice)


def test_negative_int8_seat_and_dice_are_reported_as_given():
    boards, borne_off, seats, dice = five_rows()
    seats = seats.astype(np.int8)
    seats[0] = -1
    with pytest.raises(InvalidSeatError, match="row 0: .*got -1"):
        stage_ends_batch(boards, borne_off, seats, dice)
    dice = dice.astype(np.int8)
    dice[1, 0] = -3
    with pytest.raises(InvalidDiceError,
                       match=r"row 1: dice \[-3, 3, 3, 0\]: .*got -3 in column 0"):
        stage_ends_batch(boards, borne_off, np.zeros(5, np.uint8), dice)


WRONG_ARRAYS = [
    (0, np.zeros((5, 24), np.int16), r"boards must be an array of dtype int8 and shape \(N, 24\), "
                                     r"got dtype int16 and shape \(5, 24\)"),
    (0, np.zeros((5, 25), np.int8),
     r"boards .*shape \(N, 24\), got dtype int8 and shape \(5, 25\)"),
    (0, np.zeros(24, np.int8), r"boards .*shape \(N, 24\), got dtype int8 and shape \(24,\)"),
    (0, [[0] * 24] * 5, r"boards .*dtype int8 .* got dtype int64"),
    (1, np.zeros((5, 2), np.int8), r"borne_off must be an array of dtype uint8 and shape \(5, 2\)"),
    (1, np.zeros((4, 2), np.uint8),
     r"borne_off .*shape \(5, 2\), got dtype uint8 and shape \(4, 2\)"),
    (2, np.zeros(5, np.int64), r"seats must be an array of dtype uint8 or int8 and shape \(5,\)"),
    (2, np.zeros((5, 1), np.uint8), r"seats .*shape \(5,\), got dtype uint8 and shape \(5, 1\)"),
    (3, np.zeros((5, 2), np.uint8), r"dice must be an array of dtype uint8 or int8 and shape "
                                    r"\(5, 4\), got dtype uint8 and shape \(5, 2\)"),
    (3, np.zeros((5, 4), np.float64), r"dice .*got dtype float64"),
]


@pytest.mark.parametrize("which, value, message", WRONG_ARRAYS)
def test_wrong_dtype_or_shape(which, value, message):
    a = list(five_rows())
    a[which] = value
    with pytest.raises(ValueError, match=message) as error:
        stage_ends_batch(*a)
    assert type(error.value) is ValueError


def test_the_compiled_loop_checks_shapes_too():
    from gulbara.core import _batch
    boards, borne_off, seats, dice = five_rows()
    with pytest.raises(ValueError, match=r"dice must have shape \(5, 4\), got \(4, 4\)"):
        _batch.stage_ends_batch(boards, borne_off, False, seats, dice[:4], True)
    with pytest.raises(ValueError, match=r"seats must have shape \(5,\)"):
        _batch.stage_ends_batch(boards, borne_off, False, seats[:3], dice, True)


# ---------------------------------------------------------------------------
# The Python stand-in (GULBARA_BACKEND=reference)
# ---------------------------------------------------------------------------

def test_python_loop_over_the_reference_equals_the_core(arrays, result):
    n = 440          # 20 positions x 22 stages
    part = [a[:n] for a in arrays]
    loop = batch._stage_ends_batch_loop(*part, True, _reference)
    for name in ("counts", "playable_dice", "offsets", "end_boards", "end_borne_off",
                 "end_n_steps", "end_game"):
        stop = result.offsets[n] if name.startswith("end_") else n + (name == "offsets")
        want = getattr(result, name)[:stop]
        assert np.array_equal(getattr(loop, name), want), name
    assert np.array_equal(loop.end_steps, result.end_steps[:result.offsets[n]])


def test_under_the_reference_backend():
    script = (
        "import gulbara, gulbara.core.batch as b\n"
        "assert gulbara.BACKEND_NAME == 'reference' and b._core is None\n"
        "r = [(gulbara.START_CODE, 0, (6, 5)), (gulbara.START_CODE, 1, (2, 2, 2))]\n"
        "out = b.stage_ends_batch(*b.arrays_from_requests(r))\n"
        "assert out.plays(1) == list(gulbara.stage_ends(*r[1]))\n"
        "print(out.counts.tolist(), out.end_n_steps.tolist())\n")
    package_root = str(Path(gulbara.__file__).resolve().parent.parent)
    env = dict(os.environ, GULBARA_BACKEND="reference")
    env["PYTHONPATH"] = package_root + os.pathsep + env.get("PYTHONPATH", "")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, timeout=120, cwd=package_root)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[2, 3] [2, 2, 3, 3, 3]"


def test_regression_request_helpers_take_ints_only():
    """arrays_from_requests and dice_array truncated floats (1.9 -> Black, 6.9 -> 6) and strings."""
    for seat, error in ((1.9, TypeError), ("1", TypeError), (True, TypeError),
                        (2**70, InvalidSeatError), (-1, InvalidSeatError)):
        with pytest.raises(error, match="request 0: seat"):
            arrays_from_requests([(START, seat, (6, 4))])
    for stage, error in (((6.9, 4.2), TypeError), ((True, 6), TypeError), (("6", "4"), TypeError),
                         ((7, 6), InvalidDiceError), ((1,) * 5, InvalidDiceError)):
        with pytest.raises(error, match="stage 0"):
            dice_array([stage])
    assert dice_array([(np.int8(6), np.int64(4))]).tolist() == [[6, 4, 0, 0]]
