"""Type stubs for gulbara's compiled perft (gulbara/game/_perft.pyx); use gulbara.perft."""

from typing import List, Optional, Sequence, Tuple

from gulbara.game.driver import Game

# A step (from, die): a name of the stubs only.
_Step = Tuple[int, int]

def perft_game(game: Game, depth: int) -> int: ...
def divide_game(game: Game, depth: int
                ) -> List[Tuple[Optional[Tuple[int, int]], Tuple[_Step, ...], int]]: ...
def _py_children(game: Game) -> List[str]: ...
def _py_count_stage(code: str, seat: int, dice: Sequence[int]) -> int: ...
