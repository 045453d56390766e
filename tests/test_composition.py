"""Whole chains against a second, independent algorithm: per-checker composition.

``composition`` finds a chain's outcomes (completions and stalls,
RULES §4.4, §5.6) checker by checker, where the compiled engine and the
reference go stage by stage. It applies when no step of the chain can bear
off (RULES §2.3). These tests compare the two on chains met in real games and
on random positions.
"""

import random

import pytest

import gulbara
from gulbara.tools import suites
from composition import compose_chain, composable, mover_points
from gulbara.conventions import OTHER_POINT


def engine_outcomes(code, seat, first, max_ends=None):
    """chain_ends' outcomes in the composition's form, each once."""
    chain = gulbara.chain_ends(code, seat, first, max_ends=max_ends)
    stops = chain.stop_reasons()
    found = {(mover_points(chain.code(i), seat)[0], stops[i], int(chain.stop_number[i]),
              int(chain.played[i])) for i in range(len(chain))}
    assert len(found) == len(chain)                 # outcomes are distinct (RULES §5.6)
    return found


def position_code(seat, mine, theirs):
    """A code from ``seat``'s checkers and the opponent's, both per the mover's own point."""
    points = [0] * 24
    sign = 1 if seat == 0 else -1
    for own, n in mine.items():
        points[(own if seat == 0 else OTHER_POINT[own - 1]) - 1] += sign * n
    for own, n in theirs.items():
        points[(own if seat == 0 else OTHER_POINT[own - 1]) - 1] -= sign * n
    return "G:" + ",".join(str(v) if v else "" for v in points) + "|0,0|0,0"


def random_chain(rng):
    """A chain whose mover is far from home (no step can bear off), against a
    scattered opponent, from a random first number."""
    seat = rng.randrange(2)
    mine = {}
    for _ in range(15):
        point = rng.randrange(13, 25)
        mine[point] = mine.get(point, 0) + 1
    free = [p for p in range(1, 25) if p not in mine]
    theirs = {p: 1 for p in rng.sample(free, rng.randint(6, min(12, len(free))))}
    rest = 15 - len(theirs)
    theirs[rng.choice(list(theirs))] += rest
    return position_code(seat, mine, theirs), seat, rng.choice((2, 3, 3, 4, 4, 5, 5, 6))


REAL_SMALL = [c for c in suites.REAL_GAME_CHAINS
              if c.outcomes <= 900 and c.first >= 2
              and composable(mover_points(c.code, c.seat)[0], c.first)]


def test_the_real_game_cases_are_there():
    assert len(REAL_SMALL) >= 6
    assert {c.first for c in REAL_SMALL} >= {2, 3}


@pytest.mark.parametrize("chain", REAL_SMALL, ids=lambda c: f"game{c.seed}-ply{c.ply}")
def test_composition_equals_chain_ends_on_real_game_chains(chain):
    composed = compose_chain(chain.code, chain.seat, chain.first)
    assert len(composed) == chain.outcomes
    assert composed == engine_outcomes(chain.code, chain.seat, chain.first)


def test_composition_equals_chain_ends_on_random_positions():
    rng = random.Random(16)
    kinds = set()
    compared = 0
    while compared < 150:
        code, seat, first = random_chain(rng)
        try:
            exact = engine_outcomes(code, seat, first, max_ends=3000)
        except gulbara.EnumerationLimitError:
            continue                    # (the composition is slow on big chains)
        if len(exact) > 1000 or (first == 2 and len(exact) > 300):
            continue
        assert compose_chain(code, seat, first) == exact, (code, seat, first)
        kinds |= {stop for _, stop, _, _ in exact}
        compared += 1
    assert kinds == {"complete", "stalled"}


@pytest.mark.parametrize("seat", [0, 1])
def test_composition_equals_chain_ends_on_an_unstarted_and_a_stalled_chain(seat):
    unstarted = position_code(seat, {24: 15}, {18: 15})         # 24/18 held: no 6 to play
    assert compose_chain(unstarted, seat, 6) == engine_outcomes(unstarted, seat, 6) == {
        (mover_points(unstarted, seat)[0], "unstarted", 6, 0)}
    # 1s: 24/23 is held and 20/19/18 stops at 19, so one 1 of four is played
    stalled = position_code(seat, {24: 14, 20: 1}, {23: 12, 22: 1, 21: 1, 18: 1})
    composed = compose_chain(stalled, seat, 1)
    assert composed == engine_outcomes(stalled, seat, 1)
    assert {(stop, number, played) for _, stop, number, played in composed} == {
        ("stalled", 1, 1)}


@pytest.mark.slow
@pytest.mark.parametrize("chain", [c for c in suites.REAL_GAME_CHAINS if 900 < c.outcomes <= 3000
                                   and composable(mover_points(c.code, c.seat)[0], c.first)],
                         ids=lambda c: f"game{c.seed}-ply{c.ply}")
def test_composition_equals_chain_ends_on_bigger_real_game_chains(chain):
    assert compose_chain(chain.code, chain.seat, chain.first) == engine_outcomes(
        chain.code, chain.seat, chain.first)


def test_a_chain_that_may_bear_off_is_refused():
    code = "G:5,3,,,,,,,,,,,-8,-1,-1,,,,,,,,,|0,0|7,5"
    assert not composable(mover_points(code, 0)[0], 1)
    with pytest.raises(ValueError, match="bear off"):
        compose_chain(code, 0, 1)


def test_mover_points_follow_the_black_frame():
    counts, held = mover_points("G:,,,,,,,,,,,-15,,,,,,,,,,,,15|0,0|0,0", 1)
    assert counts[23] == 15 and sum(counts) == 15
    assert held == {12}
    counts, held = mover_points("G:,,,,,,,,,,,-15,,,,,,,,,,,,15|0,0|0,0", 0)
    assert counts[23] == 15 and held == {12}
