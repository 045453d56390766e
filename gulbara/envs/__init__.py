"""Reinforcement-learning environments for Gul Bara (``pip install 'gulbara[rl]'``).

``import gulbara`` does not import this package, and this package imports no
optional library: each environment lives in its own module.

* :mod:`gulbara.envs.pettingzoo`: ``env()`` / ``raw_env``, a two-agent AEC
  environment (``"white"``, ``"black"``);
* :mod:`gulbara.envs.gymnasium`: ``GulBaraEnv``, one agent against a built-in
  bot, registered as ``"GulBara-v0"``;
* :mod:`gulbara.envs.openspiel`: ``GulBaraGame``, in the shape of OpenSpiel's
  Python API, with explicit chance nodes (no OpenSpiel needed).

All three play a stage (RULES §3.1) one die at a time: an action is one step
``(from, die)`` in the mover's own numbering, ``(from - 1) * 6 + (die - 1)``,
plus ``PASS_ACTION`` (144) for a stage where no die can be played. The mask
of legal actions is prefix-closed: a step is legal iff it continues the steps
taken into a legal play of the stage (RULES §3.4-3.5), in any order of its
steps. Layout, rewards and observations: ``docs/user/envs.md``.

>>> from gulbara import Game
>>> driver = StepGame(Game(seed=24))             # White opens with 6-4
>>> [action_to_string(a) for a in driver.legal_actions()]
['24/20', '24/18']
"""

from gulbara.envs._actions import (N_ACTIONS, N_STEP_ACTIONS, PASS_ACTION, IllegalActionError,
                                   StepStage, action_to_string, check_action, decode_action,
                                   encode_step)
from gulbara.envs._driver import StepGame
from gulbara.envs._observe import STATE_FEATURES, observe

__all__ = [
    "N_ACTIONS", "N_STEP_ACTIONS", "PASS_ACTION", "STATE_FEATURES", "IllegalActionError",
    "StepStage", "StepGame", "encode_step", "decode_action", "check_action",
    "action_to_string", "observe",
]
