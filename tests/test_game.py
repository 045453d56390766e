"""The game driver (RULES §4-7): Game and Match, every rule option flipping what it names.

The positions below with a pending chain or remainder were reached in seeded
random games and are written as state codes (Game.state_code), so each test
starts exactly where the rule it checks applies.
"""

import pytest

from gulbara import (BLACK, WHITE, Game, GameStateError, GreedyBot, IllegalPlayError,
                     InvalidDiceError, InvalidNotationError, Match, RandomBot, Rules)
from gulbara.bots import play_out

# A 2-2 chain for White, first stage; four 2's are playable (RULES §4.2-4.4).
CHAIN_2 = ("G:-1,-3,-2,-2,-1,-1,-1,-1,-1,,1,1,1,3,1,1,1,1,1,1,1,1,1,-2|0,0|0,0 "
           "next=chain:W stage=2-2-2-2 index=0 roll=2-2 rolls=16,16 stuck=0")
# White's escalating 6-6: only three 6's can be played (RULES §5.1: a 6-6 chain has one stage).
CHAIN_66 = ("G:2,1,1,2,2,-1,,,,,,1,-9,,,-2,-2,1,3,,-1,1,,1|0,0|0,0 "
            "next=chain:W stage=6-6-6-6 index=0 roll=6-6 rolls=22,22 stuck=0")
# White's 1-1 chain at its 3's: three 3's can be played.
CHAIN_1_AT_3 = ("G:-1,-3,-1,,-1,-1,-1,-1,-1,6,5,1,1,1,1,,,,,-1,-1,-1,-1,-1|0,0|0,0 "
                "next=chain:W stage=3-3-3-3 index=2 roll=1-1 rolls=17,17 stuck=0")
# White's 1-1 chain at its 4's: no 4 can be played (a later stage, not an unstarted chain).
CHAIN_1_AT_4_BLOCKED = ("G:-1,-1,-1,-1,7,-1,-1,6,-1,1,1,,,-1,,,-1,,-1,-1,-1,-1,-1,-1|0,0|0,0 "
                        "next=chain:W stage=4-4-4-4 index=3 roll=1-1 rolls=11,11 stuck=0")
# White's escalating 4-4: no 4 can be played at all (RULES §5.2); Black can play one 4.
UNSTARTED_4 = ("G:3,1,3,3,,,-4,-1,-1,,,,1,-2,-1,-3,-3,4,,,,,,|0,0|0,0 "
               "next=chain:W stage=4-4-4-4 index=0 roll=4-4 rolls=19,18 stuck={stuck}")
# Black plays White's remainder {5,5,5, 6,6,6,6}: only two of the 5's can be played.
REMAINDER_5 = ("G:8,6,,,,,-1,,,,,1,-5,-3,-3,-2,,,,,,,,-1|0,0|0,0 "
               "next=remainder:B stage=5-5-5 index=0 then=6x4 roll=1-1 roller=W rolls=25,24 stuck=0")
# Black plays White's remainder {5,5,5, 6,6,6,6}: no 5 can be played at all.
REMAINDER_5_BLOCKED = ("G:1,2,1,,10,,-3,,,,,,-2,-3,-2,-4,-1,,1,,,,,|0,0|0,0 "
                       "next=remainder:B stage=5-5-5 index=0 then=6x4 roll=5-5 roller=W "
                       "rolls=24,23 stuck=0")
# White's exempt 2-2 (its roll 2): only two 2's can be played (RULES §4.6).
EXEMPT_22 = ("G:,,,,,,,,,,,-13,,,,2,,,,,-1,-1,,13|0,0|0,0 "
             "next=play:W stage=2-2-2-2 roll=2-2 rolls=2,2 stuck=0")
# White bears off its last checker with the first 4 of a 1-1 chain's 4's (RULES §3.3, §5.5).
CHAIN_ENDS_GAME = ("G:1,,,,,,,,,,,,-5,,,,,,,,,,,|0,0|14,10 "
                   "next=chain:W stage=4-4-4-4 index=3 roll=1-1 rolls=27,27 stuck=0")
# White bears off its last four checkers in Black's remainder; Black has borne off none.
REMAINDER_ENDS_GAME = ("G:4,,,-4,-1,,,,,,,,-5,-2,-3,,,,,,,,,|0,0|11,0 "
                       "next=remainder:W stage=5-5-5-5 index=2 then=6x4 roll=1-1 roller=B "
                       "rolls=31,32 stuck=0")
# Neither side can play a 6: White 14 on 24 faces Black on White's 18, Black 14 on its 24
# faces White on White's 6, and the two stragglers cannot bear off (RULES §2.3).
NO_SIXES = "G:,,,,,1,,,,,,-14,,,,,,-1,,,,,,14|0,0|0,0"


def script(values):
    """A draw function returning ``values`` in order, failing if asked for more."""
    values = list(values)

    def draw():
        assert values, "the game drew more dice than scripted"
        return values.pop(0)
    draw.left = values
    return draw


def state(code, rules=None, **fields):
    return Game.from_state_code(code.format(**fields) if fields else code, rules)


def first_plays_until_chance(game):
    """Play the first legal end of each stage until the game waits for dice (or ends)."""
    while game.is_decision():
        game.play(game.legal_plays()[0])


def after_rolls(rules, rolls):
    """An explicit-roll game after ``rolls`` (the first by the RULES §10.5 convention),
    each stage played with its first end; stops at the decision of the last roll."""
    game = Game(rules, auto_roll=False)
    for k, roll in enumerate(rolls):
        if k:
            first_plays_until_chance(game)
        assert game.is_chance()
        game.roll(*roll)
    return game


# --- opening (RULES §6) ------------------------------------------------------


def test_opening_draws_white_then_black_and_rerolls_ties():
    draw = script([2, 2, 0, 3])           # 3-3 is a tie; then White 1, Black 4
    game = Game(draw=draw)
    assert game.openings == [(3, 3), (1, 4)]
    assert game.starter == BLACK
    d = game.decision
    assert (d.seat, d.roll, d.dice, d.roll_number, d.is_opening) == (BLACK, (1, 4), (4, 1), 1, True)
    assert game.rolls_made == (0, 1)       # the other side's die is not a roll (RULES §4.5)
    assert game.draws == [("opening", 2), ("opening", 2), ("opening", 0), ("opening", 3)]
    assert draw.left == []


def test_opening_option_starter_rerolls():
    # default: the opening pair is White's roll 1
    game = Game(draw=script([5, 1]))
    assert game.decision.roll == (6, 2) and game.decision.is_opening
    assert len(game.draws) == 2
    # starter_rerolls: White starts and rolls both dice anew; a double is possible, exempt
    game = Game(Rules(opening="starter_rerolls"), draw=script([5, 1, 2, 2]))
    d = game.decision
    assert (d.seat, d.roll, d.dice, d.roll_number) == (WHITE, (3, 3), (3, 3, 3, 3), 1)
    assert not d.is_escalating and not d.is_opening
    assert game.rolls_made == (1, 0)
    assert game.draws == [("opening", 5), ("opening", 1), ("dice", 2), ("dice", 2)]


def test_explicit_opening_and_the_perft_convention():
    game = Game.new_perft_root()
    assert game.is_chance() and game.is_opening() and game.decision is None
    assert len(game.chance_rolls()) == 15
    with pytest.raises(InvalidDiceError):
        game.roll(3, 3)                   # the first roll is never a double (RULES §6)
    assert game.roll_opening(4, 4) is None and game.is_opening()
    assert game.roll_opening(2, 5) == BLACK
    assert game.decision.seat == BLACK and game.decision.roll == (2, 5)
    assert game.openings == [(4, 4), (2, 5)]
    # RULES §10.5: roll() at the opening makes White the starter
    game = Game.new_perft_root()
    game.roll(6, 5)
    assert (game.decision.seat, game.decision.is_opening, game.rolls_made) == (WHITE, True, (1, 0))
    game = Game.new_perft_root(Rules(opening="starter_rerolls"))
    assert len(game.chance_rolls()) == 21
    game.roll(3, 3)
    assert game.decision.dice == (3, 3, 3, 3) and not game.decision.is_opening


# --- roll counting and escalation (RULES §4.2, §4.5, §4.6) ---------------------


PLAIN = [(2, 1)] * 4


def test_per_player_counting_the_fourth_roll_escalates():
    game = after_rolls(Rules(), PLAIN + [(3, 3)])          # White's roll 3
    d = game.decision
    assert (d.seat, d.roll_number, d.game_roll_number) == (WHITE, 3, 5)
    assert not d.is_escalating and d.dice == (3, 3, 3, 3) and d.following == ()
    game = after_rolls(Rules(), PLAIN + [(2, 1), (2, 1), (3, 3)])   # White's roll 4
    d = game.decision
    assert d.roll_number == 4 and d.is_escalating and d.is_chain
    assert d.following == ((4, 4), (5, 4), (6, 4))
    assert game.next_roll_escalates(BLACK) is True         # Black's next roll is its 4th


def test_exempt_rolls_option():
    rolls = PLAIN + [(3, 3)]                               # White's roll 3
    assert not after_rolls(Rules(), rolls).decision.is_escalating
    assert after_rolls(Rules(exempt_rolls=2), rolls).decision.is_escalating
    first_black = [(2, 1), (5, 5)]                         # Black's roll 1
    assert not after_rolls(Rules(), first_black).decision.is_escalating
    assert after_rolls(Rules(exempt_rolls=0), first_black).decision.is_escalating


def test_exempt_counting_option_game_wide():
    rolls = [(2, 1), (2, 1), (2, 1), (4, 4)]               # Black's roll 2, the game's roll 4
    d = after_rolls(Rules(), rolls).decision
    assert (d.seat, d.roll_number, d.game_roll_number, d.is_escalating) == (BLACK, 2, 4, False)
    d = after_rolls(Rules(exempt_counting="game_wide"), rolls).decision
    assert d.is_escalating and d.dice == (4, 4, 4, 4)
    assert after_rolls(Rules(exempt_counting="game_wide"), rolls[:3] + [(2, 1), (1, 1)]) \
        .decision.following == ((2, 4), (3, 4), (4, 4), (5, 4), (6, 4))


def test_escalation_option_off():
    rolls = PLAIN + [(2, 1), (2, 1), (3, 3)]               # White's roll 4
    assert after_rolls(Rules(), rolls).decision.is_escalating
    d = after_rolls(Rules(escalation=False), rolls).decision
    assert not d.is_escalating and d.following == ()


def test_exempt_double_unplayable_dice_are_lost():
    game = state(EXEMPT_22)
    assert game.legal_plays().playable_dice == 2
    game.play("16/14(2)")
    assert game.is_chance() and game.to_move == BLACK      # nothing passes (RULES §4.6)
    assert game.rolls_made == (2, 2)


# --- chains (RULES §4.2-4.4) and remainders (RULES §5) ------------------------


def test_chain_stages_are_consecutive_decisions():
    game = state(CHAIN_2)
    game.play("14/10(2)")
    d = game.decision
    assert (d.seat, d.dice, d.stage, d.is_remainder, d.roll) == (WHITE, (3, 3, 3, 3), 1, False, (2, 2))
    assert d.following == ((4, 4), (5, 4), (6, 4))
    assert game.rolls_made == (16, 16)                      # one roll, several stages


def test_stopped_chain_remainder_goes_to_the_opponent():
    game = state(CHAIN_1_AT_3)
    assert game.legal_plays().playable_dice == 3
    game.play("15/12 14/11 13/10")
    d = game.decision                                       # RULES §5.1: {3, 4444, 5555, 6666}
    assert (d.seat, d.dice, d.is_remainder, d.stage) == (BLACK, (3,), True, 0)
    assert d.following == ((4, 4), (5, 4), (6, 4))
    assert (d.roller, d.roll, d.roll_number) == (WHITE, (1, 1), 17)
    game = state(CHAIN_66)                                  # a 6-6 that plays three leaves {6}
    game.play("24/12 18/12")
    assert (game.decision.seat, game.decision.dice, game.decision.following) == (BLACK, (6,), ())


def test_remainder_option_lost():
    for code, play in ((CHAIN_1_AT_3, "15/12 14/11 13/10"), (CHAIN_66, "24/12 18/12")):
        game = state(code, Rules(remainder="lost"))
        game.play(play)
        assert game.is_chance() and game.to_move == BLACK and game.decision is None


def test_chain_stalling_at_a_later_number_is_not_unstarted():
    for rules in (Rules(), Rules(unstarted_chain="to_opponent")):
        game = state(CHAIN_1_AT_4_BLOCKED, rules)
        assert [str(p) for p in game.legal_plays()] == ["pass"]
        game.play("pass")
        d = game.decision                                   # RULES §5.2 (last sentence)
        assert (d.seat, d.dice, d.is_remainder, d.following) == (
            BLACK, (4, 4, 4, 4), True, ((5, 4), (6, 4)))
        assert game.stuck_rolls == 0                        # the roll moved checkers
    game = state(CHAIN_1_AT_4_BLOCKED, Rules(remainder="lost"))
    game.play("pass")
    assert game.is_chance() and game.to_move == BLACK


def test_unstarted_chain_option():
    game = state(UNSTARTED_4, stuck=5)
    game.play("pass")
    assert game.is_chance() and game.to_move == BLACK       # RULES §5.2: lost
    assert game.stuck_rolls == 6
    game = state(UNSTARTED_4, Rules(unstarted_chain="to_opponent"), stuck=5)
    game.play("pass")
    d = game.decision                                       # the whole chain passes
    assert (d.seat, d.dice, d.is_remainder, d.following) == (
        BLACK, (4, 4, 4, 4), True, ((5, 4), (6, 4)))
    assert game.stuck_rolls == 6
    assert [str(p) for p in game.legal_plays()] == ["21/17"]
    game.play("21/17")                                      # a remainder's move resets (RULES §7.2)
    assert game.stuck_rolls == 0
    assert game.decision.dice == (5, 5, 5, 5)              # the unplayable 4's are lost
    # each option changes only what it names: remainder="lost" does not touch an unstarted chain
    game = state(UNSTARTED_4, Rules(unstarted_chain="to_opponent", remainder="lost"), stuck=0)
    game.play("pass")
    assert game.decision.is_remainder and game.decision.dice == (4, 4, 4, 4)


def test_remainder_receiver_goes_on_past_unplayable_dice():
    game = state(REMAINDER_5)
    assert game.legal_plays().playable_dice == 2
    game.play("12/2")
    d = game.decision                                       # the third 5 is lost (RULES §5.3)
    assert (d.seat, d.dice, d.is_remainder, d.stage, d.following) == (BLACK, (6, 6, 6, 6), True, 1, ())
    first_plays_until_chance(game)
    assert game.is_chance() and game.to_move == BLACK       # then the receiver rolls (RULES §5.4)
    assert game.rolls_made == (25, 24)                      # a remainder is not a roll (RULES §4.5)
    game = state(REMAINDER_5_BLOCKED)
    assert [str(p) for p in game.legal_plays()] == ["pass"]  # a pass is still a decision
    game.play("pass")
    assert game.decision.dice == (6, 6, 6, 6) and game.decision.is_remainder


def test_game_ends_mid_chain_and_mid_remainder():
    game = state(CHAIN_ENDS_GAME)
    game.play("1/off")                                      # one die, complete (RULES §3.3)
    assert game.is_over() and game.decision is None         # no 5's, no remainder (RULES §5.5)
    r = game.result()
    assert (r.winner, r.points, r.kind, r.score) == (WHITE, 1, "single", (1, 0))
    game = state(REMAINDER_ENDS_GAME)
    game.play("1/off(4)")
    assert game.is_over() and game.result().points == 2 and game.result().kind == "mars"
    with pytest.raises(GameStateError):
        game.play("pass")


def test_mars_option():
    game = state(REMAINDER_ENDS_GAME, Rules(mars=False))
    game.play("1/off(4)")
    r = game.result()
    assert (r.winner, r.points, r.kind) == (WHITE, 1, "single")


# --- the stuck rule (RULES §7.2) -------------------------------------------------


def stuck_game(rules, stuck=0):
    return Game.from_state_code(f"{NO_SIXES} next=roll:W rolls=5,5 stuck={stuck}", rules)


def roll_sixes(game, times):
    for _ in range(times):
        game.roll(6, 6)                                     # an unstarted chain: nothing moves
        assert [str(p) for p in game.legal_plays()] == ["pass"]
        game.play("pass")
        if game.is_over():
            return


def test_stuck_limit_option():
    game = stuck_game(Rules(stuck_limit=3))
    roll_sixes(game, 2)
    assert game.stuck_rolls == 2 and not game.is_over()
    roll_sixes(game, 1)
    r = game.result()
    assert game.is_over() and (r.winner, r.points, r.kind, r.score) == (None, 0, "stuck", (0, 0))
    game = stuck_game(Rules())                              # default: 100
    roll_sixes(game, 99)
    assert game.stuck_rolls == 99 and not game.is_over()
    roll_sixes(game, 1)
    assert game.is_over() and game.result().winner is None
    game = stuck_game(Rules(stuck_limit=None))
    roll_sixes(game, 150)
    assert game.stuck_rolls == 150 and not game.is_over()


def test_a_move_resets_the_stuck_count():
    game = stuck_game(Rules(stuck_limit=3), stuck=2)
    game.roll(2, 1)
    game.play("24/21")                                      # Black still cannot play a 6
    assert game.stuck_rolls == 0
    roll_sixes(game, 1)                                     # without the reset: the 3rd, a draw
    assert not game.is_over() and game.stuck_rolls == 1


# --- the decision API ---------------------------------------------------------------


def test_illegal_plays_raise_and_leave_the_game_unchanged():
    game = Game(seed=24)                                    # White opens 6-4
    before = game.state_code()
    for bad in ("24/10", "24/18", [(24, 6), (24, 6)], [(24, 7)], "13/7(2)"):
        with pytest.raises(IllegalPlayError):
            game.play(bad)
        assert game.state_code() == before
    with pytest.raises(InvalidNotationError):
        game.play_notation("24-18")
    with pytest.raises(ValueError):
        game.play("bar/20")
    with pytest.raises(TypeError):
        game.play(42)
    with pytest.raises(GameStateError):
        game.roll(3, 1)                                     # a stage is waiting
    assert game.state_code() == before and game.draws == [("opening", 5), ("opening", 3)]
    game.play([(24, 4), (24, 6)])                           # any order of a legal play
    assert game.plays[0][1].steps == ((24, 6), (24, 4))     # stored canonically


def test_plays_at_chance_nodes_and_after_the_end_raise():
    game = Game.new_perft_root()
    with pytest.raises(GameStateError):
        game.play("pass")
    with pytest.raises(GameStateError):
        game.legal_plays()
    game.roll(6, 5)
    game.play("24/13")
    with pytest.raises(GameStateError):
        game.roll_opening(3, 2)


def test_bad_draws_raise():
    with pytest.raises(InvalidDiceError):
        Game(draw=lambda: 6)
    with pytest.raises(InvalidDiceError):
        Game(draw=lambda: "3")
    with pytest.raises(TypeError):
        Game(seed=1, draw=lambda: 0)


def test_seeded_games_are_reproducible():
    def run(seed):
        game = Game(seed=seed)
        play_out(game, GreedyBot(), RandomBot(seed=9))
        return [(d, str(p)) for d, p in game.plays], game.draws, game.result()
    assert run(11) == run(11)
    assert run(11)[1] != run(12)[1]
    assert Game().seed is not None                          # a fresh seed is chosen and kept


def test_undo_restores_exactly_and_the_dice_come_again():
    game = Game(seed=3)
    bot = RandomBot(seed=4)
    trail = []
    while not game.is_over():
        trail.append((game.state_code(), list(game.draws), game.plies))
        game.play(bot.choose(game))
    final = (game.state_code(), game.result())
    while trail:
        game.undo()
        assert (game.state_code(), list(game.draws), game.plies) == trail.pop()
    with pytest.raises(IndexError):
        game.undo()
    bot = RandomBot(seed=4)                                 # the same choices: the same game
    play_out(game, bot, bot)
    assert (game.state_code(), game.result()) == final


def test_explicit_undo_undoes_rolls_too():
    game = Game.new_perft_root()
    game.roll(6, 5)
    game.play("24/13")
    game.roll(1, 1)
    assert game.undo() == (1, 1) and game.is_chance() and game.to_move == BLACK
    assert str(game.undo()) == "24/13"
    assert game.undo() == (6, 5) and game.is_opening()
    assert game.state_code() == Game.new_perft_root().state_code()


def test_state_codes_round_trip_along_random_games():
    for seed in (1, 2):
        game = Game(seed=seed)
        bot = RandomBot(seed=seed)
        while not game.is_over():
            code = game.state_code()
            twin = Game.from_state_code(code)
            assert twin.state_code() == code and twin.state_key() == game.state_key()
            assert twin.legal_plays().codes() == game.legal_plays().codes()
            assert twin.decision.following == game.decision.following
            play = bot.choose(game)
            game.play(play)
            twin.play(play)
            if twin.is_chance():
                assert twin.to_move == game.decision.roller or game.is_over()
        assert Game.from_state_code(game.state_code()).result() == game.result()


def test_copy_is_independent():
    game = Game(seed=8)
    copy = game.copy()
    copy.play(copy.legal_plays()[-1])
    assert game.plies == 0 and copy.plies == 1
    assert game.decision != copy.decision
    game.play(game.legal_plays()[-1])
    assert game.state_code() == copy.state_code()           # the same dice in both


# --- matches (RULES §7.3) -----------------------------------------------------------


def test_match_plays_to_the_target():
    for target in (1, 3):
        match = Match(target=target, seed=target)
        bot = GreedyBot()
        play_out(match, bot, bot)
        assert match.is_over()
        scores = [0, 0]
        for k, game in enumerate(match.games):
            r = game.result()
            assert r is not None
            scores = [a + b for a, b in zip(scores, r.score)]
            if k < len(match.games) - 1:
                assert max(scores) < target or scores[0] == scores[1]
        assert tuple(scores) == match.scores
        assert max(scores) >= target and match.result().winner == scores.index(max(scores))
        with pytest.raises(GameStateError):
            match.play("pass")


def test_match_target_defaults_to_the_rules():
    assert Match(seed=1).target == 3
    assert Match(Rules(match_target=5), seed=1).target == 5
    assert Match(Rules(match_target=5), target=2, seed=1).target == 2
    bot = GreedyBot()
    short, default = Match(Rules(match_target=1), seed=1), Match(seed=1)
    play_out(short, bot, bot)
    play_out(default, bot, bot)
    assert len(short.games) == 1 and max(short.scores) in (1, 2)
    # the same first game ...
    assert default.games[0].result() == short.games[0].result()
    assert default.games[0].state_code() == short.games[0].state_code()
    # ... then on to 3
    assert len(default.games) > 1 and max(default.scores) >= 3
    assert default.scores[0] != default.scores[1]


def test_match_undo_crosses_game_boundaries():
    match = Match(target=3, seed=21)
    bot = GreedyBot()
    while match.game_number == 1:
        last = bot.choose(match)
        match.play(last)
    opening = match.game.openings
    assert match.scores != (0, 0) and match.game.plies == 0
    match.undo()
    assert match.game_number == 1 and match.scores == (0, 0) and not match.game.is_over()
    match.play(last)
    assert match.game_number == 2 and match.game.openings == opening


def test_a_failing_draw_function_leaves_the_game_as_it_was():
    values = [2, 1, 4]                                      # opening 3-2, then Black's first die
    fail = {"now": False}

    def draw():
        if fail["now"] and len(values) == 0:
            raise RuntimeError("dice lost")
        return values.pop(0)
    game = Game(draw=draw)
    fail["now"] = True
    before = game.state_code()
    with pytest.raises(RuntimeError):
        game.play(game.legal_plays()[0])                    # Black's roll needs a second draw
    assert game.state_code() == before and game.plies == 0
    values.append(0)                                        # the dice come back
    game.play(game.legal_plays()[0])
    assert game.decision.seat == BLACK and game.decision.roll == (5, 1)
    assert [v for _, v in game.draws] == [2, 1, 4, 0]


@pytest.mark.parametrize("rules", [
    Rules(), Rules(escalation=False), Rules(exempt_rolls=0, unstarted_chain="to_opponent"),
    Rules(exempt_counting="game_wide", opening="starter_rerolls"),
    Rules(remainder="lost", mars=False), Rules(stuck_limit=2)])
def test_random_games_keep_the_invariants(rules):
    for seed in range(3):
        game = Game(rules, seed=seed)
        bot = RandomBot(seed=seed)
        while not game.is_over():
            d = game.decision
            assert game.rolls_made[d.roller] == d.roll_number
            assert d.game_roll_number == sum(game.rolls_made)
            if d.is_remainder:
                assert d.seat != d.roller and d.is_escalating
            else:
                assert d.seat == d.roller
            if d.is_escalating and not rules.escalation:
                pytest.fail("a chain without escalation")
            game.play(bot.choose(game))
            assert rules.stuck_limit is None or game.stuck_rolls <= rules.stuck_limit
        r = game.result()
        position = game.position
        if r.winner is None:
            assert r.kind == "stuck" and game.stuck_rolls == rules.stuck_limit
        else:
            assert position.borne_off(r.winner) == 15
            mars = rules.mars and position.borne_off(1 - r.winner) == 0
            assert (r.points, r.kind) == ((2, "mars") if mars else (1, "single"))
        assert Game.from_state_code(game.state_code(), rules).state_code() == game.state_code()


def test_malformed_state_codes_raise():
    start = "G:,,,,,,,,,,,-15,,,,,,,,,,,,15|0,0|0,0"
    for bad in ("", f"{start}", f"{start} next=roll:X rolls=0,0 stuck=0",
                f"{start} next=dance rolls=0,0 stuck=0", f"{start} next=opening rolls=0 stuck=0",
                f"{start} next=opening rolls=0,0 stuck=-1", f"{start} next=opening rolls=0,0",
                f"{start} next=play:W stage=6-4 roll=6-3 rolls=1,0 stuck=0",
                f"{start} next=chain:W stage=4-4-4-4 index=0 roll=3-3 rolls=5,5 stuck=0",
                f"{start} next=remainder:W stage=5-5 then=6x4 roll=3-3 roller=W rolls=5,5 stuck=0",
                f"{start} next=remainder:B stage=5-5 then=4x4 roll=3-3 roller=W rolls=5,5 stuck=0",
                f"{start} next=over result=W:2:mars rolls=5,5 stuck=0",
                f"{start} next=opening rolls=0,0 stuck=0 colour=red"):
        with pytest.raises(GameStateError):
            Game.from_state_code(bad)
    with pytest.raises(ValueError):
        Game.from_state_code("G:1 next=opening rolls=0,0 stuck=0")
    ok = f"{start} next=remainder:B stage=5-5 index=0 then=6x4 roll=3-3 roller=W rolls=5,5 stuck=0"
    assert Game.from_state_code(ok).state_code() == ok


def test_regression_next_roll_escalates_checks_its_seat():
    """next_roll_escalates(-1) answered for Black, (2) raised IndexError, ("0") a list's TypeError."""
    from gulbara.errors import InvalidSeatError
    game = Game(seed=24)
    for seat in (-1, 2):
        with pytest.raises(InvalidSeatError):
            game.next_roll_escalates(seat)
    for seat in (True, "0", 0.0):
        with pytest.raises(TypeError, match="seat"):
            game.next_roll_escalates(seat)
    assert game.next_roll_escalates(WHITE) in (True, False)
