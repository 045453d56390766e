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

cdef enum:
    MAX_HEAD = 512             # dense_head's most inputs and units
    HEAD_OUT = 32              # and its outputs (whole SIMD blocks: zeros past those used)

cdef inline int head_offset(int units) noexcept nogil:
    """Where a row of dense_head's ``layer1`` holds its outputs' columns."""
    return (units + 15) // 16 * 16

cdef inline int head_width(int units) noexcept nogil:
    """The length of a row of dense_head's ``layer1``."""
    return head_offset(units) + HEAD_OUT

# f @ B + softsign(f @ A) @ layer2 (HEAD_OUT outputs), layer1's rows A's values then B's.
cdef void dense_head(const float* layer1, const float* layer2, int n, int units,
                     const float* f, float* out) noexcept nogil

# The hidden activations of a state waiting for its roll and, with ``chains``, the network's
# equity for the roller of each double's chain begun and not played (the "model" rule's).
cdef void waiting_features(const Net* net, const GameRules* r, const GameState* before,
                           bint chains, float* h, double* unplayed) noexcept nogil


cdef int deeper_white(const Net* net, const GameRules* r, const GameState* s, StageEnd* ends,
                      double* y) noexcept nogil
