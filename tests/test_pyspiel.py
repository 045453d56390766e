"""The pyspiel game (gulbara.envs._pyspiel): OpenSpiel's own tests and algorithms on it."""

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import gulbara.envs.openspiel  # noqa: E402,F401  registers gul_bara
from gulbara.envs.openspiel import GulBaraGame  # noqa: E402


def test_load_game_and_basic_api():
    game = pyspiel.load_game("gul_bara")
    assert game.num_players() == 2 and game.num_distinct_actions() == 145
    assert game.observation_tensor_shape() == [220]
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    state = game.new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == 30
    state.apply_action(5 * 6 + 3)                    # White's 6, Black's 4: White opens 6-4
    assert state.current_player() == 0 and state.legal_actions() == [141, 143]
    adapter = GulBaraGame().new_initial_state()
    adapter.apply_action(5 * 6 + 3)
    assert np.array_equal(np.array(state.observation_tensor(0), dtype=np.float32),
                          adapter.observation_array(0))
    assert state.action_to_string(0, 143) == "24/18"


def test_random_sim_test_with_serialization():
    for rules in ("default", "plain-doubles"):
        game = pyspiel.load_game("gul_bara", {"rules": rules})
        pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_serialize_and_clone_keep_the_state():
    game = pyspiel.load_game("gul_bara")
    state = game.new_initial_state()
    rng = np.random.default_rng(3)
    for _ in range(60):
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(actions, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    again = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))[1]
    clone = state.clone()
    for other in (again, clone):
        assert str(other) == str(state) and other.history() == state.history()
        assert other.legal_actions() == state.legal_actions()
    clone.apply_action(clone.legal_actions()[0] if not clone.is_chance_node()
                       else clone.chance_outcomes()[0][0])
    assert clone.history() != state.history()          # independent


class _RaceEvaluator:
    """For MCTS: the pip-count race as the value, uniform priors (chance: the dice)."""

    def evaluate(self, state):
        board = state.inner.game.board()
        value = float(np.tanh((board.pip_count(1) - board.pip_count(0)) / 60.0))
        return np.array([value, -value])

    def prior(self, state):
        if state.is_chance_node():
            return state.chance_outcomes()
        actions = state.legal_actions()
        return [(a, 1.0 / len(actions)) for a in actions]


def test_openspiel_mcts_bot_against_a_random_bot():
    from open_spiel.python.algorithms import mcts
    from open_spiel.python.bots import uniform_random
    game = pyspiel.load_game("gul_bara")
    rng = np.random.RandomState(0)
    returns = []
    for first in (0, 1):
        bots = {first: mcts.MCTSBot(game, uct_c=1.4, max_simulations=8,
                                    evaluator=_RaceEvaluator(), random_state=rng),
                1 - first: uniform_random.UniformRandomBot(1 - first, rng)}
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes())
                state.apply_action(int(rng.choice(actions, p=probs)))
            else:
                state.apply_action(bots[state.current_player()].step(state))
        returns.append(state.returns()[first])
    assert all(r in (-2.0, -1.0, 0.0, 1.0, 2.0) for r in returns)
