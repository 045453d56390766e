"""Type stub of the native policies by name and the native matches (gulbara/net/_play.pyx)."""

from typing import Any, List, Optional, Tuple

import numpy as np

from gulbara.net._net import Network

NATIVE_POLICIES: Tuple[str, ...]

def play_match(policy_a: str, policy_b: str, game: Any, seed: int, first: int, n: int,
               duplicate: bool, max_rolls: int = ..., trace: bool = ...,
               network_a: Optional[Network] = ..., network_b: Optional[Network] = ...
               ) -> Tuple[np.ndarray, Optional[List[np.ndarray]]]: ...
