"""Hand-worked edge cases of the stage rules, each citing its RULES section.

Every expected answer below was worked out by hand from RULES.md before it
was checked; the working is in the comments. Each case goes through the
public API (``gulbara.stage_ends``, ``Board``) and both backends.

Positions are written in White's numbering (RULES §9.1): ``points({24: 15,
12: -15})`` is the start. Black's own point p is White's ((p + 11) mod 24) + 1
(RULES §1.3): Black's 24 is White's 12, Black's home 1..6 is White's 13..18.
"""

import pytest

import gulbara
from gulbara import BLACK, WHITE
from gulbara.core import _movegen
from gulbara.core import _reference
from gulbara.errors import IllegalPlayError

START = gulbara.START_CODE
ALL_STAGES = ([[a, b] if a != b else [a] * 4 for a in range(1, 7) for b in range(a, 7)]
              + [[d] * n for d in range(1, 7) for n in (1, 2, 3)])


def points(counts, off=(0, 0)):
    """A code from {White point: signed count} and the borne-off counts; checked valid."""
    values = [counts.get(q, 0) for q in range(1, 25)]
    code = "G:" + ",".join("" if n == 0 else str(n) for n in values) + f"|0,0|{off[0]},{off[1]}"
    assert gulbara.Position.from_code(code).code() == code
    return code


def stage(code, seat, dice):
    """The stage through the public API, checked equal in both backends.

    Returns (playable_dice, [(notation, steps, end code, ends_game), ...]).
    """
    ends = gulbara.stage_ends(code, seat, dice)
    got = [(str(p), p.steps, p.code, p.ends_game) for p in ends]
    for backend in (_movegen, _reference):
        raw = backend.stage_ends(code, seat, dice)
        assert raw.playable_dice == ends.playable_dice
        assert [(raw.steps(i), raw.code(i), raw.ends_game(i)) for i in range(len(raw))] == [
            g[1:] for g in got]
    board = gulbara.Board(code, seat)
    assert [(str(p), p.steps, p.code, p.ends_game) for p in board.stage_ends(dice)] == got
    return ends.playable_dice, got


def only_end(code, seat, dice):
    playable, got = stage(code, seat, dice)
    assert len(got) == 1, got
    return playable, got[0]


# ---------------------------------------------------------------------------
# RULES §1.3, §2.2: the start, and 6-6 blocked at the opponent's start
# ---------------------------------------------------------------------------


def test_start_position_numbering():
    """RULES §1.3-1.4: White on its 24, Black on its 24 = White's 12."""
    assert START == points({24: 15, 12: -15})
    start = gulbara.Position.from_code(START)
    assert start.pip_count(WHITE) == start.pip_count(BLACK) == 15 * 24


@pytest.mark.parametrize("seat,end", [
    # White: 24 -> 18 is open, 18 -> 12 is Black's start (RULES §2.2), so every 6
    # moves a different checker one step: 24/18(4).
    (WHITE, {18: 4, 24: 11, 12: -15}),
    # Black: its 24 (White's 12) -> its 18 (White's 6); its 12 is White's 24, held.
    (BLACK, {24: 15, 6: -4, 12: -11}),
])
def test_six_six_from_the_start(seat, end):
    """RULES §1.3, §2.2, §4.1: 6-6 from the start is only 24/18(4)."""
    playable, (text, steps, code, ends_game) = only_end(START, seat, [6, 6, 6, 6])
    assert playable == 4
    assert text == "24/18(4)"
    assert steps == ((24, 6),) * 4
    assert code == points(end)
    assert not ends_game
    with pytest.raises(IllegalPlayError):
        gulbara.Board(START, seat).push_notation("24/12 24/18(2)", [6, 6, 6, 6])


def test_six_five_from_the_start():
    """RULES §3.7-3.8: 24/18 24/19 and 24/13 (24/19/13 is the same end as 24/18/13).

    Plays in canonical order: (24,6)(24,5), (24,6)(18,5), (24,5)(24,6) [= first end],
    (24,5)(19,6) [= second end]; the second step 24 before 18 puts '24/18 24/19' first.
    """
    playable, got = stage(START, WHITE, [5, 6])
    assert playable == 2
    assert got == [
        ("24/18 24/19", ((24, 6), (24, 5)), points({18: 1, 19: 1, 24: 13, 12: -15}), False),
        ("24/13", ((24, 6), (18, 5)), points({13: 1, 24: 14, 12: -15}), False),
    ]


def test_intermediate_point_must_be_open():
    """RULES §2.4: 24/13 with 6-5 when 18 is held: only via 19, so the canonical
    steps are (24,5)(19,6); the 6 cannot be played from 24, so that is the only end."""
    code = points({24: 15, 18: -7, 12: -8})
    playable, (text, steps, end, _) = only_end(code, WHITE, [6, 5])
    assert playable == 2
    assert (text, steps) == ("24/13", ((24, 5), (19, 6)))
    assert end == points({24: 14, 13: 1, 18: -7, 12: -8})
    ends = gulbara.stage_ends(code, WHITE, [6, 5])
    assert ends.parse("24/19/13") == ends.parse("24/13") == ends[0]
    assert ends.parse("24/19 19/13") == ends[0]
    assert [(24, 6), (18, 5)] not in ends  # through the held point (RULES §2.4)
    # With 19 held too, nothing moves at all (RULES §3.6).
    blocked = points({24: 15, 18: -7, 19: -1, 12: -7})
    assert only_end(blocked, WHITE, [6, 5]) == (0, ("pass", (), blocked, False))


# ---------------------------------------------------------------------------
# RULES §2.5, §3.6: the six-point prime and the empty play
# ---------------------------------------------------------------------------

# Black holds White's 18..23 (six points in a row, RULES §2.5 allows it); all 15
# White checkers are on 24, and every die 1..6 from 24 lands on a held point.
PRIME = points({24: 15, 18: -2, 19: -2, 20: -2, 21: -2, 22: -2, 23: -2, 12: -3})


@pytest.mark.parametrize("dice", ALL_STAGES)
def test_six_point_prime_no_move(dice):
    """RULES §2.5, §3.6: every stage is the empty play: one end, the position unchanged."""
    playable, (text, steps, code, ends_game) = only_end(PRIME, WHITE, dice)
    assert playable == 0
    assert (text, steps, code, ends_game) == ("pass", (), PRIME, False)


def test_empty_play_reads_and_pushes():
    """RULES §3.6: the empty play is written 'pass' and pushing it only passes the turn."""
    board = gulbara.Board(PRIME, WHITE)
    ends = board.stage_ends([6, 5])
    assert len(ends) == 1 and ends[0].is_empty() and ends.playable_dice == 0
    for text in ("pass", "", "-", "(no play)", "PASS"):
        assert ends.parse(text) == ends[0]
    assert [] in ends and gulbara.Play(()) in ends
    play = board.push_notation("pass", [6, 5])
    assert play.steps == () and board.code() == PRIME and board.turn == BLACK
    # Black is not primed: its 24 (White's 12) moves 6 to White's 6 and 5 to White's 7.
    assert board.stage_ends([6, 5]).playable_dice == 2
    with pytest.raises(IllegalPlayError):
        board.push_notation("pass", [6, 5])


def test_mover_already_off_has_only_the_empty_play():
    """RULES §3.3, §3.6: after the 15th checker is off no step may follow."""
    code = points({13: -15}, off=(15, 0))
    assert only_end(code, WHITE, [6, 5]) == (0, ("pass", (), code, False))
    assert only_end(code, WHITE, [1, 1, 1, 1]) == (0, ("pass", (), code, False))


# ---------------------------------------------------------------------------
# RULES §3.5: the larger-die rule
# ---------------------------------------------------------------------------

# One White checker on 24 (14 off); Black holds 13. With 6-5: 24/18 is open and so
# is 24/19, but 18 -> 13 and 19 -> 13 are both held: either die plays alone, never
# both. The larger die must be played: the only end is 24/18.
LARGER = points({24: 1, 13: -15}, off=(14, 0))
# The same, but Black also holds 18: the 6 cannot be played at all, so the 5 is.
SMALLER = points({24: 1, 18: -8, 13: -7}, off=(14, 0))


def test_larger_die_must_be_played():
    """RULES §3.5: either die alone plays, not both: only the larger-die play is legal."""
    start = gulbara.Position.from_code(LARGER)
    start.apply_steps(WHITE, [(24, 5)])    # the 5 alone is mechanically legal (RULES §2)
    for steps in ([(24, 6), (18, 5)], [(24, 5), (19, 6)]):
        with pytest.raises(IllegalPlayError):
            start.apply_steps(WHITE, steps)
    playable, end = only_end(LARGER, WHITE, [6, 5])
    assert playable == 1
    assert end == ("24/18", ((24, 6),), points({18: 1, 13: -15}, off=(14, 0)), False)
    ends = gulbara.stage_ends(LARGER, WHITE, [5, 6])
    assert "24/19" not in ends and [(24, 5)] not in ends
    with pytest.raises(IllegalPlayError):
        ends.parse("24/19")
    with pytest.raises(IllegalPlayError):
        gulbara.Board(LARGER).push_notation("24/19", [6, 5])


def test_only_the_smaller_die_plays():
    """RULES §3.5: when the larger die cannot be played at all, the smaller one is."""
    playable, end = only_end(SMALLER, WHITE, [6, 5])
    assert playable == 1
    assert end == ("24/19", ((24, 5),), points({19: 1, 18: -8, 13: -7}, off=(14, 0)), False)


def test_single_checker_runs_home_and_off_with_a_double():
    """RULES §2.3, §3.3: with 6-6-6-6 in the LARGER position the checker runs
    24 -> 18 -> 12 -> 6 (12 is empty: Black is on 13), and then it is White's only
    checker and in the home board, so the 4th 6 bears it off exactly: the game ends."""
    playable, end = only_end(LARGER, WHITE, [6, 6, 6, 6])
    assert playable == 4
    assert end == ("24/off", ((24, 6), (18, 6), (12, 6), (6, 6)),
                   points({13: -15}, off=(15, 0)), True)


# ---------------------------------------------------------------------------
# RULES §2.3: bearing off
# ---------------------------------------------------------------------------

# White: one checker on 5, two on 3, 12 off; Black all on White's 13.
BEAR = points({5: 1, 3: 2, 13: -15}, off=(12, 0))


def test_bear_off_higher_die_from_highest_point_only():
    """RULES §2.3: a 6 bears off from the highest point (5) only, never from 3."""
    start = gulbara.Position.from_code(BEAR)
    with pytest.raises(IllegalPlayError):
        start.apply_steps(WHITE, [(3, 6)])
    playable, end = only_end(BEAR, WHITE, [6])
    assert playable == 1
    assert end == ("5/off", ((5, 6),), points({3: 2, 13: -15}, off=(13, 0)), False)


def test_bear_off_four_moves_inside_rather_than_off():
    """RULES §2.3: a 4 cannot bear off from 3 (not exact, 5 is higher): 5/1 only."""
    playable, end = only_end(BEAR, WHITE, [4])
    assert playable == 1
    assert end == ("5/1", ((5, 4),), points({1: 1, 3: 2, 13: -15}, off=(12, 0)), False)


def test_bear_off_exact_die_and_move_inside():
    """RULES §2.3, §3.8: a 3 plays 5/2 or bears off exactly from 3; 5 comes first."""
    playable, got = stage(BEAR, WHITE, [3])
    assert playable == 1
    assert got == [
        ("5/2", ((5, 3),), points({2: 1, 3: 2, 13: -15}, off=(12, 0)), False),
        ("3/off", ((3, 3),), points({5: 1, 3: 1, 13: -15}, off=(13, 0)), False),
    ]


def test_bear_off_two_sixes():
    """RULES §2.3: 6-6 (two dice): 5/off, then 3 is the highest point: 3/off."""
    playable, end = only_end(BEAR, WHITE, [6, 6])
    assert playable == 2
    assert end == ("5/off 3/off", ((5, 6), (3, 6)), points({3: 1, 13: -15}, off=(14, 0)), False)


def test_no_bear_off_with_a_checker_outside_home():
    """RULES §2.3: with a White checker on 7, the checkers on 2 cannot bear off."""
    code = points({7: 1, 2: 14, 13: -15})
    start = gulbara.Position.from_code(code)
    with pytest.raises(IllegalPlayError):
        start.apply_steps(WHITE, [(2, 2)])
    with pytest.raises(IllegalPlayError):
        start.apply_steps(WHITE, [(2, 6)])
    assert only_end(code, WHITE, [6]) == (1, ("7/1", ((7, 6),), points(
        {1: 1, 2: 14, 13: -15}), False))
    assert only_end(code, WHITE, [2]) == (1, ("7/5", ((7, 2),), points(
        {5: 1, 2: 14, 13: -15}), False))


def test_canonical_order_hand_derived_bear_off():
    """RULES §2.3, §3.8 with 6-2 and White on 7 (1) and 2 (14):

    * (7,6) -> 1; now all home; the 2: (2,2) exact bears off; (1,2) is not from the
      highest point (2): end A = {1: 1, 2: 13}, 1 off.
    * (7,2) -> 5; all home; the 6: (5,6) from the highest point bears off; (2,6) not:
      end B = {2: 14}, 1 off.
    * Nothing from 2 first: 7 is outside home.
    Canonical order: (7,6) before (7,2), so A then B. B's checker went 7/5/off: '7/off'.
    """
    code = points({7: 1, 2: 14, 13: -15})
    playable, got = stage(code, WHITE, [2, 6])
    assert playable == 2
    assert got == [
        ("7/1 2/off", ((7, 6), (2, 2)), points({1: 1, 2: 13, 13: -15}, off=(1, 0)), False),
        ("7/off", ((7, 2), (5, 6)), points({2: 14, 13: -15}, off=(1, 0)), False),
    ]


def test_canonical_order_hand_derived_two_one():
    """RULES §3.7-3.8 with 2-1 and White on 3 (1) and 2 (1), 13 off. Every play:

    (3,2)(2,1) -> {1: 2}          (3,2)(1,1) -> {2: 1}, 14 off
    (3,1)(2,2) -> {2: 1}, 14 off  (2,2)(3,1) -> {2: 1}, 14 off
    (2,1)(3,2) -> {1: 2}          (2,1)(1,2): illegal, 3 is higher than 1
    Two ends; sorted, the first plays of each are (3,2)(2,1) and (3,2)(1,1), in
    that order (second step from 2 before from 1). The second end's steps join
    into one move 3/1/off: '3/off'.
    """
    code = points({3: 1, 2: 1, 13: -15}, off=(13, 0))
    playable, got = stage(code, WHITE, [2, 1])
    assert playable == 2
    assert got == [
        ("3/1 2/1", ((3, 2), (2, 1)), points({1: 2, 13: -15}, off=(13, 0)), False),
        ("3/off", ((3, 2), (1, 1)), points({2: 1, 13: -15}, off=(14, 0)), False),
    ]
    ends = gulbara.stage_ends(code, WHITE, [2, 1])
    # Other plays of the same ends find the canonical ones (RULES §3.7).
    assert ends.find([(2, 1), (3, 2)]) == ends[0]
    assert ends.find([(3, 1), (2, 2)]) == ends.find([(2, 2), (3, 1)]) == ends[1]
    assert ends.find([(2, 1), (1, 2)]) is None


def test_canonical_order_black_mirrors_white():
    """RULES §1.3: the 2-1 position mirrored for Black gives the same steps."""
    # White's point q <-> Black's own q = White's ((q + 11) mod 24) + 1: 3 -> 15, 2 -> 14, 13 -> 1.
    code = points({15: -1, 14: -1, 1: 15}, off=(0, 13))
    playable, got = stage(code, BLACK, [2, 1])
    assert playable == 2
    assert [(text, steps) for text, steps, _, _ in got] == [
        ("3/1 2/1", ((3, 2), (2, 1))), ("3/off", ((3, 2), (1, 1)))]
    assert [end for _, _, end, _ in got] == [points({13: -2, 1: 15}, off=(0, 13)),
                                             points({14: -1, 1: 15}, off=(0, 14))]


# ---------------------------------------------------------------------------
# RULES §3.3-3.4: the last checker mid-roll
# ---------------------------------------------------------------------------


def test_last_checker_off_with_the_first_die():
    """RULES §3.3-3.4, §3.8: one White checker on 4, 6-2. The 6 bears it off from the
    highest point and ends the game: a complete play. 4/2 then 2/off (the 6) reaches
    the same end but is later in canonical order (die 6 before die 2 from 4)."""
    code = points({4: 1, 13: -15}, off=(14, 0))
    playable, end = only_end(code, WHITE, [6, 2])
    assert playable == 2                       # the stage size: it counts as all dice
    assert end == ("4/off", ((4, 6),), points({13: -15}, off=(15, 0)), True)
    ends = gulbara.stage_ends(code, WHITE, [6, 2])
    assert ends.find([(4, 2), (2, 6)]) == ends[0]
    assert [(4, 2)] not in ends                # one die that does not end the game
    board = gulbara.Board(code)
    board.push_notation("4/off", [6, 2])
    assert board.is_game_over() and board.winner() == WHITE


def test_last_checkers_mid_double():
    """RULES §3.3: two White checkers on 1 and 3-3-3-3: two 3s bear both off and end
    the game; the play is complete with two steps, playable_dice is 4."""
    code = points({1: 2, 13: -15}, off=(13, 0))
    playable, end = only_end(code, WHITE, [3, 3, 3, 3])
    assert playable == 4
    assert end == ("1/off(2)", ((1, 3), (1, 3)), points({13: -15}, off=(15, 0)), True)


def test_bear_off_game_ends_after_three_of_four():
    """RULES §2.3, §3.3: BEAR with 6-6-6-6: 5/off, then 3/off twice (3 is then the
    highest point) bears off the 15th checker after three dice: complete."""
    playable, end = only_end(BEAR, WHITE, [6, 6, 6, 6])
    assert playable == 4
    assert end == ("5/off 3/off(2)", ((5, 6), (3, 6), (3, 6)),
                   points({13: -15}, off=(15, 0)), True)


# ---------------------------------------------------------------------------
# RULES §3.1, §3.4: a 4-dice stage partly playable, partial stages
# ---------------------------------------------------------------------------


def test_four_dice_stage_partly_playable():
    """RULES §3.4: one White checker on 24, Black on 18: 2-2-2-2 plays 24/22/20 and
    20 -> 18 is held: two dice, one end."""
    code = points({24: 1, 18: -15}, off=(14, 0))
    playable, end = only_end(code, WHITE, [2, 2, 2, 2])
    assert playable == 2
    assert end == ("24/20", ((24, 2), (22, 2)), points({20: 1, 18: -15}, off=(14, 0)), False)
    assert only_end(code, WHITE, [2, 2, 2])[0] == 2
    assert only_end(code, WHITE, [2])[0] == 1
    with pytest.raises(IllegalPlayError):
        gulbara.Board(code).push_notation("24/22", [2, 2, 2, 2])


def test_partial_stages_of_equal_dice():
    """RULES §3.1, §5.3: stages of one to three equal dice, from the start.

    [5]: 24/19. [5,5]: two checkers to 19, or one to 14 ((24,5)(24,5) sorts before
    (24,5)(19,5)). [5,5,5]: (24,5)x3, then (24,5)(24,5)(19,5), then (24,5)(19,5)(14,5).
    """
    cases = {
        (5,): [("24/19", ((24, 5),), {19: 1, 24: 14})],
        (5, 5): [("24/19(2)", ((24, 5),) * 2, {19: 2, 24: 13}),
                 ("24/14", ((24, 5), (19, 5)), {14: 1, 24: 14})],
        (5, 5, 5): [("24/19(3)", ((24, 5),) * 3, {19: 3, 24: 12}),
                    ("24/14 24/19", ((24, 5), (24, 5), (19, 5)), {14: 1, 19: 1, 24: 13}),
                    ("24/9", ((24, 5), (19, 5), (14, 5)), {9: 1, 24: 14})],
    }
    for dice, expected in cases.items():
        playable, got = stage(START, WHITE, list(dice))
        assert playable == len(dice)
        assert gulbara.stage_ends(START, WHITE, list(dice)).dice == dice
        assert got == [(text, steps, points({**end, 12: -15}), False)
                       for text, steps, end in expected]


def test_partial_stage_for_black():
    """RULES §1.3: Black's 24/23 with one die 1 is White's 12 -> 11."""
    playable, end = only_end(START, BLACK, [1])
    assert playable == 1
    assert end == ("24/23", ((24, 1),), points({24: 15, 12: -14, 11: -1}), False)
