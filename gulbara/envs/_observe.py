"""Observations of a step-driven game: :func:`gulbara.encoding.features.encode_game`, mid-stage aware.

Between the steps of a stage the game itself still stands at the stage's
start. The observation then is the game-state block of
:func:`gulbara.encoding.features.encode_game` with two parts replaced, so that it
describes what is left to decide: the board block is that of the position
after the steps taken, and the stage's dice (``STAGE_DICE``, ``STAGE_SIZE``)
are the dice not used yet. Everything else (chain, remainder, roll counts,
stuck count) is the game's.

>>> from gulbara import Game
>>> from gulbara.envs._driver import StepGame
>>> from gulbara.encoding.features import STAGE_DICE, STAGE_SIZE
>>> driver = StepGame(Game(seed=24))              # White to play 6-4
>>> driver.apply(143)                             # 24/18: the 4 is left
>>> x = observe(driver, 0)
>>> x[STAGE_DICE].tolist(), float(x[STAGE_SIZE]), x.shape == (STATE_FEATURES,)
([0.0, 0.0, 0.0, 0.25, 0.0, 0.0], 0.25, True)
"""

from typing import Optional

import numpy as np

from gulbara.encoding.features import (BOARD_FEATURES, STAGE_DICE, STAGE_SIZE, STATE_FEATURES,
                              encode_board, encode_game)

__all__ = ["STATE_FEATURES", "observe"]


def observe(driver, seat: int, out: Optional[np.ndarray] = None) -> np.ndarray:
    """The ``STATE_FEATURES`` float32 observation of ``driver`` (a ``StepGame``) for ``seat``."""
    out = encode_game(driver.game, out, seat=seat)
    stage = driver.stage
    if stage is not None and stage.steps:
        encode_board(stage.position, seat, out[:BOARD_FEATURES])
        counts = np.zeros(6, dtype=np.float32)
        for die in stage.dice_left:
            counts[die - 1] += 1
        out[STAGE_DICE] = counts / 4
        out[STAGE_SIZE] = len(stage.dice_left) / 4
    return out
