"""Type stubs for gulbara's compiled feature encoders (the Python API is gulbara.encoding.features)."""

from typing import Dict, Optional, Sequence, Tuple

import numpy as np

from gulbara.core._movegen import EndSet, Position

BOARD_SIZE: int
STATE_SIZE: int
OFFSETS: Dict[str, int]
PROBLEMS: Dict[int, str]

def py_encode_boards(
    boards: np.ndarray,
    borne_off: np.ndarray,
    derive_off: bool,
    seats: np.ndarray,
    one_seat: bool,
    out: np.ndarray,
) -> Optional[Tuple[int, str, int]]: ...
def py_encode_position(position: Position, seat: int, out: np.ndarray) -> None: ...
def py_encode_ends(ends: EndSet, out: np.ndarray) -> None: ...
def py_encode_ends_list(stages: list, out: np.ndarray) -> None: ...
def py_encode_state(
    position: Position,
    seat: int,
    to_act: bool,
    dice: Sequence[int],
    is_chain: bool,
    is_remainder: bool,
    index: int,
    later: Sequence[Tuple[int, int]],
    is_chance: bool,
    is_opening: bool,
    escalates: bool,
    opp_escalates: bool,
    stuck: float,
    game_over: bool,
    out: np.ndarray,
) -> None: ...
