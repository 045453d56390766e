"""docs/state-codes.md, run; state codes from a position code and a side (gulbara.state_codes)."""

import doctest
from pathlib import Path

import pytest

import gulbara
from gulbara import Game, GameStateError, InvalidPositionError, InvalidSeatError, Rules
from gulbara.selfplay import rollout
from gulbara.state_codes import is_state_code, seat_index, state_code

DOC = Path(__file__).resolve().parents[1] / "docs" / "state-codes.md"
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
