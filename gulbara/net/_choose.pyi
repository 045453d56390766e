"""Type stubs of gulbara.net._choose (the network's stage chooser)."""

from typing import Any, Iterable, Tuple

import numpy as np

from gulbara.net._net import Network

def stage_values(network: Network, game) -> np.ndarray: ...
def time_values(network: Network, games: Iterable[Any], repeat: int) -> Tuple[int, float]: ...
