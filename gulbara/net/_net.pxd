# cython: language_level=3
"""The C-level contract of the gb1 value network (``_net.pyx``): the network as a
plain struct over borrowed float32 parameters, and its choice of a stage's end (with
the structs it values the ends in)."""

from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t

from gulbara.core._types cimport StageEnd, MAX_STAGE_DICE
from gulbara.game._state cimport GameRules, GameState

# The input layout gb1 (docs/user/bots.md).
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

# A stage's ends valued incrementally (_net.pyx: net_choose).
cdef enum:
    N_HEAD = IN_ESCALATES - IN_OFF     # the inputs from IN_OFF on that the position gives
    N_TAIL = N_REST - N_HEAD           # and those that what follows in the turn gives

ctypedef struct EndKind:
    # what follows the stage's ends of one number of steps that end the game or not:
    # play_end_placed reads of an end nothing else, and of the position only the
    # opponent's borne-off checkers (RULES §7.1), which the stage does not change
    bint ready
    bint over                  # the game is over: worth ``value`` to the mover
    float value
    int view                   # else the side to act next
    float tail[N_TAIL]         # and its inputs from IN_ESCALATES on
    bint diffed                # whether ``diff`` is known:
    int n_diff                 # the inputs from IN_ESCALATES on that differ from the
    int diff_idx[N_TAIL]       # first end valued in the same view (StageLayer.rest),
    float diff_val[N_TAIL]     # in order, and by how much

ctypedef struct StageLayer:
    # what every end of one stage shares: the start and, per side's view, the first
    # layer's sums over the start's per-point inputs and over the inputs from IN_OFF on
    # (``rest``) of the first end valued in that view
    int mover
    int pips[2]                # the start's pip counts, borne-off checkers and
    int off[2]                 # occupied points by seat
    uint32_t occ[2]
    uint64_t words[2]          # the mover's checkers, packed (_types.pxd: Key96)
    bint ready[2]
    float rest[2][N_REST]
    float pre[2][MAX_HIDDEN]
    EndKind kinds[MAX_STAGE_DICE + 1][2]
    uint32_t ahead_mask        # the points in front of the opponent's rearmost checker
    uint32_t behind_known      # bit b: ``behind[b]`` is known:
    float behind[25][2]        # blocks(opponent, mover) when the mover's rearmost is on b
    # per view, what gives the first end's inputs from IN_OFF on that the end changes:
    int first_off[2]           # the mover's borne-off checkers and pips,
    int first_pips[2]
    uint32_t first_ahead[2]    # its points in front of the opponent's rearmost checker,
    int first_back[2]          # its rearmost point

cdef enum:
    CHOOSE_CHUNK = 16          # ends valued together, each step for all of them in turn
    END_CHANGES = 112          # room for an end's changed inputs: 24 points x 4 (a point's
                               # four written at once), 6 from IN_OFF on and N_TAIL

ctypedef struct Changes:
    # the inputs of one end that differ from its stage's start (StageLayer.pre)
    int n
    int idx[END_CHANGES]
    float val[END_CHANGES]


cdef int net_choose(const Net* net, const GameRules* r, const GameState* s,
                    const StageEnd* ends, int n_ends, float* values) noexcept nogil

# The network's pieces that training (_train.pyx) builds on.
cdef void encode(const GameRules* r, const GameState* s, Sparse* x) noexcept nogil
cdef void forward(const Net* net, const Sparse* x, float* h, float* out) noexcept nogil
cdef int deeper_white(const Net* net, const GameRules* r, const GameState* s, StageEnd* ends,
                      double* y) noexcept nogil


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


cdef class Network:
    cdef Net net
    cdef readonly object params
    cdef readonly int hidden
