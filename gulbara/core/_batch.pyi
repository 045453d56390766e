"""Type stubs for gulbara's compiled batch loop (the Python API is gulbara.core.batch)."""

from typing import Dict, Optional, Tuple

import numpy as np

_Array = Optional[np.ndarray]

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
    # counts, playable dice, offsets, then the per-end arrays (gulbara.core.batch.BatchEnds)
    _Array, _Array, _Array, _Array, _Array, _Array, _Array, _Array,
]: ...
