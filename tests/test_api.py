"""The public API of Board, Play, StageEnds and Rules (STYLE §4)."""

import copy
import dataclasses

import pytest

import gulbara
from gulbara import BLACK, WHITE, Board, Play, Rules
from gulbara.errors import InvalidRulesError

START = gulbara.START_CODE
NAMESPACE = vars(gulbara)


# ---------------------------------------------------------------------------
# Board
# ---------------------------------------------------------------------------


def test_board_default_is_the_start():
    board = Board()
    assert board.code() == START
    assert board.turn == WHITE
    assert board.move_stack == []
    assert board.points() == tuple(15 if q == 24 else -15 if q == 12 else 0 for q in range(1, 25))
    assert board.pip_count(WHITE) == board.pip_count(BLACK) == 360
    assert board.borne_off(WHITE) == board.borne_off(BLACK) == 0
    assert not board.is_game_over() and board.winner() is None
    assert board == Board(START, WHITE) == Board.from_code(START)
    assert board != Board(START, BLACK)
    assert board.position == gulbara.Position.from_code(START)


def test_board_from_code_and_turn():
    code = "G:,,,,,,,,,-1,,,1,,,,,,,,,,,|0,0|14,14"
    board = Board.from_code(code, BLACK)
    assert board.code() == code and board.turn == BLACK
    assert board.pip_count(WHITE) == 13
    # White's 10 is Black's own 22: ((22 + 11) mod 24) + 1 = 10 (RULES §1.3).
    assert board.pip_count(BLACK) == 22
    assert board.borne_off(WHITE) == board.borne_off(BLACK) == 14


def test_board_loose_code_reads_canonical():
    board = Board("G:+0,,,,,,,,,,,-015,,,,,,,,,,,,+15|0,0|00,0", BLACK)
    assert board.code() == START and board.turn == BLACK
    assert board == Board(START, BLACK)


def test_board_turn_is_read_only():
    board = Board()
    with pytest.raises(AttributeError):
        board.turn = BLACK
    assert board.turn == WHITE


def test_board_repr_is_evaluable():
    board = Board()
    board.push_notation("24/18 24/20", [6, 4])
    assert repr(board) == f"Board({board.code()!r}, turn=BLACK)"
    again = eval(repr(board), NAMESPACE)
    assert isinstance(again, Board) and again == board
    assert again.code() == board.code() and again.turn == BLACK
    assert eval(repr(Board()), NAMESPACE) == Board()
    assert repr(Board()) == f"Board({START!r}, turn=WHITE)"


def test_board_push_pop_peek():
    board = Board()
    first = board.push_notation("24/18 24/20", [6, 4])
    assert board.turn == BLACK and board.peek() == first
    second = board.push_notation("24/21(2)", [3, 3], pass_turn=False)
    assert board.turn == BLACK and board.move_stack == [first, second]
    assert board.pop() == second and board.turn == BLACK
    assert board.pop() == first and board.turn == WHITE
    assert board.code() == START and board.move_stack == []


def test_pop_and_peek_on_an_empty_stack():
    board = Board(START, BLACK)
    for action in (board.pop, board.peek):
        with pytest.raises(IndexError) as info:
            action()
        assert "no pushed plays" in str(info.value)
    assert board.code() == START and board.turn == BLACK and board.move_stack == []
    # A copy without its stack cannot pop what the original pushed.
    board.push_notation("24/18 24/20", [6, 4])
    bare = board.copy(stack=False)
    with pytest.raises(IndexError):
        bare.pop()
    assert bare == board and board.pop().steps == ((24, 6), (24, 4))


def test_board_copy_and_equality():
    board = Board()
    board.push_notation("24/13", [6, 5])
    clone = board.copy()
    assert clone == board and clone is not board
    assert clone.move_stack == board.move_stack
    assert copy.copy(board) == board
    clone.push_notation("24/18(4)", [6, 6, 6, 6])
    assert board.turn == BLACK and len(board.move_stack) == 1
    assert clone != board
    with pytest.raises(TypeError):
        hash(board)
    assert board != "not a board"


def test_board_key_depends_on_turn():
    assert Board(START, WHITE).key() == gulbara.Position.from_code(START).key()
    assert Board(START, BLACK).key() != Board(START, WHITE).key()
    assert Board(START, BLACK).key() == Board(START, BLACK).key()


def test_board_str_shows_the_counts():
    text = str(Board())
    assert text == Board().ascii()
    assert "15O" in text and "15X" in text
    assert "off: O 0  X 0" in text and "to move: O (White)" in text
    board = Board("G:1,,,,,,,,,,,-13,-2,,,,,,,,,,,|0,0|14,0", BLACK)
    text = str(board)
    lines = text.splitlines()
    assert len(lines) == 5
    assert " 1O" in lines[2] and "13X" in lines[2]       # bottom row: White's 12..1
    assert " 2X" in lines[1]                            # top row: White's 13..24
    assert "off: O 14  X 0" in lines[4] and "to move: X (Black)" in lines[4]
    # The diagram's columns follow White's numbering: 1 is the last bottom cell.
    assert lines[2].rstrip().endswith("1O") and lines[3].rstrip().endswith("1")


def test_board_game_over():
    board = Board("G:,,,,,,,,,,,,-15,,,,,,,,,,,|0,0|15,0", BLACK)
    assert board.is_game_over() and board.winner() == WHITE
    board = Board("G:1,,,,,,,,,,,,,,,,,,,,,,,|0,0|14,15")
    assert board.is_game_over() and board.winner() == BLACK


def test_board_stage_ends_are_for_the_side_to_move():
    white = Board().stage_ends([6, 5])
    black = Board(START, BLACK).stage_ends([6, 5])
    assert white.seat == WHITE and black.seat == BLACK
    assert [str(p) for p in white] == [str(p) for p in black] == ["24/18 24/19", "24/13"]
    assert white.codes() != black.codes()


# ---------------------------------------------------------------------------
# Play
# ---------------------------------------------------------------------------


def test_play_repr_is_evaluable():
    ends = gulbara.stage_ends(START, WHITE, [6, 4])
    for play in ends:
        again = eval(repr(play), NAMESPACE)
        assert again == play and hash(again) == hash(play)
        assert again.code == play.code and again.steps == play.steps
    bare = Play(((24, 6), (24, 4)))
    assert repr(bare) == "Play(((24, 6), (24, 4)))"
    assert eval(repr(bare), NAMESPACE) == bare
    final = gulbara.stage_ends("G:1,,,,,,,,,,,-15,,,,,,,,,,,,|0,0|14,0", WHITE, [6, 5])[0]
    assert final.ends_game and "ends_game=True" in repr(final)
    assert eval(repr(final), NAMESPACE) == final


def test_play_value_semantics():
    play = Play([(24, 6), [24, 4]])
    assert play.steps == ((24, 6), (24, 4)) and play.code is None and not play.ends_game
    assert play == Play(((24, 6), (24, 4))) and play != Play(((24, 4), (24, 6)))
    assert play != Play(((24, 6), (24, 4)), code=START)
    assert len({play, Play(((24, 6), (24, 4)))}) == 1
    with pytest.raises(AttributeError):
        play.steps = ()
    with pytest.raises(AttributeError):
        play._steps = ()
    assert play.steps == ((24, 6), (24, 4))
    assert not play.is_empty() and Play().is_empty()
    assert str(Play()) == "pass" and Play().notation() == "pass"
    assert play != "24/18 24/20"


def test_play_from_notation():
    assert Play.from_notation("24/18 24/20").steps == ((24, 6), (24, 4))
    assert Play.from_notation("13/7(2)").steps == ((13, 6), (13, 6))
    assert Play.from_notation("24/18/12").steps == ((24, 6), (18, 6))
    assert Play.from_notation("pass") == Play()
    assert Play.from_notation("24/18 24/20") in gulbara.stage_ends(START, WHITE, [4, 6])


def test_format_steps():
    fmt = gulbara.format_steps
    assert fmt([(24, 6), (18, 4)]) == "24/14"
    assert fmt([(24, 6), (24, 6), (18, 6), (18, 6)]) == "24/12(2)"
    assert fmt([(13, 6), (13, 6), (24, 6)]) == "13/7(2) 24/18"
    assert fmt([(6, 6), (5, 6)]) == "6/off 5/off"
    assert fmt([(3, 2), (1, 1)]) == "3/off"
    assert fmt([]) == "pass"


# ---------------------------------------------------------------------------
# StageEnds
# ---------------------------------------------------------------------------


def test_stage_ends_basics():
    ends = gulbara.stage_ends(START, WHITE, [4, 6])
    assert ends.dice == (6, 4) and ends.seat == WHITE and ends.playable_dice == 2
    assert len(ends) == 2 and [str(p) for p in ends] == ["24/18 24/20", "24/14"]
    assert ends[-1] == ends[1] and ends[0:1] == [ends[0]] and ends[::-1] == [ends[1], ends[0]]
    with pytest.raises(IndexError):
        ends[2]
    with pytest.raises(IndexError):
        ends[-3]
    assert repr(ends) == "<StageEnds seat=0 dice=(6, 4) playable_dice=2 ends=2>"
    assert "24/20 24/18" in ends and "24/20 20/14" in ends and "24/18 18/14" in ends
    assert [(24, 4), (24, 6)] in ends and [(24, 4), (20, 6)] in ends
    assert "24/14(2)" not in ends and [(24, 6)] not in ends and None not in ends
    assert ends.find("24/14") == ends[1] and ends.find("24/13") is None
    assert ends.codes() == [p.code for p in ends]


def test_regression_split_moves_in_reverse_order():
    """BUG (play.py, StageEnds.parse / __contains__): StageEnds.parse documents
    "moves in any order, a checker's moves joined (24/14) or split (24/18 18/14)",
    but a split move written second-hop-first is rejected: from the start with 6-5,
    "24/18 18/13" is read while "18/13 24/18" raises IllegalPlayError (and `in` says
    False), because _index_of_paths takes the moves in the written order and there
    is no White checker on 18 yet."""
    ends = gulbara.stage_ends(START, WHITE, [6, 5])
    assert ends.parse("24/18 18/13") == ends[1]
    assert "18/13 24/18" in ends
    assert ends.parse("18/13 24/18") == ends[1]


# ---------------------------------------------------------------------------
# Rules
# ---------------------------------------------------------------------------


def test_rules_default_and_repr():
    rules = Rules()
    assert rules == gulbara.DEFAULT_RULES
    assert (rules.escalation, rules.exempt_rolls, rules.exempt_counting, rules.remainder,
            rules.unstarted_chain, rules.opening, rules.mars, rules.stuck_limit,
            rules.match_target) == (True, 3, "per_player", "to_opponent", "lost",
                                    "starter_plays_opening_pair", True, 100, 3)
    for value in (rules, Rules(remainder="lost", stuck_limit=None, exempt_rolls=0)):
        assert eval(repr(value), NAMESPACE) == value
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.escalation = False
    assert hash(rules) == hash(Rules())


@pytest.mark.parametrize("option,value", [
    ("escalation", 1), ("escalation", "yes"), ("escalation", None),
    ("mars", 0), ("mars", "on"),
    ("exempt_rolls", -1), ("exempt_rolls", 1.5), ("exempt_rolls", True), ("exempt_rolls", "3"),
    ("exempt_rolls", None),
    ("exempt_counting", "per-player"), ("exempt_counting", None),
    ("remainder", "later"), ("remainder", "Lost"),
    ("unstarted_chain", "to opponent"), ("unstarted_chain", True),
    ("opening", "starter_rolls"),
    ("stuck_limit", 0), ("stuck_limit", -5), ("stuck_limit", 2.0), ("stuck_limit", False),
    ("match_target", 0), ("match_target", -1), ("match_target", "3"), ("match_target", None),
])
def test_rules_bad_values(option, value):
    with pytest.raises(InvalidRulesError) as info:
        Rules(**{option: value})
    assert option in str(info.value) and repr(value) in str(info.value)
    with pytest.raises(InvalidRulesError):
        Rules.from_dict({option: value})


@pytest.mark.parametrize("option,value", [
    ("escalation", False), ("mars", False), ("exempt_rolls", 0), ("exempt_rolls", 7),
    ("exempt_counting", "game_wide"), ("remainder", "lost"), ("unstarted_chain", "to_opponent"),
    ("opening", "starter_rerolls"), ("stuck_limit", None), ("stuck_limit", 1),
    ("match_target", 1), ("match_target", 11),
])
def test_rules_good_values(option, value):
    rules = Rules(**{option: value})
    assert getattr(rules, option) == value
    assert Rules.from_dict(rules.to_dict()) == rules
    assert Rules.from_dict({option: value}) == rules


def test_rules_from_dict_unknown_option():
    with pytest.raises(InvalidRulesError) as info:
        Rules.from_dict({"escalation": False, "hitting": True, "bar": 1})
    assert "'bar'" in str(info.value) and "'hitting'" in str(info.value)
    assert Rules.from_dict({}) == Rules()
    assert Rules().to_dict()["remainder"] == "to_opponent"


def test_rules_presets():
    presets = gulbara.PRESETS
    assert set(presets) >= {"bulgarian", "plain-doubles", "remainder-lost", "game-wide-exemption"}
    assert presets["bulgarian"] == Rules()
    assert Rules.preset("plain-doubles") == Rules(escalation=False)
    assert Rules.preset("remainder-lost") == Rules(remainder="lost")
    assert Rules.preset("game-wide-exemption").exempt_counting == "game_wide"
    for name, rules in presets.items():
        assert Rules.preset(name) is rules and isinstance(rules, Rules)
    with pytest.raises(InvalidRulesError) as info:
        Rules.preset("tavla")
    assert "'tavla'" in str(info.value) and "bulgarian" in str(info.value)


# ---------------------------------------------------------------------------
# Module constants
# ---------------------------------------------------------------------------


def test_constants():
    assert (WHITE, BLACK) == (0, 1)
    assert START == "G:,,,,,,,,,,,-15,,,,,,,,,,,,15|0,0|0,0"
    assert len(gulbara.ROLLS) == 21 and len(set(gulbara.ROLLS)) == 21
    assert gulbara.ROLLS[0] == (6, 6) and all(a >= b for a, b in gulbara.ROLLS)
    assert gulbara.BACKEND_NAME in ("core", "reference")
    for name in gulbara.__all__:
        assert hasattr(gulbara, name), name


def test_regression_position_constructor_reads_its_arguments():
    # Position(...) used to ignore its arguments and give an empty board.
    points = [0] * 24
    points[23], points[11] = 15, -15
    built = gulbara.Position(points, 0, 0)
    assert built == gulbara.Position.from_points(points, 0, 0)
    assert built.code() == gulbara.START_CODE
    with pytest.raises(TypeError):
        gulbara.Position(gulbara.START_CODE)
    with pytest.raises(gulbara.GulBaraError):
        gulbara.Position([1] * 23, 0, 0)


def test_regression_play_steps_are_pairs_of_ints():
    """Play truncated float and string steps (and Board.push played them); format_steps
    wrote '24/17.3'."""
    for steps in ([(24, 6.9)], [("24", "6")], [(24, True)], [(24, 6, 0)], [24], "24/18"):
        with pytest.raises(TypeError, match="step"):
            Play(steps)
        with pytest.raises(TypeError, match="step"):
            gulbara.format_steps(steps)
    board = Board()
    with pytest.raises(TypeError):
        board.push(Play([(24, 6.9)]))
    assert board.code() == gulbara.START_CODE
    import numpy as np
    assert Play([(np.int64(24), np.int8(6))]).steps == ((24, 6),)
    assert type(Play([(np.int64(24), np.int8(6))]).steps[0][0]) is int


def test_submodules_load_on_first_use(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path
    code = ("import sys, gulbara\n"
            "assert 'gulbara.net' not in sys.modules and 'gulbara.selfplay' not in sys.modules\n"
            "assert 'gulbara.net._net' not in sys.modules\n"
            "assert 'gulbara.selfplay._selfplay' not in sys.modules\n"
            "assert gulbara.net.default_net().hidden > 0\n"
            "assert gulbara.selfplay.rollout is sys.modules['gulbara.selfplay.games'].rollout\n"
            "assert 'tools' in dir(gulbara)\n")
    # a fresh interpreter on the gulbara this test imported (not a source tree in its cwd)
    env = dict(os.environ, PYTHONPATH=str(Path(gulbara.__file__).resolve().parent.parent))
    subprocess.run([sys.executable, "-c", code], check=True, cwd=tmp_path, env=env)
    for name in gulbara.LAZY_MODULES:
        assert getattr(gulbara, name).__name__ == f"gulbara.{name}"
    with pytest.raises(AttributeError, match="no attribute 'nosuch'"):
        gulbara.nosuch
