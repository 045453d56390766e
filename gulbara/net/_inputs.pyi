"""Type stubs of gulbara.net._inputs (the gb1 inputs of a game state)."""

import numpy as np

N_INPUTS: int
LAYOUT: str

def encode_game(game) -> np.ndarray: ...
