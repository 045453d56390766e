# cython: language_level=3
"""The C-level contract of the network's stage chooser (``_choose.pyx``): the end the
network values best among a stage's ends, and a game's decision read natively for the
Python entry points that value its ends (here and in ``_search.pyx``)."""

from gulbara.core._types cimport StageEnd
from gulbara.game._state cimport GameRules, GameState
from gulbara.net._net cimport Net, Network


cdef int net_choose(const Net* net, const GameRules* r, const GameState* s,
                    const StageEnd* ends, int n_ends, float* values) noexcept nogil


cdef class _Decision:
    cdef GameState s
    cdef GameRules r
    cdef StageEnd* ends
    cdef StageEnd* later
    cdef int n_ends


# The value of each end of ``d``'s stage for its mover (float32, net_choose's), GIL released.
cdef object decision_values(Network network, _Decision d)
