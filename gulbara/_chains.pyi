"""Type stubs for gulbara's compiled whole chains and remainders (see docs/backend.md)."""

from typing import Optional, Sequence, Tuple, Union

import numpy as np

from gulbara._movegen import Position, Step

START_CODE: str
DEFAULT_CHAIN_MEMORY: int
CHAIN_MAX_PASSES: int
CHAIN_BYTES_PER_END: int
CHAIN_BASE_BYTES: int

def chain_run_raw(code_or_position: Union[str, Position], seat: int, first: int,
                  max_ends: Optional[int] = ..., threads: Optional[int] = ...,
                  memory: Optional[int] = ...) -> ChainRun: ...
def remainder_run_raw(code_or_position: Union[str, Position], seat: int,
                      stages: Sequence[Tuple[int, int]], max_ends: Optional[int] = ...,
                      threads: Optional[int] = ..., memory: Optional[int] = ...) -> ChainRun: ...
def chain_ends_raw(code_or_position: Union[str, Position], seat: int, first: int,
                   max_ends: Optional[int] = ..., threads: Optional[int] = ...,
                   memory: Optional[int] = ...) -> ChainResult: ...
def remainder_ends_raw(code_or_position: Union[str, Position], seat: int,
                       stages: Sequence[Tuple[int, int]], max_ends: Optional[int] = ...,
                       threads: Optional[int] = ..., memory: Optional[int] = ...) -> ChainResult: ...
