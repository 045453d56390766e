"""The exceptions gulbara raises on bad input.

Every one is a :class:`ValueError` subclass, and its message names the
offending input.

>>> from gulbara.errors import InvalidPositionError
>>> issubclass(InvalidPositionError, ValueError)
True
"""

__all__ = [
    "GulBaraError",
    "InvalidPositionError",
    "InvalidSeatError",
    "InvalidDiceError",
    "InvalidNotationError",
    "IllegalPlayError",
    "InvalidRulesError",
    "GameStateError",
    "RecordError",
    "EnumerationLimitError",
    "OutputBufferError",
    "InvalidPolicyError",
]


class GulBaraError(ValueError):
    """Base class of every error gulbara raises for bad input."""


class InvalidPositionError(GulBaraError):
    """A position code (RULES §9.1) or a board array that is not a valid position."""


class InvalidSeatError(GulBaraError):
    """A seat that is neither 0 (White) nor 1 (Black)."""


class InvalidDiceError(GulBaraError):
    """Dice that do not form a stage (RULES §3.1)."""


class InvalidNotationError(GulBaraError):
    """Text that cannot be read as a play in backgammon notation (RULES §9.3)."""


class IllegalPlayError(GulBaraError):
    """A play that is not legal in the position and stage it was given for."""


class InvalidRulesError(GulBaraError):
    """An unknown option or option value of :class:`gulbara.Rules` (RULES §8)."""


class GameStateError(GulBaraError):
    """An action that does not fit the game's state: a play at a chance node, a roll at a
    decision, anything after the end (see :class:`gulbara.Game`)."""


class RecordError(GulBaraError):
    """A game or match record that cannot be read, or that does not replay (RULES §9.3)."""


class EnumerationLimitError(GulBaraError):
    """An enumeration would hold more distinct positions than its ``max_ends`` bound allows."""


class OutputBufferError(GulBaraError):
    """An ``out=`` buffer of the wrong dtype, shape, memory layout, or read-only
    (:mod:`gulbara.encoding`)."""


class InvalidPolicyError(GulBaraError):
    """A self-play policy that is neither a built-in name nor a callable (:mod:`gulbara.selfplay`)."""
