"""The one registry of bots: every row plays wherever a bot is accepted, and a network file is
a bot wherever a name is."""

import os
import shutil

import pytest

from gulbara import Game
from gulbara.bots import (BOTS, NATIVE_BOTS, REGISTRY, bot_label, is_network_path, make_bot,
                          play_out)
from gulbara.cli import main
from gulbara.errors import GulBaraError
from gulbara.net.model import DEFAULT_NET_PATH
from gulbara.selfplay.arena import arena
from gulbara.selfplay.games import COLUMNS, play_games, replay

# the two search bots take seconds a decision: their whole games run with -m slow
SLOW = {"expectimax2", "net2"}
NAMES = [pytest.param(name, marks=pytest.mark.slow) if name in SLOW else name
         for name in REGISTRY]


def test_every_list_of_names_comes_from_the_registry():
    assert set(BOTS) == set(REGISTRY)
    assert NATIVE_BOTS == tuple(name for name, entry in REGISTRY.items() if entry.native)
    for name, entry in REGISTRY.items():
        assert entry.name == name and entry.summary


@pytest.mark.parametrize("name", REGISTRY)
def test_every_bot_plays_legal_plays(name):
    game = Game(seed=11)
    result = play_out(game, make_bot(name, seed=1), "greedy", max_plies=12)
    assert result is None or game.is_over()
    assert len(game.plays) == 12 or game.is_over()


@pytest.mark.parametrize("name", NAMES)
def test_every_bot_plays_a_whole_game_in_play_out_and_the_arena(name):
    game = Game(seed=7)
    result = play_out(game, name, "random")
    assert game.is_over() and result.winner in (0, 1, None)
    played = arena(name, "first", 2, seed=5)
    assert played.games == 2 and played.a == name
    assert played.a_wins + played.b_wins + played.draws == 2


@pytest.mark.parametrize("name", NATIVE_BOTS)
def test_every_native_bot_plays_self_play_replayed_through_the_python_game(name):
    policy = REGISTRY[name].native
    run = play_games(3, (policy, "greedy"), seed=21, workers=1)
    winner, points = COLUMNS.index("winner"), COLUMNS.index("points")
    for i in range(3):
        game = replay(21, i, (policy, "greedy"))
        assert game.is_over()
        result = game.result()
        assert run.rows[i, winner] == (-1 if result.winner is None else result.winner)
        assert run.rows[i, points] == result.points


@pytest.fixture()
def my_network(tmp_path):
    path = tmp_path / "my.npz"
    shutil.copy(DEFAULT_NET_PATH, path)
    return str(path)


def test_a_network_file_is_a_bot_labelled_by_its_file(my_network):
    assert is_network_path(my_network) and bot_label(my_network) == "my.npz"
    bot = make_bot(my_network)
    assert bot.name == "my.npz"
    game = Game(seed=3)
    assert bot.choose(game) in game.legal_plays()
    result = arena(my_network, "greedy", 2, seed=1)
    assert result.a == "my.npz" and result.games == 2
    native = arena(my_network, "greedy", 4, seed=1, native=True)
    assert native.a == "my.npz" and native.games == 4


def test_the_command_line_takes_a_network_file(my_network, capsys):
    assert main(["arena", my_network, "greedy", "--games", "2", "--quiet"]) == 0
    assert "my.npz vs greedy" in capsys.readouterr().out


def test_regression_unknown_bot_names_the_choices():
    with pytest.raises(GulBaraError, match="unknown bot 'nobody'.*greedy"):
        make_bot("nobody")
    with pytest.raises(TypeError):
        make_bot(3)
    with pytest.raises(GulBaraError, match="cannot read weights"):
        make_bot(os.path.join("no", "such", "file.npz"))


def test_every_native_column_names_a_native_policy():
    from gulbara.net._play import NATIVE_POLICIES
    assert {entry.native for entry in REGISTRY.values() if entry.native} <= set(NATIVE_POLICIES)


def test_regression_a_native_match_refuses_an_unknown_policy_instead_of_crashing():
    # a policy number with no chooser once fell through to the network's code with no network
    from gulbara.errors import InvalidPolicyError
    from gulbara.net import _play
    start = Game(auto_roll=False)
    for bad in ("evaluator", "expectimax1", "nobody"):
        with pytest.raises(InvalidPolicyError, match="unknown native policy"):
            _play.play_match(bad, "random", start, 0, 0, 1, False)
    with pytest.raises(TypeError, match="str"):
        _play.play_match(3, "random", start, 0, 0, 1, False)
    with pytest.raises(InvalidPolicyError, match="network"):
        _play.play_match("net", "random", start, 0, 0, 1, False)
    rows, _ = _play.play_match("random", "first", start, 0, 0, 2, False)
    assert rows.shape == (2, 6) and set(rows[:, 1]) <= {-1, 0, 1}
