"""A PettingZoo AEC environment of one game of Gul Bara, played one step action at a time.

Agents are ``"white"`` (seat 0) and ``"black"`` (seat 1). The agent to act
is the side the game names: the roller for the stages of a roll and of its
escalation chain, the receiver for the stages of a remainder (RULES §4-5),
so one agent often acts several times in a row, once per die. Each action is
one step (see :mod:`gulbara.envs._actions`: ``(from - 1) * 6 + (die - 1)``,
and ``144`` to pass when no die can be played); the dice are rolled inside
the environment (seeded: ``reset(seed=s)`` plays the dice of
``gulbara.Game(seed=s)``).

Observation of an agent: ``{"observation": float32[STATE_FEATURES],
"action_mask": int8[145]}`` (the game-state block of
:mod:`gulbara.encoding.features` from the agent's point of view, mid-stage aware; the
mask is all zero for the agent not to act). Rewards come at the end only:
the winner gets the points it wins (1, or 2 for a mars, RULES §7.1), the
loser as many negative, and a draw by the stuck rule (RULES §7.2) gives 0.
An action that is not legal ends the game with ``-1`` for the agent that made
it and ``0`` for the other (PettingZoo's classic convention; ``infos`` then
say ``"illegal_action": True``); with ``illegal_action="raise"`` it raises
:class:`~gulbara.envs.IllegalActionError` (a ``ValueError``) and changes nothing.

>>> from gulbara.envs.pettingzoo import env
>>> e = env()
>>> e.reset(seed=24)
>>> e.agent_selection                             # White opens with 6-4
'white'
>>> obs, reward, terminated, truncated, info = e.last()
>>> [int(a) for a in obs["action_mask"].nonzero()[0]]
[141, 143]
>>> e.step(143); e.agent_selection                # 24/18: the 4 is still to play
'white'
>>> e.step(141); e.agent_selection                # 24/20 completes the stage
'black'
"""

import random
from typing import Any, Dict, Optional, cast

import numpy as np

try:
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ImportError as exc:                          # pragma: no cover - depends on the install
    raise ImportError("gulbara.envs.pettingzoo needs pettingzoo and gymnasium: "
                      "pip install 'gulbara[rl]'") from exc

from gulbara.envs._actions import N_ACTIONS, IllegalActionError, check_action
from gulbara.envs._driver import StepGame
from gulbara.envs._observe import STATE_FEATURES, observe
from gulbara.envs._render import render
from gulbara.errors import GulBaraError, shown
from gulbara.game.driver import Game
from gulbara.rules import Rules, checked_rules

__all__ = ["env", "raw_env", "AGENTS"]

#: The agents, by seat.
AGENTS = ("white", "black")


def env(**kwargs) -> AECEnv:
    """The environment with PettingZoo's order checks (``reset`` before anything else).

    Keyword arguments go to :class:`raw_env`.
    """
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


class raw_env(AECEnv):
    """One game of Gul Bara as an AEC environment (see the module docstring).

    ``rules`` is a :class:`gulbara.Rules` (the default rules when ``None``);
    ``render_mode`` is ``None``, ``"ansi"`` (``render()`` returns the board as
    text) or ``"human"`` (the board is printed after every reset and step).
    """

    metadata: Dict[str, Any] = {"render_modes": ["ansi", "human"], "name": "gulbara_v0",
                                "is_parallelizable": False}

    def __init__(self, rules: Optional[Rules] = None, render_mode: Optional[str] = None,
                 illegal_action: str = "lose") -> None:
        super().__init__()
        if illegal_action not in ("raise", "lose"):
            raise GulBaraError(f"illegal_action must be 'lose' or 'raise', got {illegal_action!r}")
        self.illegal_action = illegal_action
        checked_rules(rules)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise GulBaraError(f"render_mode must be None, 'ansi' or 'human', got {render_mode!r}")
        self.rules = rules
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        observation = spaces.Box(0.0, 1.0, (STATE_FEATURES,), dtype=np.float32)
        mask = spaces.Box(0, 1, (N_ACTIONS,), dtype=np.int8)
        self.observation_spaces = {
            agent: spaces.Dict({"observation": observation, "action_mask": mask})
            for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(N_ACTIONS) for agent in self.possible_agents}
        self._seeds = random.Random()                   # the seeds of games reset without one
        self._driver: Optional[StepGame] = None
        self._illegal = False

    def observation_space(self, agent: str):
        return self.observation_spaces[agent]

    def action_space(self, agent: str):
        return self.action_spaces[agent]

    # -- the game ------------------------------------------------------------

    @property
    def game(self) -> Game:
        """The :class:`gulbara.Game` being played (at the start of the stage being played)."""
        return cast(StepGame, self._driver).game           # (None before reset)

    @property
    def driver(self) -> StepGame:
        """The step driver: the game and the steps taken in the current stage."""
        return cast(StepGame, self._driver)                # (None before reset)

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None) -> None:
        """Start a new game; ``seed`` fixes its dice (those of ``gulbara.Game(seed=seed)``).

        Without a seed, the game's seed is drawn from a generator that the
        last seed given reseeded, so a seeded first reset fixes every game after it.
        """
        if seed is not None:
            game = Game(self.rules, seed=seed)          # checks the seed before any change
            self._seeds.seed(seed)
        else:
            game = Game(self.rules, seed=self._seeds.randrange(2**63))
        self._driver = StepGame(game)
        self._illegal = False
        self.agents = list(self.possible_agents)
        self.rewards = {agent: 0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos: Dict[str, Dict[str, Any]] = {agent: {} for agent in self.agents}
        assert self._driver.to_act is not None              # a new game: a stage to play
        self.agent_selection = AGENTS[self._driver.to_act]
        if self.render_mode == "human":
            self.render()

    def _started(self, call: str) -> StepGame:
        if self._driver is None:
            raise GulBaraError(f"call reset() before {call}()")
        return self._driver

    def observe(self, agent: str) -> dict:
        if agent not in AGENTS:
            raise GulBaraError(f"unknown agent {shown(agent)}; the agents are "
                               f"{', '.join(map(repr, AGENTS))}")
        seat = AGENTS.index(agent)
        driver = self._started("observe")
        mask = (driver.action_mask() if driver.to_act == seat and not self._illegal
                else np.zeros(N_ACTIONS, dtype=np.int8))
        return {"observation": observe(driver, seat), "action_mask": mask}

    def step(self, action) -> None:
        driver = self._started("step")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        try:
            action = check_action(action)
            driver.apply(action)                         # raises on an illegal action, unchanged
        except IllegalActionError:
            if self.illegal_action == "raise":
                raise
            self._lose_by_illegal_action(agent)
            return
        self._cumulative_rewards[agent] = 0
        self._clear_rewards()
        game = driver.game
        if game.is_over():
            result = game.result()
            assert result is not None
            for seat, name in enumerate(AGENTS):
                self.rewards[name] = result.score[seat] - result.score[1 - seat]  # RULES §7.1
                self.terminations[name] = True
                self.infos[name] = {"result": result.describe()}
        else:
            assert driver.to_act is not None                # the game goes on
            self.agent_selection = AGENTS[driver.to_act]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _lose_by_illegal_action(self, agent: str) -> None:
        """The game ends: -1 for ``agent``, 0 for the other (PettingZoo classic)."""
        self._cumulative_rewards[agent] = 0
        self._clear_rewards()
        for name in self.agents:
            self.rewards[name] = -1 if name == agent else 0
            self.terminations[name] = True
            self.infos[name] = {"illegal_action": True}
        self._illegal = True
        self._accumulate_rewards()

    def render(self) -> Optional[str]:
        """The board, the stage and the steps taken: returned ("ansi") or printed ("human")."""
        if self.render_mode is not None:
            self._started("render")
        return render(self._driver, self.render_mode, "use raw_env(render_mode='ansi')")

    def close(self) -> None:
        pass
