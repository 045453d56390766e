# cython: language_level=3
"""The C-level contract of gulbara's feature encodings (docs/encoding.md).

``encode_pos`` writes BOARD_FEATURES float32 values describing a position from
one side's point of view; the self-play loop and the numpy encoders share it.
"""

from gulbara._types cimport Pos

cdef enum:
    UNITS_PER_POINT = 4
    BOARD_FEATURES = 196       # 2 x 24 x 4 point units, 2 borne off, 2 pip counts

cdef void encode_pos(const Pos* p, int seat, float* out) noexcept nogil
