from typing import Dict, Tuple

import numpy as np
from typing_extensions import disjoint_base

RESULT_COLUMNS: Tuple[str, ...]

@disjoint_base
class Lockstep:
    features: np.ndarray
    results: np.ndarray
    def __init__(self, game, seed: int, n: int, k: int, max_rolls: int = ...,
                 trajectories: bool = ...) -> None: ...
    def prepare(self) -> int: ...
    def apply(self, scores: np.ndarray) -> None: ...
    def trajectories(self) -> Dict[str, np.ndarray]: ...
