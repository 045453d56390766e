# cython: language_level=3
"""What the state block of the encodings (``GameContext``, ``_encode.pxd``) says of a native
game's pending stage; inline C shared by the lockstep games and the vector environment."""

from gulbara.game._state cimport GameRules, GameState, K_CHAIN, K_REMAINDER, escalates
from gulbara.encoding._encode cimport GameContext


cdef inline void stage_context(const GameRules* r, const GameState* s, int seat,
                               GameContext* c) noexcept nogil:
    """What the state block's context (``gulbara.encoding.features.encode_game``'s) says of the
    pending stage of ``s`` seen by ``seat``: a chain's or a remainder's (RULES §4-5),
    its index, a remainder's later stages, and whether each side's next double
    escalates (RULES §4.2). The dice, the seat, the side to act and the stuck count
    are the caller's."""
    cdef int k
    c.is_chain = s.kind == K_CHAIN
    c.is_remainder = s.kind == K_REMAINDER
    c.index = s.index
    if c.is_remainder:
        for k in range(1, 7):
            c.later[k - 1] = s.then[k]
    c.escalates = escalates(r, s.rolls[seat] + 1, s.game_rolls + 1)
    c.opp_escalates = escalates(r, s.rolls[1 - seat] + 1, s.game_rolls + 1)
