# cython: language_level=3
"""From :class:`gulbara.Game` and :class:`gulbara.Rules` to the structs of
``_state.pxd``, and from a state back to :meth:`gulbara.Game.state_code` text."""

from libc.string cimport memset

from gulbara.core._movegen cimport pos_format, Position

from gulbara.core import _movegen


cdef int read_rules(object rules, GameRules* r) except -1:
    r.escalation = bool(rules.escalation)
    r.exempt_rolls = min(int(rules.exempt_rolls), 2**31 - 1)
    r.game_wide = rules.exempt_counting == "game_wide"
    r.remainder_to_opponent = rules.remainder == "to_opponent"
    r.unstarted_to_opponent = rules.unstarted_chain == "to_opponent"
    r.starter_rerolls = rules.opening == "starter_rerolls"
    r.mars = bool(rules.mars)
    r.stuck_limit = 0 if rules.stuck_limit is None else min(int(rules.stuck_limit), 2**31 - 1)
    return 0


cdef int read_game(object game, GameState* s, GameRules* r) except -1:
    """Fill ``s`` and ``r`` from a :class:`gulbara.Game` through its public API."""
    cdef Position position
    cdef int n
    read_rules(game.rules, r)
    memset(s, 0, sizeof(GameState))
    pos_object = game.position
    if isinstance(pos_object, Position):
        position = pos_object
    else:                                    # a reference-backend Position
        position = _movegen.Position.from_code(pos_object.code())
    s.pos = position.pos
    rolls = game.rolls_made
    s.rolls[0] = rolls[0]
    s.rolls[1] = rolls[1]
    s.game_rolls = rolls[0] + rolls[1]
    s.stuck = game.stuck_rolls
    s.winner = -1
    if game.is_over():
        s.phase = PH_OVER
        result = game.result()
        s.winner = -1 if result.winner is None else result.winner
        s.points = result.points
    elif game.is_opening():
        s.phase = PH_OPENING
    elif game.is_chance():
        s.phase = PH_ROLL
        s.seat = game.to_move
    else:
        d = game.decision
        s.phase = PH_STAGE
        s.seat = d.seat
        s.roller = d.roller
        s.roll[0] = d.roll[0]
        s.roll[1] = d.roll[1]
        s.escalating = d.is_escalating
        s.opening = d.is_opening
        s.index = d.stage
        dice = d.dice
        s.high = dice[0]
        s.low = dice[len(dice) - 1]
        s.count = len(dice)
        if d.is_remainder:
            s.kind = K_REMAINDER
            for n, c in d.following:
                s.then[n] = c
        elif d.is_escalating:
            s.kind = K_CHAIN
        else:
            s.kind = K_PLAIN
    return 0


cdef str state_code(const GameState* s):
    """The state as Game.state_code() writes it: the struct read into a
    :class:`gulbara.game.state_codes.GameState`, written by that module's one writer."""
    from gulbara.game import state_codes as codes
    cdef char buf[160]
    cdef Py_ssize_t n = pos_format(&s.pos, buf)
    position = _movegen.Position.from_code(buf[:n].decode("ascii"))
    seat = s.seat if s.phase in (PH_ROLL, PH_STAGE) else None
    phase = (codes.OPENING, codes.ROLL, codes.STAGE, codes.OVER)[s.phase]
    stage = roll = result = None
    if s.phase == PH_STAGE:
        dice = (s.high, s.low) if s.high != s.low else (s.high,) * s.count
        following = tuple([(q, s.then[q]) for q in range(1, 7) if s.then[q]])
        stage = codes.Stage((codes.PLAIN, codes.CHAIN, codes.REMAINDER)[s.kind], dice, s.index,
                            following if s.kind == K_REMAINDER else ())
        roll = codes.Roll(s.roller, (s.roll[0], s.roll[1]), s.rolls[s.roller],
                          bool(s.escalating), bool(s.opening))
    elif s.phase == PH_OVER:
        if s.winner < 0:
            result = codes.GameResult(None, 0, "stuck")          # RULES §7.2
        else:
            result = codes.GameResult(s.winner, s.points, "mars" if s.points == 2 else "single")
    return codes.write_state_code(codes.GameState(position, phase, seat,
                                                  (s.rolls[0], s.rolls[1]), s.stuck,
                                                  roll, stage, result))


def _py_state_code(game):
    """The state code of ``game`` read into the native struct and written back (tests)."""
    cdef GameState s
    cdef GameRules r
    read_game(game, &s, &r)
    return state_code(&s)
