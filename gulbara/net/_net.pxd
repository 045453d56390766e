# cython: language_level=3
"""The C-level contract of the gb1 value network (``_net.pyx``): the network as a plain
struct over borrowed float32 parameters, its outputs and a finished game's result as
values, and the arithmetic level every module that runs the network follows (the forward
pass itself is inline in ``_forward.pxd``)."""

from gulbara.game._state cimport GameState

cdef enum:
    MAX_HIDDEN = 256
    N_OUT = 3

ctypedef struct Net:
    int hidden
    const float* w1            # N_IN x hidden
    const float* b1
    const float* w2            # 3 x hidden
    const float* b2


cdef class Network:
    cdef Net net
    cdef readonly object params
    cdef readonly int hidden


# A module that compiles the forward pass in (_forward.pxd) hands its own arithmetic level
# ``cell`` over at import: it gets the level in use, and every later simd_level() too.
cdef int follow_simd_level(int* cell, str module) except -1


cdef inline float equity(const float* out, bint mars) noexcept nogil:
    """Equity in points of the outputs; without the mars (RULES §8) a game is worth 1."""
    if mars:
        return 2.0 * out[0] - 1.0 + out[1] - out[2]
    return 2.0 * out[0] - 1.0


cdef inline float result_value(const GameState* over, int mover) noexcept nogil:
    """``mover``'s points of a finished game (0 for a draw)."""
    if over.winner < 0:
        return 0.0
    return over.points if over.winner == mover else -over.points


# Outputs in White's frame, the frame of the training targets (this file is their
# implementation).
cdef inline void to_white(const float* out, int seat, double* y) noexcept nogil:
    """Outputs for the side to act ``seat`` as (White wins, White mars, Black mars)."""
    y[0] = out[0] if seat == 0 else 1.0 - out[0]
    y[1] = out[1 + seat]                            # the side to act's mars is output 1
    y[2] = out[2 - seat]


cdef inline void result_white(int winner, int points, double* z) noexcept nogil:
    """A finished game's targets (White wins, White mars, Black mars); a draw
    (RULES §7.2) or an unfinished game is half a win and no mars."""
    z[0] = 1.0 if winner == 0 else (0.0 if winner == 1 else 0.5)
    z[1] = 1.0 if winner == 0 and points == 2 else 0.0
    z[2] = 1.0 if winner == 1 and points == 2 else 0.0
