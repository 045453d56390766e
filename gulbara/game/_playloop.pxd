# cython: language_level=3
"""Pieces of a native game loop shared by ``_selfplay.pyx``, ``_net.pyx``,
``_lockstep.pyx`` and ``_vector.pyx``: the seats' policies, a buffer for a stage's
ends, one draw at a chance node, drawn as native self-play draws it, the pending
stage's ends; inline C (this file is the implementation)."""

from libc.stdint cimport uint8_t
from libc.stdlib cimport malloc

from gulbara.core._types cimport StageEnd, MAX_STAGE_DICE, STAGE_CAPACITY
from gulbara.core._movegen cimport stage_generate
from gulbara.game._state cimport (GameRules, GameState, PH_OPENING, K_CHAIN, K_REMAINDER,
                             begin_roll, next_roll, stage_dice)
from gulbara.game._rng cimport Rng, rng_below

cdef enum:
    OPENING_TIE = -2

# A seat's policy, by number (each module's POLICY_CODES names those it plays).
cdef enum:
    POLICY_RANDOM = 0          # a uniformly random end
    POLICY_FIRST = 1           # the first end (canonical order, RULES §3.8)
    POLICY_GREEDY = 2          # the highest greedy_score (_greedy.pxd)
    POLICY_EVALUATOR = 3       # a caller's evaluator (_selfplay.pyx only)
    POLICY_NET = 4             # a gb1 value network (_net.pxd)


cdef inline StageEnd* alloc_ends() except NULL:
    """A buffer for one stage's ends (STAGE_CAPACITY of them); the caller frees it."""
    cdef StageEnd* ends = <StageEnd*>malloc(STAGE_CAPACITY * sizeof(StageEnd))
    if ends == NULL:
        raise MemoryError("no memory for a stage's ends")
    return ends


cdef inline int chance_step(const GameRules* r, GameState* s, Rng* dice) noexcept nogil:
    """Roll the chance node ``s`` (RULES §6 at the opening): two dice from ``dice``.
    Returns the starter when it decided the opening, OPENING_TIE on a tie, else -1."""
    cdef int a = <int>rng_below(dice, 6) + 1
    cdef int b = <int>rng_below(dice, 6) + 1
    cdef int seat
    if s.phase == PH_OPENING:
        if a == b:
            return OPENING_TIE
        seat = 0 if a > b else 1
        if r.starter_rerolls:
            next_roll(s, seat)
        else:
            s.seat = seat
            begin_roll(r, s, a, b, True)
        return seat
    begin_roll(r, s, a, b, False)
    return -1


cdef inline int pending_ends(const GameState* s, StageEnd* ends, int* n_ends) noexcept nogil:
    """The ends of the pending stage of ``s`` into ``ends`` (STAGE_CAPACITY); 0, or -1 on overflow."""
    cdef uint8_t stage[MAX_STAGE_DICE]
    cdef int playable
    cdef int n_dice = stage_dice(s, stage)
    if stage_generate(&s.pos, s.seat, stage, n_dice, ends, STAGE_CAPACITY, n_ends, &playable):
        return -1
    return 0
