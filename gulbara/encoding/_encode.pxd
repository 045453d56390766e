# cython: language_level=3
"""The C-level contract of gulbara's feature encodings (docs/user/encoding.md).

``encode_pos`` writes BOARD_FEATURES float32 values describing a position from
one side's point of view; the self-play loop and the numpy encoders share it.
``encode_state`` adds the game-state block (STATE_FEATURES in all) from a
``GameContext`` filled by the caller; ``encode_end`` the board block of a stage's
end (an afterstate). Implemented in ``_encode.pyx``.
"""

from libc.stdint cimport uint8_t
from gulbara.core._types cimport Pos, Key96

cdef enum:
    UNITS_PER_POINT = 4
    BOARD_FEATURES = 196       # 2 x 24 x 4 point units, 2 borne off, 2 pip counts

cdef void encode_pos(const Pos* p, int seat, float* out) noexcept nogil
cdef void encode_end(const Pos* start, int seat, Key96 key, float* out) noexcept nogil

# The game-state block (docs/user/encoding.md): offsets after the board block.
cdef enum:
    CTX_STAGE_DICE = 196       # 6: the stage's dice, count of each number 1..6 / 4
    CTX_STAGE_SIZE = 202       # dice in the stage / 4
    CTX_IS_CHAIN = 203         # a stage of the roller's escalation chain (RULES §4.2)
    CTX_IS_REMAINDER = 204     # a stage of a remainder (RULES §5.3)
    CTX_STAGE_INDEX = 205      # index in the chain / remainder / 6
    CTX_LATER_DICE = 206       # 6: a remainder's later stages, count of each number / 4
    CTX_SEAT = 212             # the player's seat (0 White, 1 Black)
    CTX_TO_ACT = 213           # the player is the side to act
    CTX_IS_CHANCE = 214        # a chance node (dice to roll)
    CTX_IS_OPENING = 215       # the opening chance node (RULES §6)
    CTX_ESCALATES = 216        # the player's next double would escalate (RULES §4.2)
    CTX_OPP_ESCALATES = 217    # the opponent's next double would escalate
    CTX_STUCK = 218            # stuck count / stuck limit (RULES §7.2), at most 1
    CTX_GAME_OVER = 219        # the game is over
    STATE_FEATURES = 220

# What the state block needs besides the position; seat is the player (the
# point of view), dice[k] / later[k] count the dice of number k + 1.
ctypedef struct GameContext:
    int seat
    bint to_act
    uint8_t dice[6]
    int n_dice
    bint is_chain
    bint is_remainder
    int index
    uint8_t later[6]
    bint is_chance
    bint is_opening
    bint escalates
    bint opp_escalates
    float stuck
    bint game_over

cdef void encode_state(const Pos* p, const GameContext* c, float* out) noexcept nogil
