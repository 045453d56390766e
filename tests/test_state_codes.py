"""docs/user/state-codes.md, run; state codes from a position code and a side (gulbara.game.state_codes)."""

import doctest
from pathlib import Path

import pytest

import gulbara
from gulbara import Game, GameStateError, InvalidPositionError, InvalidSeatError, Rules
from gulbara.selfplay.games import rollout
from gulbara.game.state_codes import (CHAIN, GameState, Stage, is_state_code,
                                 read_state_code, remainder_stages, seat_index, state_code,
                                 write_state_code)

DOC = Path(__file__).resolve().parents[1] / "docs" / "user" / "state-codes.md"
RACE = "G:,1,,1,,,,,,,,,-12,,,,,,,,,,,|0,0|13,3"


def test_the_document_runs():
    result = doctest.testfile(str(DOC), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 15 and result.failed == 0


def test_every_state_a_game_writes_reads_back():
    game = Game(seed=11)
    seen = set()
    while not game.is_over():
        code = game.state_code()
        seen.add(code.split()[1].split(":")[0])
        assert is_state_code(code) and state_code(code) == code
        assert Game.from_state_code(code).state_code() == code
        game.play(gulbara.GreedyBot().choose(game))
    assert Game.from_state_code(game.state_code()).result() == game.result()
    assert {"next=play", "next=chain"} <= seen


@pytest.mark.parametrize("seat", [0, 1, "white", "black", "W", "b", "1"])
def test_position_and_side(seat):
    code = state_code(RACE, seat)
    game = Game.from_state_code(code)
    assert game.is_chance() and game.to_move == seat_index(seat)
    assert game.rolls_made == (3, 3)


def test_escalation_in_force_unless_told_otherwise():
    escalating = Game.from_state_code(state_code("start", 0))
    escalating.roll(2, 2)
    assert escalating.decision.is_escalating
    exempt = Game.from_state_code(state_code("start", 0, rolls=(0, 0)))
    exempt.roll(2, 2)
    assert not exempt.decision.is_escalating
    more = Rules(exempt_rolls=5)
    assert state_code("start", 1, rules=more).endswith("rolls=5,5 stuck=0")


def test_bad_input_is_named():
    with pytest.raises(GameStateError, match="needs the side to roll"):
        state_code(RACE)
    with pytest.raises(GameStateError, match="already says who acts"):
        state_code(f"{RACE} next=roll:W rolls=0,0 stuck=0", 1)
    with pytest.raises(InvalidSeatError, match="got 'red'"):
        state_code(RACE, "red")
    with pytest.raises(InvalidPositionError):
        state_code("G:1,2", 0)
    with pytest.raises(GameStateError, match="rolls must be two counts"):
        state_code(RACE, 0, rolls=(1,))
    with pytest.raises(TypeError):
        state_code(7, 0)
    with pytest.raises(TypeError):
        seat_index(1.0)
    with pytest.raises(InvalidSeatError):
        seat_index(True)


def test_rollout_takes_a_position_and_a_side():
    a = rollout(RACE, 100, "random", seat="black", seed=3, workers=1)
    b = rollout(Game.from_state_code(state_code(RACE, 1)), 100, "random", seed=3, workers=1)
    assert a.equity[0] == b.equity[0] and a.start == b.start
    with pytest.raises(ValueError, match="go with a position code"):
        rollout(Game(), 10, seat=0)


VARIANTS = [Rules(), Rules(remainder="lost"), Rules(unstarted_chain="to_opponent"),
            Rules(exempt_counting="game_wide", opening="starter_rerolls", exempt_rolls=1),
            Rules(escalation=False, mars=False, stuck_limit=3)]


def _states(rules, seed, games):
    """Every state of seeded random games under ``rules``: decisions, the roll chance nodes
    after each play (explicit rolls), the opening and the end."""
    import random
    rng = random.Random(seed)
    for _ in range(games):
        game = Game(rules, seed=rng.randrange(10**9))
        bot = gulbara.RandomBot(seed=rng.randrange(10**9))
        yield Game.new_perft_root(rules)
        while not game.is_over():
            yield game
            play = bot.choose(game)
            explicit = game.copy(auto_roll=False)
            explicit.play(play)
            yield explicit
            game.play(play)
        yield game


@pytest.mark.parametrize("rules", VARIANTS, ids=range(len(VARIANTS)))
def test_the_writer_and_the_reader_against_the_native_state_code(rules):
    """write_state_code(game.state) is the code the native struct writes (_state.pxd, read
    through the public API), and read_state_code gives the same named state back."""
    from gulbara.game import _state
    kinds = set()
    for game in _states(rules, 5, 12):
        state = game.state
        code = write_state_code(state)
        assert code == _state._py_state_code(game) == game.state_code()
        again = read_state_code(code, rules)
        assert isinstance(again, GameState) and again == state, code
        kinds.add(state.stage.kind if state.stage else state.phase)
    assert {"opening", "roll", "plain", "over"} <= kinds
    if rules.escalation:
        assert "chain" in kinds


def test_the_remainder_rule_is_the_games():
    """remainder_stages: a stopped chain stage's rest and the later numbers go to the
    opponent, each case under its own option (RULES §5.1-5.2)."""
    stage = Stage(CHAIN, (3,) * 4, 0, ((4, 4), (5, 4), (6, 4)))
    default, lost = Rules(), Rules(remainder="lost")
    unstarted = Rules(unstarted_chain="to_opponent")
    assert remainder_stages(default, stage, 2) == ((3, 2), (4, 4), (5, 4), (6, 4))
    assert remainder_stages(lost, stage, 2) == ()
    assert remainder_stages(default, stage, 0) == ()                      # unstarted: lost
    assert remainder_stages(unstarted, stage, 0) == ((3, 4), (4, 4), (5, 4), (6, 4))
    later = stage._replace(dice=(5,) * 4, index=2, following=((6, 4),))
    assert remainder_stages(default, later, 0) == ((5, 4), (6, 4))        # started earlier
    assert remainder_stages(unstarted, later, 4 - 1) == ((5, 1), (6, 4))
