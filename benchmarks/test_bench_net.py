"""Value-network benchmarks: evaluation per end, net self-play, training, lockstep evaluators.

Groups:

* ``net-eval``: the shipped network values every end of a fixed suite of
  decisions 20 times over (the ends generated once, outside the loop: the
  network alone, the after-state of each end, its inputs and the forward
  pass); asserts the number of ends, records ns per end.
* ``net-chain``: the shipped network values every outcome of the mid-game 1-1
  chain mid-a after the turn (``ValueNet.outcome_values``, what ``chain_best``'s
  ``net_scores`` and the ``net`` bot call); asserts the outcomes valued and the
  best value, records ns per outcome.
* ``net-selfplay``: native self-play, ``net`` against itself and ``greedy``
  against itself on the same seed; asserts the games' decisions and rolls.
* ``net-bots``: the ``net`` bot against ``greedy`` over 40 duplicate games of seed 1
  (``gulbara.selfplay.arena.arena``, one process), on the bots' network (the average of four,
  ``gulbara.net.model.bot_net``) and on ``gb1`` alone; asserts the games won and the points,
  records games a second.
* ``net-train``: 1,000 games of TD(lambda) training by the shipped run's
  arguments; asserts the SHA-256 the shipped file records for that point.
* ``bearoff``: the bear-off database built from nothing (``gulbara.eval._bearoff.build``,
  what ``bearoff_table()`` does on first use); asserts the positions and the
  expected rolls of fifteen checkers on the 6-point, records positions a second.
* ``lockstep``: a 196-128-1 numpy MLP as the user's evaluator, per decision
  (``play_games``) and in lockstep (``play_games_batched``); asserts every game
  finished.

    python3 -m pytest benchmarks/test_bench_net.py
"""

import numpy as np
import pytest

import gulbara
from gulbara.net.model import default_net
from bench_timing import finish, per_second


def _decisions(n_games=12, seed=2026):
    """Decisions of greedy self-play games through the Python Game (a fixed suite)."""
    from gulbara.bots.simple import GreedyBot
    games = []
    for i in range(n_games):
        game = gulbara.Game(seed=seed + i)
        bot = GreedyBot()
        while not game.is_over():
            games.append(game.copy())
            game.play(bot.choose(game))
    return games


DECISIONS = _decisions()


def _all_values(net, games):
    from gulbara.net import _choose
    return _choose.time_values(net.native, games, 20)[0]


@pytest.mark.benchmark(group="net-eval")
def test_net_values_every_end(benchmark):
    net = default_net()
    net.native                      # built outside the timing
    expected = 20 * sum(len(g.legal_plays()) for g in DECISIONS)
    got = benchmark.pedantic(_all_values, (net, DECISIONS), rounds=5, iterations=1)
    finish(benchmark, got, expected, expected,
           {"ns_per_end_median": lambda work, median: round(1e9 * median / work),
            "ends_per_second_median": per_second})


def _best_outcome_value(net, chain):
    values = net.outcome_values(chain, (5, 5))
    return len(values), float(values.max())


@pytest.mark.benchmark(group="net-chain")
def test_net_values_every_chain_outcome(benchmark):
    from gulbara.tools.suites import MID_GAME_11
    net = default_net()
    entry = MID_GAME_11[0]
    chain = gulbara.chain_ends(entry.code, entry.seat, 1)
    chain.boards                    # the arrays built outside the timing
    expected = (entry.outcomes[0], float(net.outcome_values(chain, (5, 5)).max()))
    got = benchmark.pedantic(_best_outcome_value, (net, chain), rounds=5, iterations=1)
    finish(benchmark, got, expected, expected[0],
           {"ns_per_outcome_median": lambda work, median: round(1e9 * median / work)})


def _selfplay(policy, games, seed):
    from gulbara.selfplay.games import play_games
    result = play_games(games, policy, seed=seed, workers=1)
    if result.unfinished:
        raise AssertionError("unfinished games")
    return int(result.column("decisions").sum()), int(result.column("rolls").sum())


def _replayed(policy, games, seed):
    """The decisions and rolls of the same games played again through the Python Game."""
    from gulbara.selfplay.games import replay
    decisions = rolls = 0
    for i in range(games):
        game = replay(seed, i, policy)
        decisions += len(game.plays)
        rolls += game.game_rolls
    return decisions, rolls


#: (policy, games, seed, decisions, rolls). Greedy self-play is a fact of the rules (a pinned
#: count); the network's games depend on its weights, so they are checked against their replay
#: through the Python Game instead (``None``).
NET_SELFPLAY = (
    ("net", 400, 2026, None, None),
    ("greedy", 400, 2026, 28_564, 20_657),
)


@pytest.mark.benchmark(group="net-selfplay")
@pytest.mark.parametrize("policy, games, seed, decisions, rolls", NET_SELFPLAY,
                         ids=[case[0] for case in NET_SELFPLAY])
def test_native_selfplay(benchmark, policy, games, seed, decisions, rolls):
    got = benchmark.pedantic(_selfplay, (policy, games, seed), rounds=3, iterations=1)
    benchmark.extra_info["games"] = games
    if decisions is None:                   # native == replay on the first games, counts in range
        head = _selfplay(policy, 8, seed)
        assert head == _replayed(policy, 8, seed)
        decisions, rolls = got
        assert games * 10 <= rolls <= decisions <= games * 400
    finish(benchmark, got, (decisions, rolls), games, {"games_per_second_median": per_second})


def _netbot_arena(network: str):
    from gulbara.selfplay.arena import arena
    from gulbara.bots.netbot import NetBot
    bot = NetBot() if network == "average" else NetBot(default_net())
    result = arena(bot, "greedy", NETBOT_GAMES, seed=1, duplicate=True)
    return result


NETBOT_GAMES = 40


@pytest.mark.benchmark(group="net-bots")
@pytest.mark.parametrize("network", ("average", "gb1"))
def test_net_bot_games(benchmark, network):
    result = benchmark.pedantic(_netbot_arena, (network,), rounds=3, iterations=1)
    # what the games won depends on the network's weights: check what any result must be
    finish(benchmark, result.games, NETBOT_GAMES, NETBOT_GAMES,
           {"games_per_second_median": per_second})
    assert result.a_wins + result.b_wins + result.draws == NETBOT_GAMES
    assert result.a_seats == (0, 1) * (NETBOT_GAMES // 2)
    assert all(abs(p) <= 2 for p in result.a_points)
    assert sum(1 for p in result.a_points if p > 0) == result.a_wins


def _train_1000():
    from gulbara.net.train import train
    return train(1000, seed=1, checkpoint=1000, eval_pairs=1, progress=None).net.sha256()


@pytest.mark.benchmark(group="net-train")
def test_training_speed(benchmark):
    got = benchmark.pedantic(_train_1000, rounds=1, iterations=1)
    # training depends only on its arguments (the shipped runs' bytes are pinned in the
    # provenance tests): the same arguments, the same weights
    finish(benchmark, got, _train_1000(), 1000, {"games_per_second_median": per_second})
    assert len(got) == 64


def _bearoff_build():
    from gulbara.eval import _bearoff
    from gulbara.eval.bearoff import MAX_ROLLS, BearoffTable
    counts, mean, dist, first_mean, first_dist = _bearoff.build(MAX_ROLLS)
    return len(counts), round(float(mean[BearoffTable.rank([0, 0, 0, 0, 0, 15])]), 6)


@pytest.mark.benchmark(group="bearoff")
def test_bearoff_database_build(benchmark):
    got = benchmark.pedantic(_bearoff_build, rounds=3, iterations=1)
    finish(benchmark, got, (54_264, 7.714263), 54_264, {"positions_per_second_median": per_second})


_RNG = np.random.default_rng(7)
_W1 = _RNG.normal(scale=0.1, size=(196, 128)).astype(np.float32)
_W2 = _RNG.normal(scale=0.1, size=128).astype(np.float32)


def mlp(features):
    """A user's evaluator: a 196-128-1 numpy MLP (the one issue 15 timed)."""
    return np.tanh(features @ _W1) @ _W2


def _per_decision(games):
    from gulbara.selfplay.games import play_games
    result = play_games(games, mlp, seed=5, workers=1)
    return result.games - result.unfinished


def _lockstep(games):
    from gulbara.selfplay.lockstep import play_games_batched
    result = play_games_batched(games, mlp, seed=5, lockstep=games)
    return int((result.column("winner") >= -1).sum() - (result.column("rolls") >= 10_000).sum())


@pytest.mark.benchmark(group="lockstep")
@pytest.mark.parametrize("how, games", [("per-decision", 20), ("lockstep", 400)])
def test_user_evaluator(benchmark, how, games):
    fn = _per_decision if how == "per-decision" else _lockstep
    got = benchmark.pedantic(fn, (games,), rounds=1, iterations=1)
    benchmark.extra_info["games"] = games
    finish(benchmark, got, games, games, {"games_per_second_median": per_second})
