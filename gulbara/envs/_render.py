"""Text pictures of a step-driven game, for ``render_mode="ansi"`` and ``str(state)``.

>>> from gulbara import Game
>>> from gulbara.envs._driver import StepGame
>>> driver = StepGame(Game(seed=24))
>>> driver.apply(143)
>>> print(render_text(driver))
 13  14  15  16  17  18 |  19  20  21  22  23  24
  .   .   .   .   .  1O |   .   .   .   .   . 14O
15X   .   .   .   .   . |   .   .   .   .   .   .
 12  11  10   9   8   7 |   6   5   4   3   2   1
off: O 0  X 0    to move: O (White)
White: opening roll: 6-4; steps taken: 24/18; dice left: 4
"""

from typing import Optional

from gulbara.core.board import Board
from gulbara.envs._actions import action_to_string, encode_step

__all__ = ["render_text", "render"]


def render_text(driver) -> str:
    """The board (after the steps taken) and one line on what the game waits for."""
    game = driver.game
    stage = driver.stage
    if stage is not None:
        board = Board.from_code(stage.position.code(), stage.seat)
        line = game.decision.describe()
        if stage.steps:
            taken = " ".join(action_to_string(encode_step(*s)) for s in stage.steps)
            left = "-".join(map(str, stage.dice_left)) or "none"
            line += f"; steps taken: {taken}; dice left: {left}"
        elif stage.is_pass():
            line += "; no die can be played (pass)"
    else:
        board = game.board()
        if game.is_over():
            line = f"game over: {game.result().describe()}"
        elif game.is_opening():
            line = "the opening roll (RULES §6)"
        else:
            line = f"{('White', 'Black')[game.to_move]} to roll"
    return board.ascii() + "\n" + line


def render(driver, render_mode: Optional[str], hint: str) -> Optional[str]:
    """An environment's ``render()``: the text ("ansi"), printed ("human"), or a warning
    naming ``hint`` (how to make the environment with a render mode) when there is none."""
    if render_mode is None:
        from gymnasium import logger
        logger.warn(f"render() called without a render_mode; {hint}")
        return None
    text = render_text(driver)
    if render_mode == "human":
        print(text + "\n")
        return None
    return text
