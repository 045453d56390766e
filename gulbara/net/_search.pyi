"""Type stubs of gulbara.net._search (the network's searches)."""

from typing import Tuple

import numpy as np

from gulbara.net._net import Network

def deeper_outputs(network: Network, game) -> np.ndarray: ...
def outcome_values(network: Network, rules, boards: np.ndarray, borne_off: np.ndarray,
                   remainder: np.ndarray, ends_game: np.ndarray, mover: int, rolls_white: int,
                   rolls_black: int, own_chain: bool) -> np.ndarray: ...
def search_values(network: Network, game, top: int) -> Tuple[np.ndarray, np.ndarray, np.ndarray]: ...
def continuation_values(network: Network, game) -> np.ndarray: ...
