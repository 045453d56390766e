"""A Gymnasium environment: one game of Gul Bara against a built-in bot, one step action at a time.

Importing this module registers it as ``"GulBara-v0"``::

    import gymnasium, gulbara.envs.gymnasium
    env = gymnasium.make("GulBara-v0", opponent="greedy")

(``action_mode="ends"`` makes the afterstate env of :mod:`gulbara.envs.afterstates`;
``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")`` the native vector env of
:mod:`gulbara.envs.vector`.)

The agent plays seat ``seat`` (0 White, 1 Black); the opponent's stages are
played by the bot in between (``bot.choose(game)`` for a whole stage). An
action is one step (see :mod:`gulbara.envs._actions`: ``(from - 1) * 6 +
(die - 1)``, ``144`` to pass when no die can be played); the legal ones are
``info["action_mask"]`` (int8, 145). The observation is the game-state block
of :mod:`gulbara.encoding.features` (``STATE_FEATURES`` float32 values) seen by the
agent, mid-stage aware. The reward is 0 until the end, then the points won
(1, or 2 for a mars, RULES §7.1), as many negative for a loss, 0 for a draw
by the stuck rule (RULES §7.2).

An action that is not legal ends the episode with the reward ``-1.0`` for
the agent that made it (PettingZoo's classic convention, and what
``gymnasium.utils.env_checker``, which samples actions without the mask,
needs); ``illegal_action="raise"`` raises
:class:`~gulbara.envs.IllegalActionError` (a ``ValueError``) instead and
changes nothing. An error of the opponent's bot passes through and leaves the
environment as it was before the step.

At a terminal step (and in the info of a lost-by-illegal-action step) the mask
holds ``PASS_ACTION`` alone: no step is left to take, but
``rng.choice(np.flatnonzero(mask))`` still finds an action, which an
autoresetting vector env ignores (it resets that sub-env).

>>> env = GulBaraEnv(opponent="greedy")
>>> obs, info = env.reset(seed=24)                 # White (the agent) opens with 6-4
>>> obs.shape, [int(a) for a in info["action_mask"].nonzero()[0]]
((220,), [141, 143])
>>> obs, reward, terminated, truncated, info = env.step(143)
>>> [int(a) for a in info["action_mask"].nonzero()[0]]    # 24/18 taken, the 4 is left
[105, 141]
"""

from typing import Any, Callable, Optional, cast

import numpy as np

try:
    import gymnasium
    from gymnasium import spaces
except ImportError as exc:                          # pragma: no cover - depends on the install
    raise ImportError("gulbara.envs.gymnasium needs gymnasium: pip install 'gulbara[rl]'") from exc

from gulbara.bots import REGISTRY, is_network_path, make_bot
from gulbara.envs._actions import N_ACTIONS, PASS_ACTION, IllegalActionError, check_action
from gulbara.envs._driver import StepGame
from gulbara.envs._observe import STATE_FEATURES, observe
from gulbara.envs._render import render
from gulbara.errors import GameStateError, GulBaraError, InvalidSeatError, checked_seat
from gulbara.game.driver import Game
from gulbara.rules import Rules, checked_rules

__all__ = ["GulBaraEnv", "ENV_ID", "ILLEGAL_ACTION_REWARD", "terminal_mask"]

#: The id the environment is registered under.
ENV_ID = "GulBara-v0"
#: The reward of an illegal action with ``illegal_action="lose"`` (the default).
ILLEGAL_ACTION_REWARD = -1.0


def terminal_mask() -> np.ndarray:
    """The mask of a finished episode: ``PASS_ACTION`` alone (see the module docstring)."""
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    mask[PASS_ACTION] = 1
    return mask


class GulBaraEnv(gymnasium.Env):
    """One game against ``opponent``: ``"random"``, ``"greedy"`` (or another name of
    :data:`gulbara.bots.REGISTRY`, or a network's ``.npz`` path), or any object with ``choose(game) -> Play``.

    ``seat`` is the agent's seat, ``rules`` a :class:`gulbara.Rules`,
    ``render_mode`` ``None``, ``"ansi"`` (``render()`` returns text) or
    ``"human"`` (printed after every reset and step), ``illegal_action`` ``"lose"``
    (the default) or ``"raise"`` (see the module docstring). A bot named by a string is made
    anew at each reset (a ``"random"`` one seeded from the environment's
    generator, so a seeded reset fixes the whole episode).
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 4}

    def __init__(self, opponent="random", seat: int = 0, rules: Optional[Rules] = None,
                 render_mode: Optional[str] = None, illegal_action: str = "lose") -> None:
        if isinstance(opponent, str):
            if opponent not in REGISTRY and not is_network_path(opponent):
                raise GulBaraError(f"unknown opponent {opponent!r}; the built-in bots are "
                                   f"{', '.join(sorted(REGISTRY))}, a network's .npz path, or "
                                   "pass an object with choose(game)")
        elif not callable(getattr(opponent, "choose", None)):
            raise TypeError(f"opponent must be a bot name or have choose(game), "
                            f"not {type(opponent).__name__}")
        seat = checked_seat(seat, type_error=InvalidSeatError)
        checked_rules(rules)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise GulBaraError(f"render_mode must be None, 'ansi' or 'human', got {render_mode!r}")
        if illegal_action not in ("raise", "lose"):
            raise GulBaraError(f"illegal_action must be 'raise' or 'lose', got {illegal_action!r}")
        self.opponent = opponent
        self.seat = int(seat)
        self.rules = rules
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.observation_space = spaces.Box(0.0, 1.0, (STATE_FEATURES,), dtype=np.float32)
        self.action_space = spaces.Discrete(N_ACTIONS)
        self._driver: Optional[StepGame] = None
        self._bot: Any = None                   # the opponent: anything with choose(game)
        self._lost = False

    @property
    def game(self) -> Game:
        """The :class:`gulbara.Game` being played (at the start of the stage being played)."""
        return cast(StepGame, self._driver).game           # (None before reset)

    def _info(self) -> dict:
        driver = self._driver
        assert driver is not None                           # reset
        game = driver.game
        if game.is_over():
            result = game.result()
            assert result is not None
            return {"action_mask": terminal_mask(), "result": result.describe()}
        info = {"action_mask": driver.action_mask()}
        return info

    def _bot_plays(self) -> None:
        """Let the opponent play its stages until the agent has a step to take or the game ends."""
        driver = self._driver
        assert driver is not None                           # reset
        while driver.to_act is not None and driver.to_act != self.seat:
            driver.play_stage(self._bot.choose(driver.game.copy()))   # its own copy

    def _agent_driver(self, what: str) -> StepGame:
        """The driver, at the agent's turn: ``GulBaraError`` before ``reset`` or after the
        episode's end, ``GameStateError`` while the opponent's stage is pending."""
        if self._driver is None:
            raise GulBaraError("call reset() before step()")
        if self._driver.game.is_over() or self._lost:
            raise GulBaraError("the episode is over; call reset()")
        if self._driver.to_act != self.seat:
            raise GameStateError(f"the agent (seat {self.seat}) has no {what}: "
                                 "the opponent's stage is pending; call reset()")
        return self._driver

    def _act(self, play: Callable[[StepGame], object]) -> None:
        """``play(driver)`` (the agent's legal action), then the opponent's stages; if
        anything fails (the opponent's bot included) the env is as before the action."""
        driver = self._driver
        assert driver is not None                           # reset
        before = driver.copy()
        try:
            play(driver)
            self._bot_plays()
        except BaseException:
            self._driver = before
            raise

    def _reward(self) -> float:
        assert self._driver is not None                     # reset
        result = self._driver.game.result()
        assert result is not None                           # over
        score = result.score
        return float(score[self.seat] - score[1 - self.seat])         # RULES §7.1

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        """Start a new game; ``seed`` fixes its dice (those of ``gulbara.Game(seed=seed)``)."""
        super().reset(seed=seed)
        game_seed = seed if seed is not None else int(self.np_random.integers(2**63))
        if isinstance(self.opponent, str):
            entry = REGISTRY.get(self.opponent)
            seeded = entry is not None and entry.seeded     # drawn only for a seeded bot
            self._bot = make_bot(self.opponent,
                                 seed=int(self.np_random.integers(2**63)) if seeded else None)
        else:
            self._bot = self.opponent
        self._driver = StepGame(Game(self.rules, seed=game_seed))
        self._lost = False
        self._bot_plays()
        if self.render_mode == "human":
            self.render()
        return observe(self._driver, self.seat), self._info()

    def step(self, action):
        driver = self._agent_driver("step to take")
        applied = False

        def play(d):
            nonlocal applied
            d.apply(check_action(action))           # raises on an illegal action, unchanged
            applied = True
        try:
            self._act(play)
        except IllegalActionError:
            if applied or self.illegal_action == "raise":   # (applied: the opponent's error)
                raise
            self._lost = True
            info = {"action_mask": terminal_mask(), "illegal_action": True}
            return (observe(self._driver, self.seat), ILLEGAL_ACTION_REWARD, True, False, info)
        driver = self._driver
        if self.render_mode == "human":
            self.render()
        over = driver.game.is_over()
        reward = self._reward() if over else 0.0
        return observe(driver, self.seat), reward, over, False, self._info()

    def render(self) -> Optional[str]:
        """The board, the stage and the steps taken: returned ("ansi") or printed ("human")."""
        if self._driver is None and self.render_mode is not None:
            raise GulBaraError("call reset() before render()")
        return render(self._driver, self.render_mode,
                      "make the environment with render_mode='ansi'")


if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="gulbara.envs.afterstates:make_env",
                       vector_entry_point="gulbara.envs.vector:GulBaraVectorEnv")
