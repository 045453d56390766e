"""Regression tests for the small edges of the API (each named by what it was)."""

import numpy as np
import pytest

import gulbara
from gulbara import Board, Game, IllegalPlayError
from gulbara.core.batch import arrays_from_requests
from gulbara.bots import play_out
from gulbara.selfplay.games import rollout


def test_play_out_takes_bot_names():
    a = play_out(Game(seed=5), "greedy", "random")
    b = play_out(Game(seed=5), gulbara.GreedyBot(), gulbara.RandomBot(seed=1))
    assert a == b
    with pytest.raises(gulbara.GulBaraError, match="unknown bot 'nobody'"):
        play_out(Game(seed=5), "nobody", "random")


def test_rollout_result_repr_names_the_run():
    result = rollout("start", 20, "random", seed=2, workers=1)
    assert repr(result).startswith("RolloutResult(games=20, policy=('random', 'random'), seed=2")


def test_batch_result_has_the_chain_names():
    out = gulbara.stage_ends_batch(*arrays_from_requests([(gulbara.START_CODE, 0, (6, 4))]))
    assert out.borne_off is out.end_borne_off and out.boards is out.end_boards
    assert out.ends_game is out.end_game
    chain = gulbara.chain_ends(gulbara.START_CODE, 0, 4)
    assert out.borne_off.shape[1:] == chain.borne_off.shape[1:]


def test_game_seed_type_error_names_seed():
    with pytest.raises(TypeError, match=r"seed must be an int .*not str"):
        Game(seed="abc")
    with pytest.raises(TypeError, match=r"seed must be an int .*not float"):
        Game(seed=1.5)
    assert Game(seed=np.int64(24)).openings == Game(seed=24).openings


def test_push_from_another_position_names_both_positions():
    board = Board()
    play = board.stage_ends([6, 5])[1]
    board.push(play, pass_turn=False)
    before = board.code()
    with pytest.raises(IllegalPlayError) as info:
        board.push(play, pass_turn=False)                # the same play again
    message = str(info.value)
    assert "taken from another position" in message
    assert message.count(play.code) == 2 and "ends at G:" in message
    assert board.code() == before
