# cython: language_level=3
"""The C-level contract of the network's searches (``_search.pyx``): a state's outputs one
decision deeper, the targets of deeper training (``_train.pyx``)."""

from gulbara.core._types cimport StageEnd
from gulbara.game._state cimport GameRules, GameState
from gulbara.net._net cimport Net


cdef int deeper_white(const Net* net, const GameRules* r, const GameState* s, StageEnd* ends,
                      double* y) noexcept nogil
