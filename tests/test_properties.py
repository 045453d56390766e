"""Properties of positions, stages, plays and boards (STYLE §6), with hypothesis.

Positions come from seeded random play and the shaped families of
``positions.py`` (bear-offs, primes, blocked starts, random placements);
stages are the 21 rolls and partial stages of one to three equal dice.
"""

import copy
import itertools
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gulbara
from gulbara.core import _movegen
from gulbara.core import _reference
from gulbara.errors import IllegalPlayError
from hashing import MASK64, mix64
from positions import (black_point, bear_off_position, blocked_start_position, mixed_positions,
                       prime_position, random_valid_position)

PROPS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

START = gulbara.START_CODE
PAIRS = mixed_positions(2024, 400)
ROLL_STAGES = [[a, b] if a != b else [a] * 4 for a in range(1, 7) for b in range(a, 7)]
PARTIAL_STAGES = [[d] * n for d in range(1, 7) for n in (1, 2, 3)]


def _family(args):
    seed, kind = args
    rng = random.Random(seed)
    if kind == 0:
        return random_valid_position(rng), rng.randint(0, 1)
    if kind == 1:
        seat = rng.randint(0, 1)
        return bear_off_position(rng, seat), seat
    if kind == 2:
        return prime_position(rng), rng.randint(0, 1)
    return blocked_start_position(rng), rng.randint(0, 1)


positions_st = st.one_of(st.sampled_from(PAIRS),
                         st.tuples(st.integers(0, 2**32 - 1), st.integers(0, 3)).map(_family))
stages_st = st.sampled_from(ROLL_STAGES + PARTIAL_STAGES)


def white_point(seat, point):
    return point if seat == 0 else black_point(point)


def own_counts(position, seat):
    """{own point: count} of ``seat``'s checkers, read from the signed points."""
    sign = 1 if seat == 0 else -1
    points = position.points()
    return {p: sign * points[white_point(seat, p) - 1] for p in range(1, 25)
            if sign * points[white_point(seat, p) - 1] > 0}


def mirror_code(code):
    """Swap the colours with the 12-point rotation (RULES §1.3)."""
    position = gulbara.Position.from_code(code)
    points = position.points()
    mirrored = [0] * 24
    for q in range(1, 25):
        mirrored[black_point(q) - 1] = -points[q - 1]
    swapped = gulbara.Position.from_points(mirrored, position.borne_off(1), position.borne_off(0))
    return swapped.code()


def canonical_key(steps):
    """RULES §3.8 as a sort key: higher point first, then larger die; a prefix first."""
    return tuple((-frm, -die) for frm, die in steps)


# ---------------------------------------------------------------------------
# Board push / pop / copy
# ---------------------------------------------------------------------------


def board_state(board):
    return (board.code(), board.turn, board.key(), board.points(), list(board.move_stack))


@PROPS
@given(positions_st, st.lists(st.tuples(stages_st, st.integers(0, 10**6), st.booleans()),
                              min_size=1, max_size=8))
def test_push_pop_restores_exactly(pair, moves):
    code, seat = pair
    board = gulbara.Board(code, seat)
    history = []
    for dice, pick, pass_turn in moves:
        if board.is_game_over():
            break
        before = board_state(board)
        ends = board.stage_ends(dice)
        play = ends[pick % len(ends)]
        board.push(play, pass_turn=pass_turn)
        history.append((before, play))
        assert board.code() == play.code
        assert board.peek() == play
        assert board.turn == (1 - before[1] if pass_turn else before[1])
        assert board.move_stack == before[4] + [play]
    for before, play in reversed(history):
        assert board.pop() == play
        assert board_state(board) == before
    assert board.code() == gulbara.Position.from_code(code).code() and board.turn == seat
    with pytest.raises(IndexError):
        board.pop()


@PROPS
@given(positions_st, stages_st, stages_st, st.integers(0, 10**6))
def test_board_copy_is_independent(pair, dice1, dice2, pick):
    code, seat = pair
    board = gulbara.Board(code, seat)
    play = board.stage_ends(dice1)[pick % len(board.stage_ends(dice1))]
    board.push(play)
    clone = board.copy()
    bare = board.copy(stack=False)
    shallow = copy.copy(board)
    state = board_state(board)
    assert clone == board and bare == board and shallow == board
    assert board_state(clone) == state
    assert bare.move_stack == [] and bare.code() == board.code() and bare.turn == board.turn
    # Moving the copy leaves the original alone, and the other way round.
    ends = clone.stage_ends(dice2)
    clone.push(ends[pick % len(ends)])
    assert board_state(board) == state
    assert len(clone.move_stack) == 2
    assert board.pop() == play
    assert board_state(clone)[4][0] == play and len(clone.move_stack) == 2
    assert shallow.move_stack == [play]
    with pytest.raises(IndexError):
        bare.pop()
    assert board.code() == gulbara.Position.from_code(code).code()
    with pytest.raises(TypeError):
        hash(board)


# ---------------------------------------------------------------------------
# Codes and keys
# ---------------------------------------------------------------------------


def loosen(code, rng):
    """The same position spelled differently: '+' signs, leading zeros, '0' tokens."""
    points, bar, off = code[2:].split("|")
    tokens = []
    for token in points.split(","):
        r = rng.random()
        if token == "":
            token = rng.choice(["", "0", "+0", "-0", "00"])
        elif r < 0.3:
            token = token.replace("-", "-0") if token.startswith("-") else "+" + token
        elif r < 0.5:
            token = token.replace("-", "-00") if token.startswith("-") else "0" + token
        tokens.append(token)
    white, black = off.split(",")
    off = f"{'0' * rng.randint(0, 2)}{white},{'0' * rng.randint(0, 2)}{black}"
    return "G:" + ",".join(tokens) + "|" + bar + "|" + off


def spec_key(position):
    """docs/dev/backend.md's key formula, computed from the signed points."""
    packed = []
    for seat in (0, 1):
        counts = own_counts(position, seat)
        packed.append(sum(n << (4 * (p - 1)) for p, n in counts.items()))
    k0, k1 = packed
    return (mix64(k0 & MASK64) ^ mix64((k0 >> 64) | (k1 & 0xFFFFFFFF) << 32)
            ^ mix64((k1 >> 32) ^ 0x9E3779B97F4A7C15))


@PROPS
@given(positions_st, st.integers(0, 2**32))
def test_code_round_trip_and_key(pair, seed):
    code, _ = pair
    rng = random.Random(seed)
    loose = loosen(code, rng)
    for backend in (_movegen, _reference):
        position = backend.Position.from_code(code)
        assert position.code() == code
        assert backend.Position.from_code(position.code()).code() == code
        again = backend.Position.from_code(loose)
        assert again.code() == code
        assert again == position and hash(again) == hash(position)
        assert again.key() == position.key() == spec_key(position)
        assert 0 <= position.key() <= MASK64
        assert backend.Position.from_points(position.points(), position.borne_off(0),
                                            position.borne_off(1)) == position
    assert _movegen.Position.from_code(loose).key() == _reference.Position.from_code(loose).key()
    assert gulbara.Position.from_code(code).points() == _reference.Position.from_code(code).points()
    # The board key adds the side to move.
    white, black = gulbara.Board(code, 0), gulbara.Board(loose, 1)
    assert white.key() == gulbara.Position.from_code(code).key()
    assert black.key() != white.key()
    assert gulbara.Board(loose, 0).key() == white.key()


@PROPS
@given(positions_st, stages_st)
def test_keys_of_ends(pair, dice):
    """Keys of the ends: equal across backends, distinct ends have distinct keys here."""
    code, seat = pair
    if len(dice) == 4:
        dice = dice[:3]          # keep the reference quick
    core = gulbara.stage_ends(code, seat, dice)
    ref = _reference.stage_ends(code, seat, dice)
    core_ends = [gulbara.Position.from_code(play.code) for play in core]
    core_keys = [end.key() for end in core_ends]
    ref_keys = [ref.position(i).key() for i in range(len(ref))]
    assert core_keys == ref_keys
    assert len(set(core_keys)) == len(core_keys)
    assert core_keys == [spec_key(end) for end in core_ends]


# ---------------------------------------------------------------------------
# Every end of a stage
# ---------------------------------------------------------------------------


def used_dice(dice, steps):
    left = list(dice)
    for _, die in steps:
        left.remove(die)      # ValueError if a step uses a die the stage has not got
    return left


@PROPS
@given(positions_st, stages_st)
def test_every_end_is_sound(pair, dice):
    """Conservation, no shared point, opponent untouched, replay, flags, order, maximality."""
    code, seat = pair
    ends = gulbara.stage_ends(code, seat, dice)
    start = gulbara.Position.from_code(code)
    reference_start = _reference.Position.from_code(code)
    opponent = own_counts(start, 1 - seat)
    assert len(ends) >= 1
    assert ends.dice == tuple(sorted(dice, reverse=True)) and ends.seat == seat
    codes = ends.codes()
    assert len(set(codes)) == len(codes)                                   # RULES §3.7
    previous = None
    for play in ends:
        end = gulbara.Position.from_code(play.code)                        # strict re-read
        points = end.points()
        # 15 checkers a side, and each point holds one colour: the board read back
        # from the end's position agrees with its pip counts and borne-off counts.
        for s in (0, 1):
            counts = own_counts(end, s)
            assert sum(counts.values()) + end.borne_off(s) == 15
            assert sum(p * n for p, n in counts.items()) == end.pip_count(s)
        assert sum(n for n in points if n > 0) + end.borne_off(0) == 15
        assert sum(-n for n in points if n < 0) + end.borne_off(1) == 15
        # The opponent never moves and is never hit (RULES §2.2).
        assert own_counts(end, 1 - seat) == opponent
        assert end.borne_off(1 - seat) == start.borne_off(1 - seat)
        # The canonical steps replay to the end, in both backends (RULES §3.8).
        assert start.apply_steps(seat, play.steps) == end
        assert reference_start.apply_steps(seat, play.steps).code() == play.code
        # Flags and lengths (RULES §3.3-3.4).
        left = used_dice(ends.dice, play.steps)
        assert play.ends_game == (bool(play.steps) and end.borne_off(seat) == 15)
        if play.ends_game:
            assert ends.playable_dice == len(dice) and len(play.steps) <= len(dice)
        else:
            assert len(play.steps) == ends.playable_dice
        assert play.is_empty() == (ends.playable_dice == 0)
        # The pip count drops by the dice moved (less for a bear-off with a higher die).
        moved = start.pip_count(seat) - end.pip_count(seat)
        assert moved <= sum(d for _, d in play.steps)
        if end.borne_off(seat) == start.borne_off(seat):
            assert moved == sum(d for _, d in play.steps)
        # Maximality: no unused die can be played from the end (RULES §3.4).
        if not play.ends_game:
            for die in set(left):
                for point in range(1, 25):
                    with pytest.raises(IllegalPlayError):
                        end.apply_steps(seat, [(point, die)])
        # Canonical order of the ends (RULES §3.8).
        key = canonical_key(play.steps)
        assert previous is None or previous < key
        previous = key
    if ends.playable_dice == 0:
        assert len(ends) == 1 and ends[0].code == start.code() and ends[0].steps == ()


def brute_playable(position, seat, dice):
    """The greatest effective length (RULES §3.4), by trying every step with apply_steps."""
    best = 0

    def search(pos, left, used):
        nonlocal best
        best = max(best, used)
        if pos.borne_off(seat) == 15:
            best = max(best, len(dice)) if used else best
            return
        for die in set(left):
            rest = list(left)
            rest.remove(die)
            for point in own_counts(pos, seat):
                try:
                    after = pos.apply_steps(seat, [(point, die)])
                except IllegalPlayError:
                    continue
                search(after, rest, used + 1)

    search(position, list(dice), 0)
    return best


@PROPS
@given(positions_st, st.sampled_from([d for d in ROLL_STAGES if len(d) == 2] + PARTIAL_STAGES))
def test_playable_dice_by_brute_force(pair, dice):
    code, seat = pair
    ends = gulbara.stage_ends(code, seat, dice)
    start = gulbara.Position.from_code(code)
    assert ends.playable_dice == brute_playable(start, seat, dice)
    if len(dice) == 2 and ends.playable_dice == 1:
        # RULES §3.5: if the larger die plays alone, every end uses it.
        larger_plays = any(_plays(start, seat, p, max(dice)) for p in own_counts(start, seat))
        if larger_plays:
            assert all(play.steps[0][1] == max(dice) or play.ends_game for play in ends)
        else:
            assert all(play.steps[0][1] == min(dice) for play in ends)


def _plays(position, seat, point, die):
    try:
        position.apply_steps(seat, [(point, die)])
    except IllegalPlayError:
        return False
    return True


@PROPS
@given(positions_st, stages_st)
def test_colour_symmetry(pair, dice):
    """White's ends from a position are Black's from its mirror, with the same steps."""
    code, seat = pair
    mirrored = mirror_code(code)
    assert mirror_code(mirrored) == code
    original = gulbara.stage_ends(code, seat, dice)
    reflected = gulbara.stage_ends(mirrored, 1 - seat, dice)
    assert original.playable_dice == reflected.playable_dice
    assert [p.steps for p in original] == [p.steps for p in reflected]
    assert [mirror_code(p.code) for p in original] == [p.code for p in reflected]
    assert [p.ends_game for p in original] == [p.ends_game for p in reflected]
    assert [str(p) for p in original] == [str(p) for p in reflected]
    start = gulbara.Position.from_code(code)
    assert start.pip_count(seat) == gulbara.Position.from_code(mirrored).pip_count(1 - seat)


# ---------------------------------------------------------------------------
# StageEnds as a sequence, and notation
# ---------------------------------------------------------------------------


@PROPS
@given(positions_st, stages_st, st.integers(0, 2**32))
def test_stage_ends_sequence(pair, dice, seed):
    code, seat = pair
    rng = random.Random(seed)
    ends = gulbara.stage_ends(code, seat, dice)
    plays = list(ends)
    n = len(ends)
    assert n == len(plays) == len(ends.codes()) >= 1
    assert list(ends) == plays and [p.code for p in plays] == ends.codes()
    assert ends[-1] == plays[-1] and ends[-n] == plays[0]
    for bad in (n, -n - 1, n + 5):
        with pytest.raises(IndexError):
            ends[bad]
    for s in (slice(1, 3), slice(None, None, -1), slice(None, None, 2), slice(-2, None),
              slice(5, 1), slice(-100, 100)):
        assert ends[s] == plays[s]
    assert list(reversed(ends)) == plays[::-1]
    i = rng.randrange(n)
    play = plays[i]
    assert ends.index(play) == i and ends.count(play) == 1
    assert play in ends and play == ends[i] and hash(play) == hash(ends[i])
    # A Play without its code, from its steps.
    assert gulbara.Play(play.steps) in ends
    assert ends.find(gulbara.Play(play.steps)) == play
    # The steps as a list, in every legal order.
    start = gulbara.Position.from_code(code)
    for order in set(itertools.permutations(play.steps)):
        try:
            start.apply_steps(seat, order)
        except IllegalPlayError:
            continue
        assert list(order) in ends
        assert [list(step) for step in order] in ends
        assert ends.find(list(order)) == play
    # The notation, its moves in another order.
    words = str(play).split()
    rng.shuffle(words)
    assert " ".join(words) in ends
    assert ends.parse(" ".join(words)) == play
    assert ends.parse(",".join(words).upper()) == play
    # Things that are not plays of this stage.
    for other in ("nonsense", None, 42, [(25, 1)], [(24, 7)]):
        assert other not in ends
    if play.steps and not play.ends_game:
        # A strict prefix uses fewer dice than every legal play (RULES §3.4).
        assert list(play.steps[:-1]) not in ends
    # A play that claims to leave the start unchanged is legal only when nothing moves.
    assert (gulbara.Play(play.steps, code=start.code()) in ends) == (ends.playable_dice == 0)


@PROPS
@given(positions_st, stages_st)
def test_notation_round_trip(pair, dice):
    code, seat = pair
    ends = gulbara.stage_ends(code, seat, dice)
    for play in ends:
        text = str(play)
        assert text == play.notation() == gulbara.format_steps(play.steps)
        assert ends.parse(text) == play
        assert text in ends
        parsed = gulbara.parse_notation(text)
        assert sum(len(path) - 1 for path in parsed) <= len(play.steps)
        board = gulbara.Board(code, seat)
        assert board.push_notation(text, dice) == play
        assert board.code() == play.code and board.turn == 1 - seat
        # A play written with single-die moves only reads without its stage too
        # (Play.from_notation takes every move as one die, so only when it is).
        try:
            single = gulbara.Play.from_notation(text)
        except gulbara.InvalidNotationError:
            assert any(len(path) - 1 < 1 or path[-1] == 0 or path[0] - path[-1] > 6
                       for path in parsed) or len(parsed) < len(play.steps)
            continue
        if sorted(d for _, d in single.steps) == sorted(d for _, d in play.steps):
            assert single in ends and ends.find(single) == play


def test_properties_see_every_kind_of_stage():
    """The hypothesis inputs above cover game-ending plays, empty plays and partial stages."""
    kinds = set()
    for code, seat in PAIRS[::2]:
        for dice in ROLL_STAGES + PARTIAL_STAGES[::4]:
            ends = gulbara.stage_ends(code, seat, dice)
            if any(p.ends_game for p in ends):
                kinds.add("ends_game")
            if ends.playable_dice == 0:
                kinds.add("empty")
            elif ends.playable_dice < len(dice):
                kinds.add("partial")
            if len(ends) > 50:
                kinds.add("many")
    assert kinds == {"ends_game", "empty", "partial", "many"}



def test_notation_round_trip_seeded():
    """Every end of every stage of 80 seeded positions reads back from its notation."""
    checked = 0
    for code, seat in PAIRS[::5]:
        for dice in ROLL_STAGES + PARTIAL_STAGES:
            ends = gulbara.stage_ends(code, seat, dice)
            for play in ends:
                assert ends.parse(str(play)) == play, (code, seat, dice, str(play))
                checked += 1
    assert checked > 40_000
