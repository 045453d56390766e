"""The one-sided bear-off database: its tables against the move generator's ends, its race
equity against a plain double loop, and the net bots' use of it."""

import itertools
import random

import numpy as np
import pytest

import gulbara
from gulbara import Game, Position, chain_ends, stage_ends
from gulbara.eval.bearoff import (MAX_ROLLS, N_BEAROFF, TABLE_BYTES, bearoff_applies,
                             bearoff_outcome_values, bearoff_table, bearoff_turn_value,
                             bearoff_values, home_counts, is_bearoff, race_equity)
from gulbara.errors import GulBaraError
from gulbara.bots.netbot import NetBot


@pytest.fixture(scope="module")
def table():
    return bearoff_table()


def white_code(mine, black_off=0, black_point=18):
    """White's counts on points 1..6 (the rest off); Black's 15 - black_off on White's
    ``black_point`` (Black's home: White's 13..18)."""
    points = list(mine) + [0] * 18
    if black_off < 15:
        points[black_point - 1] = -(15 - black_off)
    return Position.from_points(points, 15 - sum(mine), black_off).code()


def counts_of(board_row):
    return tuple(int(max(v, 0)) for v in board_row[:6])


def whole_roll_ends(mine, high, low):
    """White's ends of one roll from ``mine`` by the move generator: a stage for two
    different dice, the whole escalating chain for a double (RULES §4.2)."""
    code = white_code(mine)
    if high != low:
        return {counts_of(Position.from_code(end.code).points()) for end in
                stage_ends(code, 0, [high, low])}
    chain = chain_ends(code, 0, high)
    assert not chain.remainder.any()                     # a bear-off never stalls
    return {counts_of(row) for row in chain.boards}


ROLLS = [(h, low) for h in range(1, 7) for low in range(1, h + 1)]


def prob(high, low):
    return (1 if high == low else 2) / 36


def test_ranks_cover_every_position_once(table):
    assert len(table) == N_BEAROFF == len({tuple(row) for row in table.counts.tolist()})
    for q in random.Random(1).sample(range(N_BEAROFF), 500):
        assert table.rank(table.counts[q]) == q
    assert table.counts.sum(axis=1).max() == 15 and table.counts.min() == 0


def test_memory_is_as_documented(table):
    arrays = (table.counts, table.mean, table.dist, table.first_mean, table.first_dist)
    assert sum(a.nbytes for a in arrays) == TABLE_BYTES
    assert not any(a.flags.writeable for a in arrays)


def test_no_bear_off_needs_more_than_30_rolls():
    """The native build refuses a distribution too short to hold every bear-off."""
    from gulbara.eval import _bearoff
    counts, mean, dist, first_mean, first_dist = _bearoff.build(31)
    assert dist[:, 30].max() > 0 and first_dist[:, 9:].max() == 0
    with pytest.raises(ValueError, match="more than 29 rolls"):
        _bearoff.build(30)
    with pytest.raises(ValueError, match="at least 2"):
        _bearoff.build(1)


def test_distributions_are_distributions_of_their_means(table):
    k = np.arange(MAX_ROLLS)
    for dist, mean in ((table.dist, table.mean), (table.first_dist, table.first_mean)):
        assert np.abs(dist.sum(axis=1) - 1).max() < 1e-12
        assert dist.min() >= 0
        assert np.abs(dist @ k - mean).max() < 1e-9
    on_board = table.counts.sum(axis=1)
    assert (table.mean[on_board == 0] == 0).all() and (table.mean[on_board > 0] >= 1).all()
    assert (table.first_mean[on_board < 15] == 0).all()
    assert (table.first_mean[on_board == 15] >= 1).all()
    assert (table.first_mean <= table.mean + 1e-12).all()


def small_positions(most):
    for n in range(most + 1):
        for combo in itertools.combinations_with_replacement(range(6), n):
            yield tuple(combo.count(p) for p in range(6))


def test_small_bear_offs_match_a_twin_through_the_move_generator(table):
    """Every position of at most 3 checkers, solved by whole-roll ends from the move
    generator (chain_ends for the doubles): the same expected rolls, and the same
    distribution wherever each roll's best end is unique."""
    twin_mean, twin_dist, compared = {}, {}, 0
    for mine in sorted(small_positions(3), key=lambda c: sum((p + 1) * n for p, n in enumerate(c))):
        if not any(mine):
            twin_mean[mine], twin_dist[mine] = 0.0, np.eye(MAX_ROLLS)[0]
            continue
        mean, dist, unique = 1.0, np.zeros(MAX_ROLLS), True
        for high, low in ROLLS:
            ends = sorted(whole_roll_ends(mine, high, low), key=lambda e: twin_mean[e])
            best = twin_mean[ends[0]]
            unique &= len(ends) == 1 or twin_mean[ends[1]] > best + 1e-12
            mean += prob(high, low) * best
            dist[1:] += prob(high, low) * twin_dist[ends[0]][:-1]
        twin_mean[mine], twin_dist[mine] = mean, dist
        q = table.rank(mine)
        assert table.mean[q] == pytest.approx(mean, abs=1e-12), mine
        if unique:
            assert np.abs(table.dist[q] - dist).max() < 1e-12, mine
            compared += 1
    assert len(twin_mean) == 84 and compared == 26


@pytest.mark.parametrize("first_off", [False, True])
def test_every_position_is_its_best_roll_by_roll(table, first_off):
    """The Bellman equation with the move generator's whole-roll ends, on random positions
    of up to 15 checkers (all 15 for the first checker off): the expected rolls are one
    roll plus the average over the 21 rolls of the best end's."""
    rng = random.Random(7 if first_off else 8)
    mean = table.first_mean if first_off else table.mean
    on_board = table.counts.sum(axis=1)
    pool = np.flatnonzero(on_board == 15) if first_off else np.flatnonzero(on_board > 0)
    for q in rng.sample(list(pool), 40):
        mine = tuple(int(c) for c in table.counts[q])
        expected = 1.0
        for high, low in ROLLS:
            ends = whole_roll_ends(mine, high, low)
            expected += prob(high, low) * min(float(mean[table.rank(e)]) for e in ends)
        assert mean[q] == pytest.approx(expected, abs=1e-9), mine


def twin_equity(table, roller, other, mars=True):
    """``race_equity`` by a plain double loop over both sides' numbers of rolls."""
    x, y = table.dist[roller], table.dist[other]
    fx, fy = table.first_dist[roller], table.first_dist[other]
    win = sum(x[k] * y[j] for k in range(MAX_ROLLS) for j in range(MAX_ROLLS) if k <= j)
    value = 2 * win - 1
    if mars:
        value += sum(x[k] * fy[j] for k in range(MAX_ROLLS) for j in range(MAX_ROLLS) if k <= j)
        value -= sum(y[k] * fx[j] for k in range(MAX_ROLLS) for j in range(MAX_ROLLS) if k < j)
    return value


@pytest.mark.parametrize("mars", [True, False])
def test_race_equity_matches_a_double_loop(table, mars):
    rng = random.Random(3)
    on_board = table.counts.sum(axis=1)
    live = np.flatnonzero(on_board > 0)
    full = np.flatnonzero(on_board == 15)
    for _ in range(60):
        roller = int(rng.choice(full if rng.random() < 0.5 else live))
        others = np.array([rng.choice(full if rng.random() < 0.5 else live) for _ in range(5)])
        values = table.equities(roller, others, mars)
        for other, value in zip(others, values):
            assert value == pytest.approx(twin_equity(table, roller, int(other), mars), abs=1e-12)
            assert -2 - 1e-12 <= value <= 2 + 1e-12


def test_race_equity_of_hand_counted_races():
    # one checker each on point 6: a side bears it off in one roll unless it rolls
    # 2-1, 3-1, 4-1 or 3-2 (8/36; every double escalates past 6 pips), and surely in
    # two. The roller loses only when it misses and the other side does not.
    one_each = Position.from_points([0] * 5 + [1] + [0] * 11 + [-1] + [0] * 6, 14, 14)
    lose = 8 / 36 * 28 / 36
    assert race_equity(one_each, 0) == pytest.approx(1 - 2 * lose, abs=1e-12)
    # fifteen on the 1-point against one on the 1-point: the side with one checker wins
    # on its first roll, whoever rolls first; with Black rolling first White is marred
    far = Position.from_points([15] + [0] * 11 + [-1] + [0] * 11, 0, 14)
    assert race_equity(far, 1) == pytest.approx(2.0, abs=1e-12)
    assert race_equity(far, 1, mars=False) == pytest.approx(1.0, abs=1e-12)


def test_bad_input_raises(table):
    with pytest.raises(GulBaraError, match="at most 15"):
        table.rank([16, 0, 0, 0, 0, 0])
    with pytest.raises(GulBaraError, match="at most 15 checkers, got 16"):
        table.rank([8, 8, 0, 0, 0, 0])
    with pytest.raises(GulBaraError, match="6 counts"):
        table.rank([1, 2, 3])
    with pytest.raises(GulBaraError, match=">= 0"):
        table.rank([1, -1, 0, 0, 0, 0])
    with pytest.raises(TypeError):
        table.rank("123456")
    with pytest.raises(TypeError, match="ints"):
        table.rank([1.5, 0, 0, 0, 0, 0])
    with pytest.raises(GulBaraError, match="ranks"):
        table.equities(0, [-1])
    with pytest.raises(GulBaraError, match="ranks"):
        table.equities(N_BEAROFF, [0])
    with pytest.raises(TypeError, match="integer"):
        table.equities(0, [0.5])
    with pytest.raises(GulBaraError, match="home"):
        race_equity(Position.from_code(gulbara.START_CODE), 0)
    won = Position.from_points([0] * 12 + [-3] + [0] * 11, 15, 12)
    with pytest.raises(GulBaraError, match="over"):
        race_equity(won, 1)
    assert home_counts(Position.from_code(gulbara.START_CODE), 0) is None
    assert not is_bearoff(gulbara.START_CODE)
    with pytest.raises(TypeError, match="position"):
        race_equity(42, 0)
    with pytest.raises(gulbara.InvalidSeatError):
        race_equity(won, 2)
    with pytest.raises(GulBaraError, match="bearoff_applies"):
        bearoff_values(Game(seed=1))
    with pytest.raises(GulBaraError, match="home"):
        bearoff_turn_value(gulbara.START_CODE, 0, gulbara.Rules())
    with pytest.raises(TypeError, match="ChainEnds"):
        bearoff_outcome_values([1, 2])
    with pytest.raises(GulBaraError, match="bear-off"):
        bearoff_outcome_values(chain_ends(gulbara.START_CODE, 0, 6))
    three = Position.from_points([3] + [0] * 11 + [-3] + [0] * 11, 12, 12)
    assert race_equity(three.code(), 1) == race_equity(three, 1)


# -- the net bots -------------------------------------------------------------

# White to play 5-3 in a bear-off, both sides past their exempt rolls
PLAIN = "G:2,3,1,2,3,4,,,,,,,-2,-3,-1,-4,-2,-3,,,,,,|0,0|0,0 next=play:W stage=5-3 roll=5-3 rolls=9,9 stuck=0"
# White to play an escalating 2-2 chain in a bear-off
CHAIN = ("G:2,3,1,2,3,4,,,,,,,-2,-3,-1,-4,-2,-3,,,,,,|0,0|0,0 next=chain:W stage=2-2-2-2 "
         "index=0 roll=2-2 rolls=9,9 stuck=0")


def test_database_applies_only_to_bear_offs_past_the_exempt_rolls():
    assert bearoff_applies(Game.from_state_code(PLAIN))
    assert bearoff_applies(Game.from_state_code(CHAIN))
    assert not bearoff_applies(Game.from_state_code(PLAIN.replace("rolls=9,9", "rolls=1,9")))
    # White's third roll, a double (exempt, one stage), with every later double escalating
    exempt = PLAIN.replace("stage=5-3 roll=5-3 rolls=9,9", "stage=3-3-3-3 roll=3-3 rolls=3,9")
    game = Game.from_state_code(exempt)
    assert not game.decision.is_chain and bearoff_applies(game)
    assert len(bearoff_values(game)) == len(game.legal_plays())
    outside = PLAIN.replace("G:2,3,1,2,3,4,,", "G:2,3,1,2,3,3,1,")
    assert not bearoff_applies(Game.from_state_code(outside))
    plain_rules = gulbara.Rules(escalation=False)
    assert not bearoff_applies(Game.from_state_code(PLAIN, rules=plain_rules))
    assert not bearoff_applies(Game(seed=1))


def test_net_bot_plays_the_database_best_play(table):
    game = Game.from_state_code(PLAIN)
    values = bearoff_values(game)
    plays = game.legal_plays()
    theirs = table.rank(home_counts(game.position, 1))
    for play, value in zip(plays, values):
        mine = home_counts(Position.from_code(play.code), 0)
        assert value == pytest.approx(-table.equities(theirs, np.array([table.rank(mine)]))[0])
    bot = NetBot()
    assert bot.choose(game) == plays[int(np.argmax(values))]
    ranked = bot.rank(game)
    assert ranked[0][0] == plays[int(np.argmax(values))]
    assert ranked[0][1] == pytest.approx(values.max())


def test_net_bot_plays_a_bear_off_chain_to_its_best_outcome():
    game = Game.from_state_code(CHAIN)
    outcomes = chain_ends(game.code(), 0, 2)
    values = bearoff_outcome_values(outcomes)
    best = float(values.max())
    bot = NetBot()
    while game.decision is not None and game.decision.seat == 0:
        game.play(bot.choose(game))
    reached = np.flatnonzero(
        [tuple(row) == tuple(game.position.points()) for row in outcomes.boards.tolist()])
    assert len(reached) == 1 and values[reached[0]] == pytest.approx(best)
    # each first stage's play is valued by its best outcome in rank()
    game = Game.from_state_code(CHAIN)
    assert bot.rank(game)[0][1] == pytest.approx(best)


def test_chain_that_bears_off_all_fifteen_is_worth_its_points():
    # every White checker on the 1- and 2-points: a 1-1 chain bears all off; Black none off
    code = ("G:8,7,,,,,,,,,,,-15,,,,,,,,,,,|0,0|0,0 next=chain:W stage=1-1-1-1 index=0 "
            "roll=1-1 rolls=9,9 stuck=0")
    game = Game.from_state_code(code)
    values = bearoff_outcome_values(chain_ends(game.code(), 0, 1))
    assert values.max() == 2.0
    game.play(NetBot().choose(game))
    while not game.is_over():
        game.play(NetBot().choose(game))
    assert game.result().winner == 0 and game.result().points == 2


def test_a_race_is_both_sides_in_their_own_last_half():
    """RULES §1.2-1.3: each side's own points 1..12 are the other's 13..24, so with every
    checker there (or off) no checker can block the other side's any more; one checker of
    either side on its own 13 or further back is still in contact."""
    from gulbara.eval.bearoff import is_race
    white = [2] * 6 + [1] * 3 + [0] * 3             # White's 1..12
    black = [-2] * 6 + [-1] * 3 + [0] * 3           # White's 13..24 = Black's 1..12
    assert is_race(Position.from_points(white + black, 0, 0))
    white_back = list(white + black)
    white_back[8], white_back[23] = 0, 1            # a White checker on its own 24
    assert not is_race(Position.from_points(white_back, 0, 0))
    black_back = list(white + black)                # a Black checker on its own 13 (White's
    black_back[20], black_back[0] = 0, -1           # 1), White's two there borne off
    assert not is_race(Position.from_points(black_back, 2, 0))
    assert not is_race(gulbara.START_CODE)
    both_home = [3] * 5 + [0] * 7 + [-3] * 5 + [0] * 7
    assert is_bearoff(Position.from_points(both_home, 0, 0))
    assert is_race(Position.from_points(both_home, 0, 0))      # a bear-off is a race
