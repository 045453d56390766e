"""A :class:`gulbara.Game` driven by step actions: the engine of the three environments.

>>> from gulbara import Game
>>> driver = StepGame(Game(seed=24))
>>> driver.to_act, driver.legal_actions()          # White opens with 6-4
(0, [141, 143])
>>> driver.apply(141) is None, driver.apply(119)   # 24/20 then 20/14: the stage is played
(True, Play(((24, 6), (18, 4)), code='G:,,,,,,,,,,,-15,,1,,,,,,,,,,14|0,0|0,0'))
>>> driver.to_act, driver.game.decision.dice       # Black's 3-1 is next
(1, (3, 1))
"""

from typing import List, Optional

import numpy as np

from gulbara.envs._actions import N_ACTIONS, StepStage, check_action
from gulbara.errors import GameStateError
from gulbara.core.play import Play

__all__ = ["StepGame"]


class StepGame:
    """A game whose stages are played one step action at a time (see :mod:`gulbara.envs._actions`).

    ``game`` is a :class:`gulbara.Game`. At a decision, :meth:`apply` takes a
    step action; when the steps taken complete a legal play the stage is
    played with :meth:`gulbara.Game.play` (the game then rolls on by itself if
    it has ``auto_roll``) and the play is returned. Chains and remainders
    (RULES §4-5) are simply the next decisions, of the side the game names.
    """

    __slots__ = ("game", "_stage")

    def __init__(self, game) -> None:
        self.game = game
        self._stage: Optional[StepStage] = None

    def copy(self) -> "StepGame":
        """An independent copy (the game copied with :meth:`gulbara.Game.copy`)."""
        other = StepGame(self.game.copy())
        if self._stage is not None:
            other._stage = self._stage.copy()
        return other

    @property
    def stage(self) -> Optional[StepStage]:
        """The stage being played, with the steps taken so far; ``None`` without a decision."""
        if not self.game.is_decision():
            self._stage = None
            return None
        if self._stage is None:
            self._stage = StepStage.from_game(self.game)
        return self._stage

    @property
    def to_act(self) -> Optional[int]:
        """The seat that has a step to take, or ``None`` at a chance node or at the end."""
        return self.game.to_move if self.game.is_decision() else None

    def legal_actions(self) -> List[int]:
        stage = self.stage
        return [] if stage is None else stage.legal_actions()

    def action_mask(self, out: Optional[np.ndarray] = None) -> np.ndarray:
        """The int8 mask of legal actions (all zero when no one has a step to take)."""
        stage = self.stage
        if stage is None:
            if out is None:
                return np.zeros(N_ACTIONS, dtype=np.int8)
            out[:] = 0
            return out
        return stage.action_mask(out)

    def play_stage(self, play) -> Play:
        """Play the whole current stage at once (a bot's choice), as :meth:`gulbara.Game.play`.

        Only before the stage's first step; raises ``GameStateError`` after it.
        """
        stage = self.stage
        if stage is not None and stage.steps:
            raise GameStateError(f"{len(stage.steps)} step(s) of the stage are taken already; "
                                 "finish it with step actions")
        chosen = self.game.play(play)
        self._stage = None
        return chosen

    def apply(self, action) -> Optional[Play]:
        """Take one step action; returns the stage's play once it is complete, else ``None``.

        Raises :class:`IllegalActionError` (and changes nothing) for an action
        that is not legal now.
        """
        action = check_action(action)
        stage = self.stage
        if stage is None:
            if self.game.is_over():
                raise GameStateError(f"action {action}: the game is over")
            raise GameStateError(f"action {action}: the game waits for dice, not for a step")
        trial = stage.copy()
        play = trial.push(action)                 # raises, leaving self unchanged
        if play is None:
            self._stage = trial
            return None
        self.game.play(play)
        self._stage = None
        return play
