# cython: language_level=3
"""The rules on occupancy masks (bit q - 1 for own point q), shared by the
generator, native perft and self-play."""

from libc.stdint cimport uint32_t

from gulbara._bits cimport bit_length
from gulbara._types cimport HOME_BITS, BOARD_BITS


cdef inline uint32_t rotate12(uint32_t m) noexcept nogil:
    """The other side's occupancy in this side's numbering (RULES §1.3)."""
    return ((m << 12) | (m >> 12)) & BOARD_BITS


cdef inline uint32_t open_from(uint32_t blocked, int distance) noexcept nogil:
    """The points q (bit q - 1) whose q - distance is a point the opponent does not hold."""
    return (~(blocked << distance) & ~(((<uint32_t>1) << distance) - 1)
            & <uint32_t>BOARD_BITS)


cdef inline uint32_t movable(uint32_t mask, uint32_t open_d, int die) noexcept nogil:
    """The points (bit q - 1) a checker can step ``die`` from (RULES §2.2-2.3);
    ``open_d`` is open_from(blocked, die)."""
    cdef uint32_t sources = mask & open_d
    cdef int top
    if mask and not (mask & ~(<uint32_t>HOME_BITS)):
        # bearing off: the exact point, or the highest one with a larger die
        sources |= mask & ((<uint32_t>1) << (die - 1))
        top = bit_length(mask)
        if top < die:
            sources |= (<uint32_t>1) << (top - 1)
    return sources
