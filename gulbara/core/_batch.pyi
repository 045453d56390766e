"""Type stubs for gulbara's compiled batch loop (the Python API is gulbara.core.batch)."""

from typing import Dict, Optional, Tuple, Union

import numpy as np
from typing_extensions import Self, disjoint_base

_Array = np.ndarray

PROBLEMS: Dict[int, str]

@disjoint_base
class Outputs:
    """The per-end arrays of one call (internal to stage_ends_batch)."""
    def __new__(cls, capacity: int, with_steps: bool) -> Self: ...

def stage_ends_batch(
    boards: np.ndarray,
    borne_off: np.ndarray,
    derive_off: bool,
    seats: np.ndarray,
    dice: np.ndarray,
    with_steps: bool,
) -> Union[
    # a bad row: (row, problem, detail), no arrays
    Tuple[Tuple[int, str, int], None, None, None, None, None, None, None, None],
    # counts, playable dice, offsets, then the per-end arrays (gulbara.core.batch.BatchEnds;
    # the steps None without with_steps)
    Tuple[None, _Array, _Array, _Array, _Array, _Array, Optional[_Array], Optional[_Array],
          _Array],
]: ...
