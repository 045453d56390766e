"""Gul Bara as a real OpenSpiel game: ``pyspiel.load_game("gul_bara")``.

Registered when :mod:`gulbara.envs.openspiel` is imported with OpenSpiel installed
(``pip install "gulbara[openspiel]"``). The game is the adapter of :mod:`gulbara.envs.openspiel`
(the same step actions, chance nodes, observation and returns) behind ``pyspiel.Game`` and
``pyspiel.State``, so OpenSpiel's own algorithms (MCTS, ...) and tests (``random_sim_test``) run
on it, and states serialize (``pyspiel.serialize_game_and_state``: the action history, replayed).

The game parameter ``rules`` takes the ``--rules`` grammar (``"default"``, a preset, options):
``pyspiel.load_game("gul_bara(rules=plain-doubles)")``.
"""

import numpy as np
import pyspiel

from gulbara.envs._actions import N_ACTIONS
from gulbara.envs._observe import STATE_FEATURES

__all__ = ["GAME_TYPE", "PyspielGulBaraGame", "PyspielGulBaraState", "register"]

#: Moves (steps and chance outcomes) a game may take: far more than any game seen (a stuck
#: game ends after 100 rolls without a move, RULES §7.2).
MAX_GAME_LENGTH = 100_000

GAME_TYPE = pyspiel.GameType(
    short_name="gul_bara",
    long_name="Gul Bara (rosespring backgammon)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"rules": "default"})


class PyspielGulBaraGame(pyspiel.Game):
    """The OpenSpiel game (see the module docstring)."""

    def __init__(self, params=None):
        from gulbara.rules import Rules
        from gulbara.envs.openspiel import MAX_CHANCE_OUTCOMES, GulBaraGame
        params = dict(params or {})
        self.rules = Rules.from_text(params.get("rules", "default"))
        self.adapter = GulBaraGame(self.rules)
        info = pyspiel.GameInfo(num_distinct_actions=N_ACTIONS,
                                max_chance_outcomes=MAX_CHANCE_OUTCOMES, num_players=2,
                                min_utility=-2.0, max_utility=2.0, utility_sum=0.0,
                                max_game_length=MAX_GAME_LENGTH)
        super().__init__(GAME_TYPE, info, params)

    def new_initial_state(self):
        return PyspielGulBaraState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return _Observer()


class PyspielGulBaraState(pyspiel.State):
    """A state: the adapter's state, driven through OpenSpiel's API."""

    def __init__(self, game):
        super().__init__(game)
        self._held = _Held(game.adapter.new_initial_state())

    @property
    def inner(self):
        """The adapter's :class:`gulbara.envs.openspiel.GulBaraState`."""
        return self._held.state

    def current_player(self):
        player = self.inner.current_player()
        if player == -1:
            return pyspiel.PlayerId.CHANCE
        if player == -4:
            return pyspiel.PlayerId.TERMINAL
        return player

    def _legal_actions(self, player):
        return self.inner.legal_actions()

    def chance_outcomes(self):
        return self.inner.chance_outcomes()

    def _apply_action(self, action):
        self.inner.apply_action(int(action))

    def _action_to_string(self, player, action):
        text = self.inner.action_to_string(player, action)
        if player >= 0 and action < N_ACTIONS - 1 and text.endswith("/off"):
            text += f" ({action % 6 + 1})"        # 3/off with a 4 and with a 5 are two actions
        return text

    def is_terminal(self):
        return self.inner.is_terminal()

    def returns(self):
        return self.inner.returns()

    def __str__(self):
        return str(self.inner)


class _Held:
    """The adapter state, cloned (not deep-copied member by member) when OpenSpiel clones the
    Python state by deep-copying its attributes."""

    __slots__ = ("state",)

    def __init__(self, state):
        self.state = state

    def __deepcopy__(self, memo):
        return _Held(self.state.clone())

    def __reduce__(self):
        # pickled (OpenSpiel pickles a Python state's attributes) as the rules and the
        # action history, replayed when read back
        return _replayed, (self.state.get_game().rules, tuple(self.state.history()))


def _replayed(rules, history):
    from gulbara.envs.openspiel import GulBaraGame
    state = GulBaraGame(rules).new_initial_state()
    for action in history:
        state.apply_action(action)
    return _Held(state)


class _Observer:
    """The 220 state features of the adapter (``gulbara.encoding.features``), from ``player``'s view."""

    def __init__(self):
        self.tensor = np.zeros(STATE_FEATURES, dtype=np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state, player):
        self.tensor[:] = state.inner.observation_array(player)

    def string_from(self, state, player):
        return state.inner.observation_string(player)


def register() -> None:
    """Register ``gul_bara`` with OpenSpiel (once)."""
    if "gul_bara" not in pyspiel.registered_names():
        pyspiel.register_game(GAME_TYPE, PyspielGulBaraGame)
