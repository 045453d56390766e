"""Native self-play (gulbara.selfplay._selfplay) against the Python game driver, move for move.

Game ``i`` of a native run is played again by :func:`gulbara.selfplay.games.replay`
through :class:`gulbara.Game` with the Python twins of the generator and the
policies; the number of ends and the chosen end of every decision, the
counters and the final state must be the same.
"""

import random

import numpy as np
import pytest

from gulbara import Game, Position, Rules
from gulbara.errors import GulBaraError
from gulbara.selfplay import _selfplay
from gulbara.eval import _greedy
from gulbara.bots.simple import GreedyBot
from gulbara.eval.greedy import greedy_score
from gulbara.selfplay.games import (COLUMNS, Rng, _policy_pair, play_games, replay)

from positions import mixed_positions

RULE_SETS = [
    Rules(),
    Rules(escalation=False),
    Rules(remainder="lost"),
    Rules(unstarted_chain="to_opponent"),
    Rules(exempt_counting="game_wide", opening="starter_rerolls"),
    Rules(exempt_rolls=0, mars=False, stuck_limit=3),
    Rules(exempt_rolls=0, stuck_limit=None, unstarted_chain="to_opponent"),
]


def native(start, seed, index, policy, max_rolls=10_000):
    codes, evaluator, _ = _policy_pair(policy)
    rows, hist, traces = _selfplay.play_games(start, seed, index, 1, codes, evaluator,
                                              max_rolls, trace=True)
    pairs, final = traces[0]
    return rows[0], hist, pairs, final


def check_same_game(start, seed, index, policy, max_rolls=10_000):
    row, hist, pairs, final = native(start, seed, index, policy, max_rolls)
    trace = []
    game = replay(seed, index, policy, start=start, max_rolls=max_rolls, trace=trace)
    plays = game.plays[len(start.plays):]
    # each decision: the same number of ends and the same end chosen
    assert len(plays) == len(trace)
    assert [tuple(map(int, pair)) for pair in pairs] == trace, (seed, index, policy)
    assert final == game.state_code(), (seed, index)
    result = game.result()
    if result is None:
        assert row[COLUMNS.index("unfinished")] == 1
    else:
        assert row[COLUMNS.index("winner")] == (-1 if result.winner is None else result.winner)
        assert row[COLUMNS.index("points")] == result.points
    assert row[COLUMNS.index("decisions")] == len(plays)
    assert row[COLUMNS.index("moves")] == sum(1 for _, play in plays if play.steps)
    rolls = game.rolls_made
    start_rolls = start.rolls_made
    assert row[COLUMNS.index("rolls_white")] == rolls[0] - start_rolls[0]
    assert row[COLUMNS.index("rolls_black")] == rolls[1] - start_rolls[1]
    return game


# ---------------------------------------------------------------------------
# The generator and the greedy score: C and Python twins
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed,game,stream", [(0, 0, 0), (1, 0, 1), (2**64 - 1, 7, 0),
                                              (12345, 2**40, 1), (99, 3, 5)])
def test_rng_twins(seed, game, stream):
    rng = Rng(seed, game, stream)
    assert _selfplay.py_rng(seed, game, stream, 50) == [rng.next() for _ in range(50)]
    for bound in (1, 2, 6, 7, 1000, 17550, 2**31 - 1):
        rng = Rng(seed, game, stream)
        assert _selfplay.py_rng(seed, game, stream, 40, bound) == [rng.below(bound)
                                                                   for _ in range(40)]


def test_rng_dice_are_uniform():
    rng = Rng(3)
    counts = np.bincount([rng.die() for _ in range(60_000)], minlength=6)
    assert counts.min() > 9_500 and counts.max() < 10_500      # 10,000 +- 5 sd


def test_greedy_score_twins():
    checked = 0
    for code, seat in mixed_positions(17, 400):
        for who in (0, 1):
            position = Position.from_code(code)
            for ends_game in (False, True):
                assert (_greedy.py_greedy_score(code, who, ends_game)
                        == greedy_score(position, who, ends_game)), (code, who)
            checked += 1
    assert checked == 800


def test_greedy_score_twins_on_long_runs():
    """The native prime term (the longest run, found without a loop) against the
    Python twin on positions of many single checkers: runs of every length 0..15."""
    rng = random.Random(29)
    longest_seen = set()
    for _ in range(3000):
        length = rng.randint(1, 15)                    # a run of single checkers
        start = rng.randrange(25 - length)
        white = set(range(start, start + length))
        white |= set(rng.sample(range(24), rng.randint(0, 15 - length)))
        white = sorted(white)
        counts = [1] * len(white)
        for _ in range(15 - len(white)):
            counts[rng.randrange(len(white))] += 1
        points = [0] * 24
        for p, n in zip(white, counts):
            points[p] = n
        free = [p for p in range(24) if not points[p]]
        black = rng.sample(free, rng.randint(1, min(15, len(free))))
        for i in range(15):
            points[black[i % len(black)]] -= 1
        position = Position(points, 0, 0)
        code = position.code()
        for who in (0, 1):
            native = _greedy.py_greedy_score(code, who, False)
            assert native == greedy_score(position, who, False), (code, who)
        mine = sorted(p for p in range(24) if points[p] > 0)
        run = best = 0
        for i, p in enumerate(mine):
            run = run + 1 if i and p == mine[i - 1] + 1 else 1
            best = max(best, run)
        longest_seen.add(best)
    assert longest_seen >= set(range(1, 16))         # every run length met at least once


class PythonGreedyBot(GreedyBot):
    """GreedyBot scored in Python: overriding ``score`` turns the native choice off."""

    def score(self, seat, play):
        return super().score(seat, play)


def test_greedy_bot_native_end_is_the_python_heuristic_end():
    native, python = GreedyBot(), PythonGreedyBot()
    rng = random.Random(31)
    decisions = several = 0
    for g in range(60):
        game = Game(seed=900 + g)
        while not game.is_over() and len(game.plays) < 400:
            ends = game.legal_plays()
            choice = native.choose(game)
            assert choice == python.choose(game), (game.state_code(), choice)
            decisions += 1
            several += len(ends) > 1
            game.play(ends[rng.randrange(len(ends))])       # random play: varied positions
    assert decisions > 3000 and several > 2000, (decisions, several)


def test_regression_greedy_end_refuses_none():
    with pytest.raises(TypeError):
        _greedy.greedy_end(None)


# ---------------------------------------------------------------------------
# Move for move: native games against the Python driver
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(300))
def test_random_policy_move_for_move(seed):
    rules = RULE_SETS[seed % len(RULE_SETS)]
    check_same_game(Game(rules, auto_roll=False), seed, seed % 5, "random")


@pytest.mark.parametrize("seed", range(40))
def test_first_policy_move_for_move(seed):
    rules = RULE_SETS[seed % len(RULE_SETS)]
    check_same_game(Game(rules, auto_roll=False), 1000 + seed, seed, "first")


@pytest.mark.parametrize("seed", range(40))
def test_greedy_policy_move_for_move(seed):
    rules = RULE_SETS[seed % len(RULE_SETS)]
    check_same_game(Game(rules, auto_roll=False), 2000 + seed, seed % 3, "greedy")


@pytest.mark.parametrize("seed", range(12))
def test_mixed_policies_move_for_move(seed):
    pair = [("greedy", "random"), ("random", "first"), ("first", "greedy")][seed % 3]
    check_same_game(Game(auto_roll=False), 3000 + seed, 0, pair)


def race_evaluator(features):
    """Prefer fewer own pips, more held points and borne-off checkers (a linear score)."""
    held = features[:, 0:96:4].sum(axis=1)
    return -3.0 * features[:, 194] + 0.05 * held + 2.0 * features[:, 192]


@pytest.mark.parametrize("seed", range(12))
def test_evaluator_policy_move_for_move(seed):
    policy = race_evaluator if seed % 2 == 0 else (race_evaluator, "random")
    check_same_game(Game(auto_roll=False), 4000 + seed, seed, policy)


def mid_game_states(seed, count):
    """Decision states inside chains and remainders, and chance nodes, from seeded games."""
    rng = random.Random(seed)
    states = []
    while len(states) < count:
        game = Game(Rules(exempt_rolls=rng.choice([0, 3])), seed=rng.randrange(10**6))
        while not game.is_over() and len(states) < count:
            decision = game.decision
            if decision.is_chain or decision.is_remainder or rng.random() < 0.03:
                states.append(Game.from_state_code(game.state_code(), game.rules))
            plays = game.legal_plays()
            game.play(plays[rng.randrange(len(plays))])
    return states


@pytest.mark.parametrize("i", range(30))
def test_from_mid_game_states_move_for_move(i):
    start = mid_game_states(i, 30)[i]
    game = check_same_game(start, 5000 + i, i, ("random", "greedy")[i % 2])
    assert game.is_over()


def test_max_rolls_stops_games_the_same_way():
    rules = Rules(stuck_limit=None)
    for seed in range(5):
        row, _, pairs, final = native(Game(rules, auto_roll=False), seed, 0, "random", 7)
        assert row[COLUMNS.index("unfinished")] == 1 and row[COLUMNS.index("rolls")] == 7
        check_same_game(Game(rules, auto_roll=False), seed, 0, "random", 7)


# ---------------------------------------------------------------------------
# The counters
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("rules", RULE_SETS[:5], ids=lambda r: str(r.to_dict()))
def test_counters_are_consistent(rules):
    result = play_games(3000, "random", seed=11, rules=rules, workers=1)
    c = {name: result.column(name).astype(np.int64) for name in COLUMNS}
    assert set(np.unique(c["winner"])) <= {-1, 0, 1}
    assert (c["rolls"] == c["rolls_white"] + c["rolls_black"]).all()
    assert ((c["points"] == 0) == (c["winner"] == -1)).all()
    assert (c["starter"] >= 0).all()
    assert (c["chains"] <= c["doubles"]).all()
    assert (c["stalls"] <= c["chains"]).all() and (c["unstarted"] <= c["stalls"]).all()
    assert (c["remainders"] <= c["stalls"]).all()
    assert (c["remainder_dice"] <= 4 * 6 * c["remainders"]).all()
    assert (c["remainder_dice"] >= c["remainders"]).all()
    assert (c["moves"] <= c["decisions"]).all()
    # every chain begun is counted once in the histogram of its length
    assert result.chain_histogram.sum() == c["chains"].sum()
    assert (np.arange(8) * result.chain_histogram).sum() == c["chain_stages"].sum()
    if not rules.escalation:
        assert c["chains"].sum() == 0
    if rules.remainder == "lost" and rules.unstarted_chain == "lost":
        assert c["remainders"].sum() == 0
    if rules.mars:
        assert (c["points"] == 2).any()
    else:
        assert (c["points"] <= 1).all()


def test_stuck_rule_draws_are_counted():
    result = play_games(500, "first", seed=2, rules=Rules(stuck_limit=1), workers=1)
    assert result.draws == int((result.column("winner") == -1).sum()) > 0
    assert result.unfinished == 0


def test_result_table_and_dict():
    result = play_games(300, "random", seed=5, workers=1)
    data = result.as_dict()
    for key in ("games", "seconds", "games_per_second", "policy", "seed",
                "first_player_win_rate", "mars_rate", "mean_rolls", "draws"):
        assert key in data
    assert data["games"] == 300 and data["policy"] == "random" and data["seed"] == 5
    assert data["first_player_win_rate_low"] <= data["first_player_win_rate"] \
        <= data["first_player_win_rate_high"]
    assert "first player's win rate" in result.table()
    with pytest.raises(KeyError, match="no column"):
        result.column("nope")


def test_regression_rng_below_checks_its_bound():
    """Rng.below(n) never returned for n > 2**64, and took 0, negative or float bounds."""
    from gulbara.errors import GulBaraError

    class Counting(Rng):
        __slots__ = ("calls",)

        def next(self):
            self.calls = getattr(self, "calls", 0) + 1
            assert self.calls < 1000, "below() never returned"
            return super().next()

    for n in (2**64 + 1, 2**70, 0, -7):
        with pytest.raises(GulBaraError, match="n must be"):
            Counting(1).below(n)
    for n in (1.5, True, "6"):
        with pytest.raises(TypeError):
            Counting(1).below(n)
    assert Counting(1).below(2**64) == Rng(1).next()
    with pytest.raises(TypeError, match="stream"):
        Rng(1, stream="x")


def test_regression_replay_checks_what_play_games_checks():
    """replay played whole games with an evaluator or max_rolls that play_games refuses."""
    from gulbara.errors import GulBaraError
    with pytest.raises(GulBaraError, match="2 scores"):
        replay(1, 0, lambda x: np.zeros(1))
    with pytest.raises(GulBaraError, match="finite"):
        replay(1, 0, lambda x: np.full(len(x), np.nan))
    with pytest.raises(GulBaraError, match="max_rolls"):
        replay(1, 0, "random", max_rolls=-1)
    with pytest.raises(TypeError, match="start"):
        replay(1, 0, start=5)
    with pytest.raises(TypeError, match="trace"):
        replay(1, 0, trace=5)
    with pytest.raises(GulBaraError, match="rules"):
        replay(1, 0, start=Game(auto_roll=False), rules=Rules(mars=False))


def test_regression_a_bad_policy_is_refused_naming_every_valid_one():
    """The message named random, first and greedy, not net or a network file."""
    with pytest.raises(GulBaraError, match="random, first, greedy, net, a network's .npz path"):
        play_games(2, "best", workers=1)
