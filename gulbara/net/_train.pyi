"""Type stubs of gulbara.net._train (native training of the gb1 network)."""

from typing import Optional, Sequence

import numpy as np

from gulbara.net._net import Network

START_CODE: str

def train_slots(network: Network, rules, seed: int, batch: int, slots: int,
                slot_list: Sequence[int], delta: np.ndarray, alpha: float, lam: float,
                max_rolls: int = ..., deeper: bool = ...,
                teacher: Optional[Network] = ...) -> np.ndarray: ...
