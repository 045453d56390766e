"""The feature encoders of ``_encode.pyx`` in numpy: the stand-in under ``GULBARA_BACKEND=reference``.

Same functions, arguments and float32 results as the compiled ``gulbara.encoding._encode``
(the layout is in :mod:`gulbara.encoding.features` and docs/user/encoding.md), written the
obvious way on White-numbered boards, so that :mod:`gulbara.encoding.features` needs no
compiled code under the reference backend; tests/test_encoding.py checks the two
against each other on every kind of input.
"""

from typing import Optional, Sequence, Tuple

import numpy as np

from gulbara.core.batch import check_board_row
from gulbara.conventions import OTHER_POINT

BOARD_SIZE = 196
STATE_SIZE = 220
#: The context's offsets in the game-state block (``_encode.pxd``'s ``CTX_*``).
OFFSETS = {
    "stage_dice": 196, "stage_size": 202, "is_chain": 203, "is_remainder": 204,
    "stage_index": 205, "later_dice": 206, "seat": 212, "to_act": 213, "is_chance": 214,
    "is_opening": 215, "escalates": 216, "opp_escalates": 217, "stuck": 218, "game_over": 219,
}

_OTHER_COLUMNS = np.array(OTHER_POINT) - 1       # own point p of Black: White's column
_POINTS = np.arange(1, 25)


def _units(counts: np.ndarray) -> np.ndarray:
    """``N x 24`` checker counts (own numbering) as ``N x 96`` units: n>=1, n>=2, n>=3, (n-3)/12."""
    c = counts[:, :, None].astype(np.float64)
    units = np.concatenate([c >= 1, c >= 2, c >= 3, np.maximum(c - 3, 0) / 12.0], axis=2)
    return units.reshape(len(counts), 96)


def _encode_rows(boards: np.ndarray, off: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
    """Board blocks of White-numbered ``boards`` with ``off`` (``N x 2``), each seen by its seat."""
    boards = boards.astype(np.int64)
    own = (np.maximum(boards, 0), np.maximum(-boards, 0)[:, _OTHER_COLUMNS])
    black = (seats == 1)[:, None]
    mine, theirs = np.where(black, own[1], own[0]), np.where(black, own[0], own[1])
    rows = np.arange(len(boards))
    off = off.astype(np.int64)
    out[:, 0:96] = _units(mine)
    out[:, 96:192] = _units(theirs)
    out[:, 192] = off[rows, seats] / 15.0
    out[:, 193] = off[rows, 1 - seats] / 15.0
    out[:, 194] = (mine @ _POINTS) / 360.0
    out[:, 195] = (theirs @ _POINTS) / 360.0


def _position_rows(positions: Sequence) -> Tuple[np.ndarray, np.ndarray]:
    boards = np.array([p.points() for p in positions], dtype=np.int64).reshape(-1, 24)
    off = np.array([(p.borne_off(0), p.borne_off(1)) for p in positions],
                   dtype=np.int64).reshape(-1, 2)
    return boards, off


def py_encode_boards(boards, borne_off, derive_off: bool, seats, one_seat: bool,
                      out) -> Optional[Tuple[int, str, int]]:
    """Encode ``N x 24`` boards into ``out``; ``None`` or ``(row, problem, detail)``."""
    n = boards.shape[0]
    seat_rows = np.broadcast_to(seats[:1], (n,)) if one_seat else seats
    for i in range(n):
        off = None if derive_off else [int(v) for v in borne_off[i]]
        problem = check_board_row(boards[i], off, int(seat_rows[i]))
        if problem is not None:
            return (i,) + problem
    if derive_off:
        wide = boards.astype(np.int64)
        borne_off = np.stack([15 - np.maximum(wide, 0).sum(axis=1),
                              15 - np.maximum(-wide, 0).sum(axis=1)], axis=1)
    _encode_rows(boards, borne_off, seat_rows.astype(np.int64), out)
    return None


def py_encode_position(position, seat: int, out) -> None:
    """Encode one position from ``seat``'s view into ``out[0:196]``."""
    boards, off = _position_rows([position])
    _encode_rows(boards, off, np.array([seat]), out[None, 0:BOARD_SIZE])


def py_encode_ends(ends, out) -> None:
    """Encode every end of a stage from its mover's view into ``out``."""
    if len(ends):
        boards, off = _position_rows([ends.position(i) for i in range(len(ends))])
        _encode_rows(boards, off, np.full(len(ends), ends.seat), out)


def py_encode_ends_list(stages: list, out, encode_ends=None) -> None:
    """Encode the ends of several stages into consecutive rows of ``out``, each
    stage by ``encode_ends(ends, rows)`` (by default ``py_encode_ends``)."""
    encode_ends = py_encode_ends if encode_ends is None else encode_ends
    at = 0
    for ends in stages:
        encode_ends(ends, out[at:at + len(ends)])
        at += len(ends)


def py_encode_state(position, seat: int, to_act: bool, dice, is_chain: bool,
                     is_remainder: bool, index: int, later, is_chance: bool, is_opening: bool,
                     escalates: bool, opp_escalates: bool, stuck: float, game_over: bool,
                     out) -> None:
    """Encode a game state into ``out[0:STATE_FEATURES]``."""
    py_encode_position(position, seat, out)
    o = OFFSETS
    out[BOARD_SIZE:STATE_SIZE] = 0.0
    for number in dice:
        out[o["stage_dice"] + number - 1] += 0.25
    for number, count in later:
        out[o["later_dice"] + number - 1] += count / 4.0
    out[o["stage_size"]] = len(dice) / 4.0
    out[o["stage_index"]] = index / 6.0
    out[o["seat"]] = float(seat)
    out[o["stuck"]] = np.float32(stuck)
    for name, flag in (("is_chain", is_chain), ("is_remainder", is_remainder),
                       ("to_act", to_act), ("is_chance", is_chance), ("is_opening", is_opening),
                       ("escalates", escalates), ("opp_escalates", opp_escalates),
                       ("game_over", game_over)):
        out[o[name]] = 1.0 if flag else 0.0
