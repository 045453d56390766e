# cython: language_level=3
"""The gb1 inputs' Python face: the layout's name and size, and the inputs of a
:class:`gulbara.Game` (:func:`encode_game`). The encoder itself is inline in
``_inputs.pxd``, compiled into every module that encodes states."""

from gulbara.game._state cimport (GameRules, GameState, PH_OPENING, PH_STAGE, PH_OVER, K_PLAIN,
                                  read_game)

import numpy as np


#: Inputs of the gb1 layout and its name.
N_INPUTS = N_IN
LAYOUT = "gb1"


def encode_game(game):
    """The gb1 inputs (float32, ``N_INPUTS``) of a :class:`gulbara.Game` waiting for
    a roll or for a chain or remainder stage, for its side to act."""
    cdef GameState s
    cdef GameRules r
    cdef Sparse x
    cdef int i
    read_game(game, &s, &r)
    if s.phase == PH_OPENING or s.phase == PH_OVER or (s.phase == PH_STAGE and s.kind == K_PLAIN):
        raise ValueError("the inputs describe a game waiting for a roll, a chain stage or a "
                         "remainder stage")
    encode(&r, &s, &x)
    out = np.zeros(N_IN, dtype=np.float32)
    for i in range(x.n):
        out[x.idx[i]] = x.val[i]
    return out
