"""The exceptions gulbara raises on bad input.

Every one is a :class:`ValueError` subclass, and its message names the
offending input.

>>> from gulbara.errors import InvalidPositionError
>>> issubclass(InvalidPositionError, ValueError)
True
"""

import math
import numbers
import operator

import numpy as np

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
    "checked_int",
    "checked_positive",
    "checked_scores",
    "position_code_sections",
    "shown",
]

#: Longest echo of an input in a message (longer ones are cut, ``...`` marking the cut).
SHOWN_LIMIT = 120


def shown(value, limit: int = SHOWN_LIMIT) -> str:
    """``repr(value)`` for an error message, cut to about ``limit`` characters.

    >>> shown("x" * 500)[:8], len(shown("x" * 500))
    ("'xxxxxxx", 122)
    >>> shown(10**5000)
    'an int of about 5,001 digits'
    """
    if isinstance(value, str) and len(value) > limit:
        return repr(value[:limit - 3]) + "..."
    if isinstance(value, int) and value.bit_length() > 4 * limit:
        digits = int(abs(value).bit_length() * 0.30102999566398120) + 1
        return f"an int of about {digits:,} digits"
    try:
        text = repr(value)
    except ValueError:                          # an int past Python's digit limit inside
        text = f"a {type(value).__name__} holding an int of thousands of digits"
    return text if len(text) <= limit else text[:limit - 3] + "..."



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
    (:mod:`gulbara.encoding.features`)."""


class InvalidPolicyError(GulBaraError):
    """A self-play policy that is neither a built-in name nor a callable (:mod:`gulbara.selfplay.games`)."""


def checked_int(value, what: str, low: int, high=None, error=GulBaraError,
                type_error=TypeError, bounds=None) -> int:
    """``value`` (an argument or value called ``what``) as an int in ``low..high``
    (``high`` None: no upper bound).

    Python and numpy integers are accepted; a bool, a float or anything else
    raises ``type_error``, an int out of range ``error``. ``bounds`` words the
    range in the messages (by default ``low..high``).

    >>> checked_int(3, "die", 1, 6, InvalidDiceError)
    3
    >>> try:
    ...     checked_int(7, "die", 1, 6, InvalidDiceError)
    ... except InvalidDiceError as error:
    ...     print(error)
    die must be 1..6, got 7
    """
    if bounds is None:
        bounds = f"{low}..{high}" if high is not None else f"at least {low}"
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        raise type_error(f"{what} must be an int {bounds}, not bool {shown(value)}")
    try:
        value = operator.index(value)
    except TypeError:
        raise type_error(f"{what} must be an int {bounds}, "
                         f"not {type(value).__name__} {shown(value)}") from None
    if value < low or (high is not None and value > high):
        raise error(f"{what} must be {bounds}, got {shown(value)}")
    return value


def checked_positive(value, what: str, unit: str = "number") -> float:
    """``value`` (an argument called ``what``) as a finite float above 0: an int or a float
    (numpy's too); a bool or anything else raises ``TypeError``, a value not above 0 (or not
    finite) ``GulBaraError``. ``unit`` words what the number counts.

    >>> checked_positive(2, "budget_seconds")
    2.0
    >>> try:
    ...     checked_positive(0, "size", "number of pixels")
    ... except GulBaraError as error:
    ...     print(error)
    size must be a positive number of pixels, got 0
    """
    if isinstance(value, bool) or type(value).__name__ == "bool_" \
            or not isinstance(value, numbers.Real):
        raise TypeError(f"{what} must be a {unit}, not {type(value).__name__} {shown(value)}")
    number = float(value)
    if not (math.isfinite(number) and number > 0):
        raise GulBaraError(f"{what} must be a positive {unit}, got {shown(value)}")
    return number


def checked_bool(value, what: str) -> bool:
    """``value`` as a flag: a bool (or numpy bool), ``TypeError`` for anything else, so
    that ``'no'`` or ``0.5`` is not taken for True.

    >>> checked_bool(np.bool_(False), "pass_turn")
    False
    >>> checked_bool("no", "pass_turn")
    Traceback (most recent call last):
    ...
    TypeError: pass_turn must be True or False, not str
    """
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{what} must be True or False, not {type(value).__name__}")
    return bool(value)


def checked_seat(value, what: str = "seat", type_error=TypeError) -> int:
    """``value`` as a seat, 0 (White) or 1 (Black) (RULES §1.1): :func:`checked_int`
    raising :class:`InvalidSeatError` for an int out of range, ``type_error`` for a non-int.

    >>> checked_seat(1)
    1
    """
    return checked_int(value, what, 0, 1, InvalidSeatError, type_error,
                       bounds="0 (White) or 1 (Black)")

def checked_index(i, n: int, kinds: str, items: str, noun: str = "") -> int:
    """``i`` as an index into ``n`` items, negative ones counting from the end.

    A bool or a non-integer raises ``TypeError`` (``kinds`` says what indices
    are); an index out of range ``IndexError`` (``items`` names the items;
    ``noun``, if given, words the message as ``"{noun} {i} out of range for
    {n} {items}"``).

    >>> checked_index(-1, 5, "indices are ints", "ends")
    4
    >>> try:
    ...     checked_index(2, 2, "request indices are ints", "requests", "request index")
    ... except IndexError as error:
    ...     print(error)
    request index 2 out of range for 2 requests
    """
    if isinstance(i, bool) or type(i).__name__ == "bool_" or not hasattr(type(i), "__index__"):
        raise TypeError(f"{kinds}, not {type(i).__name__}")
    index = operator.index(i)
    if index < 0:
        index += n
    if not 0 <= index < n:
        if noun:
            raise IndexError(f"{noun} {i} out of range for {n} {items}")
        raise IndexError(f"index out of range ({n} {items})")
    return index


def checked_scores(values, n: int, what: str = "the evaluator"):
    """The ``n`` scores an evaluator returned (one per end), as a float64 array.

    One rule for every caller of an evaluator (self-play, rollouts, search):
    real numbers (ints, floats or bools; no complex, no objects), shape
    ``(n,)``, every one finite. Anything else raises :class:`GulBaraError`.

    >>> checked_scores([1, 2.5], 2).tolist()
    [1.0, 2.5]
    >>> try:
    ...     checked_scores([1.0, float("inf")], 2)
    ... except GulBaraError as error:
    ...     print(error)
    the evaluator returned a score that is not finite (NaN or infinite)
    """
    array = np.asarray(values)
    if array.dtype.kind not in "biuf":
        raise GulBaraError(f"{what} must return real numbers, got an array of {array.dtype}")
    if array.shape != (n,):
        raise GulBaraError(f"{what} must return {n} scores (one per end, shape ({n},)), "
                           f"got shape {array.shape}")
    array = array.astype(np.float64, copy=False)
    if not np.isfinite(array).all():
        raise GulBaraError(f"{what} returned a score that is not finite (NaN or infinite)")
    return array


def position_code_sections(code: str):
    """The 24 point tokens, the bar section and the off section of a position code
    ``G:p1,...,p24|0,0|w,b`` (RULES §9.1), or :class:`InvalidPositionError` naming
    which part is missing; the tokens themselves are the caller's to read.

    >>> tokens, bar, off = position_code_sections("G:" + "," * 23 + "|0,0|15,15")
    >>> len(tokens), bar, off
    (24, '0,0', '15,15')
    >>> try:
    ...     position_code_sections("G:1,2|0,0")
    ... except InvalidPositionError as error:
    ...     print(error)
    a position code has three '|'-separated sections (points|bar|off), got 2 in 'G:1,2|0,0'
    """
    text = shown(code)
    if not code.startswith("G:"):
        raise InvalidPositionError(f"a position code starts with 'G:', got {text}")
    sections = code[2:].split("|")
    if len(sections) != 3:
        raise InvalidPositionError(f"a position code has three '|'-separated sections "
                                   f"(points|bar|off), got {len(sections)} in {text}")
    tokens = sections[0].split(",")
    if len(tokens) != 24:
        raise InvalidPositionError(f"a position code has 24 point tokens, got {len(tokens)} "
                                   f"in {text}")
    return tokens, sections[1], sections[2]
