"""The shipped network for a rule set: chosen by the rules, used by every net bot and policy."""

import json

import numpy as np
import pytest

import gulbara
from gulbara.selfplay.arena import native_arena
from gulbara.net.model import (DEFAULT_NET_PATH, PLAIN_DOUBLES_NET_PATH, bot_net, default_net,
                         load, shipped_net_path)
from gulbara.bots.netbot import Net2Bot, NetBot
from gulbara.rules import DEFAULT_RULES, PRESETS, Rules
from gulbara.selfplay.games import play_games, replay
from gulbara.net.train import evaluate

PLAIN = Rules.preset("plain-doubles")


def test_rules_without_escalation_get_the_plain_doubles_network():
    assert shipped_net_path() == shipped_net_path(DEFAULT_RULES) == DEFAULT_NET_PATH
    assert shipped_net_path(PLAIN) == PLAIN_DOUBLES_NET_PATH
    assert shipped_net_path(Rules(escalation=False, remainder="lost", mars=False)) \
        == PLAIN_DOUBLES_NET_PATH
    for name, rules in PRESETS.items():
        expected = DEFAULT_NET_PATH if rules.escalation else PLAIN_DOUBLES_NET_PATH
        assert shipped_net_path(rules) == expected, name
    with pytest.raises(TypeError, match="Rules"):
        shipped_net_path("plain-doubles")
    with pytest.raises(TypeError, match="Rules"):
        default_net({"escalation": False})


def test_the_bots_network_follows_the_rules():
    """The average under escalating rules, the plain-doubles network without escalation."""
    for name, rules in PRESETS.items():
        expected = bot_net() if rules.escalation else default_net(PLAIN)
        assert bot_net(rules) is expected, name
    assert bot_net().hidden == 256 and bot_net(Rules(remainder="lost")) is bot_net()
    with pytest.raises(TypeError, match="Rules"):
        bot_net("plain-doubles")


def test_each_shipped_network_was_trained_under_its_rules():
    plain = default_net(PLAIN)
    assert plain is default_net(Rules(escalation=False)) is load("net", PLAIN)
    assert plain is not default_net()
    assert Rules.from_dict(json.loads(plain.meta["rules"])) == PLAIN
    assert "rules" not in default_net().meta      # trained before the rules were recorded
    assert plain.hidden == default_net().hidden == 64


def test_the_net_bots_take_the_network_of_the_games_rules():
    own = NetBot(PLAIN_DOUBLES_NET_PATH)
    for Bot in (NetBot, Net2Bot):
        shipped = Bot()
        for seed in range(3):
            game = gulbara.Game(PLAIN, seed=seed)
            for _ in range(12):
                if game.is_over():
                    break
                play = shipped.choose(game)
                if Bot is NetBot:
                    assert play == own.choose(game)
                game.play(play)
        assert shipped.net is default_net(PLAIN) is bot_net(PLAIN)
        shipped.choose(gulbara.Game(seed=1))       # the default rules: the bots' average
        assert shipped.net is bot_net()
    given = NetBot(default_net())                   # a network given is kept whatever the rules
    given.choose(gulbara.Game(PLAIN, seed=1))
    assert given.net is default_net()


def test_the_hint_ranks_by_the_network_of_the_games_rules():
    game = gulbara.Game(PLAIN, seed=5)
    ranked = NetBot().rank(game)
    assert [p for p, _ in ranked] == [p for p, _ in NetBot(default_net(PLAIN)).rank(game)]


def test_native_self_play_and_replay_take_the_network_of_the_rules():
    shipped = play_games(30, ("net", "greedy"), seed=4, rules=PLAIN, workers=1)
    by_path = play_games(30, (PLAIN_DOUBLES_NET_PATH, "greedy"), seed=4, rules=PLAIN, workers=1)
    other = play_games(30, (DEFAULT_NET_PATH, "greedy"), seed=4, rules=PLAIN, workers=1)
    assert np.array_equal(shipped.rows, by_path.rows)
    assert not np.array_equal(shipped.rows, other.rows)
    trace = []
    game = replay(4, 3, ("net", "greedy"), rules=PLAIN, trace=trace)
    assert int(shipped.column("decisions")[3]) == len(trace) == len(game.plays)


def test_the_native_arena_takes_the_network_of_the_rules():
    arena = native_arena("net", "greedy", 40, seed=6, duplicate=True, rules=PLAIN)
    ev = evaluate(default_net(PLAIN), 20, seed=6, rules=PLAIN)
    assert arena.a_win_rate == ev["win_rate"]
