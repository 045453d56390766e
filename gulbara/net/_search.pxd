# cython: language_level=3
"""The C-level contract of the network's searches (``_search.pyx``): a state's outputs, and
its outputs one decision deeper, the targets of deeper training (``_train.pyx``)."""

from gulbara.core._types cimport StageEnd
from gulbara.game._state cimport GameRules, GameState
from gulbara.net._net cimport Net


# The network's three outputs (win, win with a mars, lose with one) for the side to act in
# ``s`` (not over): the rollouts' scores of a stopped game and of an unplayed chain.
cdef void state_outputs(const Net* net, const GameRules* r, const GameState* s,
                        float* out) noexcept nogil


cdef int deeper_white(const Net* net, const GameRules* r, const GameState* s, StageEnd* ends,
                      double* y) noexcept nogil
