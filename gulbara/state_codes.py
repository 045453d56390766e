"""Game state codes from what a user has at hand: a state code, or a position code and a side.

A game state code (``Game.state_code()``, grammar in docs/state-codes.md) is a
position code followed by ``key=value`` fields saying what comes next. Often
one has only a position and knows who rolls next: :func:`state_code` builds the
state for that, with the escalation of doubles in force (both sides past their
exempt rolls, RULES §4.2) unless ``rolls`` says otherwise.

>>> state_code("start")
'G:,,,,,,,,,,,-15,,,,,,,,,,,,15|0,0|0,0 next=opening rolls=0,0 stuck=0'
>>> state_code("G:,1,,1,,,,,,,,,-12,,,,,,,,,,,|0,0|13,3", "white")
'G:,1,,1,,,,,,,,,-12,,,,,,,,,,,|0,0|13,3 next=roll:W rolls=3,3 stuck=0'
>>> state_code("start", 1, rolls=(0, 0))
'G:,,,,,,,,,,,-15,,,,,,,,,,,,15|0,0|0,0 next=roll:B rolls=0,0 stuck=0'
>>> state_code("G:,,,,,,,,,,,-15,,,,,,,,,,,,15|0,0|0,0")
Traceback (most recent call last):
...
gulbara.errors.GameStateError: a position code needs the side to roll (seat white/black or 0/1) to make a game state; or give a full state code (docs/state-codes.md)
"""

from typing import Optional, Sequence, Union

from gulbara._backend import START_CODE, Position
from gulbara.errors import GameStateError, InvalidSeatError
from gulbara.rules import DEFAULT_RULES, Rules

__all__ = ["state_code", "seat_index", "position_code", "is_state_code"]

_SEAT_WORDS = {"0": 0, "1": 1, "white": 0, "black": 1, "w": 0, "b": 1}


def seat_index(seat: Union[int, str]) -> int:
    """A seat from ``0``/``1`` or ``"white"``/``"black"`` (``"w"``/``"b"``, any case).

    >>> seat_index("Black"), seat_index(0), seat_index("1")
    (1, 0, 1)
    """
    if isinstance(seat, bool):
        raise InvalidSeatError(f"seat must be 0/1 or white/black, got {seat!r}")
    if isinstance(seat, int) and seat in (0, 1):
        return seat
    if isinstance(seat, str) and seat.strip().lower() in _SEAT_WORDS:
        return _SEAT_WORDS[seat.strip().lower()]
    if not isinstance(seat, (int, str)):
        raise TypeError(f"seat must be an int or a str, not {type(seat).__name__}")
    raise InvalidSeatError(f"seat must be 0/1 or white/black, got {seat!r}")


def position_code(code: str) -> str:
    """``code`` itself, or the start position's code for the word ``start``.

    >>> position_code("start") == START_CODE
    True
    """
    if not isinstance(code, str):
        raise TypeError(f"a position code is a str, not {type(code).__name__}")
    return START_CODE if code.strip().lower() == "start" else code


def is_state_code(code: str) -> bool:
    """Whether ``code`` has the fields of a game state (``next=...``), not just a position."""
    return len(code.split()) > 1


def state_code(code: str, seat: Union[int, str, None] = None, *,
               rules: Optional[Rules] = None,
               rolls: Optional[Sequence[int]] = None, stuck: int = 0) -> str:
    """A game state code from a state code, or from a position code and the side to roll.

    * a state code (fields after the position) comes back unchanged (``seat``
      must then be ``None``: the code already says who acts);
    * ``"start"`` alone is the start of a game, the opening roll (RULES §6);
    * a position code (or ``"start"``) with ``seat`` is that side to roll, with
      ``rolls=(White's, Black's)`` rolls made (default: ``rules.exempt_rolls``
      each, so a double escalates, RULES §4.2) and ``stuck`` rolls in a row
      without a move (RULES §7.2).

    The position is checked (``InvalidPositionError``); the rest is checked by
    :meth:`gulbara.Game.from_state_code` when the state is read.
    """
    if not isinstance(code, str):
        raise TypeError(f"a state or position code is a str, not {type(code).__name__}")
    if is_state_code(code):
        if seat is not None or rolls is not None:
            raise GameStateError("a state code already says who acts and the rolls made; "
                                 "give a seat (and rolls) only with a plain position code")
        return code.strip()
    position = position_code(code.strip())
    Position.from_code(position)
    if seat is None:
        if code.strip().lower() == "start" and rolls is None:
            return f"{START_CODE} next=opening rolls=0,0 stuck=0"
        raise GameStateError("a position code needs the side to roll (seat white/black or 0/1) "
                             "to make a game state; or give a full state code "
                             "(docs/state-codes.md)")
    side = "WB"[seat_index(seat)]
    if rolls is None:
        exempt = (DEFAULT_RULES if rules is None else rules).exempt_rolls
        rolls = (exempt, exempt)
    rolls = tuple(rolls)
    if len(rolls) != 2 or not all(isinstance(r, int) and not isinstance(r, bool) and r >= 0
                                  for r in rolls):
        raise GameStateError(f"rolls must be two counts >= 0 (White's, Black's), got {rolls!r}")
    if isinstance(stuck, bool) or not isinstance(stuck, int) or stuck < 0:
        raise GameStateError(f"stuck must be a count >= 0, got {stuck!r}")
    return f"{position} next=roll:{side} rolls={rolls[0]},{rolls[1]} stuck={stuck}"
