# cython: language_level=3
"""The C-level contract of gulbara's move generator (implemented in
``_movegen.pyx``): a position's code, a step, one stage's ends, the dice a
stage can play, and the Python classes other compiled modules build on.

The packed-key helpers are in ``_keys.pxd``, the step rule in ``_masks.pxd``.
Python code uses the ``Position`` and ``Ends`` classes.
"""

from libc.stdint cimport uint8_t, uint32_t
from gulbara.core._types cimport Pos, Key96, StageEnd

# _state: a position's code (RULES §9.1)
cdef Py_ssize_t pos_format(const Pos* p, char* buf) noexcept nogil
# _vector: one step (RULES §2)
cdef bint step_is_legal(const Pos* p, int seat, int frm, int die) noexcept nogil
cdef void step_apply(Pos* p, int seat, int frm, int die) noexcept nogil
# perft, self-play, the network, the vector and lockstep environments: one stage (RULES §3)
cdef int stage_generate(const Pos* p, int seat, const uint8_t* dice, int n_dice,
                        StageEnd* out, int capacity, int* n_ends,
                        int* playable) noexcept nogil
# _batch: one stage from a packed key
cdef int stage_generate_key(Key96 key, uint32_t mine, uint32_t blocked, const uint8_t* dice,
                            int n_dice, StageEnd* out, int capacity, int* n_ends,
                            int* playable) noexcept nogil
# _chains: the dice of an equal-dice stage that can be played (RULES §3.4)
cdef int stage_playable(Key96 key, uint32_t blocked, int die, int count) noexcept nogil
# _chains: the Python arguments
cdef int check_seat(object seat) except -1
cdef int read_code(object code, Pos* out) except -1
cdef str format_code(const Pos* p)


cdef class Position:
    cdef Pos pos


cdef class EndSet:
    """End positions of one mover from one start: a stage's ends or a chain's outcomes."""
    cdef Pos base
    cdef readonly int seat           # the mover: 0 White, 1 Black
    cdef Py_ssize_t count(self) noexcept
    cdef Key96 key_at(self, Py_ssize_t i) noexcept nogil
    cdef int check_index(self, Py_ssize_t i) except -1
    cdef void end_pos(self, Py_ssize_t i, Pos* out) noexcept nogil
    cdef Pos checked_end(self, Py_ssize_t i) except *


cdef class Ends(EndSet):
    cdef readonly int playable_dice  # the effective length of every legal play (RULES §3.4)
    cdef int n
    cdef readonly tuple dice         # the stage's dice
    cdef StageEnd* ends
