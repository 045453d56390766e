"""The afterstate mode of ``GulBara-v0``: an action picks one of the stage's distinct ends.

``gymnasium.make("GulBara-v0", action_mode="ends")`` (or :class:`GulBaraEndsEnv`) is the usual
TD-Gammon set-up: at each of the agent's stages (a roll, a stage of a chain, a remainder: RULES
§3-5) the action is the index of one of the stage's distinct ends in canonical order
(``game.legal_plays()``, RULES §3.7-3.8), and the observation carries every end's features, so a
value network scores the afterstates and the agent picks the best. A 1-1 chain is then a few
decisions (one a stage) instead of 24 one-die steps.

The observation is a dict:

* ``"observation"``: the 220 game-state features (:mod:`gulbara.encoding.features`, the agent's view);
* ``"ends"``: ``max_ends x 196`` float32, row ``i`` the board features of end ``i`` seen by the
  agent (``encode_afterstates``), zero rows after the last end;
* ``"action_mask"``: ``max_ends`` int8, 1 for each end.

With ``chains=True``, a stage of an escalation chain (RULES §4.2-4.4) whose whole chain, from
this stage on, has at most ``max_ends`` distinct outcomes (:func:`gulbara.chain_ends`) is one
decision: the actions are the chain's outcomes, the ``"ends"`` rows their boards, and the chosen
outcome is played stage by stage (its first canonical play, ``ChainEnds.steps``), a stalled
chain's remainder then going to the opponent (RULES §5); a bigger chain is played a stage at a
time. ``info["chain"]`` says which.

``info`` has the same mask, ``"n_ends"`` and ``"ends_cut"`` (the stage had more than
``max_ends`` ends: only the first ``max_ends`` can be chosen; the default 1,024 is rarely
reached, by some four-dice stages). Rewards, the opponent, seeding and illegal actions (-1 and the
end by default, ``illegal_action="raise"``) are those of
:class:`gulbara.envs.gymnasium.GulBaraEnv`; at a terminal step the mask holds action 0 alone.

>>> env = GulBaraEndsEnv(opponent="greedy")
>>> obs, info = env.reset(seed=24)                 # White opens with 6-4: two distinct ends
>>> info["n_ends"], obs["ends"].shape, int(obs["action_mask"].sum())
(2, (1024, 196), 2)
>>> str(env.game.legal_plays()[1])
'24/14'
>>> obs, reward, terminated, truncated, info = env.step(1)      # play 24/14
>>> env.game.plays[0][1].steps
((24, 6), (18, 4))
"""

from typing import Optional

import numpy as np

from gulbara.chains.enumeration import ChainEnds, chain_ends
from gulbara.encoding.features import BOARD_FEATURES, encode_afterstates, encode_boards
from gulbara.envs._actions import IllegalActionError
from gulbara.envs._observe import STATE_FEATURES, observe
from gulbara.envs.gymnasium import ILLEGAL_ACTION_REWARD, GulBaraEnv, spaces
from gulbara.errors import EnumerationLimitError, GulBaraError, checked_bool, checked_int

__all__ = ["GulBaraEndsEnv", "make_env", "DEFAULT_MAX_ENDS"]

#: Ends a stage shows by default (the action space's size).
DEFAULT_MAX_ENDS = 1024


class GulBaraEndsEnv(GulBaraEnv):
    """``GulBaraEnv`` whose actions are a stage's distinct ends (see the module docstring)."""

    def __init__(self, opponent="random", seat: int = 0, rules=None,
                 render_mode: Optional[str] = None, illegal_action: str = "lose",
                 max_ends: int = DEFAULT_MAX_ENDS, chains: bool = False) -> None:
        super().__init__(opponent, seat, rules, render_mode, illegal_action)
        self.chains = checked_bool(chains, "chains")
        self._choices = None
        self.max_ends = checked_int(max_ends, "max_ends", 1, type_error=GulBaraError)
        self.action_space = spaces.Discrete(max_ends)
        self.observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (STATE_FEATURES,), dtype=np.float32),
            "ends": spaces.Box(0.0, 1.0, (max_ends, BOARD_FEATURES), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (max_ends,), dtype=np.int8)})
        self._lost = False

    def _observe(self):
        driver = self._driver
        game = driver.game
        features = np.zeros((self.max_ends, BOARD_FEATURES), dtype=np.float32)
        mask = np.zeros(self.max_ends, dtype=np.int8)
        n = 0
        self._choices = None
        if game.is_over() or self._lost:
            mask[0] = 1                                  # the terminal mask
        else:
            chain = self._whole_chain()
            if chain is not None:
                self._choices = chain
                n = len(chain)
                features[:n] = encode_boards(chain.boards, self.seat, borne_off=chain.borne_off)
            else:
                ends = game.legal_plays()
                self._choices = ends
                n = len(ends)
                features[:min(n, self.max_ends)] = encode_afterstates(ends)[:self.max_ends]
            mask[:min(n, self.max_ends)] = 1
        obs = {"observation": observe(driver, self.seat), "ends": features,
               "action_mask": mask}
        info = {"action_mask": mask.copy(), "n_ends": n, "ends_cut": n > self.max_ends,
                "chain": isinstance(self._choices, ChainEnds)}
        if game.is_over():
            info["result"] = game.result().describe()
        return obs, info

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        super().reset(seed=seed, options=options)
        self._lost = False
        return self._observe()

    def step(self, action):
        self._agent_driver("stage to play")
        ends = self._choices
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)) \
                or not 0 <= int(action) < min(len(ends), self.max_ends):
            if self.illegal_action == "raise":
                raise IllegalActionError(
                    f"action {action!r} is not one of the stage's {len(ends)} ends "
                    f"(0..{min(len(ends), self.max_ends) - 1})")
            self._lost = True
            obs, info = self._observe()
            info["illegal_action"] = True
            return obs, ILLEGAL_ACTION_REWARD, True, False, info

        def play(driver):
            if isinstance(ends, ChainEnds):
                for steps in ends.steps(int(action)):      # the chain's stages, in order
                    driver.play_stage(steps)
            else:
                driver.play_stage(ends[int(action)])
        self._act(play)
        if self.render_mode == "human":
            self.render()
        over = self._driver.game.is_over()
        obs, info = self._observe()
        return obs, self._reward() if over else 0.0, over, False, info


    def _whole_chain(self) -> Optional[ChainEnds]:
        """The rest of the chain as one decision, if asked for and within ``max_ends``."""
        driver = self._driver
        assert driver is not None                           # reset
        decision = driver.game.decision
        assert decision is not None                         # the agent's stage
        if not self.chains or not decision.is_escalating or decision.is_remainder:
            return None
        try:
            chain = chain_ends(driver.game.position, decision.seat, decision.dice[0],
                               driver.game.rules, max_ends=8 * self.max_ends)
        except EnumerationLimitError:
            return None
        return chain if len(chain) <= self.max_ends else None


def make_env(action_mode: str = "steps", **kwargs):
    """The entry point of ``GulBara-v0``: ``action_mode="steps"`` (one die at a time,
    :class:`GulBaraEnv`) or ``"ends"`` (:class:`GulBaraEndsEnv`)."""
    if action_mode == "steps":
        return GulBaraEnv(**kwargs)
    if action_mode == "ends":
        return GulBaraEndsEnv(**kwargs)
    raise GulBaraError(f"action_mode must be 'steps' or 'ends', got {action_mode!r}")
