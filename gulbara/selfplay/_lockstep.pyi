from typing import Dict, Tuple

import numpy as np

RESULT_COLUMNS: Tuple[str, ...]

class Lockstep:
    features: np.ndarray
    results: np.ndarray
    def __init__(self, game, seed: int, n: int, k: int, max_rolls: int = ...,
                 trajectories: bool = ...) -> None: ...
    def prepare(self) -> int: ...
    def apply(self, scores: np.ndarray) -> None: ...
    def trajectories(self) -> Dict[str, np.ndarray]: ...
