# cython: language_level=3
"""Reading one ``int8`` board row (White's numbering, RULES §9.1) into a position,
with its problems named: shared by the batch stage API and the encoders; inline C
(this file is the implementation)."""

from libc.stdint cimport int8_t, uint8_t, uint32_t
from libc.string cimport memset

from gulbara.core._types cimport Pos, N_POINTS, N_CHECKERS

# Problems of a board row (gulbara.core.batch names them: seat, point, off, total).
cdef enum:
    ROW_OK = 0
    BAD_SEAT = 1
    BAD_POINT = 2
    BAD_OFF = 3
    BAD_TOTAL = 4

cdef inline int read_board(const int8_t* board, const uint8_t* off, bint derive_off,
                           Pos* p, int* detail) noexcept nogil:
    """Read one ``int8`` board in White's numbering (RULES §9.1) into ``p``; 0 or a BAD_* code."""
    cdef int q, v, k, total0 = 0, total1 = 0
    detail[0] = 0
    memset(p, 0, sizeof(Pos))
    for q in range(1, N_POINTS + 1):
        v = board[q - 1]
        if v > N_CHECKERS or v < -N_CHECKERS:
            detail[0] = q
            return BAD_POINT
        if v > 0:
            p.cnt[0][q] = v
            p.occ[0] |= (<uint32_t>1) << (q - 1)
            total0 += v
        elif v < 0:
            k = ((q + 11) % 24) + 1            # Black's own point (RULES §1.3)
            p.cnt[1][k] = -v
            p.occ[1] |= (<uint32_t>1) << (k - 1)
            total1 -= v
    if derive_off:
        if total0 > N_CHECKERS:
            detail[0] = 0
            return BAD_TOTAL
        if total1 > N_CHECKERS:
            detail[0] = 1
            return BAD_TOTAL
        p.off[0] = N_CHECKERS - total0
        p.off[1] = N_CHECKERS - total1
        return ROW_OK
    for k in range(2):
        if off[k] > N_CHECKERS:
            detail[0] = k
            return BAD_OFF
    if total0 + off[0] != N_CHECKERS:
        detail[0] = 0
        return BAD_TOTAL
    if total1 + off[1] != N_CHECKERS:
        detail[0] = 1
        return BAD_TOTAL
    p.off[0] = off[0]
    p.off[1] = off[1]
    return ROW_OK
