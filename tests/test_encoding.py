"""Feature encodings (gulbara.encoding.features, docs/user/encoding.md): values by hand, symmetry, batch == single."""

import random

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import gulbara
from gulbara import START_CODE, Game, Position
from gulbara.core.batch import boards_from_codes, code_from_board, stage_ends_batch, dice_array
from positions import sample_games
from gulbara.encoding.features import (BOARD_FEATURES, BORNE_OFF, ESCALATES, GAME_OVER, IS_CHAIN,
                              IS_CHANCE, IS_OPENING, IS_REMAINDER, LATER_DICE,
                              OPPONENT_ESCALATES, OPPONENT_POINTS, OutputBufferError, PIPS,
                              PLAYER_POINTS, SEAT, STAGE_DICE, STAGE_INDEX, STAGE_SIZE,
                              STATE_FEATURES, STUCK, TO_ACT, encode_afterstates, encode_board,
                              encode_boards, encode_game)
from gulbara.errors import GulBaraError, InvalidPositionError, InvalidSeatError


def other(q):
    """A point in the other side's numbering (RULES §1.3)."""
    return ((q + 11) % 24) + 1


def mirror(code):
    """The same position with the colours swapped (White's checkers become Black's)."""
    p = Position.from_code(code)
    points = p.points()
    swapped = [0] * 24
    for q in range(1, 25):
        swapped[other(q) - 1] = -points[q - 1]
    return code_from_board(swapped, (p.borne_off(1), p.borne_off(0)))


# Positions after every play of seeded random games (every kind of stage).
CODES = sample_games(300, 7, Game.code, lambda game, ply: ply > 0)


# ---------------------------------------------------------------------------
# The board block by hand
# ---------------------------------------------------------------------------

def test_constants_and_slices():
    assert BOARD_FEATURES == 196 and STATE_FEATURES == 220
    assert (PLAYER_POINTS.stop - PLAYER_POINTS.start) == 96
    assert OPPONENT_POINTS == slice(96, 192) and BORNE_OFF == slice(192, 194)
    assert PIPS == slice(194, 196) and STAGE_DICE.start == BOARD_FEATURES
    offsets = sorted([STAGE_DICE.start, STAGE_SIZE, IS_CHAIN, IS_REMAINDER, STAGE_INDEX,
                      LATER_DICE.start, SEAT, TO_ACT, IS_CHANCE, IS_OPENING, ESCALATES,
                      OPPONENT_ESCALATES, STUCK, GAME_OVER])
    assert offsets[0] == 196 and offsets[-1] == STATE_FEATURES - 1
    assert gulbara.encoding.encode_board is gulbara.encoding.features.encode_board


def test_start_by_hand():
    for seat in (0, 1):
        x = encode_board(START_CODE, seat)
        assert x.shape == (196,) and x.dtype == np.float32
        expected = np.zeros(196, np.float32)
        expected[92:96] = [1, 1, 1, 1]              # own 24: 15 checkers, (15 - 3) / 12 = 1
        expected[96 + 92:96 + 96] = [1, 1, 1, 1]    # the opponent's own 24
        expected[194:196] = [1, 1]                  # 360 pips each
        assert np.array_equal(x, expected)


def test_a_position_by_hand():
    # White: 2 on its 1, 5 on its 6, 4 borne off, 4 on 20; Black: 3 on White's 12 (its own 24),
    # 1 on White's 14 (its own 2), 11 borne off.
    code = "G:2,,,,,5,,,,,,-3,,-1,,,,,,4,,,,|0,0|4,11"
    w = encode_board(code, 0)
    assert w[0:4].tolist() == [1, 1, 0, 0]
    assert w[20:24].tolist() == pytest.approx([1, 1, 1, 2 / 12])
    assert w[76:80].tolist() == pytest.approx([1, 1, 1, 1 / 12])
    assert w[96 + 92:96 + 96].tolist() == [1, 1, 1, 0]      # Black's own 24
    assert w[96 + 4:96 + 8].tolist() == [1, 0, 0, 0]        # Black's own 2
    assert w[192:194].tolist() == pytest.approx([4 / 15, 11 / 15])
    assert w[194:196].tolist() == pytest.approx([(2 + 30 + 80) / 360, (72 + 2) / 360])
    b = encode_board(code, 1)
    assert np.array_equal(b[:96], w[96:192]) and np.array_equal(b[96:192], w[:96])
    assert b[192:194].tolist() == w[192:194][::-1].tolist()
    assert b[194:196].tolist() == w[194:196][::-1].tolist()


def test_accepts_positions_boards_and_games():
    code = CODES[17]
    x = encode_board(code, 1)
    assert np.array_equal(encode_board(Position.from_code(code), 1), x)
    assert np.array_equal(encode_board(gulbara.Board.from_code(code), 1), x)
    game = Game(seed=3)
    assert np.array_equal(encode_board(game, 0), encode_board(game.code(), 0))
    assert np.array_equal(encode_board(code, np.int64(1)), x)


@pytest.mark.parametrize("code", CODES[::7])
def test_colour_symmetry(code):
    flipped = mirror(code)
    assert mirror(flipped) == Position.from_code(code).code()
    assert np.array_equal(encode_board(code, 0), encode_board(flipped, 1))
    assert np.array_equal(encode_board(code, 1), encode_board(flipped, 0))


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_symmetry_on_random_boards(data):
    # Random valid boards: each side's checkers on distinct free points, the rest borne off.
    rng = random.Random(data.draw(st.integers(0, 10**9)))
    board = [0] * 24
    for sign in (1, -1):
        n = rng.randrange(16)
        for _ in range(n):
            free = [q for q in range(24) if board[q] * sign >= 0]
            q = rng.choice(free)
            board[q] += sign
    off = (15 - sum(v for v in board if v > 0), 15 - sum(-v for v in board if v < 0))
    code = code_from_board(board, off)
    assert np.array_equal(encode_board(code, 0), encode_board(mirror(code), 1))


# ---------------------------------------------------------------------------
# Batches and afterstates
# ---------------------------------------------------------------------------

def test_batch_equals_single():
    rng = np.random.default_rng(1)
    seats = rng.integers(0, 2, len(CODES))
    single = np.stack([encode_board(code, int(s)) for code, s in zip(CODES, seats)])
    assert np.array_equal(encode_boards(CODES, seats), single)
    boards, off = boards_from_codes(CODES)
    assert np.array_equal(encode_boards(boards, seats, borne_off=off), single)
    assert np.array_equal(encode_boards(boards, seats), single)      # borne off derived
    out = np.full((len(CODES), 196), np.nan, np.float32)
    assert encode_boards(boards, seats.astype(np.uint8), out, borne_off=off) is out
    assert np.array_equal(out, single)
    assert np.array_equal(encode_boards(CODES, 1)[5], encode_board(CODES[5], 1))
    assert encode_boards([], 0).shape == (0, 196)


def test_batch_of_stage_and_chain_ends():
    requests = [(code, i % 2, (6, 2) if i % 3 else (4, 4, 4, 4))
                for i, code in enumerate(CODES[:40])]
    codes = [c for c, _, _ in requests]
    boards, off = boards_from_codes(codes)
    seats = np.array([s for _, s, _ in requests], np.uint8)
    result = stage_ends_batch(boards, off, seats, dice_array([d for _, _, d in requests]))
    movers = np.repeat(seats, result.counts)
    x = encode_boards(result.end_boards, movers, borne_off=result.end_borne_off)
    for i in range(len(requests)):
        part = result.ends_of(i)
        ends = gulbara.stage_ends(*requests[i])
        assert np.array_equal(x[part], encode_afterstates(ends))
    chain = gulbara.chain_ends(START_CODE, gulbara.BLACK, 4)
    y = encode_boards(chain, 1)
    assert np.array_equal(y, np.stack([encode_board(c, 1) for c in chain.codes()]))


@pytest.mark.parametrize("index", range(0, 300, 23))
def test_afterstates_equal_encode_board(index):
    code = CODES[index]
    for seat in (0, 1):
        for dice in ((6, 5), (2, 1), (3, 3, 3, 3), (1, 1), (5,)):
            ends = gulbara.stage_ends(code, seat, dice)
            x = encode_afterstates(ends)
            assert x.shape == (len(ends), 196)
            for i, play in enumerate(ends):
                assert np.array_equal(x[i], encode_board(play.code, seat))
            out = np.empty_like(x)
            assert encode_afterstates(ends._raw, out) is out and np.array_equal(out, x)


class _CodeEnds:
    """A stand-in with the backend contract (as the reference backend's ends are)."""

    def __init__(self, ends):
        self._ends = ends
        self.seat = ends.seat

    def __len__(self):
        return len(self._ends)

    def code(self, i):
        return self._ends[i].code


def test_afterstates_through_codes():
    ends = gulbara.stage_ends(CODES[40], 1, (4, 2))
    assert np.array_equal(encode_afterstates(_CodeEnds(ends)), encode_afterstates(ends))


# ---------------------------------------------------------------------------
# The game-state block
# ---------------------------------------------------------------------------

def test_opening_chance_node():
    game = Game.new_perft_root()
    s = encode_game(game)
    assert s.shape == (220,) and s.dtype == np.float32
    assert np.array_equal(s[:196], encode_board(START_CODE, 0))
    assert s[IS_CHANCE] == 1 and s[IS_OPENING] == 1 and s[TO_ACT] == 1 and s[SEAT] == 0
    assert s[STAGE_DICE].sum() == 0 and s[STAGE_SIZE] == 0 and s[GAME_OVER] == 0
    assert s[ESCALATES] == 0 and s[OPPONENT_ESCALATES] == 0


def test_opening_decision():
    game = Game(seed=24)                    # White plays its opening 6-4
    s = encode_game(game)
    assert s[STAGE_DICE].tolist() == [0, 0, 0, 0.25, 0, 0.25]
    assert s[STAGE_SIZE] == 0.5 and s[IS_CHAIN] == 0 and s[IS_REMAINDER] == 0
    assert s[IS_CHANCE] == 0 and s[IS_OPENING] == 0 and s[SEAT] == 0 and s[TO_ACT] == 1
    game.play("24/14")                      # Black to play 5-2
    s = encode_game(game)
    assert s[SEAT] == 1 and s[TO_ACT] == 1
    assert np.array_equal(s[:196], encode_board(game.code(), 1))


def test_chain_stage():
    game = Game.from_state_code(f"{START_CODE} next=chain:W stage=4-4-4-4 index=1 roll=3-3 "
                                f"rolls=4,2 stuck=0")
    s = encode_game(game)
    assert s[STAGE_DICE].tolist() == [0, 0, 0, 1, 0, 0] and s[STAGE_SIZE] == 1
    assert s[IS_CHAIN] == 1 and s[IS_REMAINDER] == 0
    assert s[STAGE_INDEX] == pytest.approx(1 / 6)
    assert s[LATER_DICE].sum() == 0
    assert s[ESCALATES] == 1 and s[OPPONENT_ESCALATES] == 0    # Black's next is its 3rd roll


def test_remainder_stage():
    text = (f"{START_CODE} next=remainder:B stage=4-4 index=0 then=5x4,6x4 roll=3-3 roller=W "
            f"rolls=4,3 stuck=7")
    game = Game.from_state_code(text)
    s = encode_game(game)
    assert s[SEAT] == 1 and s[TO_ACT] == 1
    assert s[STAGE_DICE].tolist() == [0, 0, 0, 0.5, 0, 0] and s[STAGE_SIZE] == 0.5
    assert s[IS_REMAINDER] == 1 and s[IS_CHAIN] == 0 and s[STAGE_INDEX] == 0
    assert s[LATER_DICE].tolist() == [0, 0, 0, 0, 1, 1]
    assert s[ESCALATES] == 1 and s[OPPONENT_ESCALATES] == 1
    assert s[STUCK] == pytest.approx(0.07)
    w = encode_game(game, seat=0)                               # White's point of view
    assert w[SEAT] == 0 and w[TO_ACT] == 0
    assert np.array_equal(w[:196], encode_board(START_CODE, 0))
    assert game.state_code() == text                            # unchanged


def test_roll_node_and_stuck_scaling():
    game = Game.from_state_code(f"{START_CODE} next=roll:B rolls=1,0 stuck=50",
                                gulbara.Rules(stuck_limit=200))
    s = encode_game(game)
    assert s[IS_CHANCE] == 1 and s[IS_OPENING] == 0 and s[SEAT] == 1 and s[TO_ACT] == 1
    assert s[STUCK] == pytest.approx(0.25)


def test_game_over():
    game = Game.from_state_code("G:,,,,,,,,,,,-15,,,,,,,,,,,,|0,0|15,0 next=over "
                                "result=W:2:mars rolls=30,29 stuck=0")
    s = encode_game(game)
    assert s[GAME_OVER] == 1 and s[TO_ACT] == 0 and s[SEAT] == 0 and s[IS_CHANCE] == 0
    assert encode_game(game, seat=1)[SEAT] == 1


def test_game_symmetry_of_the_board_block():
    game = Game(seed=11)
    bot = gulbara.RandomBot(seed=2)
    while not game.is_over():
        s = encode_game(game)
        assert np.array_equal(s[:196], encode_board(game.code(), game.to_move))
        game.play(bot.choose(game))


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------

def test_out_buffer_errors():
    ends = gulbara.stage_ends(START_CODE, 0, (6, 5))
    with pytest.raises(OutputBufferError, match=r"C-contiguous float32 array of shape \(196,\), "
                                                r"got float64 \(196,\)"):
        encode_board(START_CODE, 0, np.zeros(196))
    with pytest.raises(ValueError, match=r"shape \(2, 196\), got float32 \(3, 196\)"):
        encode_afterstates(ends, np.zeros((3, 196), np.float32))
    strided = np.zeros((4, 196), np.float32)[::2]
    with pytest.raises(ValueError, match="not C-contiguous"):
        encode_boards([START_CODE] * 2, 0, strided)
    frozen = np.zeros(220, np.float32)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        encode_game(Game(seed=1), frozen)
    with pytest.raises(TypeError):
        encode_board(START_CODE, 0, [0.0] * 196)
    assert issubclass(OutputBufferError, GulBaraError)


def test_input_errors():
    with pytest.raises(InvalidSeatError):
        encode_board(START_CODE, 2)
    with pytest.raises(TypeError):
        encode_board(START_CODE, True)
    with pytest.raises(TypeError):
        encode_board(42, 0)
    with pytest.raises(InvalidPositionError):
        encode_board("G:nonsense", 0)
    with pytest.raises(InvalidSeatError, match="row 1"):
        encode_boards([START_CODE] * 3, [0, 5, 1])
    boards, off = boards_from_codes([START_CODE] * 3)
    with pytest.raises(ValueError, match=r"int8 array of shape \(N, 24\)"):
        encode_boards(boards.astype(np.int16), 0)
    with pytest.raises(ValueError, match=r"uint8 array of shape \(3, 2\)"):
        encode_boards(boards, 0, borne_off=off[:2])
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        encode_boards(boards, [0, 1])
    bad = boards.copy()
    bad[2, 0] = 1
    with pytest.raises(InvalidPositionError, match="row 2"):
        encode_boards(bad, 0, borne_off=off)
    bad[2, 0] = 16
    with pytest.raises(InvalidPositionError, match="row 2: .*point 1 holds 16"):
        encode_boards(bad, 0)
    with pytest.raises(TypeError):
        encode_afterstates("not ends")
    with pytest.raises(TypeError):
        encode_game(START_CODE)
    with pytest.raises(InvalidSeatError):
        encode_game(Game(seed=1), seat=3)


# ---------------------------------------------------------------------------
# The numpy twin (gulbara.encoding._encode_py): the encoders of GULBARA_BACKEND=reference
# ---------------------------------------------------------------------------

def test_numpy_twin_equals_the_compiled_encoders():
    """Every encoder of gulbara.encoding._encode_py writes exactly what gulbara.encoding._encode writes:
    boards (given and derived borne-off counts, one seat and per-row seats), stage ends
    and game states over the sampled positions and games."""
    from gulbara.encoding import _encode
    from gulbara.encoding import _encode_py
    assert _encode_py.OFFSETS == _encode.OFFSETS
    assert (_encode_py.BOARD_SIZE, _encode_py.STATE_SIZE) == (_encode.BOARD_SIZE,
                                                               _encode.STATE_SIZE)
    boards, off = boards_from_codes(CODES)
    seats = np.array([i % 2 for i in range(len(CODES))], np.uint8)
    for derive, one in ((False, False), (True, False), (False, True)):
        got, want = (np.full((len(CODES), BOARD_FEATURES), np.nan, np.float32) for _ in "ab")
        args = (boards, off, derive, seats[:1] if one else seats, one)
        assert _encode_py.py_encode_boards(*args, got) is None
        assert _encode.py_encode_boards(*args, want) is None
        assert np.array_equal(got, want)
    bad = boards.copy()
    bad[3, 0] = 16
    assert _encode_py.py_encode_boards(bad, off, False, seats, False, got) == \
        _encode.py_encode_boards(bad, off, False, seats, False, want) == (3, "point", 1)
    for code in CODES[:120]:
        ends = gulbara.core._movegen.stage_ends(code, 1, (5, 3))
        got, want = (np.zeros((len(ends), BOARD_FEATURES), np.float32) for _ in "ab")
        _encode_py.py_encode_ends(ends, got)
        _encode.py_encode_ends(ends, want)
        assert np.array_equal(got, want)
    states = 0
    for game in sample_games(300, 11, lambda game: game.copy(), lambda game, ply: True):
        d = game.decision
        args = (game.to_move or 0, True, d.dice if d else (), bool(d and d.is_chain),
                bool(d and d.is_remainder), d.stage if d else 0,
                d.following if d and d.is_remainder else (), game.is_chance(),
                game.is_opening(), True, False, min(game.stuck_rolls / 100, 1.0),
                game.is_over())
        got, want = (np.zeros(STATE_FEATURES, np.float32) for _ in "ab")
        _encode_py.py_encode_state(game.position, *args, got)
        _encode.py_encode_state(game.position, *args, want)
        assert np.array_equal(got, want), game.state_code()
        states += 1
    assert states == 300


REFERENCE_ENCODING = """
import json, sys
sys.modules["gulbara.core._movegen"] = None          # no compiled code may be imported
sys.modules["gulbara.encoding._encode"] = None
import numpy as np
import gulbara
from gulbara.encoding.features import encode_afterstates, encode_board, encode_boards, encode_game
assert gulbara.BACKEND_NAME == "reference"
codes = json.loads(sys.stdin.read())
game = gulbara.Game(seed=24)
out = [encode_board(codes[0], 1).tolist(), encode_boards(codes, 0).tolist(),
       encode_afterstates(gulbara.stage_ends(codes[1], 0, [6, 6, 6, 6])).tolist(),
       encode_game(game).tolist()]
print(json.dumps(out))
"""


def test_encoding_on_the_reference_backend():
    """Under GULBARA_BACKEND=reference, gulbara.encoding.features runs with the compiled modules
    unimportable, and writes what the compiled encoders write (regression: it imported
    gulbara.core._movegen directly)."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path
    parent = str(Path(gulbara.__file__).resolve().parents[1])
    env = dict(os.environ, GULBARA_BACKEND="reference",
               PYTHONPATH=parent + os.pathsep + os.environ.get("PYTHONPATH", ""))
    codes = CODES[:30]
    done = subprocess.run([sys.executable, "-c", REFERENCE_ENCODING], input=json.dumps(codes),
                          capture_output=True, text=True, env=env, cwd=parent, timeout=300)
    assert done.returncode == 0, done.stderr
    board, boards, after, state = (np.array(a, np.float32) for a in json.loads(done.stdout))
    assert np.array_equal(board, encode_board(codes[0], 1))
    assert np.array_equal(boards, encode_boards(codes, 0))
    assert np.array_equal(after, encode_afterstates(gulbara.stage_ends(codes[1], 0, [6] * 4)))
    assert np.array_equal(state, encode_game(Game(seed=24)))


def test_regression_afterstates_of_other_ends_objects_check_their_seat():
    """encode_afterstates read any object's seat unchecked (garbage features, or a crash)."""

    class Ends:
        def __init__(self, seat):
            self.seat = seat

        def code(self, i):
            return START_CODE

        def __len__(self):
            return 1

    for seat in (5, -1):
        with pytest.raises(InvalidSeatError):
            encode_afterstates(Ends(seat))
        with pytest.raises(InvalidSeatError):
            encode_afterstates([Ends(0), Ends(seat)])
    with pytest.raises(TypeError):
        encode_afterstates(Ends(True))


def test_regression_encode_boards_of_chain_ends_with_their_borne_off():
    """encode_boards(chain, seat, borne_off=...) dropped the chain's boards (a numpy error)."""
    chain = gulbara.chain_ends(START_CODE, 0, 5)
    x = encode_boards(chain, 0, borne_off=chain.borne_off)
    assert np.array_equal(x, encode_boards(chain.boards, 0, borne_off=chain.borne_off))
