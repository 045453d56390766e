"""Type stub of the native self-play loop (gulbara/selfplay/_selfplay.pyx)."""

from typing import Any, Callable, List, Optional, Tuple

import numpy as np

from gulbara.net._net import Network

EVALUATOR: str
COLUMN_COUNT: int
HISTOGRAM_BINS: int

def play_games(game: Any, seed: int, first_game: int, n_games: int,
               policies: Tuple[str, str],
               evaluator: Optional[Callable[[np.ndarray], np.ndarray]] = ...,
               max_rolls: int = ..., trace: bool = ...,
               networks: Tuple[Optional[Network], Optional[Network]] = ...
               ) -> Tuple[np.ndarray, np.ndarray, Optional[List[Tuple[np.ndarray, str]]]]: ...
def py_rng(seed: int, game: int, stream: int, n: int, bound: int = ...) -> List[int]: ...
