"""Type stub of the sort of the chains' keys by hash (gulbara/chains/_key_sort.pyx): its test
hooks; sort_part and sort_dense are cimported."""

from typing import Tuple

import numpy as np

def _py_sort_part(keys: np.ndarray, part_bits: int = ...) -> Tuple[np.ndarray, np.ndarray]: ...
def _py_sort_dense(keys: np.ndarray, threads: int = ...) -> np.ndarray: ...
