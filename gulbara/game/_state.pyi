"""Type stub of the game-state struct module (gulbara/game/_state.pyx)."""

from typing import Any

def _py_state_code(game: Any) -> str: ...
