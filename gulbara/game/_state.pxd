# cython: language_level=3
"""The full state of a game as a plain struct, and its transitions (RULES §4-7).

:c:type:`GameState` holds exactly the state of a :class:`gulbara.Game` (its
docstring lists it): the position, the phase (opening, roll, stage or over),
the side to act, the rolls made per seat and game-wide, the pending stage and
what follows it (a chain's number and index, a remainder's later stages, the
roller and its roll), the stuck counter and the result. The rule options that
shape the game are a second struct, :c:type:`GameRules`. Every transition of
``gulbara/game/driver.py`` (``_begin_roll``, ``_play``, ``_hand_over``,
``_next_roll``, ``_finish``) has its twin here, inline, on the struct: native
perft (``_perft.pyx``) and the native self-play loop (``_selfplay.pyx``) share
them. Copying a state is assignment; nothing points into anything. The
transitions are inline C here; ``_state.pyx`` holds the Python-facing side.
"""

from libc.stdint cimport uint8_t, int8_t, int32_t, uint32_t, uint64_t

from gulbara.core._types cimport Pos, StageEnd
from gulbara.core._keys cimport pos_set_mover_key

# Phases (game.py's _OPENING, _ROLL, _STAGE, _OVER) and kinds of stage
# (_PLAIN, _CHAIN, _REMAINDER).
cdef enum:
    PH_OPENING = 0
    PH_ROLL = 1
    PH_STAGE = 2
    PH_OVER = 3

cdef enum:
    K_PLAIN = 0
    K_CHAIN = 1
    K_REMAINDER = 2


# The rule options the game tree depends on (RULES §8; the driver's options
# only: the generator needs none).
ctypedef struct GameRules:
    bint escalation            # RULES §4.2
    int32_t exempt_rolls       # RULES §4.2 (clamped to 2**31 - 1)
    bint game_wide             # exempt_counting == "game_wide" (RULES §4.5)
    bint remainder_to_opponent # remainder == "to_opponent" (RULES §5.1, §5.3)
    bint unstarted_to_opponent # unstarted_chain == "to_opponent" (RULES §5.2)
    bint starter_rerolls       # opening == "starter_rerolls" (RULES §6, §10.5)
    bint mars                  # RULES §7.1 (the result only)
    int32_t stuck_limit        # RULES §7.2; 0: no limit


# The full state of a Game (game.py: Game's docstring, state_code()).
ctypedef struct GameState:
    Pos pos
    uint8_t phase              # PH_*
    uint8_t seat               # the side to act (roll or stage); 0 at the opening
    # the pending stage (phase PH_STAGE)
    uint8_t kind               # K_*
    uint8_t high               # the stage's dice: (high, low) for two different dice,
    uint8_t low                # else count x high (low == high)
    uint8_t count              # dice in the stage
    int32_t index              # the stage's place in its chain or remainder
    uint8_t then[7]            # a remainder's later stages: then[n] dice of number n (0: none)
    # the roll that produced it
    uint8_t roller
    uint8_t roll[2]            # as rolled
    uint8_t escalating
    uint8_t opening
    # the end (phase PH_OVER)
    int8_t winner              # -1: a draw (the stuck rule)
    uint8_t points
    # counters
    int32_t rolls[2]           # rolls made per seat (RULES §4.5)
    int32_t game_rolls         # by either side: rolls[0] + rolls[1]
    int32_t stuck              # rolls in a row without a move (RULES §7.2)


# Scratch of one perft call: the ends of each depth's decision node and the
# hash set of the nodes-only count.

# ---------------------------------------------------------------------------
# Transitions (game.py: _escalates, _begin_roll, _play, _hand_over, _next_roll)
# ---------------------------------------------------------------------------

cdef inline bint escalates(const GameRules* r, int32_t own, int32_t game) noexcept nogil:
    """Whether a double that is roll ``own`` of its roller, ``game`` of the game, escalates."""
    if not r.escalation:
        return False
    return (game if r.game_wide else own) > r.exempt_rolls      # RULES §4.2, §4.5


cdef inline void next_roll(GameState* s, int seat) noexcept nogil:
    s.phase = PH_ROLL
    s.seat = seat


cdef inline void finish(GameState* s, int winner, int points) noexcept nogil:
    s.phase = PH_OVER
    s.winner = winner
    s.points = points


cdef inline void begin_roll(const GameRules* r, GameState* s, int d1, int d2,
                            bint opening) noexcept nogil:
    """The side ``s.seat`` rolls d1-d2 (RULES §4.5: the roll counts for it)."""
    cdef int seat = s.seat, high = d1 if d1 > d2 else d2, low = d2 if d1 > d2 else d1, n
    s.rolls[seat] += 1
    s.game_rolls += 1
    s.phase = PH_STAGE
    s.roller = seat
    s.roll[0], s.roll[1] = d1, d2
    s.opening = opening
    s.index = 0
    for n in range(7):
        s.then[n] = 0
    s.high = high
    s.low = low
    if high != low:
        s.kind = K_PLAIN
        s.count = 2
        s.escalating = False
    else:
        s.count = 4                                    # RULES §4.1
        s.escalating = escalates(r, s.rolls[seat], s.game_rolls)
        s.kind = K_CHAIN if s.escalating else K_PLAIN  # RULES §4.2, §4.6


cdef inline void hand_over(GameState* s, int receiver, int number, int count) noexcept nogil:
    """The remainder goes to ``receiver``: its first stage is ``count`` x ``number``;
    ``s.then`` already holds the later ones (RULES §5.1, §5.3)."""
    s.phase = PH_STAGE
    s.seat = receiver
    s.kind = K_REMAINDER
    s.high = number
    s.low = number
    s.count = count
    s.index = 0


cdef inline bint next_remainder_stage(GameState* s) noexcept nogil:
    """Move ``s`` on to its remainder's next stage; False when there is none."""
    cdef int n
    for n in range(s.high + 1, 7):
        if s.then[n]:
            s.high = n
            s.low = n
            s.count = s.then[n]
            s.then[n] = 0
            s.index += 1
            return True
    return False


cdef inline void play_end(const GameRules* r, GameState* s, const StageEnd* e) noexcept nogil:
    """Play end ``e`` of the pending stage of ``s`` and move on (game.py's _play)."""
    pos_set_mover_key(&s.pos, s.seat, e.key)
    play_end_placed(r, s, e)


cdef inline void play_end_placed(const GameRules* r, GameState* s, const StageEnd* e) noexcept nogil:
    """``play_end`` once the mover's checkers in ``s.pos`` are already those of ``e``."""
    cdef int seat = s.seat, played = e.n_steps, n
    cdef bint moved = played > 0
    if moved:
        s.stuck = 0                                    # RULES §7.2: any move resets
    if e.ends_game:                                    # RULES §5.5, §7.1
        finish(s, seat, 2 if r.mars and s.pos.off[1 - seat] == 0 else 1)
        return
    if s.kind != K_REMAINDER and s.index == 0 and not moved:
        s.stuck += 1                                   # a roll in which no checker moved
        if r.stuck_limit and s.stuck >= r.stuck_limit:
            finish(s, -1, 0)
            return
    if s.kind == K_PLAIN:                              # unplayable dice are lost (RULES §4.6)
        next_roll(s, 1 - seat)
    elif s.kind == K_CHAIN:
        if played == s.count:                          # in full: the next number (RULES §4.4)
            if s.high < 6:
                s.high += 1
                s.low = s.high
                s.index += 1
            else:
                next_roll(s, 1 - seat)
        elif s.index == 0 and not moved:               # RULES §5.2: the unstarted chain
            if r.unstarted_to_opponent:
                for n in range(s.high + 1, 7):
                    s.then[n] = 4
                hand_over(s, 1 - seat, s.high, s.count)
            else:
                next_roll(s, 1 - seat)
        else:                                          # RULES §5.1: the remainder
            if r.remainder_to_opponent:
                for n in range(s.high + 1, 7):
                    s.then[n] = 4
                hand_over(s, 1 - seat, s.high, s.count - played)
            else:
                next_roll(s, 1 - seat)
    else:                                              # a remainder stage (RULES §5.3-5.4)
        if not next_remainder_stage(s):
            next_roll(s, seat)


cdef inline bint roll_allowed(const GameRules* r, const GameState* s, int a, int b) noexcept nogil:
    """Whether a-b is one of the rolls of the chance node ``s`` (RULES §10.2, §10.5)."""
    return a != b or s.phase != PH_OPENING or r.starter_rerolls


cdef inline void apply_roll(const GameRules* r, GameState* s, int a, int b) noexcept nogil:
    """game.py's roll() at a chance node: at the opening White starts (RULES §10.5)."""
    if s.phase == PH_OPENING:
        s.seat = 0
        begin_roll(r, s, a, b, not r.starter_rerolls)
    else:
        begin_roll(r, s, a, b, False)


cdef inline int stage_dice(const GameState* s, uint8_t* dice) noexcept nogil:
    cdef int k
    if s.high != s.low:
        dice[0] = s.high
        dice[1] = s.low
        return 2
    for k in range(s.count):
        dice[k] = s.high
    return s.count




# With the GIL: from Python objects to the structs, and back to text (_state.pyx).
cdef int read_rules(object rules, GameRules* r) except -1
cdef int read_game(object game, GameState* s, GameRules* r) except -1
cdef str state_code(const GameState* s)
