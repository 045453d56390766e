# cython: language_level=3
"""Feature encodings of positions (the layout is documented in docs/user/encoding.md).

The board block, ``BOARD_FEATURES`` = 196 float32 values for a position seen
by ``seat`` (the *player*):

* ``[0, 96)``: the player's own points 1..24 in its own numbering (RULES §1.3),
  four units per point: ``n >= 1``, ``n >= 2``, ``n >= 3``, ``max(n - 3, 0) / 12``
  for ``n`` checkers there;
* ``[96, 192)``: the opponent's points 1..24 in the opponent's own numbering,
  the same four units (a point is held by one side only, RULES §2.2);
* ``192``, ``193``: the player's and the opponent's borne-off checkers / 15;
* ``194``, ``195``: the player's and the opponent's pip counts / 360 (360 at
  the start).

Seen from either side the layout is the same, so one evaluator serves both
seats.

The game-state block, ``STATE_FEATURES`` = 220 values: the board block, then
the context of a ``GameContext`` at the ``CTX_*`` offsets of ``_encode.pxd``
(the table is in ``gulbara.encoding.features`` and docs/user/encoding.md).

The Python API is :mod:`gulbara.encoding.features`; the ``_py_*`` functions below take
checked, C-contiguous buffers and are its back end.
"""

from libc.stdint cimport int8_t, uint8_t
from libc.string cimport memset
from gulbara.core._types cimport Pos, Key96, N_POINTS
from gulbara.core._keys cimport pos_set_mover_key
from gulbara.core._movegen cimport Position, EndSet
from gulbara.core._rows cimport read_board, ROW_OK, BAD_SEAT, BAD_POINT, BAD_OFF, BAD_TOTAL


cdef void encode_pos(const Pos* p, int seat, float* out) noexcept nogil:
    """Write the board block of ``p`` from ``seat``'s point of view into ``out[0:196]``."""
    cdef int side, who, q, n, base
    cdef int pips
    for side in range(2):
        who = seat if side == 0 else 1 - seat
        base = side * N_POINTS * UNITS_PER_POINT
        pips = 0
        for q in range(1, N_POINTS + 1):
            n = p.cnt[who][q]
            pips += n * q
            out[base] = 1.0 if n >= 1 else 0.0
            out[base + 1] = 1.0 if n >= 2 else 0.0
            out[base + 2] = 1.0 if n >= 3 else 0.0
            out[base + 3] = (n - 3) / 12.0 if n > 3 else 0.0
            base += UNITS_PER_POINT
        out[192 + side] = p.off[who] / 15.0
        out[194 + side] = pips / 360.0


cdef void encode_end(const Pos* start, int seat, Key96 key, float* out) noexcept nogil:
    """The board block, seen by the mover ``seat``, of the end of a stage from ``start``
    that ``key`` packs (the mover's counts, RULES §3.7): an afterstate's features."""
    cdef Pos end = start[0]
    pos_set_mover_key(&end, seat, key)
    encode_pos(&end, seat, out)


cdef void encode_state(const Pos* p, const GameContext* c, float* out) noexcept nogil:
    """Write the game-state block (board block + context) into ``out[0:STATE_FEATURES]``."""
    cdef int k
    encode_pos(p, c.seat, out)
    for k in range(6):
        out[CTX_STAGE_DICE + k] = c.dice[k] / 4.0
        out[CTX_LATER_DICE + k] = c.later[k] / 4.0
    out[CTX_STAGE_SIZE] = c.n_dice / 4.0
    out[CTX_IS_CHAIN] = 1.0 if c.is_chain else 0.0
    out[CTX_IS_REMAINDER] = 1.0 if c.is_remainder else 0.0
    out[CTX_STAGE_INDEX] = c.index / 6.0
    out[CTX_SEAT] = <float>c.seat
    out[CTX_TO_ACT] = 1.0 if c.to_act else 0.0
    out[CTX_IS_CHANCE] = 1.0 if c.is_chance else 0.0
    out[CTX_IS_OPENING] = 1.0 if c.is_opening else 0.0
    out[CTX_ESCALATES] = 1.0 if c.escalates else 0.0
    out[CTX_OPP_ESCALATES] = 1.0 if c.opp_escalates else 0.0
    out[CTX_STUCK] = c.stuck
    out[CTX_GAME_OVER] = 1.0 if c.game_over else 0.0


PROBLEMS = {BAD_SEAT: "seat", BAD_POINT: "point", BAD_OFF: "off", BAD_TOTAL: "total"}


cdef Py_ssize_t encode_rows(const int8_t[:, ::1] boards, const uint8_t[:, ::1] borne_off,
                            bint derive_off, const uint8_t[::1] seats, bint one_seat,
                            float[:, ::1] out, int* problem, int* detail) noexcept nogil:
    """Encode every row; the index of the first bad row (``problem`` set), or -1."""
    cdef Py_ssize_t i, n = boards.shape[0]
    cdef Pos p
    cdef int seat
    cdef const uint8_t* off = NULL
    for i in range(n):
        seat = seats[0] if one_seat else seats[i]
        if seat > 1:
            problem[0] = BAD_SEAT
            detail[0] = 0
            return i
        if not derive_off:
            off = &borne_off[i, 0]
        problem[0] = read_board(&boards[i, 0], off, derive_off, &p, detail)
        if problem[0] != ROW_OK:
            return i
        encode_pos(&p, seat, &out[i, 0])
    return -1


cdef int check_rows(out, Py_ssize_t rows, Py_ssize_t columns) except -1:
    """``out`` (a 2-D float32 buffer) has at least ``rows`` rows of ``columns`` values: the
    entry points below write that many and, compiled without bounds checks, must not write
    past it. (gulbara.encoding.features checks its callers' arrays; these are its helpers.)"""
    if out is None:
        raise TypeError("out must be a float32 array, not None")
    if out.shape[0] < rows or out.shape[1] != columns:
        raise ValueError(f"out must have at least {rows} rows of {columns} values, "
                         f"got shape {tuple(out.shape)}")
    return 0


cdef int check_seat(int seat) except -1:
    if seat != 0 and seat != 1:
        raise ValueError(f"seat must be 0 or 1, got {seat}")
    return 0


def py_encode_boards(const int8_t[:, ::1] boards not None, const uint8_t[:, ::1] borne_off,
                      bint derive_off, const uint8_t[::1] seats not None, bint one_seat,
                      float[:, ::1] out not None):
    """Encode ``N x 24`` boards into ``out`` (GIL released); ``None`` or ``(row, problem, detail)``."""
    cdef int problem = 0, detail = 0
    cdef Py_ssize_t bad
    if boards.shape[1] != 24:
        raise ValueError(f"boards must be N x 24, got {tuple(boards.shape)}")
    if not derive_off and (borne_off is None or borne_off.shape[0] < boards.shape[0]
                           or borne_off.shape[1] != 2):
        raise ValueError("borne_off must be N x 2 unless it is derived")
    if seats.shape[0] < (1 if one_seat else boards.shape[0]):
        raise ValueError("seats must hold one seat, or one per board")
    check_rows(out, boards.shape[0], BOARD_FEATURES)
    with nogil:
        bad = encode_rows(boards, borne_off, derive_off, seats, one_seat, out, &problem, &detail)
    if bad < 0:
        return None
    return (bad, PROBLEMS[problem], detail)


def py_encode_position(Position position not None, int seat, float[::1] out not None):
    """Encode one position from ``seat``'s view into ``out[0:196]``."""
    check_seat(seat)
    if out.shape[0] < BOARD_FEATURES:
        raise ValueError(f"out must hold {BOARD_FEATURES} values, got {out.shape[0]}")
    encode_pos(&position.pos, seat, &out[0])


def py_encode_ends(EndSet ends not None, float[:, ::1] out):
    """Encode every end of ``ends`` from its mover's view into ``out`` (GIL released)."""
    cdef Py_ssize_t i, n = len(ends)
    cdef int seat = ends.seat
    cdef Pos p
    check_rows(out, n, BOARD_FEATURES)
    with nogil:
        for i in range(n):
            ends.end_pos(i, &p)
            encode_pos(&p, seat, &out[i, 0])


def py_encode_ends_list(list stages, float[:, ::1] out):
    """Encode the ends of several ``EndSet`` objects into consecutive rows of ``out``.

    ``out`` has exactly the total number of rows (``ValueError`` otherwise).
    """
    cdef EndSet ends
    cdef Py_ssize_t at = 0, i, n, total = 0
    cdef Pos p
    if stages is None:
        raise TypeError("stages must be a list of the core's stage ends, not None")
    for item in stages:
        if not isinstance(item, EndSet):
            raise TypeError(f"stages holds the core's stage ends, not {type(item).__name__}")
        total += (<EndSet>item).count()
    check_rows(out, total, BOARD_FEATURES)
    for item in stages:
        ends = <EndSet>item
        n = ends.count()
        for i in range(n):
            ends.end_pos(i, &p)
            encode_pos(&p, ends.seat, &out[at + i, 0])
        at += n


def py_encode_state(Position position not None, int seat, bint to_act, dice, bint is_chain,
                     bint is_remainder, int index, later, bint is_chance, bint is_opening,
                     bint escalates, bint opp_escalates, float stuck, bint game_over,
                     float[::1] out not None):
    """Encode a game state into ``out[0:STATE_FEATURES]``.

    ``dice`` is the stage's dice, ``later`` the numbers and counts
    ``((number, count), ...)`` of a remainder's later stages.
    """
    cdef GameContext c
    cdef int number, count
    check_seat(seat)
    if out.shape[0] < STATE_FEATURES:
        raise ValueError(f"out must hold {STATE_FEATURES} values, got {out.shape[0]}")
    memset(&c, 0, sizeof(GameContext))
    c.seat = seat
    c.to_act = to_act
    for number in dice:
        if not 1 <= number <= 6 or c.n_dice == 4:
            raise ValueError(f"dice are at most four numbers 1..6, got {dice!r}")
        c.dice[number - 1] += 1
        c.n_dice += 1
    c.is_chain = is_chain
    c.is_remainder = is_remainder
    c.index = index
    for number, count in later:
        if not 1 <= number <= 6 or not 0 <= count <= 4:
            raise ValueError(f"later holds (number 1..6, count 0..4) pairs, got {later!r}")
        c.later[number - 1] += count
    c.is_chance = is_chance
    c.is_opening = is_opening
    c.escalates = escalates
    c.opp_escalates = opp_escalates
    c.stuck = stuck
    c.game_over = game_over
    encode_state(&position.pos, &c, &out[0])


BOARD_SIZE = BOARD_FEATURES
STATE_SIZE = STATE_FEATURES
OFFSETS = {
    "stage_dice": CTX_STAGE_DICE, "stage_size": CTX_STAGE_SIZE, "is_chain": CTX_IS_CHAIN,
    "is_remainder": CTX_IS_REMAINDER, "stage_index": CTX_STAGE_INDEX,
    "later_dice": CTX_LATER_DICE, "seat": CTX_SEAT, "to_act": CTX_TO_ACT,
    "is_chance": CTX_IS_CHANCE, "is_opening": CTX_IS_OPENING, "escalates": CTX_ESCALATES,
    "opp_escalates": CTX_OPP_ESCALATES, "stuck": CTX_STUCK, "game_over": CTX_GAME_OVER,
}
