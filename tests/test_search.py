"""Expectimax (gulbara.bots.search): 1-ply = argmax of the evaluator, 2-ply = an independent brute force."""

import numpy as np
import pytest

import gulbara
from gulbara import Game, START_CODE
from gulbara.encoding.features import encode_board, encode_boards
from gulbara.errors import GulBaraError
from positions import sample_games
from gulbara.bots.search import (HeuristicWeights, SearchResult, chance_outcomes, expectimax,
                            heuristic_evaluator, race_evaluator)

WEIGHTS = np.random.default_rng(5).normal(0, 0.05, 196).astype(np.float32)


def linear(features):
    """A colour-blind linear evaluator, bounded to [-1, 1]."""
    return np.tanh(features @ WEIGHTS)


# Decision states of seeded random games (every kind of stage).
STATES = sample_games(12, 3, Game.state_code,
                      lambda game, ply: ply % 9 == 4 and not game.is_over())

BEAR_OFF = [
    # White to play 6-5 with two checkers left: both off, Black has borne off none (a mars).
    "G:1,1,,,,,,,,,,-15,,,,,,,,,,,,|0,0|13,0 next=play:W stage=6-5 roll=6-5 rolls=9,9 stuck=0",
    # A short race, Black to play.
    "G:2,1,1,,,,,,,,,,-1,-2,,,,,,,,,,|0,0|11,12 next=play:B stage=3-1 roll=3-1 rolls=20,20 "
    "stuck=0",
    # An escalating 5-5 for White in its home board: chain stages in a row.
    "G:3,2,,1,,,,,,,,,-2,,-1,,,,,,,,,|0,0|9,12 next=chain:W stage=5-5-5-5 index=0 roll=5-5 "
    "rolls=12,12 stuck=0",
    # A remainder stage for Black, then its later stages.
    "G:3,2,,1,,,,,,,,,-2,,-1,,,,,,,,,|0,0|9,12 next=remainder:B stage=4-4 index=0 then=5x4,6x4 "
    "roll=3-3 roller=W rolls=12,12 stuck=0",
]


# ---------------------------------------------------------------------------
# An independent brute force (no cache, no batching, no ordering)
# ---------------------------------------------------------------------------

def points_for(seat, game):
    result = game.result()
    if result.winner is None:
        return 0.0
    return float(result.points if result.winner == seat else -result.points)


def leaf_best(game, root, evaluate):
    """A decision scored one ply deep, in points for ``root``."""
    ends = game.legal_plays()
    mover = ends.seat
    values = []
    for play in ends:
        if play.ends_game:
            child = game.copy(auto_roll=False)
            child.play(play)
            v = points_for(mover, child)
        else:
            v = float(evaluate(encode_board(play.code, mover)[None, :])[0])
        values.append(v)
    best = max(values)
    return best if mover == root else -best


def expected_leaf(game, root, evaluate):
    """After a play: the game's end, the next decision, or the average over the rolls."""
    if game.is_over():
        return points_for(root, game)
    if game.is_decision():
        return leaf_best(game, root, evaluate)
    total = 0.0
    for a in range(1, 7):
        for b in range(1, 7):           # all 36 ordered rolls, 1/36 each
            child = game.copy(auto_roll=False)
            child.roll(a, b)
            total += leaf_best(child, root, evaluate) / 36
    return total


def brute_force_2ply(game, evaluate):
    root = game.to_move
    mover = game.decision.seat
    values = []
    for play in game.legal_plays():
        child = game.copy(auto_roll=False)
        child.play(play)
        v = expected_leaf(child, root, evaluate)
        values.append(v if mover == root else -v)
    best = max(values)
    return best if mover == root else -best


# ---------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("code", BEAR_OFF + STATES)
def test_one_ply_is_the_argmax_of_the_evaluator(code):
    game = Game.from_state_code(code)
    ends = game.legal_plays()
    result = expectimax(game, 1, linear)
    expected = []
    for play in ends:
        if play.ends_game:
            child = game.copy(auto_roll=False)
            child.play(play)
            expected.append(points_for(ends.seat, child))
        else:
            expected.append(float(linear(encode_board(play.code, ends.seat)[None, :])[0]))
    best = int(np.argmax(expected))        # the first of equal values, as in canonical order
    assert result.play == ends[best]
    assert result.value == pytest.approx(expected[best], abs=1e-6)
    assert result.seat == game.to_move and result.depth == 1 and not result.cut
    assert [play for play, _ in result.scores][0] == ends[best]
    assert len(result.scores) == len(ends)


@pytest.mark.parametrize("code", BEAR_OFF + STATES[:6])
def test_two_ply_value_equals_brute_force(code):
    game = Game.from_state_code(code)
    before = game.state_code()
    expected = brute_force_2ply(game, linear)
    for cache in (True, False):
        result = expectimax(game, 2, linear, cache=cache)
        assert result.value == pytest.approx(expected, abs=1e-5)
        assert result.depth == 2 and not result.cut
    assert game.state_code() == before


def test_a_mars_is_two_points():
    game = Game.from_state_code(BEAR_OFF[0])
    result = expectimax(game, 2, linear)
    assert result.value == 2.0 and str(result.play) == "2/off 1/off"
    no_mars = Game.from_state_code(BEAR_OFF[0], gulbara.Rules(mars=False))
    assert expectimax(no_mars, 1, linear).value == 1.0


def test_root_at_a_chance_node_and_the_opening():
    game = Game.from_state_code("G:2,1,1,,,,,,,,,,-1,-2,,,,,,,,,,|0,0|11,12 next=roll:B "
                                "rolls=20,20 stuck=0")
    result = expectimax(game, 1, linear)
    assert result.play is None and result.seat == 1
    expected = 0.0
    for a in range(1, 7):
        for b in range(1, 7):
            child = game.copy(auto_roll=False)
            child.roll(a, b)
            expected += leaf_best(child, 1, linear) / 36
    assert result.value == pytest.approx(expected, abs=1e-6)
    # The opening: each side starts half the time with mirrored positions, so a
    # colour-blind evaluator gives the opening the value 0 (RULES §6).
    opening = Game.new_perft_root()
    assert len(chance_outcomes(opening)) == 30
    assert expectimax(opening, 1, linear).value == pytest.approx(0.0, abs=1e-9)


def test_budget_cuts_back_to_the_last_completed_depth():
    game = Game.from_state_code(STATES[2])
    one = expectimax(game, 1, linear)
    cut = expectimax(game, 3, linear, budget_nodes=50)
    assert cut.cut and cut.depth == 1 and cut.play == one.play and cut.value == one.value
    assert cut.nodes > 50
    timed = expectimax(game, 3, linear, budget_seconds=1e-4)
    assert timed.cut and timed.depth >= 1


def test_shared_cache_and_default_evaluator():
    game = Game.from_state_code(STATES[4])
    table = {}
    first = expectimax(game, 2, cache=table)
    assert table and expectimax(game, 2, cache=table).value == first.value
    assert isinstance(first, SearchResult)
    assert expectimax(game, 2, heuristic_evaluator, cache=False).value == pytest.approx(first.value)
    # The default is the heuristic evaluator, searched like any other: 1-ply is its argmax.
    ends = game.legal_plays()
    values = heuristic_evaluator(np.stack([encode_board(play.code, ends.seat) for play in ends]))
    one = expectimax(game, 1)
    assert one.play == ends[int(np.argmax(values))]
    assert one.value == pytest.approx(float(values.max()), abs=1e-6)
    assert gulbara.bots.simple.ExpectimaxBot(1).choose(game) == one.play


def test_race_evaluator_is_still_available():
    game = Game.from_state_code(STATES[4])
    ends = game.legal_plays()
    values = race_evaluator(np.stack([encode_board(play.code, ends.seat) for play in ends]))
    assert expectimax(game, 1, race_evaluator).play == ends[int(np.argmax(values))]


EXTREMES = ["G:,,,,,,,,,,,-15,,,,,,,,,,,,15|0,0|0,0",          # the start
            "G:15,,,,,,,,,,,,,,,,,,,,,,,-15|0,0|0,0",          # White home, Black at its start
            "G:1,,,,,,,,,,,,,,,,,-1,,,,,,|0,0|14,14",          # one checker each side left
            "G:1,,,,,,,,,,,,,,,,-14,,,,,,,|0,0|14,1"]


def board_codes(n, seed=7):
    """Position codes of decisions reached by seeded random games, after extreme positions."""
    return EXTREMES + sample_games(n - len(EXTREMES), seed, lambda game: game.position.code(),
                                   lambda game, ply: ply % 7 == 3 and not game.is_over())


def test_heuristic_evaluator_is_bounded_and_antisymmetric():
    codes = board_codes(200)
    white, black = encode_boards(codes, 0), encode_boards(codes, 1)
    for weights in (None, HeuristicWeights(tempo=0.0), HeuristicWeights(mars=0.0, trap=5.0)):
        v_white = heuristic_evaluator(white, weights)
        v_black = heuristic_evaluator(black, weights)
        assert v_white.shape == (len(codes),) and np.isfinite(v_white).all()
        for v in (v_white, v_black):
            assert (v >= -2.0).all() and (v <= 2.0).all()
        # Each side sees the other on roll: the two views sum to at most 0 (the tempo), and
        # exactly to 0 with no tempo.
        if weights is not None and weights.tempo == 0:
            np.testing.assert_allclose(v_white, -v_black, atol=1e-5)
        else:
            assert (v_white + v_black <= 1e-6).all()
            assert (v_black[v_white > 0] < 0).all() and (v_white[v_black > 0] < 0).all()
    # With no mars the values stay in [-1, 1].
    v = heuristic_evaluator(white, HeuristicWeights(mars=0.0))
    assert (np.abs(v) <= 1.0).all()


def test_heuristic_scores_are_the_greedy_scores_of_both_sides():
    # Rebuilt from the features, each side's score without the borne-off term is the
    # greedy bot's integer score of the position for that side.
    from gulbara import Position
    from gulbara.eval.greedy import greedy_score
    from gulbara.bots.search import _scores

    codes = board_codes(300, seed=11)
    for seat in (0, 1):
        mine, theirs, _ = _scores(encode_boards(codes, seat), HeuristicWeights(off=0.0))
        positions = [Position.from_code(code) for code in codes]
        np.testing.assert_allclose(mine, [greedy_score(p, seat) for p in positions], atol=1e-3)
        np.testing.assert_allclose(theirs, [greedy_score(p, 1 - seat) for p in positions],
                                   atol=1e-3)


def test_heuristic_evaluator_prefers_the_obvious():
    # A race far ahead, with the opponent still at its start: close to a mars.
    ahead, behind = encode_boards(["G:5,5,5,,,,,,,,,-15,,,,,,,,,,,,|0,0|0,0"] * 2, [0, 1])
    assert heuristic_evaluator(ahead[None])[0] > 1.5 > -1.5 > heuristic_evaluator(behind[None])[0]
    # A six-point prime in front of the opponent's checkers is better than the same checkers
    # on two points, pips equal.
    prime = "G:,,,,,2,2,2,2,2,2,-15,,,,,,,,,,,,3|0,0|0,0"
    stack = "G:,,,,,,,6,6,,,-15,,,,,,,,,,,,3|0,0|0,0"
    flat = HeuristicWeights(mars=0.0, scale=1000.0)        # far from saturating
    values = heuristic_evaluator(encode_boards([prime, stack], 0), flat)
    assert values[0] > values[1]


def test_heuristic_evaluator_bad_input():
    with pytest.raises(ValueError, match="shape"):
        heuristic_evaluator(np.zeros((3, 10), np.float32))
    with pytest.raises(TypeError, match="HeuristicWeights"):
        heuristic_evaluator(np.zeros((1, 196), np.float32), {"pips": 1.0})
    with pytest.raises(ValueError, match="scale"):
        HeuristicWeights(scale=0.0)
    with pytest.raises(ValueError, match="mars"):
        HeuristicWeights(mars=3.0)
    with pytest.raises(TypeError, match="pips"):
        HeuristicWeights(pips="4")


def test_search_of_a_finished_game_and_a_match():
    game = Game.from_state_code("G:,,,,,,,,,,,-15,,,,,,,,,,,,|0,0|15,0 next=over "
                                "result=W:2:mars rolls=30,29 stuck=0")
    result = expectimax(game, 2, linear)
    assert result.play is None and result.nodes == 0
    match = gulbara.Match(target=1, seed=4)
    assert expectimax(match, 1, linear).play in match.legal_plays()


def test_bad_input():
    game = Game(seed=1)
    with pytest.raises(GulBaraError):
        expectimax(game, 0, linear)
    with pytest.raises(TypeError):
        expectimax(game, 1.5, linear)
    with pytest.raises(TypeError):
        expectimax(START_CODE, 1, linear)
    with pytest.raises(TypeError):
        expectimax(game, 1, "linear")
    with pytest.raises(ValueError, match=r"shape \(2,\)"):
        expectimax(game, 1, lambda x: np.zeros(3))
    with pytest.raises(ValueError, match="finite"):
        expectimax(game, 1, lambda x: np.full(len(x), np.nan))
    with pytest.raises(GulBaraError):
        expectimax(game, 2, linear, budget_nodes=0)
    with pytest.raises(TypeError):
        expectimax(game, 2, linear, cache="yes")
    assert game.decision.dice == Game(seed=1).decision.dice      # unchanged


REFERENCE_SCRIPT = """
import json, gulbara
from gulbara.encoding.features import encode_afterstates, encode_game
from gulbara.bots.search import expectimax
game = gulbara.Game.from_state_code({code!r})
result = expectimax(game, 2)
print(json.dumps({{"backend": gulbara.BACKEND_NAME, "state": encode_game(game).tolist(),
                  "after": encode_afterstates(game.legal_plays()).tolist(),
                  "value": result.value, "play": str(result.play)}}))
"""


def test_the_same_under_the_reference_backend():
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    script = REFERENCE_SCRIPT.format(code=BEAR_OFF[1])
    answers = []
    for backend in ("core", "reference"):
        env = dict(os.environ, GULBARA_BACKEND=backend,
                   PYTHONPATH=os.pathsep.join(sys.path))
        out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                             text=True, check=True, cwd=Path(__file__).parent).stdout
        answers.append(json.loads(out))
    core, reference = answers
    assert (core["backend"], reference["backend"]) == ("core", "reference")
    assert core["state"] == reference["state"] and core["after"] == reference["after"]
    assert core["play"] == reference["play"]
    assert core["value"] == pytest.approx(reference["value"], abs=1e-9)


def test_regression_chance_outcomes_of_something_that_is_not_a_game():
    """chance_outcomes(None) raised AttributeError."""
    for bad in (None, gulbara.Board()):
        with pytest.raises(TypeError, match="gulbara.Game"):
            chance_outcomes(bad)
    assert chance_outcomes(gulbara.Match(auto_roll=False)) == chance_outcomes(Game.new_perft_root())
