"""Bad input: every error is a ValueError subclass of gulbara.errors naming the problem.

Each case runs against both backends (``gulbara.core._movegen`` and
``gulbara.core._reference``: the same exception class), through the public API
(``gulbara.stage_ends``, ``gulbara.Board``, ``Board.push_notation``) and, for
the reference, through the public API in a subprocess with
``GULBARA_BACKEND=reference``. A failing call never changes a Board. The
``gulbara ends`` protocol answers a malformed line with ``{"error": ...}`` and
goes on.

Tests named ``test_regression_*`` are regression tests: each names a bug found while
writing this file (its docstring says what went wrong), fixed since.
"""

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import gulbara
from gulbara.core import _movegen
from gulbara.core import _reference
from gulbara import cli
from gulbara.errors import (GulBaraError, IllegalPlayError, InvalidDiceError,
                            InvalidNotationError, InvalidPositionError,
                            InvalidSeatError)

START = gulbara.START_CODE
BACKENDS = [pytest.param(_movegen, id="core"), pytest.param(_reference, id="reference")]


def code_with(points=None, bar="0,0", off="0,0", prefix="G:", tokens=None):
    """A position code from White-numbered counts (or raw tokens), bar and off sections."""
    if tokens is None:
        tokens = ["" if n == 0 else str(n) for n in points]
    return prefix + ",".join(tokens) + "|" + bar + "|" + off


START_POINTS = [0] * 24
START_POINTS[11] = -15
START_POINTS[23] = 15


def start_tokens():
    return ["" if n == 0 else str(n) for n in START_POINTS]


def replace_token(index, token):
    tokens = start_tokens()
    tokens[index] = token
    return code_with(tokens=tokens)


# ---------------------------------------------------------------------------
# Malformed position codes: (code, exception class, substrings the message names)
# ---------------------------------------------------------------------------

_both = start_tokens()
_both[23] = "14"
_both[0] = "1-1"          # both colours on White's 1

CODE_CASES = [
    # wrong token count
    pytest.param(code_with(tokens=start_tokens()[1:]), InvalidPositionError, ["23"],
                 id="23-tokens"),
    pytest.param(code_with(tokens=start_tokens() + [""]), InvalidPositionError, ["25"],
                 id="25-tokens"),
    pytest.param("G:", InvalidPositionError, ["G:"], id="only-prefix"),
    pytest.param("G:" + "," * 23 + "15", InvalidPositionError, ["section"], id="one-section"),
    pytest.param(START + "|0,0", InvalidPositionError, ["section"], id="five-sections"),
    # a point with both colours
    pytest.param(replace_token(23, "14-1"), InvalidPositionError, ["14-1"], id="both-14-1"),
    pytest.param(replace_token(0, "2+1"), InvalidPositionError, ["2+1"], id="both-2+1"),
    pytest.param(code_with(tokens=_both), InvalidPositionError, ["1-1"], id="both-1-1"),
    # more than 15 checkers on one point
    pytest.param(replace_token(23, "16"), InvalidPositionError, ["16"], id="point-16"),
    pytest.param(replace_token(11, "-99"), InvalidPositionError, ["99"], id="point--99"),
    pytest.param(replace_token(23, "150"), InvalidPositionError, ["150"], id="point-150"),
    # bad characters
    pytest.param(replace_token(23, "1x"), InvalidPositionError, ["1x"], id="char-1x"),
    pytest.param(replace_token(23, "15.0"), InvalidPositionError, ["15.0"], id="char-float"),
    pytest.param(replace_token(23, " 15"), InvalidPositionError, ["' 15'"], id="char-space"),
    pytest.param(replace_token(23, "0x0f"), InvalidPositionError, ["0x0f"], id="char-hex"),
    pytest.param(replace_token(23, "١٥"), InvalidPositionError, ["١٥"], id="char-arabic-digits"),
    pytest.param(replace_token(23, "+"), InvalidPositionError, ["'+'"], id="char-lone-plus"),
    pytest.param(replace_token(11, "--15"), InvalidPositionError, ["--15"], id="char-double-minus"),
    # the bar section
    pytest.param(code_with(START_POINTS, bar="1,0"), InvalidPositionError, ["1,0"], id="bar-1,0"),
    pytest.param(code_with(START_POINTS, bar="0,3"), InvalidPositionError, ["0,3"], id="bar-0,3"),
    pytest.param(code_with(START_POINTS, bar="00,0"), InvalidPositionError, ["00,0"],
                 id="bar-00,0"),
    pytest.param(code_with(START_POINTS, bar="x"), InvalidPositionError, ["x"], id="bar-x"),
    # fewer or more than 15 checkers per side
    pytest.param(replace_token(23, "14"), InvalidPositionError, ["White"], id="white-14"),
    pytest.param(replace_token(11, "-14"), InvalidPositionError, ["Black"], id="black-14"),
    pytest.param(code_with(tokens=["1"] + start_tokens()[1:]), InvalidPositionError, ["White"],
                 id="white-16"),
    pytest.param(code_with(tokens=["-1"] + start_tokens()[1:]), InvalidPositionError, ["Black"],
                 id="black-16"),
    pytest.param(code_with(START_POINTS, off="1,0"), InvalidPositionError, ["White"],
                 id="white-16-by-off"),
    pytest.param(code_with(START_POINTS, off="0,15"), InvalidPositionError, ["Black"],
                 id="black-30-by-off"),
    # bad borne-off section
    pytest.param(code_with(START_POINTS, off="0"), InvalidPositionError, ["borne-off"],
                 id="off-one"),
    pytest.param(code_with(START_POINTS, off="0,0,0"), InvalidPositionError, ["0,0,0"],
                 id="off-three"),
    pytest.param(code_with(START_POINTS, off="-1,0"), InvalidPositionError, ["-1"], id="off-neg"),
    pytest.param(code_with(START_POINTS, off="a,0"), InvalidPositionError, ["a,0"], id="off-a"),
    pytest.param(code_with(START_POINTS, off=""), InvalidPositionError, ["borne-off"],
                 id="off-empty"),
    pytest.param(code_with(START_POINTS, off="0,0 "), InvalidPositionError, ["0,0 "],
                 id="off-trailing-space"),
    pytest.param(code_with(START_POINTS, off="0,0\n"), InvalidPositionError, ["0,0\\n"],
                 id="off-trailing-newline"),
    pytest.param(code_with([0] * 23 + [15], off="0,16"), InvalidPositionError, ["16"],
                 id="off-16"),
    # missing G: prefix
    pytest.param(START[2:], InvalidPositionError, ["G:"], id="no-prefix"),
    pytest.param("g:" + START[2:], InvalidPositionError, ["G:"], id="lower-g"),
    pytest.param("O:" + START[2:], InvalidPositionError, ["G:"], id="backgammon-prefix"),
    pytest.param(" " + START, InvalidPositionError, ["G:"], id="leading-space"),
    pytest.param("", InvalidPositionError, ["G:"], id="empty"),
    # not a str
    pytest.param(None, TypeError, ["NoneType"], id="none"),
    pytest.param(START.encode(), TypeError, ["bytes"], id="bytes"),
    pytest.param(42, TypeError, ["int"], id="int"),
    pytest.param(list(START), TypeError, ["list"], id="list"),
]


def check_error(exc_info, cls, words):
    assert type(exc_info.value) is cls, f"{type(exc_info.value).__name__}: {exc_info.value}"
    message = str(exc_info.value)
    for word in words:
        # A tuple of words: the message names one of them.
        alternatives = word if isinstance(word, tuple) else (word,)
        assert any(w in message for w in alternatives), f"{word!r} not named in {message!r}"


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("code,cls,words", CODE_CASES)
def test_bad_code_backend(backend, code, cls, words):
    with pytest.raises(cls) as info:
        backend.Position.from_code(code)
    check_error(info, cls, words)
    with pytest.raises(cls) as info:
        backend.stage_ends(code, 0, [6, 5])
    check_error(info, cls, words)


@pytest.mark.parametrize("code,cls,words", CODE_CASES)
def test_bad_code_public_api(code, cls, words):
    with pytest.raises(cls) as info:
        gulbara.stage_ends(code, gulbara.WHITE, [6, 5])
    check_error(info, cls, words)
    with pytest.raises(cls) as info:
        gulbara.Position.from_code(code)
    check_error(info, cls, words)
    with pytest.raises(cls) as info:
        gulbara.Board(code)
    check_error(info, cls, words)
    with pytest.raises(cls) as info:
        gulbara.Board.from_code(code, gulbara.BLACK)
    check_error(info, cls, words)


def test_error_classes_are_value_errors():
    for cls in (InvalidPositionError, InvalidSeatError, InvalidDiceError,
                InvalidNotationError, IllegalPlayError, gulbara.InvalidRulesError):
        assert issubclass(cls, GulBaraError)
        assert issubclass(cls, ValueError)
        assert getattr(gulbara, cls.__name__) is cls
    # Both backends raise the classes of gulbara.errors, not copies of them.
    with pytest.raises(InvalidPositionError):
        _reference.Position.from_code("")
    with pytest.raises(InvalidPositionError):
        _movegen.Position.from_code("")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("code", [
    "G:+0,,,,,,,,,,,-15,,,,,,,,,,,-0,+15|0,0|0,0",
    "G:,,,,,,,,,,,-015,,,,,,,,,,,,0015|0,0|0,0",
    "G:,,,,,,,,,,,-15,,,,,,,,,,,,15|0,0|00,000",
])
def test_loose_but_valid_codes_are_accepted(backend, code):
    """The contract's accepted spellings are not errors: they read as the start."""
    assert backend.Position.from_code(code).code() == START


@pytest.mark.parametrize("backend", BACKENDS)
def test_regression_huge_token_is_an_invalid_position(backend):
    """BUG (reference): a point or borne-off token of more than 4300 digits raises a
    plain ValueError from int() ("Exceeds the limit (4300 digits) for integer string
    conversion") instead of InvalidPositionError; the core says "more than 15"."""
    big = "1" * 5000
    for code in (replace_token(23, big), code_with(START_POINTS, off="0," + big)):
        with pytest.raises(InvalidPositionError):
            backend.Position.from_code(code)


@pytest.mark.parametrize("backend", BACKENDS)
def test_regression_lone_surrogate_is_an_invalid_position(backend):
    """BUG (core): a code holding a lone surrogate (possible in a str, e.g. from
    json.loads('"\\ud800"')) raises UnicodeEncodeError from PyUnicode_AsUTF8AndSize
    in read_code instead of InvalidPositionError; the reference says InvalidPositionError."""
    for code in ("G:\ud800", START + "\ud800", replace_token(23, "1\udfff")):
        with pytest.raises(InvalidPositionError):
            backend.Position.from_code(code)


# ---------------------------------------------------------------------------
# Impossible dice
# ---------------------------------------------------------------------------

DICE_CASES = [
    pytest.param([0, 5], InvalidDiceError, ["0"], id="zero"),
    pytest.param([7, 1], InvalidDiceError, ["7"], id="seven"),
    pytest.param([6, -1], InvalidDiceError, ["-1"], id="negative"),
    pytest.param([7], InvalidDiceError, ["7"], id="single-seven"),
    pytest.param([0, 0, 0, 0], InvalidDiceError, ["0"], id="four-zeros"),
    pytest.param([2**70, 1], InvalidDiceError, [str(2**70)], id="huge"),
    pytest.param([6, 5, 4], InvalidDiceError, ["6, 5, 4"], id="three-different"),
    pytest.param([3, 3, 3, 3, 3], InvalidDiceError, ["3, 3, 3, 3, 3"], id="five-equal"),
    pytest.param([2] * 8, InvalidDiceError, ["2, 2, 2"], id="eight-equal"),
    pytest.param([4, 4, 5], InvalidDiceError, ["4, 4, 5"], id="two-different-in-3"),
    pytest.param([5, 4, 4], InvalidDiceError, ["5, 4, 4"], id="two-different-in-3b"),
    pytest.param([1, 1, 1, 2], InvalidDiceError, ["1, 1, 1, 2"], id="two-different-in-4"),
    pytest.param([6, 5, 6, 5], InvalidDiceError, ["6, 5, 6, 5"], id="two-pairs"),
    pytest.param([], InvalidDiceError, [("[]", "()")], id="empty"),
    pytest.param((), InvalidDiceError, [("[]", "()")], id="empty-tuple"),
    pytest.param([6.0, 5], TypeError, ["6.0"], id="float"),
    pytest.param([6, 5.5], TypeError, ["5.5"], id="float-second"),
    pytest.param([True, 2], TypeError, ["True"], id="bool"),
    pytest.param([3, False], TypeError, ["False"], id="bool-second"),
    pytest.param(["6", "5"], TypeError, ["'6'"], id="str-dice"),
    pytest.param("65", TypeError, ["str"], id="str"),
    pytest.param([None, 1], TypeError, ["None"], id="none-die"),
    pytest.param(None, TypeError, ["NoneType"], id="none"),
    pytest.param(6, TypeError, ["int"], id="int"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dice,cls,words", DICE_CASES)
def test_bad_dice_backend(backend, dice, cls, words):
    with pytest.raises(cls) as info:
        backend.stage_ends(START, 0, dice)
    check_error(info, cls, words)
    with pytest.raises(cls) as info:
        backend.Position.from_code(START).stage_ends(1, dice)
    check_error(info, cls, words)


@pytest.mark.parametrize("dice,cls,words", DICE_CASES)
def test_bad_dice_public_api(dice, cls, words):
    with pytest.raises(cls) as info:
        gulbara.stage_ends(START, gulbara.WHITE, dice)
    check_error(info, cls, words)
    board = played_board()
    before = snapshot(board)
    with pytest.raises(cls) as info:
        board.stage_ends(dice)
    check_error(info, cls, words)
    with pytest.raises(cls) as info:
        board.push_notation("13/7", dice)
    check_error(info, cls, words)
    assert snapshot(board) == before


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dice,expected", [
    ([5, 6], (6, 5)), ((1, 2), (2, 1)), ([4], (4,)), ([4, 4], (4, 4)),
    ([3, 3, 3], (3, 3, 3)), ([1, 1, 1, 1], (1, 1, 1, 1)),
])
def test_good_dice_are_not_errors(backend, dice, expected):
    assert backend.stage_ends(START, 0, dice).dice == expected


@pytest.mark.parametrize("backend", BACKENDS)
def test_regression_non_int_die_is_a_type_error_whatever_its_neighbours(backend):
    """BUG (core, minor): the contract says a non-int die is a TypeError, and the
    reference checks every die's type first; the core checks the dice one by one, so
    [7, 'a'] and [1, 2, 3, 4, 'a'] give InvalidDiceError in the core but TypeError
    in the reference: the backends disagree on the exception class."""
    for dice in ([7, "a"], [0, 2.5], [1, 2, 3, 4, "a"], [6, 6, 6, 6, 6, None]):
        with pytest.raises(TypeError):
            backend.stage_ends(START, 0, dice)


# ---------------------------------------------------------------------------
# Bad seats
# ---------------------------------------------------------------------------

# The contract (docs/dev/backend.md): a seat is an int 0 or 1; another int is
# InvalidSeatError, a bool or a non-int is TypeError.
SEAT_CASES = [
    pytest.param(2, InvalidSeatError, ["2"], id="two"),
    pytest.param(-1, InvalidSeatError, ["-1"], id="minus-one"),
    pytest.param(2**64, InvalidSeatError, [str(2**64)], id="huge"),
    pytest.param(True, TypeError, ["bool"], id="true"),
    pytest.param(False, TypeError, ["bool"], id="false"),
    pytest.param("0", TypeError, ["str"], id="str"),
    pytest.param(None, TypeError, ["NoneType"], id="none"),
    pytest.param(0.0, TypeError, ["float"], id="float"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("seat,cls,words", SEAT_CASES)
def test_bad_seat_backend(backend, seat, cls, words):
    with pytest.raises(cls) as info:
        backend.stage_ends(START, seat, [6, 5])
    check_error(info, cls, words)
    position = backend.Position.from_code(START)
    for call in (lambda: position.stage_ends(seat, [6, 5]),
                 lambda: position.apply_steps(seat, [(24, 6)]),
                 lambda: position.pip_count(seat),
                 lambda: position.borne_off(seat)):
        with pytest.raises(cls) as info:
            call()
        check_error(info, cls, words)


@pytest.mark.parametrize("seat,cls,words", SEAT_CASES)
def test_bad_seat_public_api(seat, cls, words):
    with pytest.raises(cls) as info:
        gulbara.stage_ends(START, seat, [6, 5])
    check_error(info, cls, words)
    with pytest.raises(cls) as info:
        gulbara.Board(START, seat)
    check_error(info, cls, words)
    with pytest.raises(cls) as info:
        gulbara.Board.from_code(START, turn=seat)
    check_error(info, cls, words)
    board = played_board()
    with pytest.raises(cls):
        board.pip_count(seat)
    with pytest.raises(cls):
        board.borne_off(seat)


def test_seat_errors_come_before_dice_errors():
    for backend in (_movegen, _reference):
        with pytest.raises(InvalidSeatError):
            backend.stage_ends(START, 2, [7, 7, 7])
        with pytest.raises(InvalidPositionError):
            backend.stage_ends("", 2, [7])


# ---------------------------------------------------------------------------
# Illegal notation and plays: the Board is left exactly as it was
# ---------------------------------------------------------------------------


def played_board():
    """A board with history: White 6-5 (24/13), Black 4-2, Black to move after."""
    board = gulbara.Board()
    board.push_notation("24/13", [6, 5])
    board.push_notation("24/18", [4, 2])
    return board


def snapshot(board):
    return (board.code(), board.turn, list(board.move_stack), board.key(), board.points(),
            str(board))


# (notation, dice, exception class, substring of the message). The board is
# played_board(): White to move, White on 24 (14) and 13 (1); Black on its
# own 24 (14) and 18 (1), i.e. White's 12 and 6.
NOTATION_CASES = [
    # unreadable
    pytest.param("24-18 24-19", [6, 5], InvalidNotationError, ["24-18"], id="dash"),
    pytest.param("bar/19", [6, 5], InvalidNotationError, ["bar/19"], id="bar"),
    pytest.param("25/19", [6, 5], InvalidNotationError, ["25"], id="point-25"),
    pytest.param("0/6", [6, 6], InvalidNotationError, ["0"], id="point-0"),
    pytest.param("18/24", [6, 5], InvalidNotationError, ["18/24"], id="backwards"),
    pytest.param("24/24", [6, 5], InvalidNotationError, ["24/24"], id="standing-still"),
    pytest.param("off/20", [6, 5], InvalidNotationError, ["off/20"], id="off-first"),
    pytest.param("24/off/20", [6, 5], InvalidNotationError, ["24/off/20"], id="off-middle"),
    pytest.param("24/18(0)", [6, 6], InvalidNotationError, ["0"], id="repeat-0"),
    pytest.param("24/18(16)", [6, 6], InvalidNotationError, ["16"], id="repeat-16"),
    pytest.param("24/18 hello", [6, 5], InvalidNotationError, ["hello"], id="word"),
    pytest.param("24/", [6, 5], InvalidNotationError, ["24/"], id="half-move"),
    pytest.param("/18", [6, 5], InvalidNotationError, ["/18"], id="no-start"),
    pytest.param("24//18", [6, 5], InvalidNotationError, ["24//18"], id="double-slash"),
    # readable but not a legal play of the stage
    pytest.param("24/18", [6, 5], IllegalPlayError, ["24/18"], id="one-die-of-two"),
    pytest.param("24/18 24/18", [6, 5], IllegalPlayError, ["24/18 24/18"], id="die-twice"),
    pytest.param("24/17", [6, 5], IllegalPlayError, ["24/17"], id="wrong-distance"),
    pytest.param("24/12", [6, 6, 6, 6], IllegalPlayError, ["24/12"], id="onto-black"),
    pytest.param("24/18(3) 18/12", [6, 6, 6, 6], IllegalPlayError, ["18/12"],
                 id="blocked-by-start"),
    pytest.param("12/6 12/7", [6, 5], IllegalPlayError, ["12/6"], id="no-checker"),
    pytest.param("13/off", [6, 5], IllegalPlayError, ["13/off"], id="bear-off-not-home"),
    pytest.param("pass", [6, 5], IllegalPlayError, ["pass"], id="pass-with-moves"),
    pytest.param("", [6, 5], IllegalPlayError, ["''"], id="empty-with-moves"),
    pytest.param("24/18 24/19 13/8", [6, 5], IllegalPlayError, ["13/8"], id="three-moves"),
    pytest.param("24/18(2)", [6, 6, 6], IllegalPlayError, ["24/18(2)"], id="two-of-three"),
]


@pytest.mark.parametrize("text,dice,cls,words", NOTATION_CASES)
def test_illegal_notation_leaves_the_board(text, dice, cls, words):
    board = played_board()
    before = snapshot(board)
    with pytest.raises(cls) as info:
        board.push_notation(text, dice)
    check_error(info, cls, words)
    assert snapshot(board) == before
    with pytest.raises(cls):
        board.push_notation(text, dice, pass_turn=False)
    assert snapshot(board) == before
    # The same through the stage's own parser, and `in` says no without raising.
    ends = board.stage_ends(dice)
    with pytest.raises(cls):
        ends.parse(text)
    assert text not in ends
    if cls is IllegalPlayError:
        assert ends.find(text) is None
    else:
        with pytest.raises(InvalidNotationError):
            ends.find(text)


def test_legal_notation_after_failures_still_works():
    board = played_board()
    before = snapshot(board)
    for text in ("24/12", "bar/19", "pass"):
        with pytest.raises(GulBaraError):
            board.push_notation(text, [6, 6, 6, 6])
    assert snapshot(board) == before
    play = board.push_notation("24/18(4)", [6, 6, 6, 6])
    assert board.turn == gulbara.BLACK and board.peek() == play
    assert board.pop() == play
    assert snapshot(board) == before


@pytest.mark.parametrize("make_play,cls,word", [
    pytest.param(lambda: gulbara.Play([(12, 6)]), IllegalPlayError, "12", id="no-checker"),
    pytest.param(lambda: gulbara.Play([(24, 6), (18, 6)]), IllegalPlayError, "18",
                 id="onto-black-start"),
    pytest.param(lambda: gulbara.Play([(13, 4), (9, 3)]), IllegalPlayError, "9, 3",
                 id="onto-black-point"),
    pytest.param(lambda: gulbara.Play([(24, 7)]), IllegalPlayError, "7", id="die-7"),
    pytest.param(lambda: gulbara.Play([(25, 1)]), IllegalPlayError, "25", id="point-25"),
    pytest.param(lambda: gulbara.Play([(24, 5), (19, 5), (14, 2)]), IllegalPlayError, "14, 2",
                 id="names-step"),
    pytest.param(lambda: gulbara.Play([(6, 6)]), IllegalPlayError, "6", id="bear-off-not-home"),
    pytest.param(lambda: gulbara.Play([(24, 6)], code=START), IllegalPlayError, "24",
                 id="wrong-code"),
    pytest.param(lambda: "24/18", TypeError, "str", id="not-a-play"),
    pytest.param(lambda: None, TypeError, "NoneType", id="none"),
])
def test_illegal_push_leaves_the_board(make_play, cls, word):
    board = played_board()
    before = snapshot(board)
    with pytest.raises(cls) as info:
        board.push(make_play())
    check_error(info, cls, [word])
    assert snapshot(board) == before
    with pytest.raises(cls):
        board.push(make_play(), pass_turn=False)
    assert snapshot(board) == before


def test_push_play_from_another_position_leaves_the_board():
    """A play taken from another board's stage is checked against its end code."""
    other = gulbara.Board()
    play = other.stage_ends([6, 5])[0]          # White 24/18 24/19 from the start
    board = played_board()
    board.pop()
    board.pop()
    board.push_notation("24/23 24/22", [2, 1])  # White still has checkers on 24
    board.push_notation("24/18(4)", [6, 6, 6, 6])
    before = snapshot(board)
    assert board.turn == gulbara.WHITE
    with pytest.raises(IllegalPlayError) as info:
        board.push(play)     # the steps are playable here, but end elsewhere
    assert "24" in str(info.value)
    assert snapshot(board) == before


@pytest.mark.parametrize("backend", BACKENDS)
def test_apply_steps_errors_name_the_step(backend):
    start = backend.Position.from_code(START)
    cases = [
        ([(24, 6), (24, 6), (24, 6), (18, 6)], "18, 6"),   # RULES §2.2: 12 is Black's
        ([(6, 6)], "6, 6"),                                # no checker
        ([(24, 0)], "24, 0"),                              # die 0
        ([(24, 7)], "24, 7"),                              # die 7
        ([(0, 1)], "0, 1"),                                # point 0
        ([(25, 1)], "25, 1"),                              # point 25
    ]
    for steps, words in cases:
        with pytest.raises(IllegalPlayError) as info:
            start.apply_steps(0, steps)
        assert words in str(info.value)
    last = backend.Position.from_code(code_with([1] + [0] * 10 + [-15] + [0] * 12, off="14,0"))
    with pytest.raises(IllegalPlayError):
        last.apply_steps(0, [(1, 1), (1, 1)])    # RULES §3.3: nothing after the 15th off
    with pytest.raises(TypeError):
        start.apply_steps(0, [(24.0, 6)])
    with pytest.raises(TypeError):
        start.apply_steps(0, [(24, True)])


# ---------------------------------------------------------------------------
# The public API under the reference backend (GULBARA_BACKEND=reference)
# ---------------------------------------------------------------------------

_SUBPROCESS_SCRIPT = r"""
import json, sys
import gulbara
from gulbara import Board, Play, START_CODE, stage_ends
calls = json.loads(sys.stdin.read())
results = [gulbara.BACKEND_NAME]
for call in calls:
    board = Board()
    board.push_notation("24/13", [6, 5])
    board.push_notation("24/18", [4, 2])
    before = (board.code(), board.turn, board.move_stack, board.key())
    try:
        eval(call, {"gulbara": gulbara, "board": board, "Board": Board, "Play": Play,
                    "START": START_CODE, "stage_ends": stage_ends})
        name = "ok"
    except Exception as exc:
        name = type(exc).__name__
    after = (board.code(), board.turn, board.move_stack, board.key())
    results.append([name, before == after or name == "ok"])
print(json.dumps(results))
"""

PUBLIC_CALLS = [
    "stage_ends('G:', 0, [6, 5])",
    "stage_ends(START[2:], 0, [6, 5])",
    "stage_ends(START.replace('15|', '16|'), 0, [6, 5])",
    "stage_ends(START.replace(',15|', ',14-1|'), 0, [6, 5])",
    "stage_ends(START.replace('|0,0|', '|1,0|'), 0, [6, 5])",
    "stage_ends(START[:-3] + '1,0', 0, [6, 5])",
    "stage_ends(None, 0, [6, 5])",
    "stage_ends(START, 2, [6, 5])",
    "stage_ends(START, -1, [6, 5])",
    "stage_ends(START, True, [6, 5])",
    "stage_ends(START, '0', [6, 5])",
    "stage_ends(START, None, [6, 5])",
    "stage_ends(START, 0, [0, 5])",
    "stage_ends(START, 0, [7, 5])",
    "stage_ends(START, 0, [6, 5, 4])",
    "stage_ends(START, 0, [5, 5, 5, 5, 5])",
    "stage_ends(START, 0, [5, 5, 4])",
    "stage_ends(START, 0, [])",
    "stage_ends(START, 0, [6.0, 5])",
    "stage_ends(START, 0, [True, 5])",
    "stage_ends(START, 0, '65')",
    "Board('nonsense')",
    "Board(START, 2)",
    "Board(START, True)",
    "board.push_notation('24/18', [7, 5])",
    "board.push(Play([(12, 6)]))",
    "board.push('24/18')",
] + [f"board.push_notation({case.values[0]!r}, {case.values[1]!r})" for case in NOTATION_CASES] + [
    "board.push_notation('24/18 24/19', [6, 5])",
]


def _run_public_calls(backend_name):
    env = dict(os.environ, GULBARA_BACKEND=backend_name)
    package_root = str(Path(gulbara.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = package_root + os.pathsep + env.get("PYTHONPATH", "")
    result = subprocess.run(
        [sys.executable, "-c", _SUBPROCESS_SCRIPT], input=json.dumps(PUBLIC_CALLS),
        capture_output=True, text=True, env=env, timeout=120, cwd=package_root)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_public_api_errors_are_the_same_under_both_backends():
    core = _run_public_calls("core")
    reference = _run_public_calls("reference")
    assert core[0] == "core" and reference[0] == "reference"
    assert core[1:] == reference[1:]
    names = [name for name, _ in core[1:]]
    # Every call but the last (a legal push) fails, and no failure moved the board.
    assert names[-1] == "ok" and "ok" not in names[:-1]
    assert all(unchanged for _, unchanged in core[1:])
    assert all(name in {"InvalidPositionError", "InvalidSeatError", "InvalidDiceError",
                        "InvalidNotationError", "IllegalPlayError", "TypeError"}
               for name in names[:-1])
    # The notation cases fail with the class the in-process tests expect.
    first = len(PUBLIC_CALLS) - 1 - len(NOTATION_CASES)
    assert names[first:-1] == [case.values[2].__name__ for case in NOTATION_CASES]


# ---------------------------------------------------------------------------
# The `gulbara ends` protocol
# ---------------------------------------------------------------------------

BAD_LINES = [
    pytest.param("not json", "JSON", id="not-json"),
    pytest.param("{", "JSON", id="truncated"),
    pytest.param("[1, 2]", "object", id="array"),
    pytest.param('"G:"', "object", id="string"),
    pytest.param("null", "object", id="null"),
    pytest.param("{}", "position", id="empty-object"),
    pytest.param('{"position": "%s", "seat": 0}' % START, "dice", id="no-dice"),
    pytest.param('{"seat": 0, "dice": [6, 5]}', "position", id="no-position"),
    pytest.param('{"position": "%s", "dice": [6, 5]}' % START, "seat", id="no-seat"),
    pytest.param('{"position": "G:x", "seat": 0, "dice": [6, 5]}', "G:x", id="bad-code"),
    pytest.param('{"position": 5, "seat": 0, "dice": [6, 5]}', "int", id="code-int"),
    pytest.param('{"position": "%s", "seat": 2, "dice": [6, 5]}' % START, "2", id="seat-2"),
    pytest.param('{"position": "%s", "seat": true, "dice": [6, 5]}' % START, "bool",
                 id="seat-true"),
    pytest.param('{"position": "%s", "seat": "0", "dice": [6, 5]}' % START, "str",
                 id="seat-str"),
    pytest.param('{"position": "%s", "seat": 0, "dice": [7, 5]}' % START, "7", id="die-7"),
    pytest.param('{"position": "%s", "seat": 0, "dice": [6, 5, 4]}' % START, "6, 5, 4",
                 id="three-dice"),
    pytest.param('{"position": "%s", "seat": 0, "dice": []}' % START, "dice", id="no-dice-list"),
    pytest.param('{"position": "%s", "seat": 0, "dice": "65"}' % START, "dice",
                 id="dice-string"),
    pytest.param('{"position": "%s", "seat": 0, "dice": {"a": 1}}' % START, "dice",
                 id="dice-object"),
    pytest.param('{"position": "%s", "seat": 0, "dice": [6.5, 5]}' % START, "6.5",
                 id="dice-float"),
    pytest.param('{"position": "%s", "seat": 0, "dice": [null, 5]}' % START, "None",
                 id="dice-null"),
]


@pytest.mark.parametrize("line,word", BAD_LINES)
def test_protocol_bad_line_is_an_error_object(line, word):
    answer = cli.answer_request(line)
    assert "\n" not in answer
    reply = json.loads(answer)
    assert list(reply) == ["error"]
    assert isinstance(reply["error"], str) and word in reply["error"]


def test_protocol_good_line_matches_the_api():
    answer = json.loads(cli.answer_request(json.dumps(
        {"position": START, "seat": 1, "dice": [5, 6]})))
    ends = gulbara.stage_ends(START, 1, [6, 5])
    assert answer["seat"] == 1 and answer["dice"] == [6, 5]
    assert answer["playableDice"] == 2
    assert [e["position"] for e in answer["ends"]] == ends.codes()
    assert [e["steps"] for e in answer["ends"]] == [[list(s) for s in p.steps] for p in ends]
    assert all(e["end"] == "none" for e in answer["ends"])


def _run_main(monkeypatch, text):
    stdout = io.StringIO()
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    monkeypatch.setattr(sys, "stdout", stdout)
    status = cli.main(["ends"])
    return status, stdout.getvalue()


def test_protocol_stream_goes_on_after_errors(monkeypatch):
    good = json.dumps({"position": START, "seat": 0, "dice": [6, 5]})
    lines = [good, "garbage", "", "   ", '{"position": "G:", "seat": 0, "dice": [6, 5]}',
             json.dumps({"position": START, "seat": 7, "dice": [6, 5]}), good,
             json.dumps({"position": START, "seat": 0, "dice": [9]}), good]
    status, out = _run_main(monkeypatch, "\n".join(lines) + "\n")
    assert status == 0
    replies = [json.loads(line) for line in out.splitlines()]
    assert len(replies) == 9                  # one answer a line, blank lines too
    kinds = ["error" if "error" in r else "case" for r in replies]
    assert kinds == ["case", "error", "error", "error", "error", "error", "case", "error",
                     "case"]
    assert "empty line" in replies[2]["error"] and "empty line" in replies[3]["error"]
    assert replies[0] == replies[6] == replies[8]
    assert [e["steps"] for e in replies[0]["ends"]] == [[[24, 6], [24, 5]], [[24, 6], [18, 5]]]


def test_protocol_no_trailing_newline(monkeypatch):
    status, out = _run_main(
        monkeypatch, json.dumps({"position": START, "seat": 0, "dice": [1, 1]}) + "\nxx")
    assert status == 0
    first, second = out.splitlines()
    assert json.loads(first)["dice"] == [1, 1]
    assert "error" in json.loads(second)


def test_regression_protocol_lone_surrogate_in_position(monkeypatch):
    """BUG (core): the JSON line {"position": "G:\\ud800", ...} is valid JSON, but
    answer_request raises UnicodeEncodeError (from read_code, see
    test_regression_lone_surrogate_is_an_invalid_position) instead of answering
    {"error": ...}: `gulbara ends` dies and the stream stops."""
    line = '{"position": "G:\\ud800", "seat": 0, "dice": [6, 5]}'
    good = json.dumps({"position": START, "seat": 0, "dice": [6, 5]})
    assert "error" in json.loads(cli.answer_request(line))
    status, out = _run_main(monkeypatch, line + "\n" + good + "\n")
    assert status == 0 and len(out.splitlines()) == 2


def test_regression_protocol_deeply_nested_json(monkeypatch):
    """BUG (cli, minor): a line of 100,000 '[' makes json.loads raise RecursionError,
    which answer_request does not catch (it catches ValueError only): the stream dies
    instead of answering {"error": ...}."""
    line = "[" * 100_000
    good = json.dumps({"position": START, "seat": 0, "dice": [6, 5]})
    assert "error" in json.loads(cli.answer_request(line))
    status, out = _run_main(monkeypatch, line + "\n" + good + "\n")
    assert status == 0 and len(out.splitlines()) == 2


# ---------------------------------------------------------------------------
# Notation parsing alone
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("text,word", [
    ("24-18", "24-18"), ("bar/20", "bar"), ("25/20", "25"), ("24/18(0)", "0"),
    ("20/24", "20/24"), ("off/3", "off"), ("6/off/1", "6/off/1"), ("24/18x", "24/18x"),
    ("24/18((2))", "24/18((2))"), ("/", "/"), ("24", "24"),
])
def test_parse_notation_errors(text, word):
    with pytest.raises(InvalidNotationError) as info:
        gulbara.parse_notation(text)
    assert word in str(info.value)
    with pytest.raises(InvalidNotationError):
        gulbara.Play.from_notation(text)


@pytest.mark.parametrize("value", [None, 24, b"24/18", ["24/18"]])
def test_parse_notation_non_str(value):
    with pytest.raises(TypeError) as info:
        gulbara.parse_notation(value)
    assert type(value).__name__ in str(info.value)


def test_play_from_notation_needs_single_dice():
    for text in ("24/14", "6/off", "24/17"):
        with pytest.raises(InvalidNotationError) as info:
            gulbara.Play.from_notation(text)
        assert text in str(info.value)


def test_regression_huge_number_in_notation_is_invalid_notation():
    """BUG (play.py): a point or repeat count of more than 4300 digits makes
    parse_notation raise a plain ValueError from int() ("Exceeds the limit (4300
    digits)"), not InvalidNotationError; StageEnds.parse and Board.push_notation
    pass it on, and `text in ends` raises instead of answering False."""
    big = "1" * 5000
    for text in (big + "/1", "24/18(" + big + ")"):
        with pytest.raises(InvalidNotationError):
            gulbara.parse_notation(text)
        ends = gulbara.stage_ends(START, 0, [6, 5])
        assert text not in ends


# ---------------------------------------------------------------------------
# Rules texts, notation and flags (each found by probing bad input)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["\u0663", "\uff13", "1_0", "+3", "3.0", "9" * 5000])
def test_regression_a_rules_number_is_ascii_digits_only(value):
    """``Rules.from_text("exempt_rolls=٣")`` was read as 3, and ``1_000`` and ``+3`` as numbers
    (the state-code reader refuses them); a 5,000-digit number in a record was "not a number"."""
    with pytest.raises(gulbara.errors.InvalidRulesError, match="exempt_rolls must be N"):
        gulbara.Rules.from_text(f"exempt_rolls={value}")
    text = gulbara.game.record.game_to_text(gulbara.Game(seed=3)).replace(
        "Rules: default", f"Rules: exempt_rolls={value}")
    with pytest.raises(gulbara.errors.RecordError, match="exempt_rolls must be N"):
        gulbara.game.record.read_record(text)
    assert gulbara.Rules.from_text("exempt_rolls=5").exempt_rolls == 5


def test_regression_a_rules_option_given_twice_is_refused():
    """``Rules.from_text("mars=off,mars=on")`` took the last value without a word."""
    with pytest.raises(gulbara.errors.InvalidRulesError, match="mars is given twice"):
        gulbara.Rules.from_text("mars=off,mars=on")
    text = gulbara.game.record.game_to_text(gulbara.Game(gulbara.Rules(mars=False), seed=3))
    with pytest.raises(gulbara.errors.RecordError, match="mars is given twice"):
        gulbara.game.record.read_record(text.replace("Rules: mars=off", "Rules: mars=off mars=on"))


@pytest.mark.parametrize("text", ["\u0662\u0664/\u0661\u0668 24/20", "24/\uff11\uff18 24/20"])
def test_regression_notation_takes_ascii_digits_only(text):
    """'٢٤/١٨' and fullwidth digits were read as 24/18."""
    with pytest.raises(gulbara.errors.InvalidNotationError):
        gulbara.Game(seed=24).play(text)
    assert str(gulbara.Game(seed=24).play("24/18 24/20")) == "24/18 24/20"


@pytest.mark.parametrize("flag", ["no", 0, 1.0, None])
def test_regression_flags_are_bools(flag):
    """``Board.push(play, pass_turn='no')`` passed the turn and ``Game(auto_roll='no')``
    rolled by itself: any truthy value was taken for True."""
    board = gulbara.Board()
    play = board.stage_ends([6, 4])[0]
    with pytest.raises(TypeError, match="pass_turn must be True or False"):
        board.push(play, pass_turn=flag)
    assert board.code() == gulbara.Board().code() and not board.move_stack
    with pytest.raises(TypeError, match="auto_roll must be True or False"):
        gulbara.Game(auto_roll=flag)
    with pytest.raises(TypeError, match="auto_roll must be True or False"):
        gulbara.Match(auto_roll=flag)
    if flag is not None:                                  # (copy's None keeps the mode)
        with pytest.raises(TypeError, match="auto_roll must be True or False"):
            gulbara.Game(seed=1).copy(auto_roll=flag)


def test_regression_a_python_rules_error_does_not_speak_of_a_command_line_option():
    """Rules.from_text's messages started with the command line's "--rules:" in Python too."""
    from gulbara import InvalidRulesError, Rules
    with pytest.raises(InvalidRulesError, match=r"^rules: remainder must be"):
        Rules.from_text("remainder=later")
    with pytest.raises(InvalidRulesError, match=r"^rules: unknown preset or option 'nope'"):
        Rules.from_text("nope")
    with pytest.raises(InvalidRulesError, match=r"^--rules: unknown option"):
        Rules.from_text("default bad", where="--rules")
