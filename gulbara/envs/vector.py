"""A native vector env: N games of ``GulBara-v0`` stepped in C (``gulbara.envs._vector``).

Registered as the vector entry point of ``GulBara-v0``::

    import gymnasium, gulbara.envs.gymnasium
    envs = gymnasium.make_vec("GulBara-v0", num_envs=256, vectorization_mode="vector_entry_point",
                              opponent="greedy")

Each sub-env is :class:`gulbara.envs.gymnasium.GulBaraEnv` (the same actions, prefix-closed
mask, 220 state features and rewards, an illegal action ending the episode with -1), but the
dice, the opponent (any bot with a native policy, :data:`NATIVE_OPPONENTS`, or an ``.npz``
network file, played by the one native game loop) and the masks are computed in C for all the
games in one call, and the results are numpy arrays: observations ``(N, 220)``
float32, rewards ``(N,)`` float64, terminations and truncations ``(N,)`` bool, and
``infos["action_mask"]`` ``(N, 145)`` int8 (plus ``infos["illegal_action"]``, ``(N,)`` bool).
Autoreset is Gymnasium 1.x's next-step mode: the step after a sub-env's episode ends starts a
new game there (its action is ignored, its reward 0); the terminal step's mask holds
``PASS_ACTION`` alone, so ``rng.choice(np.flatnonzero(mask))`` works on every row.

After ``reset(seed=s)``, sub-env ``i``'s ``k``-th episode is game ``i + k * num_envs`` of the
self-play run seeded ``s``: the dice of ``gulbara.Game(seed=s)`` for game 0, of
``DiceStream(seed=s, game=g)`` for game ``g``, and the opponent's draws (``random``) from the
same run's stream 1, as in native self-play and the native arena. Memory: about 500 bytes a
game plus one stage buffer of 17,600 ends (280 KB) and the output arrays.

>>> envs = GulBaraVectorEnv(num_envs=4, opponent="greedy")
>>> obs, infos = envs.reset(seed=1)
>>> obs.shape, infos["action_mask"].shape, obs.dtype.name
((4, 220), (4, 145), 'float32')
>>> rng = np.random.default_rng(0)
>>> actions = np.array([rng.choice(np.flatnonzero(m)) for m in infos["action_mask"]])
>>> obs, rewards, terminated, truncated, infos = envs.step(actions)
>>> rewards.shape, bool(infos["illegal_action"].any())
((4,), False)
"""

import copy
from typing import Optional

import numpy as np

try:
    import gymnasium
    from gymnasium import spaces
    from gymnasium.vector import VectorEnv
except ImportError as exc:                          # pragma: no cover - depends on the install
    raise ImportError("gulbara.envs.vector needs gymnasium: pip install 'gulbara[rl]'") from exc

from gulbara.bots.registry import NATIVE_BOTS, bot_label, native_policy
from gulbara.envs._vector import VecGames
from gulbara.envs._actions import N_ACTIONS
from gulbara.envs._observe import STATE_FEATURES
from gulbara.errors import GulBaraError, InvalidSeatError, checked_int, checked_seat
from gulbara.rules import DEFAULT_RULES, Rules, checked_rules

__all__ = ["GulBaraVectorEnv", "NATIVE_OPPONENTS"]

#: The opponents played natively: the registered bots with a native policy (or an ``.npz``).
NATIVE_OPPONENTS = NATIVE_BOTS


class GulBaraVectorEnv(VectorEnv):
    """``num_envs`` games against ``opponent`` (a name of :data:`NATIVE_OPPONENTS` or an
    ``.npz`` network file), the agent in ``seat``."""

    metadata = {"autoreset_mode": gymnasium.vector.AutoresetMode.NEXT_STEP}

    def __init__(self, num_envs: int = 1, opponent: str = "random", seat: int = 0,
                 rules: Optional[Rules] = None, illegal_action: str = "lose", **kwargs) -> None:
        num_envs = checked_int(num_envs, "num_envs", 1, type_error=GulBaraError)
        seat = checked_seat(seat, type_error=InvalidSeatError)
        checked_rules(rules)
        try:
            policy, network = native_policy(opponent, rules, player="the native vector env")
        except GulBaraError as exc:
            raise GulBaraError(f"{exc} (other bots: gymnasium.make_vec(..., "
                               f"vectorization_mode='sync'))") from None
        if illegal_action != "lose":
            raise GulBaraError("the native vector env ends an illegal action's episode with -1 "
                               "(illegal_action='lose'); for 'raise' use the single env")
        if kwargs.get("action_mode", "steps") != "steps":
            raise GulBaraError("the native vector env plays one step action at a time "
                               "(action_mode='steps'); for 'ends' use "
                               "vectorization_mode='sync'")
        if kwargs.get("render_mode") is not None:
            raise GulBaraError("the native vector env does not render")
        self.num_envs = int(num_envs)
        self.opponent = bot_label(opponent)
        self.seat = int(seat)
        self.rules = DEFAULT_RULES if rules is None else rules
        self.render_mode = None
        self.single_observation_space = spaces.Box(0.0, 1.0, (STATE_FEATURES,), dtype=np.float32)
        self.single_action_space = spaces.Discrete(N_ACTIONS)
        self.observation_space = spaces.Box(0.0, 1.0, (self.num_envs, STATE_FEATURES),
                                            dtype=np.float32)
        self.action_space = spaces.MultiDiscrete(np.full(self.num_envs, N_ACTIONS))
        self._games = VecGames(self.num_envs, self.rules, self.seat, policy, network)
        self._obs = np.zeros((self.num_envs, STATE_FEATURES), dtype=np.float32)
        self._mask = np.zeros((self.num_envs, N_ACTIONS), dtype=np.int8)
        self._rewards = np.zeros(self.num_envs, dtype=np.float64)
        self._terminated = np.zeros(self.num_envs, dtype=np.uint8)
        self._illegal = np.zeros(self.num_envs, dtype=np.uint8)
        self._started = False

    def __copy__(self) -> "GulBaraVectorEnv":
        """An independent copy (``copy.copy`` as ``copy.deepcopy``): the same games at the same
        step, continuing as the original would. It once shared the original's native games."""
        other = type(self).__new__(type(self))
        other.__dict__.update(self.__dict__)
        other._games = self._games.copy()
        for name in ("_obs", "_mask", "_rewards", "_terminated", "_illegal"):
            setattr(other, name, getattr(self, name).copy())
        if getattr(self, "_np_random", None) is not None:
            other._np_random = copy.deepcopy(self._np_random)
        return other

    def __deepcopy__(self, memo) -> "GulBaraVectorEnv":
        return self.__copy__()

    def __reduce__(self):
        raise TypeError("the native vector env cannot be pickled (its games are native "
                        "state); copy.deepcopy copies it, and each single env pickles")

    def _infos(self) -> dict:
        return {"action_mask": self._mask.copy(), "illegal_action": self._illegal.astype(bool),
                "_action_mask": np.ones(self.num_envs, dtype=bool),
                "_illegal_action": np.ones(self.num_envs, dtype=bool)}

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        """New games in every sub-env; ``seed`` (an int 0 .. 2**64 - 1) fixes all of them."""
        if seed is not None:
            seed = checked_int(seed, "seed", 0, 2**64 - 1, bounds="0 .. 2**64 - 1")
        super().reset(seed=seed)
        start = int(self.np_random.integers(2**63)) if seed is None else seed
        self._games.reset(start, self._obs, self._mask)
        self._illegal[:] = 0
        self._started = True
        return self._obs.copy(), self._infos()

    def step(self, actions):
        if not self._started:
            raise GulBaraError("call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise GulBaraError(f"actions must be {self.num_envs} integers, got "
                               f"{actions.dtype} {actions.shape}")
        self._games.step(np.ascontiguousarray(actions, dtype=np.int64), self._obs, self._mask,
                         self._rewards, self._terminated, self._illegal)
        return (self._obs.copy(), self._rewards.copy(), self._terminated.astype(bool),
                np.zeros(self.num_envs, dtype=bool), self._infos())

    def close_extras(self, **kwargs) -> None:
        pass
