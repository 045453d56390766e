"""Type stub of the native rollout games (gulbara/rollouts/_rollout.pyx)."""

from typing import Dict, List, Optional, Sequence

import numpy as np

from gulbara.game.driver import Game
from gulbara.net._net import Network

MAX_ROLLS: int
LUCK_RULES: Dict[str, int]
MAX_MODEL_UNITS: int

def rollout_block(starts: List[Game], side: int, policies: Sequence[str],
                  networks: Sequence[Optional[Network]], scorer: Network, vr: bool, seed: int,
                  first: int, count: int, truncate: int = ...,
                  quasi: bool = ..., luck_rule: int = ...,
                  race_dist: Optional[np.ndarray] = ...,
                  race_first: Optional[np.ndarray] = ...,
                  luck_model: Optional[np.ndarray] = ...,
                  luck_units: int = ...) -> Dict[str, np.ndarray]: ...
def check_race(race_dist: Optional[np.ndarray], race_first: Optional[np.ndarray]) -> None: ...
def check_model(luck_model: Optional[np.ndarray], units: int, scorer: Network) -> None: ...
def luck_samples(start: Game, policies: Sequence[str], networks: Sequence[Optional[Network]],
                 scorer: Network, seed: int, first: int, count: int,
                 race_dist: Optional[np.ndarray] = ...,
                 race_first: Optional[np.ndarray] = ...) -> Dict[str, np.ndarray]: ...
