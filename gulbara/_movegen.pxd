# cython: language_level=3
"""The C-level contract of gulbara's move generator (position, steps, stages).

Other Cython modules ``cimport`` these declarations; Python code uses the
``Position`` and ``Ends`` classes.
"""

from libc.stdint cimport uint8_t, uint32_t, uint64_t
from gulbara._types cimport Pos, Step, Key96, StageEnd

cdef int point_in_other_frame(int p) noexcept nogil
cdef void pos_set_occupancy(Pos* p) noexcept nogil
cdef Py_ssize_t pos_format(const Pos* p, char* buf) noexcept nogil
cdef uint64_t pos_key64(const Pos* p) noexcept nogil
cdef Key96 pos_mover_key(const Pos* p, int seat) noexcept nogil
cdef void pos_set_mover_key(Pos* p, int seat, Key96 key) noexcept nogil
cdef bint step_is_legal(const Pos* p, int seat, int frm, int die) noexcept nogil
cdef void step_apply(Pos* p, int seat, int frm, int die) noexcept nogil
cdef void step_undo(Pos* p, int seat, int frm, int die) noexcept nogil
cdef int stage_generate(const Pos* p, int seat, const uint8_t* dice, int n_dice,
                        StageEnd* out, int capacity, int* n_ends,
                        int* playable) noexcept nogil
cdef int stage_generate_key(Key96 key, uint32_t mine, uint32_t blocked, const uint8_t* dice,
                            int n_dice, StageEnd* out, int capacity, int* n_ends,
                            int* playable) noexcept nogil


cdef class Position:
    cdef Pos pos


cdef class EndSet:
    """End positions of one mover from one start: a stage's ends or a chain's outcomes."""
    cdef Pos base
    cdef int seat_
    cdef Py_ssize_t count(self) noexcept
    cdef Key96 key_at(self, Py_ssize_t i) noexcept nogil
    cdef int check_index(self, Py_ssize_t i) except -1
    cdef void end_pos(self, Py_ssize_t i, Pos* out) noexcept nogil


cdef class Ends(EndSet):
    cdef int playable
    cdef int n
    cdef tuple dice_
    cdef StageEnd* ends
