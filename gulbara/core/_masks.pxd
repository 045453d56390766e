# cython: language_level=3
"""The rules on points and occupancy masks (bit q - 1 for own point q), inline C shared
by the stage and chain searches, native perft, self-play and the vector
environment: the one statement of the step rule (RULES §2.2-2.3).

Everything here is inline (this file is the implementation)."""

from libc.stdint cimport uint32_t

from gulbara.core._bits cimport bit_length
from gulbara.core._types cimport HOME_BITS, BOARD_BITS


cdef inline uint32_t rotate12(uint32_t m) noexcept nogil:
    """The other side's occupancy in this side's numbering (RULES §1.3)."""
    return ((m << 12) | (m >> 12)) & BOARD_BITS


cdef inline int point_in_other_frame(int p) noexcept nogil:
    """A side's own point p as the other side's point (RULES §1.3; self-inverse)."""
    return ((p + 11) % 24) + 1


cdef inline uint32_t open_from(uint32_t blocked, int distance) noexcept nogil:
    """The points q (bit q - 1) whose q - distance is a point the opponent
    does not hold (RULES §2.2: a step lands on an open point)."""
    return (~(blocked << distance) & ~(((<uint32_t>1) << distance) - 1)
            & <uint32_t>BOARD_BITS)


cdef inline uint32_t bear_off_from(uint32_t mask, int die) noexcept nogil:
    """The points (bit q - 1) a checker of the occupancy ``mask`` bears off
    from with ``die`` (RULES §2.3): none unless every checker is home; the
    point ``die`` itself, or the highest point when it is below ``die``."""
    cdef uint32_t sources
    cdef int top
    if not mask or (mask & ~(<uint32_t>HOME_BITS)):
        return 0
    sources = mask & ((<uint32_t>1) << (die - 1))
    top = bit_length(mask)
    if top < die:
        sources |= (<uint32_t>1) << (top - 1)
    return sources


cdef inline uint32_t movable(uint32_t mask, uint32_t open_d, int die) noexcept nogil:
    """The points (bit q - 1) a checker can step ``die`` from (RULES §2.2-2.3);
    ``open_d`` is open_from(blocked, die)."""
    return (mask & open_d) | bear_off_from(mask, die)


cdef inline bint can_step(uint32_t mask, uint32_t blocked, int frm, int die) noexcept nogil:
    """Whether the checker on ``frm`` (a point of ``mask``) can step ``die``
    (RULES §2.2-2.3), the opponent holding ``blocked`` (the mover's numbering):
    the bit ``frm`` of movable(mask, open_from(blocked, die), die)."""
    if frm > die:
        return not (blocked >> (frm - die - 1)) & 1
    return (bear_off_from(mask, die) >> (frm - 1)) & 1
