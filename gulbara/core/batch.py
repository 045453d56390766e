"""Stage ends for many (position, dice) requests in one call, as numpy arrays.

A value network scores the afterstates of many decisions at once. This module
takes the requests as arrays, enumerates every stage (RULES §3) in one compiled
loop with the GIL released, and returns the ends of all requests concatenated,
with the end positions as an ``M x 24`` ``int8`` array ready to be fed to a
network, and offsets saying which ends belong to which request.

Inputs, for N requests:

* ``boards``: ``N x 24`` ``int8``, White's numbering (RULES §9.1): positive
  counts White's checkers, negative Black's;
* ``borne_off``: ``N x 2`` ``uint8`` (White's, Black's), or ``None`` to take 15
  minus the checkers on the board;
* ``seats``: ``N`` ``uint8`` or ``int8``, the side that plays (0 White, 1 Black);
* ``dice``: ``N x 4`` ``uint8``, one stage per row (RULES §3.1): two different
  dice then zeros (either order), or one to four equal dice then zeros.

>>> import gulbara
>>> from gulbara.core.batch import arrays_from_requests, stage_ends_batch
>>> requests = [(gulbara.START_CODE, 0, (6, 5)), (gulbara.START_CODE, 1, (3, 3, 3, 3))]
>>> out = stage_ends_batch(*arrays_from_requests(requests))
>>> out.counts.tolist(), out.offsets.tolist(), out.end_boards.shape
([2, 4], [0, 2, 6], (6, 24))
>>> [str(play) for play in out.plays(0)] == [str(play) for play in gulbara.stage_ends(*requests[0])]
True
>>> [str(play) for play in out.plays(1)]
['24/21(4)', '24/18 24/21(2)', '24/18(2)', '24/15 24/21']
>>> out.end_boards[2].tolist()     # 24/21(4): Black's 21 is White's 9 (RULES §1.3)
[0, 0, 0, 0, 0, 0, 0, 0, -4, 0, 0, -11, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 15]
"""

import operator
from dataclasses import dataclass
from typing import Iterable, List, Optional, Sequence, Tuple

import numpy as np

from gulbara.core._backend import BACKEND_NAME, START_CODE, Position, backend  # noqa: F401 (doctests)
from gulbara.errors import (GulBaraError, InvalidDiceError, InvalidPositionError, InvalidSeatError,
                            checked_index, checked_seat, shown)
from gulbara.core.play import Play

if BACKEND_NAME == "core":
    from gulbara.core import _batch as _core
else:       # GULBARA_BACKEND=reference: a Python loop over the reference stands in
    _core = None  # type: ignore[assignment]  # (no compiled module)

__all__ = ["BatchEnds", "stage_ends_batch", "boards_from_codes", "dice_array",
           "arrays_from_requests", "code_from_board"]

N_CHECKERS = 15


@dataclass(frozen=True, eq=False, repr=False)
class BatchEnds:
    """The ends of N stage requests, concatenated (M ends in all).

    Request ``i`` owns the ends ``offsets[i]:offsets[i + 1]`` (``counts[i]`` of
    them, always at least one: the empty play when nothing moves, RULES §3.6),
    in canonical order (RULES §3.8), exactly as :func:`gulbara.stage_ends`
    lists them.

    Per request:

    * ``counts``: ``N`` ``int32``, the number of distinct ends;
    * ``playable_dice``: ``N`` ``uint8``, the dice every legal play uses
      (RULES §3.4; a game-ending play counts as all);
    * ``offsets``: ``N + 1`` ``int64``, ``offsets[0] == 0``, ``offsets[N] == M``.

    Per end:

    * ``end_boards``: ``M x 24`` ``int8``, the end position in White's
      numbering (+ White, - Black), the same layout as the input boards;
    * ``end_borne_off``: ``M x 2`` ``uint8``, White's and Black's borne-off
      counts after the play;
    * ``end_steps``: ``M x 4 x 2`` ``uint8``, the canonical steps ``(from, die)``
      in the mover's numbering, zero rows after the last step (``None`` when
      built with ``steps=False``);
    * ``end_n_steps``: ``M`` ``uint8``, steps per end (``None`` with ``steps=False``);
    * ``end_game``: ``M`` ``bool``, the play bears off the mover's last checker.

    The arrays are fresh and owned by this object (writable, C-contiguous).
    ``boards``, ``borne_off`` and ``ends_game`` are the same arrays under the
    names of :class:`gulbara.ChainEnds`.

    >>> out = stage_ends_batch(*arrays_from_requests([(START_CODE, 0, (6, 4))]))
    >>> len(out), out.n_ends, out.ends_of(0)
    (1, 2, slice(0, 2, None))
    >>> out.end_steps[1].tolist(), int(out.end_n_steps[1])
    ([[24, 6], [18, 4], [0, 0], [0, 0]], 2)
    """

    counts: np.ndarray
    playable_dice: np.ndarray
    offsets: np.ndarray
    end_boards: np.ndarray
    end_borne_off: np.ndarray
    end_steps: Optional[np.ndarray]
    end_n_steps: Optional[np.ndarray]
    end_game: np.ndarray

    def __repr__(self) -> str:
        return (f"<BatchEnds requests={len(self.counts)} ends={len(self.end_game)} "
                f"steps={self.end_steps is not None}>")

    def __len__(self) -> int:
        """The number of requests N."""
        return len(self.counts)

    @property
    def n_ends(self) -> int:
        """The number of ends M over all requests."""
        return len(self.end_game)

    # the names that whole chains use (ChainEnds): the same arrays
    @property
    def boards(self) -> np.ndarray:
        """``end_boards`` under the name :class:`gulbara.ChainEnds` uses."""
        return self.end_boards

    @property
    def borne_off(self) -> np.ndarray:
        """``end_borne_off`` under the name :class:`gulbara.ChainEnds` uses."""
        return self.end_borne_off

    @property
    def ends_game(self) -> np.ndarray:
        """``end_game`` under the name :class:`gulbara.ChainEnds` uses."""
        return self.end_game

    def _row(self, i: int) -> int:
        return checked_index(i, len(self.counts), "request indices are ints", "requests",
                             "request index")

    def ends_of(self, i: int) -> slice:
        """The slice of the per-end arrays that holds request ``i``'s ends."""
        i = self._row(i)
        return slice(int(self.offsets[i]), int(self.offsets[i + 1]))

    def request_index(self) -> np.ndarray:
        """``M`` ``int64``: the request each end belongs to (for segment max/argmax).

            >>> requests = [(START_CODE, 0, (6, 5)), (START_CODE, 1, (3, 3, 3, 3))]
        >>> stage_ends_batch(*arrays_from_requests(requests)).request_index().tolist()
        [0, 0, 1, 1, 1, 1]
        """
        return np.repeat(np.arange(len(self.counts), dtype=np.int64), self.counts)

    def codes(self, i: int) -> List[str]:
        """The end position codes of request ``i`` (RULES §9.1), in order."""
        part = self.ends_of(i)
        return [code_from_board(board, off)
                for board, off in zip(self.end_boards[part], self.end_borne_off[part])]

    def plays(self, i: int) -> List[Play]:
        """Request ``i``'s ends as :class:`gulbara.Play` objects.

        Equal to ``list(gulbara.stage_ends(code, seat, dice))`` for the same request.
        """
        if self.end_steps is None:
            raise GulBaraError("this batch was built with steps=False: it has no steps")
        assert self.end_n_steps is not None             # built with the steps
        part = self.ends_of(i)
        plays = []
        for k, code in zip(range(part.start, part.stop), self.codes(i)):
            steps = self.end_steps[k, :self.end_n_steps[k]].tolist()
            plays.append(Play(steps, code, bool(self.end_game[k])))
        return plays


# ---------------------------------------------------------------------------
# Input arrays
# ---------------------------------------------------------------------------

def code_from_board(board: Sequence[int], borne_off: Sequence[int]) -> str:
    """The position code (RULES §9.1) of a 24-point board and its borne-off pair.

    >>> code_from_board([0] * 11 + [-15] + [0] * 11 + [15], [0, 0]) == START_CODE
    True
    """
    tokens = ",".join(str(int(v)) if v else "" for v in board)
    return f"G:{tokens}|0,0|{int(borne_off[0])},{int(borne_off[1])}"


def boards_from_codes(codes: Iterable[str]) -> Tuple[np.ndarray, np.ndarray]:
    """``(boards, borne_off)`` arrays (``N x 24`` ``int8``, ``N x 2`` ``uint8``) of position codes.

    Each code is checked as :meth:`gulbara.Position.from_code` does; a bad one
    raises :class:`InvalidPositionError` naming its index.

    >>> boards, borne_off = boards_from_codes([START_CODE])
    >>> int(boards[0, 11]), int(boards[0, 23]), borne_off.tolist()
    (-15, 15, [[0, 0]])
    """
    codes = list(codes)
    boards = np.zeros((len(codes), 24), dtype=np.int8)
    borne_off = np.zeros((len(codes), 2), dtype=np.uint8)
    for i, code in enumerate(codes):
        try:
            position = Position.from_code(code)
        except InvalidPositionError as error:
            raise InvalidPositionError(f"code {i}: {error}") from None
        boards[i] = position.points()
        borne_off[i] = (position.borne_off(0), position.borne_off(1))
    return boards, borne_off


def dice_array(stages: Iterable[Sequence[int]]) -> np.ndarray:
    """An ``N x 4`` ``uint8`` dice array, each stage zero-padded (checked by the batch call).

    >>> dice_array([(6, 5), (2, 2, 2, 2), (4,)]).tolist()
    [[6, 5, 0, 0], [2, 2, 2, 2], [4, 0, 0, 0]]
    """
    stages = [tuple(stage) for stage in stages]
    dice = np.zeros((len(stages), 4), dtype=np.uint8)
    for i, stage in enumerate(stages):
        for d in stage:                  # ints only, as stage_ends takes them
            if isinstance(d, bool) or type(d).__name__ == "bool_" or \
                    not hasattr(type(d), "__index__"):
                raise TypeError(f"stage {i}: dice must be ints, got {shown(d)} in "
                                f"{shown(list(stage))}")
        values = [operator.index(d) for d in stage]
        if not 1 <= len(values) <= 4 or any(not 1 <= d <= 6 for d in values):
            raise InvalidDiceError(
                f"stage {i}: a stage is one to four dice 1..6, got {shown(list(stage))}")
        dice[i, :len(values)] = values
    return dice


def arrays_from_requests(requests: Iterable[Tuple[str, int, Sequence[int]]]
                         ) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(boards, borne_off, seats, dice)`` for ``(code, seat, dice)`` requests.

    >>> boards, borne_off, seats, dice = arrays_from_requests([(START_CODE, 1, (5, 6))])
    >>> boards.shape, borne_off.shape, seats.tolist(), dice.tolist()
    ((1, 24), (1, 2), [1], [[5, 6, 0, 0]])
    """
    requests = list(requests)
    boards, borne_off = boards_from_codes(code for code, _, _ in requests)
    seats = np.array([checked_seat(seat, f"request {i}: seat")
                      for i, (_, seat, _) in enumerate(requests)], dtype=np.int64)
    return boards, borne_off, seats.astype(np.uint8), dice_array(d for _, _, d in requests)


_INT8 = (np.dtype(np.int8),)
_UINT8 = (np.dtype(np.uint8),)
_UINT8_OR_INT8 = (np.dtype(np.uint8), np.dtype(np.int8))


def _checked(name: str, value, dtypes: Tuple[np.dtype, ...], shape: Tuple) -> np.ndarray:
    """``value`` as a C-contiguous array of one of ``dtypes`` and ``shape`` (None: any)."""
    array = np.asarray(value)
    if array.dtype in dtypes and array.ndim == len(shape) and all(
            k is None or k == got for k, got in zip(shape, array.shape)):
        return array if array.flags.c_contiguous else np.ascontiguousarray(array)
    wanted = "(" + ", ".join("N" if k is None else str(k) for k in shape) + \
        ("," if len(shape) == 1 else "") + ")"
    kinds = " or ".join(d.name for d in dtypes)
    raise ValueError(f"{name} must be an array of dtype {kinds} and shape {wanted}, "
                     f"got dtype {array.dtype.name} and shape {array.shape}")


def row_error(row: int, problem: str, detail: int, boards, borne_off, seats, dice):
    """The exception for a bad request row (the problem found by the batch loop)."""
    colours = ("White", "Black")
    if problem == "seat":
        return InvalidSeatError(
            f"row {row}: seat must be 0 (White) or 1 (Black), got {seats[row]}")
    if problem in ("die", "no_dice", "gap", "unequal"):
        text = f"row {row}: dice {dice[row].tolist()}"
        if problem == "die":
            return InvalidDiceError(
                f"{text}: a die must be 1 to 6 (0 pads the row), got {dice[row, detail]} "
                f"in column {detail}")
        if problem == "no_dice":
            return InvalidDiceError(f"{text}: no dice (a stage has one to four)")
        if problem == "gap":
            return InvalidDiceError(f"{text}: the dice come first, then zeros only")
        return InvalidDiceError(
            f"{text}: a stage of three or four dice must have equal dice (RULES §3.1)")
    text = f"row {row}: board {boards[row].tolist()}"
    if problem == "point":
        return InvalidPositionError(
            f"{text}: point {detail} holds {abs(int(boards[row, detail - 1]))} checkers "
            f"(at most 15)")
    sign = 1 if detail == 0 else -1
    on_board = int(np.clip(boards[row].astype(np.int64) * sign, 0, None).sum())
    if problem == "off":
        return InvalidPositionError(
            f"{text}: {colours[detail]} has borne off {borne_off[row, detail]} checkers "
            f"(at most 15)")
    if borne_off is None:
        return InvalidPositionError(
            f"{text}: {colours[detail]} has {on_board} checkers on the board (at most 15)")
    return InvalidPositionError(
        f"{text}: {colours[detail]} has {on_board} checkers on the board and "
        f"{borne_off[row, detail]} borne off; the sum must be 15")


_NO_BORNE_OFF = np.zeros((0, 2), np.uint8)


def stage_ends_batch(boards, borne_off, seats, dice, *, steps: bool = True) -> BatchEnds:
    """The ends of N stage requests in one call (RULES §3); see :class:`BatchEnds`.

    ``boards`` ``N x 24`` ``int8``, ``borne_off`` ``N x 2`` ``uint8`` or
    ``None`` (15 minus the checkers on the board), ``seats`` ``N`` ``uint8``
    or ``int8``, ``dice`` ``N x 4`` ``uint8`` (see the module docstring).
    With ``steps=False`` only the afterstates are built (``end_steps`` and
    ``end_n_steps`` are ``None``), which is faster.

    A wrong dtype or shape raises ``ValueError`` naming the expected one; a
    bad row raises :class:`InvalidPositionError`, :class:`InvalidSeatError`
    or :class:`InvalidDiceError` naming the first bad row and its problem.
    The GIL is released for the whole batch, so threads can run batches in
    parallel.

    >>> boards, borne_off, seats, dice = arrays_from_requests([(START_CODE, 0, (1, 1))])
    >>> out = stage_ends_batch(boards, None, seats, dice, steps=False)
    >>> out.counts.tolist(), out.playable_dice.tolist(), out.end_steps is None
    ([2], [2], True)
    >>> stage_ends_batch(boards, borne_off, seats, dice.astype("int64"))
    Traceback (most recent call last):
    ...
    ValueError: dice must be an array of dtype uint8 or int8 and shape (1, 4), got dtype int64 ...
    """
    boards = _checked("boards", boards, _INT8, (None, 24))
    n = boards.shape[0]
    if borne_off is not None:
        borne_off = _checked("borne_off", borne_off, _UINT8, (n, 2))
    seats = _checked("seats", seats, _UINT8_OR_INT8, (n,))
    dice = _checked("dice", dice, _UINT8_OR_INT8, (n, 4))
    if _core is None:
        return _stage_ends_batch_loop(boards, borne_off, seats, dice, steps, backend)
    result = _core.stage_ends_batch(
        boards, borne_off if borne_off is not None else _NO_BORNE_OFF, borne_off is None,
        seats if seats.dtype == _UINT8[0] else seats.view(np.uint8),
        dice if dice.dtype == _UINT8[0] else dice.view(np.uint8), steps)
    if result[0] is not None:
        raise row_error(*result[0], boards, borne_off, seats, dice)
    return BatchEnds(*result[1:])


# ---------------------------------------------------------------------------
# The same, one request at a time through a backend's stage_ends (the
# stand-in under GULBARA_BACKEND=reference, and a cross-check in the tests)
# ---------------------------------------------------------------------------

def _check_row(board, off, seat: int, dice_row) -> Optional[Tuple[str, int]]:
    """The first problem of one request row, as the compiled loop reports it, or None."""
    problem = check_board_row(board, off, seat)
    if problem is not None:
        return problem
    n = 0
    for k, die in enumerate(dice_row):
        if die > 6:
            return ("die", k)
        if die:
            if n != k:
                return ("gap", k)
            n += 1
    if n == 0:
        return ("no_dice", 0)
    if n != 2 and len(set(dice_row[:n])) != 1:
        return ("unequal", 0)
    return None


def check_board_row(board, off, seat: int) -> Optional[Tuple[str, int]]:
    """The first problem of one board row (``off`` None: derived), as ``_rows.pxd`` reports it."""
    if seat not in (0, 1):
        return ("seat", 0)
    board = [int(v) for v in board]
    for q, v in enumerate(board, 1):
        if abs(v) > N_CHECKERS:
            return ("point", q)
    on_board = (sum(v for v in board if v > 0), sum(-v for v in board if v < 0))
    if off is None:
        for side in (0, 1):
            if on_board[side] > N_CHECKERS:
                return ("total", side)
    else:
        for side in (0, 1):
            if off[side] > N_CHECKERS:
                return ("off", side)
        for side in (0, 1):
            if on_board[side] + off[side] != N_CHECKERS:
                return ("total", side)
    return None


def _stage_ends_batch_loop(boards, borne_off, seats, dice, steps: bool, source) -> BatchEnds:
    """:func:`stage_ends_batch` as a Python loop over ``source.stage_ends`` (slow)."""
    n = boards.shape[0]
    seats_u = seats.view(np.uint8)
    dice_u = dice.view(np.uint8)
    counts = np.zeros(n, dtype=np.int32)
    playable = np.zeros(n, dtype=np.uint8)
    offsets = np.zeros(n + 1, dtype=np.int64)
    codes: List[str] = []
    all_steps: List[tuple] = []
    game: List[bool] = []
    for i in range(n):
        off = None if borne_off is None else [int(v) for v in borne_off[i]]
        dice_row = [int(v) for v in dice_u[i]]
        problem = _check_row(boards[i], off, int(seats_u[i]), dice_row)
        if problem is not None:
            raise row_error(i, *problem, boards, borne_off, seats, dice)
        if off is None:
            off = [N_CHECKERS - int(np.clip(boards[i].astype(np.int64) * s, 0, None).sum())
                   for s in (1, -1)]
        ends = source.stage_ends(code_from_board(boards[i], off), int(seats_u[i]),
                                 [d for d in dice_row if d])
        counts[i] = len(ends)
        playable[i] = ends.playable_dice
        offsets[i + 1] = offsets[i] + len(ends)
        for k in range(len(ends)):
            codes.append(ends.code(k))
            all_steps.append(ends.steps(k))
            game.append(ends.ends_game(k))
    m = len(codes)
    end_boards, end_borne_off = (boards_from_codes(codes) if m else
                                 (np.zeros((0, 24), np.int8), np.zeros((0, 2), np.uint8)))
    end_steps = end_n_steps = None
    if steps:
        end_steps = np.zeros((m, 4, 2), dtype=np.uint8)
        end_n_steps = np.zeros(m, dtype=np.uint8)
        for k, play in enumerate(all_steps):
            end_n_steps[k] = len(play)
            if play:
                end_steps[k, :len(play)] = play
    return BatchEnds(counts, playable, offsets, end_boards, end_borne_off, end_steps,
                     end_n_steps, np.array(game, dtype=bool).reshape(m))
