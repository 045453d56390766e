from typing import Tuple

import numpy as np

def build(length: int = ...) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                       np.ndarray]: ...
def ranks(counts: np.ndarray) -> np.ndarray: ...
