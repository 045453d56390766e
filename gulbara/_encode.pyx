# cython: language_level=3
"""Feature encodings of positions (the layout is documented in docs/encoding.md).

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
"""

from gulbara._types cimport Pos, N_POINTS


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
