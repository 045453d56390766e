"""Type stubs for gulbara's compiled batch loop (the Python API is gulbara.batch)."""

from typing import Dict, Optional, Tuple

import numpy as np

PROBLEMS: Dict[int, str]

def stage_ends_batch(
    boards: np.ndarray,
    borne_off: np.ndarray,
    derive_off: bool,
    seats: np.ndarray,
    dice: np.ndarray,
    with_steps: bool,
) -> Tuple[
    Optional[Tuple[int, str, int]],
    Optional[np.ndarray],
    Optional[np.ndarray],
    Optional[np.ndarray],
    Optional[np.ndarray],
    Optional[np.ndarray],
    Optional[np.ndarray],
    Optional[np.ndarray],
    Optional[np.ndarray],
]: ...
