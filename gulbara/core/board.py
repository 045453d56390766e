"""A mutable Gul Bara board with a side to move, in the spirit of python-chess.

>>> board = Board()
>>> board.turn == WHITE, board.pip_count(WHITE)
(True, 360)
>>> play = board.push_notation("24/18 24/20", [6, 4])
>>> board.turn == BLACK, board.pip_count(WHITE)
(True, 350)
>>> board.pop() == play, board.code() == START_CODE
(True, True)
"""

from typing import List, Optional, Sequence, Tuple

from gulbara.core._backend import START_CODE, Position
from gulbara.errors import IllegalPlayError, checked_bool, checked_seat
from gulbara.core.play import BLACK, WHITE, Play, StageEnds

__all__ = ["Board"]

# Mixed into key() when Black is to move.
_BLACK_TO_MOVE_KEY = 0x6A09E667F3BCC909


def _check_turn(turn) -> int:
    return checked_seat(turn, "turn")


class Board:
    """A position (RULES §9.1) with a side to move and a stack of played stages.

    ``push`` plays one stage for the side to move and, by default, passes the
    turn to the other side; ``pop`` restores the previous position and turn
    exactly. Chains and remainders (several stages in a row, RULES §4-5) are
    played with ``push(play, pass_turn=False)``, or with :class:`gulbara.Game`.
    """

    __slots__ = ("_position", "_turn", "_stack")

    def __init__(self, code: str = START_CODE, turn: int = WHITE) -> None:
        self._position = Position.from_code(code)
        self._turn = _check_turn(turn)
        self._stack: List[Tuple[Position, int, Play]] = []

    @classmethod
    def from_code(cls, code: str, turn: int = WHITE) -> "Board":
        """A board from a position code and the side to move.

        >>> Board.from_code("G:,,,,,,,,,-1,,,1,,,,,,,,,,,|0,0|14,14").pip_count(WHITE)
        13
        """
        return cls(code, turn)

    @classmethod
    def _from_position(cls, position, turn: int) -> "Board":
        board = cls.__new__(cls)
        board._position = position
        board._turn = turn
        board._stack = []
        return board

    # -- state ---------------------------------------------------------------

    @property
    def turn(self) -> int:
        """The side to move: ``WHITE`` (0) or ``BLACK`` (1)."""
        return self._turn

    @property
    def position(self):
        """The immutable position (no side to move) of the backend."""
        return self._position

    @property
    def move_stack(self) -> List[Play]:
        """The plays pushed so far, oldest first."""
        return [play for _, _, play in self._stack]

    def code(self) -> str:
        """The position code (RULES §9.1)."""
        return self._position.code()

    def key(self) -> int:
        """A 64-bit hash of the position and the side to move."""
        key = self._position.key()
        return key ^ _BLACK_TO_MOVE_KEY if self._turn == BLACK else key

    def pip_count(self, seat: int) -> int:
        """Sum of ``seat``'s checkers' distances to bearing off, in its own numbering."""
        return self._position.pip_count(seat)

    def borne_off(self, seat: int) -> int:
        """How many checkers ``seat`` has borne off."""
        return self._position.borne_off(seat)

    def points(self) -> Tuple[int, ...]:
        """24 signed counts in White's numbering (positive White, negative Black)."""
        return self._position.points()

    def is_game_over(self) -> bool:
        """Whether a side has borne off all 15 checkers."""
        return self.winner() is not None

    def winner(self) -> Optional[int]:
        """The side that has borne off all 15 checkers, or ``None``."""
        for seat in (WHITE, BLACK):
            if self._position.borne_off(seat) == 15:
                return seat
        return None

    # -- plays ---------------------------------------------------------------

    def stage_ends(self, dice: Sequence[int]) -> StageEnds:
        """The legal choices of the side to move for one stage (RULES §3)."""
        return StageEnds(self._position.stage_ends(self._turn, dice))

    def push(self, play: Play, pass_turn: bool = True) -> None:
        """Play ``play``'s steps for the side to move, then pass the turn unless told not to.

        Each step is checked against RULES §2 and, for a play taken from
        ``stage_ends``, the result against the play's end; the stage rules
        (maximality, larger die) are not re-checked: use :meth:`push_notation`
        or ``play in board.stage_ends(dice)`` for that. On error the board is
        unchanged.
        """
        if not isinstance(play, Play):
            raise TypeError(f"push takes a Play, not {type(play).__name__}")
        pass_turn = checked_bool(pass_turn, "pass_turn")
        after = self._position.apply_steps(self._turn, play.steps)
        if play.code is not None and after.code() != play.code:
            raise IllegalPlayError(
                f"the play {play} ({play.steps}) ends at {play.code}, but played from this "
                f"position ({self.code()}, {('White', 'Black')[self._turn]} to move) it ends at "
                f"{after.code()}: it was taken from another position")
        self._stack.append((self._position, self._turn, play))
        self._position = after
        if pass_turn:
            self._turn = 1 - self._turn

    def push_notation(self, text: str, dice: Sequence[int], pass_turn: bool = True) -> Play:
        """Check that ``text`` is a legal play of ``dice`` for the side to move, and push it.

        Raises ``InvalidNotationError`` or ``IllegalPlayError`` (board unchanged).
        """
        play = self.stage_ends(dice).parse(text)
        self.push(play, pass_turn=pass_turn)
        return play

    def pop(self) -> Play:
        """Undo the last push exactly and return its play."""
        if not self._stack:
            raise IndexError("pop from a board with no pushed plays")
        self._position, self._turn, play = self._stack.pop()
        return play

    def peek(self) -> Play:
        """The last pushed play."""
        if not self._stack:
            raise IndexError("peek at a board with no pushed plays")
        return self._stack[-1][2]

    def copy(self, stack: bool = True) -> "Board":
        """An independent copy, with the play stack unless ``stack=False``."""
        board = Board._from_position(self._position, self._turn)
        if stack:
            board._stack = list(self._stack)
        return board

    __copy__ = copy

    # -- comparison and display ------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return self._position == other._position and self._turn == other._turn

    __hash__ = None  # type: ignore[assignment]  # mutable: unhashable

    def __repr__(self) -> str:
        turn = "WHITE" if self._turn == WHITE else "BLACK"
        return f"Board({self.code()!r}, turn={turn})"

    def __str__(self) -> str:
        return self.ascii()

    def _repr_svg_(self) -> str:
        """An SVG picture (:func:`gulbara.pictures.board_svg`) with the last pushed play's arrows,
        so a board draws itself in Jupyter."""
        from gulbara.pictures import board_svg

        if not self._stack:
            return board_svg(self)
        _, seat, play = self._stack[-1]
        return board_svg(self, last_play=play, play_seat=seat)

    def ascii(self) -> str:
        """An ASCII diagram in White's numbering: ``O`` White, ``X`` Black.

        >>> print(Board().ascii())
         13  14  15  16  17  18 |  19  20  21  22  23  24
          .   .   .   .   .   . |   .   .   .   .   . 15O
        15X   .   .   .   .   . |   .   .   .   .   .   .
         12  11  10   9   8   7 |   6   5   4   3   2   1
        off: O 0  X 0    to move: O (White)
        """
        from gulbara.glyphs import glyph
        points = self._position.points()

        def cell(q: int) -> str:
            n = points[q - 1]
            return "  ." if n == 0 else f"{abs(n):>2}{glyph(WHITE if n > 0 else BLACK)}"

        def row(qs, show) -> str:
            return " ".join(show(q) for q in qs[:6]) + " | " + " ".join(show(q) for q in qs[6:])

        top = list(range(13, 25))
        bottom = list(range(12, 0, -1))
        label = "{:>3}".format
        side = f"{glyph(self._turn)} ({'White' if self._turn == WHITE else 'Black'})"
        lines = [
            row(top, label),
            row(top, cell),
            row(bottom, cell),
            row(bottom, label),
            f"off: {glyph(WHITE)} {self.borne_off(WHITE)}  {glyph(BLACK)} "
            f"{self.borne_off(BLACK)}    to move: {side}",
        ]
        return "\n".join(lines)
