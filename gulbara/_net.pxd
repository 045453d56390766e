# cython: language_level=3
"""The C-level contract of the gb1 value network (``_net.pyx``): the network as a
plain struct over borrowed float32 parameters, and its choice of a stage's end."""

from gulbara._types cimport StageEnd
from gulbara._state cimport GameRules, GameState

# The input layout gb1 (docs/bots.md).
cdef enum:
    IN_OWN = 0                 # 96: the player's points 1..24, own numbering, 4 units each
    IN_OPP = 96                # 96: the opponent's checkers on the player's numbering
    IN_OFF = 192               # 2: borne off / 15 (player, opponent)
    IN_PIPS = 194              # 2: pip counts / 360
    IN_BLOCKS = 196            # 4: player's points ahead of the opponent's rearmost / 6,
                               #    its longest run / 6, the same for the opponent
    IN_ESCALATES = 200         # 2: the side's next roll escalates (RULES §4.2)
    IN_PENDING = 202           # 6: dice of each number 1..6 the player plays before the next roll / 4
    IN_PENDING_CHAIN = 208     # 1: those dice are the rest of the player's own chain
    N_IN = 209
    N_REST = 17                # the inputs from IN_OFF on

cdef enum:
    MAX_HIDDEN = 256
    N_OUT = 3

ctypedef struct Net:
    int hidden
    const float* w1            # N_IN x hidden
    const float* b1
    const float* w2            # 3 x hidden
    const float* b2

ctypedef struct Sparse:
    int n
    int idx[N_IN]
    float val[N_IN]

cdef int net_choose(const Net* net, const GameRules* r, const GameState* s,
                    const StageEnd* ends, int n_ends, float* values) noexcept nogil


cdef class Network:
    cdef Net net
    cdef readonly object params
    cdef readonly int hidden
