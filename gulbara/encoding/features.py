"""Feature encodings for evaluators and learning: positions and game states as float32 arrays.

Every function writes into a caller's numpy buffer (``out=``, allocated when
``None``) and returns it. The layouts are documented in ``docs/user/encoding.md``.

**Board block** (:data:`BOARD_FEATURES` = 196 values), a position seen by one
side, the *player*:

=============  =================================================================
index          meaning
=============  =================================================================
``0..95``      the player's points 1..24 in its own numbering (RULES §1.2-1.3),
               4 units each: ``n>=1``, ``n>=2``, ``n>=3``, ``max(n-3, 0)/12``
``96..191``    the opponent's points 1..24 in *its* own numbering, same units
``192, 193``   player's, opponent's borne-off checkers / 15
``194, 195``   player's, opponent's pip counts / 360
=============  =================================================================

**Game-state block** (:data:`STATE_FEATURES` = 220 values): the board block of
the game's position, then the context (the *player* is the side to act unless
``seat=`` is given: the side to play the stage or to roll; White at the
opening and at the end):

=============  =================================================================
index          meaning
=============  =================================================================
``196..201``   the stage's dice: count of each number 1..6, / 4 (0 at a chance node)
``202``        dice in the stage / 4
``203``        the stage is part of the roller's escalation chain (RULES §4.2)
``204``        the stage is part of a remainder (RULES §5.3)
``205``        the stage's index in its chain or remainder / 6
``206..211``   a remainder's later stages: count of each number 1..6, / 4
``212``        the player's seat (0 White, 1 Black)
``213``        the player is the side to act (0 for both at the end)
``214``        a chance node: dice to roll (the opening included)
``215``        the opening chance node (RULES §6)
``216``        the player's next double would escalate (RULES §4.2, §4.5)
``217``        the opponent's next double would escalate
``218``        stuck count / stuck limit (RULES §7.2; limit 100 when none), at most 1
``219``        the game is over
=============  =================================================================

Colour symmetry: a position and its mirror (colours swapped) give the same
board block from the other seat.

>>> import numpy as np, gulbara
>>> x = encode_board(gulbara.START_CODE, gulbara.WHITE)
>>> x.shape, x.dtype.name, x[23 * 4: 24 * 4].tolist(), float(x[PIPS][0])
((196,), 'float32', [1.0, 1.0, 1.0, 1.0], 1.0)
>>> game = gulbara.Game(seed=24)                      # White to play the opening 6-4
>>> s = encode_game(game)
>>> s.shape, s[STAGE_DICE].tolist(), float(s[STAGE_SIZE]), float(s[SEAT])
((220,), [0.0, 0.0, 0.0, 0.25, 0.0, 0.25], 0.5, 0.0)
"""

from typing import Any, Optional, Type

import numpy as np

from gulbara.encoding import _encode_py
from gulbara.core._backend import BACKEND_NAME, Position as _Position, as_position, backend
from gulbara.errors import GulBaraError, InvalidSeatError, OutputBufferError, checked_int

if BACKEND_NAME == "core":
    from gulbara.encoding import _encode
    _EndSet: Type[Any] = backend.EndSet
else:       # GULBARA_BACKEND=reference: the numpy twin, no compiled code
    _encode = _encode_py  # type: ignore[misc]  # the numpy twin: the same functions
    _EndSet = backend.Ends

__all__ = [
    "BOARD_FEATURES", "STATE_FEATURES", "OutputBufferError",
    "encode_board", "encode_boards", "encode_afterstates", "encode_game",
    "PLAYER_POINTS", "OPPONENT_POINTS", "BORNE_OFF", "PIPS",
    "STAGE_DICE", "STAGE_SIZE", "IS_CHAIN", "IS_REMAINDER", "STAGE_INDEX", "LATER_DICE",
    "SEAT", "TO_ACT", "IS_CHANCE", "IS_OPENING", "ESCALATES", "OPPONENT_ESCALATES",
    "STUCK", "GAME_OVER", "UNITS_PER_POINT",
]

#: Values of the board block.
BOARD_FEATURES: int = _encode.BOARD_SIZE
#: Values of the game-state block (the board block first).
STATE_FEATURES: int = _encode.STATE_SIZE
#: Units per point in the board block.
UNITS_PER_POINT = 4

_O = _encode.OFFSETS
#: The player's 24 points x 4 units, own numbering.
PLAYER_POINTS = slice(0, 96)
#: The opponent's 24 points x 4 units, the opponent's own numbering.
OPPONENT_POINTS = slice(96, 192)
#: Borne-off checkers / 15: player's, opponent's.
BORNE_OFF = slice(192, 194)
#: Pip counts / 360: player's, opponent's.
PIPS = slice(194, 196)
#: The stage's dice, count of each number 1..6 / 4.
STAGE_DICE = slice(_O["stage_dice"], _O["stage_dice"] + 6)
#: Dice in the stage / 4.
STAGE_SIZE: int = _O["stage_size"]
#: A stage of an escalation chain (RULES §4.2).
IS_CHAIN: int = _O["is_chain"]
#: A stage of a remainder (RULES §5.3).
IS_REMAINDER: int = _O["is_remainder"]
#: The stage's index in its chain or remainder / 6.
STAGE_INDEX: int = _O["stage_index"]
#: A remainder's later stages, count of each number 1..6 / 4.
LATER_DICE = slice(_O["later_dice"], _O["later_dice"] + 6)
#: The player's seat (0 White, 1 Black).
SEAT: int = _O["seat"]
#: The player is the side to act.
TO_ACT: int = _O["to_act"]
#: A chance node.
IS_CHANCE: int = _O["is_chance"]
#: The opening chance node (RULES §6).
IS_OPENING: int = _O["is_opening"]
#: The player's next double would escalate (RULES §4.2).
ESCALATES: int = _O["escalates"]
#: The opponent's next double would escalate.
OPPONENT_ESCALATES: int = _O["opp_escalates"]
#: Stuck count / stuck limit, at most 1 (RULES §7.2).
STUCK: int = _O["stuck"]
#: The game is over.
GAME_OVER: int = _O["game_over"]

assert GAME_OVER == STATE_FEATURES - 1


def _out(out, shape) -> np.ndarray:
    """``out`` checked (C-contiguous, writable, float32, ``shape``), or a new zero array."""
    if out is None:
        return np.zeros(shape, dtype=np.float32)
    if not isinstance(out, np.ndarray):
        raise TypeError(f"out must be a numpy array of dtype float32 and shape {shape}, "
                        f"not {type(out).__name__}")
    if (out.dtype != np.float32 or out.shape != shape or not out.flags.c_contiguous
            or not out.flags.writeable):
        what = f"{out.dtype.name} {out.shape}"
        if not out.flags.c_contiguous:
            what += " not C-contiguous"
        if not out.flags.writeable:
            what += " read-only"
        raise OutputBufferError(
            f"out must be a C-contiguous float32 array of shape {shape}, got {what}")
    return out


def _seat(seat) -> int:
    return checked_int(seat, "seat", 0, 1, InvalidSeatError, bounds="0 (White) or 1 (Black)")


def encode_board(position, seat: int, out: Optional[np.ndarray] = None) -> np.ndarray:
    """The board block of ``position`` (a code, ``Position``, ``Board``...) seen by ``seat``.

    >>> x = encode_board("G:1,,,,,,,,,,,-15,,,,,,,,,,,,14|0,0|0,0", 0)
    >>> x[0:4].tolist(), x[92:96].tolist(), round(float(x[95]) * 12), round(float(x[194]) * 360)
    ([1.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 0.9166666...], 11, 337)
    """
    seat = _seat(seat)
    pos = as_position(position)
    out = _out(out, (BOARD_FEATURES,))
    _encode.py_encode_position(pos, seat, out)
    return out


_INT8 = np.dtype(np.int8)
_UINT8 = np.dtype(np.uint8)
_NO_OFF = np.zeros((0, 2), np.uint8)


def encode_boards(boards, seats, out: Optional[np.ndarray] = None, *,
                  borne_off=None) -> np.ndarray:
    """The board blocks of N positions, ``N x 196``, each seen by its seat (GIL released).

    ``boards`` is a list of position codes, or an ``N x 24`` ``int8`` array in
    White's numbering (positive White, negative Black) as
    :func:`gulbara.chain_ends` and :func:`gulbara.stage_ends_batch` produce,
    with ``borne_off`` its ``N x 2`` ``uint8`` array (``None``: 15 minus the
    checkers on the board). An object with ``boards`` and ``borne_off``
    attributes (a :class:`gulbara.ChainEnds`) is taken as those two arrays
    (a ``borne_off`` given as well is used instead of its own).
    ``seats`` is one seat for all rows or ``N`` seats.

    >>> import gulbara
    >>> chain = gulbara.chain_ends(gulbara.START_CODE, gulbara.WHITE, 5)
    >>> x = encode_boards(chain.boards, 0, borne_off=chain.borne_off)
    >>> x.shape, bool((x[3] == encode_board(chain.code(3), 0)).all())
    ((44, 196), True)
    """
    from gulbara.core.batch import row_error, boards_from_codes

    if hasattr(boards, "boards") and hasattr(boards, "borne_off"):
        if borne_off is None:
            borne_off = boards.borne_off
        boards = boards.boards
    if isinstance(boards, (list, tuple)) and (not boards or isinstance(boards[0], str)):
        boards, borne_off = boards_from_codes(boards) if boards else (
            np.zeros((0, 24), np.int8), np.zeros((0, 2), np.uint8))
    boards = np.asarray(boards)
    if boards.dtype != _INT8 or boards.ndim != 2 or boards.shape[1] != 24:
        raise GulBaraError("boards must be position codes or an int8 array of shape (N, 24), "
                         f"got {boards.dtype.name} {boards.shape}")
    boards = np.ascontiguousarray(boards)
    n = boards.shape[0]
    if borne_off is not None:
        borne_off = np.asarray(borne_off)
        if borne_off.dtype != _UINT8 or borne_off.shape != (n, 2):
            raise GulBaraError(f"borne_off must be a uint8 array of shape ({n}, 2), "
                             f"got {borne_off.dtype.name} {borne_off.shape}")
        borne_off = np.ascontiguousarray(borne_off)
    seats_arr = np.asarray(seats)
    if seats_arr.dtype == np.bool_ or seats_arr.dtype.kind not in "iu":
        raise TypeError(f"seats must be an int or an int array, got {seats_arr.dtype.name}")
    one_seat = seats_arr.ndim == 0
    if not one_seat and seats_arr.shape != (n,):
        raise GulBaraError(f"seats must be one int or an array of shape ({n},), "
                         f"got {seats_arr.shape}")
    if seats_arr.size and (seats_arr.min() < 0 or seats_arr.max() > 1):
        flat = seats_arr.reshape(-1)
        bad = int(np.nonzero((flat < 0) | (flat > 1))[0][0])
        raise InvalidSeatError(f"{'' if one_seat else f'row {bad}: '}seat must be 0 (White) "
                               f"or 1 (Black), got {flat[bad]}")
    seats_u8 = np.ascontiguousarray(seats_arr.reshape(-1).astype(np.uint8))
    if one_seat and seats_u8.size == 0:
        seats_u8 = np.zeros(1, np.uint8)
    out = _out(out, (n, BOARD_FEATURES))
    if n == 0:
        return out
    problem = _encode.py_encode_boards(
        boards, borne_off if borne_off is not None else _NO_OFF, borne_off is None,
        seats_u8, one_seat, out)
    if problem is not None:
        raise row_error(*problem, boards, borne_off, seats_u8, None)
    return out


def encode_afterstates(ends, out: Optional[np.ndarray] = None) -> np.ndarray:
    """Every end of a stage (a :class:`gulbara.StageEnds`), ``N x 196``, seen by the stage's mover.

    Row ``i`` is ``encode_board(ends[i].code, ends.seat)``; the loop runs with
    the GIL released. A list of stages gives their ends one after another
    (each seen by its own mover), in one call.

    >>> import gulbara
    >>> ends = gulbara.stage_ends(gulbara.START_CODE, gulbara.BLACK, [6, 4])
    >>> x = encode_afterstates(ends)
    >>> x.shape, bool((x[1] == encode_board(ends[1].code, 1)).all())
    ((2, 196), True)
    >>> encode_afterstates([ends, gulbara.stage_ends(gulbara.START_CODE, 0, [5, 5])]).shape
    (4, 196)
    """
    if isinstance(ends, (list, tuple)):
        raws = [_raw_ends(item) for item in ends]
        total = sum(len(raw) for raw in raws)
        out = _out(out, (total, BOARD_FEATURES))
        if all(isinstance(raw, _EndSet) for raw in raws):
            _encode.py_encode_ends_list(raws, out)
        else:                                 # other ends: one by one, through their codes
            _encode_py.py_encode_ends_list(raws, out, _encode_raw)
        return out
    raw = _raw_ends(ends)
    out = _out(out, (len(raw), BOARD_FEATURES))
    _encode_raw(raw, out)
    return out


def _raw_ends(ends):
    from gulbara.core.play import StageEnds
    raw = ends.raw if isinstance(ends, StageEnds) else ends
    if not (hasattr(raw, "seat") and hasattr(raw, "code") and hasattr(raw, "__len__")):
        raise TypeError(f"ends must be a gulbara.StageEnds, not {type(ends).__name__}")
    if not isinstance(raw, _EndSet):
        _seat(raw.seat)                   # read by the encoder with no check of its own
    return raw


def _encode_raw(raw, out: np.ndarray) -> None:
    if isinstance(raw, _EndSet):
        _encode.py_encode_ends(raw, out)
        return
    seat = _seat(raw.seat)                # the reference backend: through the codes
    for i in range(len(raw)):
        _encode.py_encode_position(_Position.from_code(raw.code(i)), seat, out[i])


def encode_game(game, out: Optional[np.ndarray] = None, *, seat: Optional[int] = None
                ) -> np.ndarray:
    """The game-state block of a :class:`gulbara.Game` (``STATE_FEATURES`` float32 values).

    The player (the point of view) is the side to act: the side that plays the
    stage or rolls; White at the opening and once the game is over. ``seat``
    gives another point of view (e.g. an agent that is not to act).

    >>> import gulbara
    >>> game = gulbara.Game.new_perft_root()            # the opening chance node
    >>> s = encode_game(game)
    >>> float(s[IS_CHANCE]), float(s[IS_OPENING]), float(s[TO_ACT]), float(s[SEAT])
    (1.0, 1.0, 1.0, 0.0)
    >>> float(encode_game(game, seat=1)[TO_ACT])
    0.0
    """
    from gulbara.game.driver import current_game

    game = current_game(game)
    acting = game.to_move
    if game.is_opening():
        acting = 0
    player = (acting if acting is not None else 0) if seat is None else _seat(seat)
    out = _out(out, (STATE_FEATURES,))
    decision = game.decision
    dice, later, index = (), (), 0
    is_chain = is_remainder = False
    if decision is not None:
        dice = decision.dice
        index = decision.stage
        is_chain = decision.is_chain
        is_remainder = decision.is_remainder
        if is_remainder:
            later = decision.following
    limit = game.rules.stuck_limit or 100
    over = game.is_over()
    escalates = opp = False
    if not over:
        escalates = game.next_roll_escalates(player)
        opp = game.next_roll_escalates(1 - player)
    _encode.py_encode_state(
        as_position(game.position), player, acting == player and not over, dice,
        is_chain, is_remainder, index, later, game.is_chance(), game.is_opening(),
        escalates, opp, min(game.stuck_rolls / limit, 1.0), over, out)
    return out
