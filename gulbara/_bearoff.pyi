from typing import Sequence, Tuple

import numpy as np

def build(length: int = ...) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                       np.ndarray]: ...
def rank(counts: Sequence[int]) -> int: ...
