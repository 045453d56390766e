"""Type stubs of gulbara._train (native training of the gb1 network)."""

from typing import List, Optional, Sequence, Tuple
import numpy as np
from gulbara._net import Network

def train_slots(network: Network, rules, seed: int, batch: int, slots: int,
                slot_list: Sequence[int], delta: np.ndarray, alpha: float, lam: float,
                max_rolls: int = ..., deeper: bool = ...,
                teacher: Optional[Network] = ...) -> np.ndarray: ...
