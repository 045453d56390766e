"""Fuzzing the input readers with hypothesis (STYLE §6).

* ``Position.from_code`` / ``stage_ends`` on arbitrary text and on mutated
  valid codes: a valid result or ``InvalidPositionError`` / ``TypeError``,
  never another exception; both backends agree on accept vs reject, on the
  canonical code, and with an independent reading of docs/dev/backend.md.
* ``parse_notation`` and ``StageEnds.parse`` on arbitrary and notation-like
  text: only ``InvalidNotationError`` / ``IllegalPlayError`` / ``TypeError``.
* Dice lists and seats: both backends agree, and with the contract.
"""

import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gulbara
from gulbara.core import _movegen
from gulbara.core import _reference
from gulbara.errors import (IllegalPlayError, InvalidDiceError, InvalidNotationError,
                            InvalidPositionError, InvalidSeatError)
from positions import mixed_positions

FUZZ = settings(max_examples=250, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
FUZZ_SLOW = settings(max_examples=250, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow])

START = gulbara.START_CODE
POOL = [START] + sorted({code for code, _ in mixed_positions(4242, 80)})
CODE_CHARS = "G:0123456789,|-+ x"


# ---------------------------------------------------------------------------
# An independent reading of the code format (docs/dev/backend.md, RULES §9.1)
# ---------------------------------------------------------------------------

_INT = re.compile(r"[+-]?[0-9]+")
_COUNT = re.compile(r"[0-9]+")


def spec_canonical(code):
    """The canonical code the contract gives ``code``, or None if it is invalid."""
    if not code.startswith("G:"):
        return None
    sections = code[2:].split("|")
    if len(sections) != 3:
        return None
    point_section, bar, off = sections
    tokens = point_section.split(",")
    if len(tokens) != 24:
        return None
    counts = []
    for token in tokens:
        if token == "":
            counts.append(0)
            continue
        if not _INT.fullmatch(token):
            return None
        digits = token.lstrip("+-").lstrip("0")
        if len(digits) > 2:
            return None                     # above 15 anyway
        counts.append(int(token))
    if any(abs(n) > 15 for n in counts):
        return None
    if bar != "0,0":
        return None
    off_tokens = off.split(",")
    if len(off_tokens) != 2 or not all(_COUNT.fullmatch(t) for t in off_tokens):
        return None
    if any(len(t.lstrip("0")) > 2 for t in off_tokens):
        return None
    off_white, off_black = map(int, off_tokens)
    if not (0 <= off_white <= 15 and 0 <= off_black <= 15):
        return None
    if sum(n for n in counts if n > 0) + off_white != 15:
        return None
    if sum(-n for n in counts if n < 0) + off_black != 15:
        return None
    body = ",".join("" if n == 0 else str(n) for n in counts)
    return f"G:{body}|0,0|{off_white},{off_black}"


def read_code(backend, code):
    """('ok', canonical code) or (exception class name,); anything else propagates."""
    try:
        return ("ok", backend.Position.from_code(code).code())
    except InvalidPositionError:
        return ("InvalidPositionError",)
    except TypeError:
        return ("TypeError",)


def check_code(code):
    core = read_code(_movegen, code)
    reference = read_code(_reference, code)
    assert core == reference, (code, core, reference)
    expected = spec_canonical(code) if isinstance(code, str) else None
    if expected is None:
        assert core[0] != "ok", (code, core)
    else:
        assert core == ("ok", expected), (code, core)
        # The canonical code reads back as itself.
        assert read_code(_movegen, expected) == ("ok", expected)
    return core


@st.composite
def mutated_codes(draw):
    """A real code with one to four characters inserted, deleted or replaced."""
    chars = list(draw(st.sampled_from(POOL)))
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["insert", "delete", "replace", "swap", "dup"]))
        i = draw(st.integers(0, len(chars) - 1)) if chars else 0
        ch = draw(st.one_of(st.sampled_from(CODE_CHARS), st.characters()))
        if op == "insert" or not chars:
            chars.insert(i, ch)
        elif op == "delete":
            del chars[i]
        elif op == "replace":
            chars[i] = ch
        elif op == "swap":
            j = draw(st.integers(0, len(chars) - 1))
            chars[i], chars[j] = chars[j], chars[i]
        else:
            chars.insert(i, chars[i])
    return "".join(chars)


@st.composite
def digit_edited_codes(draw):
    """A real code with one point token or the off section changed to another number.

    These are mostly well-formed, so they exercise the count and total checks.
    """
    code = draw(st.sampled_from(POOL))
    points, bar, off = code[2:].split("|")
    tokens = points.split(",")
    new = draw(st.sampled_from(["", "0", "+0", "-0", "1", "-1", "+3", "15", "-15", "16",
                                "007", "-07", "99", "1-1"]))
    if draw(st.booleans()):
        tokens[draw(st.integers(0, 23))] = new
    else:
        off = draw(st.sampled_from(["0,0", "15,0", "0,15", "1,2", "16,0", "0,-1", "00,01"]))
    return "G:" + ",".join(tokens) + "|" + bar + "|" + off


code_like_text = st.text(alphabet=CODE_CHARS, max_size=90)
structured = st.from_regex(
    r"G:([+-]?[0-9]{0,2},){23}[+-]?[0-9]{0,2}\|0,0\|[0-9]{1,2},[0-9]{1,2}", fullmatch=True)


@FUZZ
@given(st.text(max_size=120))
def test_from_code_arbitrary_text(code):
    check_code(code)


@settings(FUZZ, max_examples=150)
@given(st.one_of(code_like_text, structured, st.just("G:").map(lambda p: p + "," * 23)))
def test_from_code_code_like_text(code):
    check_code(code)


@FUZZ
@given(mutated_codes())
def test_from_code_mutated_codes(code):
    check_code(code)


@FUZZ
@given(digit_edited_codes())
def test_from_code_edited_numbers(code):
    check_code(code)


@FUZZ
@given(st.one_of(st.none(), st.integers(), st.binary(max_size=40), st.lists(st.text(max_size=3)),
                 st.floats(allow_nan=False)))
def test_from_code_non_str(value):
    assert check_code(value) == ("TypeError",)


def test_from_code_valid_pool():
    """Every pooled code is accepted and canonical (the fuzzers mutate real codes)."""
    for code in POOL:
        assert check_code(code) == ("ok", code)


# ---------------------------------------------------------------------------
# stage_ends on fuzzed input
# ---------------------------------------------------------------------------

ENDS_ERRORS = (InvalidPositionError, InvalidSeatError, InvalidDiceError, TypeError)


def stage_outcome(backend, code, seat, dice):
    try:
        ends = backend.stage_ends(code, seat, dice)
    except ENDS_ERRORS as exc:
        return (type(exc).__name__,)
    return ("ok", ends.dice, ends.playable_dice,
            [(ends.code(i), ends.steps(i), ends.ends_game(i)) for i in range(len(ends))])


small_ints = st.integers(-2, 9)


valid_stages = st.one_of(
    st.tuples(st.integers(1, 6), st.integers(1, 6)).map(list),
    st.tuples(st.integers(1, 6), st.integers(1, 3)).map(lambda t: [t[0]] * t[1]))


@FUZZ_SLOW
@given(st.one_of(st.sampled_from(POOL), mutated_codes(), digit_edited_codes()),
       st.sampled_from([0, 1, 0, 1, 0, 1, 2, -1, True, None, "0", 1.0]),
       st.one_of(valid_stages, st.lists(small_ints, max_size=5)).filter(
           lambda d: not (len(d) == 4 and len(set(d)) == 1)))
def test_stage_ends_fuzzed_input(code, seat, dice):
    """Four equal dice are left out to keep the reference fast; they are fuzzed below."""
    core = stage_outcome(_movegen, code, seat, dice)
    reference = stage_outcome(_reference, code, seat, dice)
    assert core == reference, (code, seat, dice)
    if core[0] == "ok":
        assert spec_canonical(code) is not None and seat in (0, 1)
        assert len(core[3]) >= 1


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(POOL), st.integers(0, 1), st.integers(1, 6))
def test_stage_ends_four_equal_dice(code, seat, die):
    assert (stage_outcome(_movegen, code, seat, [die] * 4)
            == stage_outcome(_reference, code, seat, [die] * 4))


# ---------------------------------------------------------------------------
# Dice and seats
# ---------------------------------------------------------------------------


def spec_dice_ok(dice):
    if not dice or not all(1 <= d <= 6 for d in dice):
        return False
    return (len(dice) == 2 and dice[0] != dice[1]) or (len(dice) <= 4 and len(set(dice)) == 1)


def dice_outcome(backend, code, seat, dice):
    try:
        return ("ok", backend.Position.from_code(code).stage_ends(seat, dice).dice)
    except InvalidDiceError as exc:
        return ("InvalidDiceError", str(exc))
    except TypeError:
        return ("TypeError",)


@FUZZ
@given(st.sampled_from(POOL[:20]), st.integers(0, 1),
       st.one_of(st.lists(small_ints, max_size=7), st.lists(st.integers(-2**70, 2**70), max_size=3),
                 st.lists(small_ints, max_size=5).map(tuple)))
def test_dice_lists(code, seat, dice):
    core = dice_outcome(_movegen, code, seat, dice)
    reference = dice_outcome(_reference, code, seat, dice)
    assert core[0] == reference[0], (dice, core, reference)
    if spec_dice_ok(list(dice)):
        assert core == ("ok", tuple(sorted(dice, reverse=True)))
        assert reference == core
    else:
        assert core[0] == "InvalidDiceError"
        # The message names the dice (at least one offending value).
        for message in (core[1], reference[1]):
            bad = [d for d in dice if not 1 <= d <= 6]
            named = [str(d) for d in (bad or dice)]
            assert not dice or any(n in message for n in named), (dice, message)


@FUZZ
@given(st.lists(st.one_of(st.booleans(), st.floats(), st.text(max_size=2), st.none(),
                          st.just(1.0), st.integers(1, 6)), min_size=1, max_size=4)
       .filter(lambda d: any(type(x) is not int for x in d)))
def test_dice_with_non_ints(dice):
    """Only TypeError or InvalidDiceError; the reference always says TypeError.

    (The core can say InvalidDiceError when a bad int comes before the non-int:
    see test_errors.test_regression_non_int_die_is_a_type_error_whatever_its_neighbours.)
    """
    assert dice_outcome(_reference, START, 0, dice) == ("TypeError",)
    assert dice_outcome(_movegen, START, 0, dice)[0] in ("TypeError", "InvalidDiceError")
    if all(type(d) is not int or 1 <= d <= 6 for d in dice) and len(dice) <= 4:
        assert dice_outcome(_movegen, START, 0, dice) == ("TypeError",)


@FUZZ
@given(st.one_of(st.integers(), st.integers(-3, 4)))
def test_seats(seat):
    for backend in (_movegen, _reference):
        try:
            ends = backend.stage_ends(START, seat, [2, 1])
        except InvalidSeatError as exc:
            assert seat not in (0, 1) and str(seat) in str(exc)
        else:
            assert seat in (0, 1) and ends.seat == seat


# ---------------------------------------------------------------------------
# Notation
# ---------------------------------------------------------------------------

NOTATION_CHARS = "0123456789/offOFbar*() ,;-pas\t"


def check_paths(paths):
    assert isinstance(paths, list)
    for path in paths:
        assert len(path) >= 2 and all(type(q) is int for q in path)
        assert 1 <= path[0] <= 24
        assert all(0 <= q <= 24 for q in path)
        assert all(a > b for a, b in zip(path, path[1:]))
        assert 0 not in path[:-1]


def parse_or_error(text):
    try:
        paths = gulbara.parse_notation(text)
    except InvalidNotationError:
        return None
    check_paths(paths)
    return paths


@st.composite
def notation_like(draw):
    """Moves like '24/18', '6/off', '13/7(2)', with random points, joined by separators."""
    words = []
    for _ in range(draw(st.integers(0, 5))):
        points = draw(st.lists(st.integers(0, 26), min_size=1, max_size=3))
        path = "/".join(str(q) for q in points)
        if draw(st.booleans()):
            path += "/off"
        if draw(st.integers(0, 4)) == 0:
            path += f"({draw(st.integers(0, 17))})"
        if draw(st.integers(0, 6)) == 0:
            path = path.upper()
        words.append(path)
    separator = draw(st.sampled_from([" ", "  ", ",", ";", " , ", "\t"]))
    return separator.join(words)


@FUZZ
@given(st.one_of(st.text(max_size=40), st.text(alphabet=NOTATION_CHARS, max_size=40),
                 notation_like()))
def test_parse_notation_fuzz(text):
    parse_or_error(text)


@FUZZ
@given(st.one_of(st.none(), st.integers(), st.binary(max_size=10), st.lists(st.text(max_size=3))))
def test_parse_notation_non_str(value):
    with pytest.raises(TypeError):
        gulbara.parse_notation(value)


def _stages():
    rng = random.Random(17)
    stages = [(START, 0, [6, 5]), (START, 1, [3, 3, 3, 3]), (START, 0, [2]),
              ("G:2,2,3,1,,,,,,,,,-15,,,,,,,,,,,|0,0|7,0", 0, [6, 1]),
              ("G:,,,,,,,,,,,-3,-2,-2,-2,-2,-2,-2,,,,,,15|0,0|0,0", 0, [6, 5])]
    for code, seat in mixed_positions(31, 12):
        a, b = rng.randint(1, 6), rng.randint(1, 6)
        stages.append((code, seat, [a, b] if a != b else [a] * rng.randint(1, 4)))
    return [(code, gulbara.stage_ends(code, seat, dice)) for code, seat, dice in stages]


STAGES = _stages()


@st.composite
def stage_and_text(draw):
    code, ends = draw(st.sampled_from(STAGES))
    kind = draw(st.integers(0, 3))
    if kind == 0:
        text = draw(st.text(max_size=30))
    elif kind == 1:
        text = draw(notation_like())
    else:
        # A real play's notation, its moves shuffled, one of them perhaps altered.
        words = str(ends[draw(st.integers(0, len(ends) - 1))]).split()
        words = draw(st.permutations(words))
        if kind == 3 and words:
            i = draw(st.integers(0, len(words) - 1))
            words[i] = draw(st.sampled_from(["24/18", "6/off", "13/7(2)", "1/off", "x", "pass"]))
        text = " ".join(words)
    return code, ends, text


def paths_end(code, ends, paths):
    """The end code that the checker paths reach from the stage's start (None if impossible)."""
    start = gulbara.Position.from_code(code)
    points = list(start.points())
    off = [start.borne_off(0), start.borne_off(1)]
    seat = ends.seat
    sign = 1 if seat == 0 else -1

    def white(q):
        return q if seat == 0 else ((q + 11) % 24) + 1

    for path in paths:
        points[white(path[0]) - 1] -= sign
        if path[-1] == 0:
            off[seat] += 1
        else:
            points[white(path[-1]) - 1] += sign
    try:
        return gulbara.Position.from_points(points, off[0], off[1]).code()
    except (InvalidPositionError, TypeError):
        return None


@FUZZ
@given(stage_and_text())
def test_stage_parse_fuzz(case):
    code, ends, text = case
    try:
        play = ends.parse(text)
    except (InvalidNotationError, IllegalPlayError):
        assert text not in ends
        if parse_or_error(text) is not None:
            assert ends.find(text) is None
        return
    # A successful parse is one of the stage's ends, and `in` agrees.
    assert play in list(ends)
    assert text in ends
    assert ends.find(text) == play
    # Its moves reach exactly that end.
    assert paths_end(code, ends, gulbara.parse_notation(text)) == play.code


def test_stage_parse_accepts_every_canonical_notation():
    """The generated texts of the fuzzer above include every end's own notation."""
    for _, ends in STAGES:
        for play in ends:
            assert ends.parse(str(play)) == play


# ---------------------------------------------------------------------------
# Records and state codes: only gulbara's errors escape
# ---------------------------------------------------------------------------

import json  # noqa: E402

from gulbara import Game  # noqa: E402
from gulbara import Match  # noqa: E402
from gulbara.errors import GulBaraError  # noqa: E402
from gulbara.game.perft import perft, perft_python  # noqa: E402
from gulbara.game.record import read_record, write_record  # noqa: E402
from positions import sample_games  # noqa: E402


def _played(obj, seed: int, plies: int):
    bot = gulbara.GreedyBot()
    rng = random.Random(seed)
    for _ in range(plies):
        if obj.is_over():
            break
        ends = obj.legal_plays()
        obj.play(ends[rng.randrange(len(ends))] if rng.random() < 0.5 else bot.choose(obj))
    return obj


RECORDED = [_played(Game(seed=2), 2, 400), _played(Game(seed=9), 9, 25),
            _played(Match(target=1, seed=3), 3, 400)]
RECORD_DATA = [json.loads(write_record(obj, "json")) for obj in RECORDED]
RECORD_TEXT = [write_record(obj) for obj in RECORDED]

json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.sampled_from([10**400, -1, 2**64]),
              st.floats(allow_nan=False), st.text(max_size=8)),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.text(max_size=6), inner, max_size=3)),
    max_leaves=8)


def _mutate(data, rng: random.Random, value):
    """``data`` with one random part deleted, replaced by ``value``, nested deeper or
    turned into a string."""
    data = json.loads(json.dumps(data))
    parent, key = None, None
    node = data
    for _ in range(rng.randrange(1, 7)):
        if isinstance(node, dict) and node:
            key = rng.choice(sorted(node))
        elif isinstance(node, list) and node:
            key = rng.randrange(len(node))
        else:
            break
        parent, node = node, node[key]
    if parent is None:
        return value
    op = rng.randrange(4)
    if op == 0:
        del parent[key]
    elif op == 1:
        parent[key] = value
    elif op == 2:
        parent[key] = [[[node]]]
    else:
        parent[key] = str(node)
    return data


def _only_gulbara_errors(call):
    try:
        call()
    except GulBaraError:
        pass


@FUZZ
@given(st.sampled_from(range(len(RECORD_DATA))), st.randoms(use_true_random=False), json_values)
def test_json_records_mutated(k, rng, value):
    data = _mutate(RECORD_DATA[k], rng, value)
    if isinstance(data, dict):
        _only_gulbara_errors(lambda: read_record(data))
    _only_gulbara_errors(lambda: read_record(json.dumps(data)))


def test_json_records_nested_deeply():
    with pytest.raises(gulbara.RecordError):
        read_record("{" + '"a": [' * 100_000)
    with pytest.raises(gulbara.RecordError):
        read_record('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}")


TEXT_PIECES = ["", "9" * 5000, "-5", "\u0661", "1_0", "[4444]", "|", ":", "W1", "6-6", " chain",
               "White wins 99 points", "Score: 1-0", "Game 2", "Target: 0"]


@FUZZ
@given(st.sampled_from(range(len(RECORD_TEXT))), st.randoms(use_true_random=False),
       st.sampled_from(TEXT_PIECES))
def test_text_records_mutated(k, rng, piece):
    lines = RECORD_TEXT[k].splitlines()
    i = rng.randrange(len(lines))
    op = rng.randrange(4)
    if op == 0:
        del lines[i]
    elif op == 1:
        lines.insert(i, lines[rng.randrange(len(lines))])
    else:
        line = lines[i]
        at = rng.randrange(len(line) + 1)
        cut = at + (rng.randrange(4) if op == 2 else 0)
        lines[i] = line[:at] + piece + line[cut:]
    _only_gulbara_errors(lambda: read_record("\n".join(lines) + "\n"))


STATES = sorted(set(sample_games(300, 77, lambda game: game.state_code(),
                                 lambda game, ply: ply % 3 == 0)))
STATE_PIECES = ["0", "1", "6", "99", "2147483647", "4294967296", "9" * 30, "\u0661", "1_0", "-1",
                ",", "-", "x", "W", "B", ":", "=", " ", "index=1", "then=6x4", "stuck=99",
                "roller=W", "next=over", "result=draw", "result=W:2:mars"]


@st.composite
def mutated_state_codes(draw):
    code = draw(st.sampled_from(STATES))
    rng = draw(st.randoms(use_true_random=False))
    for _ in range(draw(st.integers(1, 3))):
        words = code.split(" ")
        i = rng.randrange(1, len(words))
        word = words[i]
        at = rng.randrange(len(word) + 1)
        cut = at + rng.randrange(3)
        words[i] = word[:at] + draw(st.sampled_from(STATE_PIECES)) + word[cut:]
        code = " ".join(words)
    return code


def _game_or_none(code):
    """The game of a state code, or None when it is refused with a gulbara error."""
    try:
        return Game.from_state_code(code)
    except GulBaraError:
        return None


@settings(FUZZ, max_examples=300)
@given(mutated_state_codes())
def test_state_codes_mutated(code):
    game = _game_or_none(code)
    if game is not None:
        again = Game.from_state_code(game.state_code())
        assert again.state_code() == game.state_code()
        assert again.state_key() == game.state_key()


@settings(FUZZ, max_examples=40)
@given(mutated_state_codes())
def test_accepted_state_codes_perft_native_equals_python(code):
    game = _game_or_none(code)
    if game is not None:
        assert perft(game, 2) == perft_python(game, 2)
