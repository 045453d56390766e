"""The reference move generator: slow, obvious, and written straight from the rules.

This module is the oracle of gulbara. The compiled backend (``gulbara.core._movegen``)
must agree with it on every stage of every position; where they differ, this
module is meant to be the one that is easy to check against the rules
(docs/user/rules.md) by reading it. It therefore has no cleverness and no speed tricks:

* a position is a plain tuple of 24 signed counts in White's numbering plus the
  two borne-off counts (RULES §9.1);
* a step is legal when RULES §2.1-2.3, written out literally, say so;
* a stage is played by trying every unused die (equal dice are distinct
  objects, so every order of them is tried) from every point, recursively,
  which lists every play of RULES §3.2;
* the legal plays are then picked out by RULES §3.3-3.6, grouped by end
  position (§3.7), and ordered with a sort key that spells out §3.8.

It provides the backend interface of ``docs/dev/backend.md``: ``stage_ends``,
``START_CODE``, ``Position`` and ``Ends``. It shares no code with the rest of
the package except the exception classes of ``gulbara.errors``.

Select it with ``GULBARA_BACKEND=reference`` before ``gulbara`` is imported.
"""

import operator
import re

from gulbara.errors import (
    IllegalPlayError,
    InvalidDiceError,
    InvalidPositionError,
    InvalidSeatError,
    position_code_sections,
)

__all__ = ["START_CODE", "stage_ends", "Position", "Ends"]

#: The start position (RULES §1.4, §9.1).
START_CODE = "G:,,,,,,,,,,,-15,,,,,,,,,,,,15|0,0|0,0"

WHITE = 0
BLACK = 1
NUMBER_OF_POINTS = 24
CHECKERS_PER_SIDE = 15
HOME_BOARD = range(1, 7)  # a player's own points 1..6 (RULES §1.2)

_INTEGER_TOKEN = re.compile(r"[+-]?[0-9]+")
_COUNT_TOKEN = re.compile(r"[0-9]+")
_TWO_COLOUR_TOKEN = re.compile(r"[+-]?[0-9]+(?:[+-][0-9]+)+")

_MASK64 = 2**64 - 1


# ---------------------------------------------------------------------------
# Input checks shared by the module-level function and the classes
# ---------------------------------------------------------------------------


def _check_int(value, what):
    """Return ``value`` as an int; a bool or a non-integer is a TypeError."""
    if isinstance(value, bool):
        raise TypeError(f"{what} must be an int, not bool: {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(
            f"{what} must be an int, not {type(value).__name__}: {value!r}"
        ) from None


def _item(items, i, what):
    """Item ``i`` of ``items`` (no negative indices); ``what`` names one item."""
    i = _check_int(i, f"{what} index")
    if not 0 <= i < len(items):
        raise IndexError(f"{what} index {i} out of range for {len(items)} {what}s")
    return items[i]


def _check_seat(seat):
    """Return the seat as an int 0 or 1 (RULES §1.1)."""
    seat = _check_int(seat, "seat")
    if seat not in (WHITE, BLACK):
        raise InvalidSeatError(f"seat must be 0 (White) or 1 (Black), got {seat!r}")
    return seat


def _read_count(token):
    """An integer token as a count (a huge one is capped: it is an error anyway)."""
    sign = -1 if token.startswith("-") else 1
    digits = token.lstrip("+-").lstrip("0") or "0"
    return sign * (999999 if len(digits) > 6 else int(digits))


def _check_dice(dice):
    """Return the stage's dice as a tuple in descending order (RULES §3.1).

    A stage is either two different dice or one to four equal dice.
    """
    if isinstance(dice, (str, bytes, bytearray)):
        raise TypeError(f"dice must be a sequence of ints, not {type(dice).__name__}: {dice!r}")
    try:
        given = list(dice)
    except TypeError:
        raise TypeError(
            f"dice must be a sequence of ints, not {type(dice).__name__}: {dice!r}"
        ) from None
    values = [_check_int(die, "die") for die in given]
    if not values:
        raise InvalidDiceError(f"a stage needs at least one die, got {tuple(values)!r}")
    for die in values:
        if not 1 <= die <= 6:
            raise InvalidDiceError(
                f"die {die!r} is not 1..6 in dice {tuple(values)!r}"
            )
    two_different = len(values) == 2 and values[0] != values[1]
    equal_dice = len(set(values)) == 1 and 1 <= len(values) <= 4
    if not (two_different or equal_dice):
        raise InvalidDiceError(
            f"dice {tuple(values)!r} are neither two different dice "
            "nor one to four equal dice"
        )
    return tuple(sorted(values, reverse=True))


# ---------------------------------------------------------------------------
# Numbering (RULES §1.2-1.3)
# ---------------------------------------------------------------------------


def _white_point(seat, own_point):
    """White's number of ``seat``'s own point ``own_point`` (RULES §1.3)."""
    if seat == WHITE:
        return own_point
    return ((own_point + 11) % NUMBER_OF_POINTS) + 1


def _sign(seat):
    """+1 for White's checkers, -1 for Black's (RULES §9.1)."""
    return 1 if seat == WHITE else -1


def _mix64(z):
    """The splitmix64 finaliser (docs/dev/backend.md, key formula)."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


# ---------------------------------------------------------------------------
# Position
# ---------------------------------------------------------------------------


class Position:
    """An immutable, hashable Gul Bara position (no side to move).

    ``Position(points, off_white, off_black)`` is the same as
    :meth:`Position.from_points`.
    """

    __slots__ = ("_points", "_off")

    def __init__(self, points, off_white, off_black):
        checked_points, checked_off = self._check_board(points, off_white, off_black)
        object.__setattr__(self, "_points", checked_points)
        object.__setattr__(self, "_off", checked_off)

    # -- construction ------------------------------------------------------

    @classmethod
    def _unchecked(cls, points, off):
        """Build a position from a 24-tuple and a 2-tuple without checks."""
        position = object.__new__(cls)
        object.__setattr__(position, "_points", tuple(points))
        object.__setattr__(position, "_off", tuple(off))
        return position

    @staticmethod
    def _check_board(points, off_white, off_black):
        """Check a board array and borne-off counts; return them as tuples."""
        try:
            given = list(points)
        except TypeError:
            raise TypeError(
                f"points must be a sequence of 24 ints, not {type(points).__name__}"
            ) from None
        counts = tuple(_check_int(count, "point count") for count in given)
        if len(counts) != NUMBER_OF_POINTS:
            raise InvalidPositionError(
                f"expected 24 points, got {len(counts)}"
            )
        for number, count in enumerate(counts, start=1):
            if abs(count) > CHECKERS_PER_SIDE:
                raise InvalidPositionError(
                    f"point {number} holds {abs(count)} checkers (at most 15): {count!r}"
                )
        off = (
            _check_int(off_white, "borne-off count"),
            _check_int(off_black, "borne-off count"),
        )
        for seat, name in ((WHITE, "White"), (BLACK, "Black")):
            if not 0 <= off[seat] <= CHECKERS_PER_SIDE:
                raise InvalidPositionError(
                    f"{name}'s borne-off count must be 0..15, got {off[seat]!r}"
                )
        for seat, name in ((WHITE, "White"), (BLACK, "Black")):
            sign = _sign(seat)
            on_board = sum(sign * count for count in counts if sign * count > 0)
            if on_board + off[seat] != CHECKERS_PER_SIDE:
                raise InvalidPositionError(
                    f"{name} has {on_board} checkers on the board and {off[seat]} "
                    f"borne off: {on_board + off[seat]}, not 15"
                )
        return counts, off

    @classmethod
    def from_points(cls, points, off_white, off_black):
        """A position from 24 signed counts in White's numbering (positive White,
        negative Black) and the two borne-off counts (RULES §9.1)."""
        return cls(points, off_white, off_black)

    @classmethod
    def from_code(cls, code):
        """Parse a position code ``G:p1,...,p24|0,0|w,b`` (RULES §9.1)."""
        if not isinstance(code, str):
            raise TypeError(
                f"a position code must be a str, not {type(code).__name__}: {code!r}"
            )
        tokens, bar_section, off_section = position_code_sections(code)
        counts = []
        for number, token in enumerate(tokens, start=1):
            if token == "":
                counts.append(0)  # an empty token is an empty point
            elif _INTEGER_TOKEN.fullmatch(token):
                counts.append(_read_count(token))  # "0", "+0", "-0" read as empty
            elif _TWO_COLOUR_TOKEN.fullmatch(token):
                raise InvalidPositionError(
                    f"point {number} holds both colours: {token!r}"
                )
            else:
                raise InvalidPositionError(
                    f"point {number} is not an integer: {token!r}"
                )

        if bar_section != "0,0":
            raise InvalidPositionError(
                f"bar section must be exactly '0,0' (there is no bar): {bar_section!r}"
            )

        off_tokens = off_section.split(",")
        if len(off_tokens) != 2 or not all(
            _COUNT_TOKEN.fullmatch(token) for token in off_tokens
        ):
            raise InvalidPositionError(
                f"borne-off section must be two integers 0..15: {off_section!r}"
            )
        off_white, off_black = (_read_count(token) for token in off_tokens)
        return cls(counts, off_white, off_black)

    # -- immutability and identity ------------------------------------------

    def __setattr__(self, name, value):
        raise AttributeError("Position is immutable")

    def __delattr__(self, name):
        raise AttributeError("Position is immutable")

    def __reduce__(self):
        return (Position.from_code, (self.code(),))

    def __eq__(self, other):
        if not isinstance(other, Position):
            return NotImplemented
        return self._points == other._points and self._off == other._off

    def __hash__(self):
        return hash((self._points, self._off))

    def __repr__(self):
        return f"Position.from_code({self.code()!r})"

    # -- reading -------------------------------------------------------------

    def code(self):
        """The canonical position code: empty tokens for empty points, no '+'."""
        tokens = ",".join("" if count == 0 else str(count) for count in self._points)
        return f"G:{tokens}|0,0|{self._off[WHITE]},{self._off[BLACK]}"

    def points(self):
        """The 24 signed counts in White's numbering."""
        return self._points

    def borne_off(self, seat):
        """How many checkers ``seat`` has borne off."""
        return self._off[_check_seat(seat)]

    def count(self, seat, own_point):
        """How many of ``seat``'s checkers stand on its own point ``own_point``."""
        signed = _sign(seat) * self._points[_white_point(seat, own_point) - 1]
        return signed if signed > 0 else 0

    def _held_by_opponent(self, seat, own_point):
        """Whether ``seat``'s opponent has a checker on ``seat``'s ``own_point``."""
        return _sign(seat) * self._points[_white_point(seat, own_point) - 1] < 0

    def pip_count(self, seat):
        """Sum over ``seat``'s checkers of its own point number."""
        seat = _check_seat(seat)
        return sum(
            own_point * self.count(seat, own_point)
            for own_point in range(1, NUMBER_OF_POINTS + 1)
        )

    def key(self):
        """64-bit unsigned hash, the formula of docs/dev/backend.md."""
        packed = []
        for seat in (WHITE, BLACK):
            k = 0
            for own_point in range(1, NUMBER_OF_POINTS + 1):
                k |= self.count(seat, own_point) << (4 * (own_point - 1))
            packed.append(k)
        k0, k1 = packed
        return (
            _mix64(k0 & _MASK64)
            ^ _mix64((k0 >> 64) | ((k1 & 0xFFFFFFFF) << 32))
            ^ _mix64((k1 >> 32) ^ 0x9E3779B97F4A7C15)
        )

    # -- steps (RULES §2) ----------------------------------------------------

    def _all_home(self, seat):
        """Whether every checker ``seat`` still has on the board is in its home
        board, its own points 1..6 (RULES §2.3)."""
        return all(
            self.count(seat, own_point) == 0
            for own_point in range(1, NUMBER_OF_POINTS + 1)
            if own_point not in HOME_BOARD
        )

    def _highest_occupied(self, seat):
        """``seat``'s highest own point holding one of its checkers, or 0."""
        occupied = [
            own_point
            for own_point in range(1, NUMBER_OF_POINTS + 1)
            if self.count(seat, own_point) > 0
        ]
        return max(occupied) if occupied else 0

    def _step_problem(self, seat, from_point, die):
        """Why the step (from_point, die) is illegal for ``seat``, or None when
        it is legal (RULES §2.1-2.3)."""
        if self._off[seat] == CHECKERS_PER_SIDE:
            # RULES §3.3: no step may follow the 15th checker borne off.
            return "the mover has already borne off all 15 checkers"
        if not 1 <= from_point <= NUMBER_OF_POINTS:
            return f"point {from_point} is not a point 1..24"  # RULES §2.1
        if not 1 <= die <= 6:
            return f"die {die} is not 1..6"
        if self.count(seat, from_point) == 0:
            # RULES §2.1-2.2: a checker of the mover must leave `from`.
            return f"the mover has no checker on its point {from_point}"
        target = from_point - die
        if target >= 1:
            # RULES §2.2: one opponent checker is enough to hold a point.
            if self._held_by_opponent(seat, target):
                return f"the opponent holds the mover's point {target}"
            return None
        # RULES §2.3: bearing off.
        if not self._all_home(seat):
            return "the mover cannot bear off: not all its checkers are home"
        if target == 0:
            return None  # exact die
        if from_point == self._highest_occupied(seat):
            return None  # a higher die from the highest point
        return (
            f"die {die} is higher than needed and point {from_point} is not "
            "the mover's highest occupied point"
        )

    def _after_step(self, seat, from_point, die):
        """The position after the (already checked) step (from_point, die)."""
        points = list(self._points)
        off = list(self._off)
        sign = _sign(seat)
        points[_white_point(seat, from_point) - 1] -= sign
        target = from_point - die
        if target >= 1:
            points[_white_point(seat, target) - 1] += sign
        else:
            off[seat] += 1  # RULES §2.1: 0 or below is borne off
        return Position._unchecked(points, off)

    def apply_steps(self, seat, steps):
        """Play ``steps`` (pairs (from, die) in the mover's numbering) one after
        another, each checked by RULES §2 alone; the stage rules of RULES §3
        are not checked. Raises IllegalPlayError naming the first bad step."""
        seat = _check_seat(seat)
        position = self
        for number, step in enumerate(steps, start=1):
            try:
                from_point, die = step
            except (TypeError, ValueError):
                raise TypeError(
                    f"step {number} {step!r} is not a (from, die) pair"
                ) from None
            from_point = _check_int(from_point, "step point")
            die = _check_int(die, "step die")
            problem = position._step_problem(seat, from_point, die)
            if problem is not None:
                raise IllegalPlayError(
                    f"step {number} ({from_point}, {die}) is illegal: {problem}"
                )
            position = position._after_step(seat, from_point, die)
        return position

    # -- stages (RULES §3) ---------------------------------------------------

    def stage_ends(self, seat, dice):
        """The distinct ends of the stage ``dice`` played by ``seat`` (RULES §3)."""
        return Ends(self, _check_seat(seat), _check_dice(dice))


# ---------------------------------------------------------------------------
# Plays and ends (RULES §3)
# ---------------------------------------------------------------------------


def _every_play(start, seat, dice):
    """Every play of the stage (RULES §3.2), including the empty one and every
    prefix, as a list of (steps, end position) pairs.

    At each step every unused die value is tried on every point (equal dice
    are interchangeable, so one try per distinct value covers every order).
    A branch stops when every die is used, when no die can be played, or when
    the mover's 15th checker is off (RULES §3.3).
    """
    plays = []

    def extend(position, steps, unused):
        plays.append((steps, position))
        if position.borne_off(seat) == CHECKERS_PER_SIDE:
            return  # RULES §3.3: the game is over; no step may follow.
        for die in sorted(set(unused), reverse=True):
            rest = list(unused)
            rest.remove(die)
            for from_point in range(NUMBER_OF_POINTS, 0, -1):
                if position._step_problem(seat, from_point, die) is None:
                    extend(
                        position._after_step(seat, from_point, die),
                        steps + ((from_point, die),),
                        tuple(rest),
                    )

    extend(start, (), tuple(dice))
    return plays


def _ends_the_game(seat, steps, end):
    """Whether the play's last step bore off the mover's 15th checker (RULES §3.3)."""
    return bool(steps) and end.borne_off(seat) == CHECKERS_PER_SIDE


def _effective_length(seat, dice, steps, end):
    """RULES §3.4: dice used, or all the stage's dice for a play that ends the game."""
    if _ends_the_game(seat, steps, end):
        return len(dice)
    return len(steps)


def _canonical_key(steps):
    """Sort key of a play for RULES §3.8: step by step, the higher `from` first,
    for the same `from` the larger die first, and a prefix before a longer play
    (Python compares tuples that way)."""
    return tuple((-from_point, -die) for from_point, die in steps)


def _legal_plays(start, seat, dice):
    """The legal plays of the stage (RULES §3.3-3.6) and the greatest effective
    length, as (plays, playable_dice)."""
    plays = _every_play(start, seat, dice)

    # RULES §3.4: keep the plays of greatest effective length. The empty play is
    # always among `plays`, so when no die can be played it is the only one left
    # (RULES §3.6).
    longest = max(_effective_length(seat, dice, steps, end) for steps, end in plays)
    legal = [
        (steps, end)
        for steps, end in plays
        if _effective_length(seat, dice, steps, end) == longest
    ]

    # RULES §3.5: the larger-die rule, for two different dice.
    if len(dice) == 2 and dice[0] != dice[1]:
        larger = max(dice)
        some_play_uses_both = any(len(steps) == 2 for steps, end in legal)
        some_single_uses_larger = any(
            len(steps) == 1 and steps[0][1] == larger for steps, end in legal
        )
        if not some_play_uses_both and some_single_uses_larger:
            legal = [
                (steps, end)
                for steps, end in legal
                if any(die == larger for _, die in steps)
                or _ends_the_game(seat, steps, end)  # never excluded by §3.5
            ]

    return legal, longest


class _EndSet:
    """End positions of one mover from one start, as the core's ``EndSet``:
    a stage's ends or a chain's outcomes. Subclasses set ``_start``, ``_seat``
    and ``_items``, and say how an item gives its position."""

    __slots__ = ("_start", "_seat", "_items")
    _what = "end"

    def start(self):
        """The position the mover starts from."""
        return self._start

    @property
    def seat(self):
        """The mover, 0 (White) or 1 (Black)."""
        return self._seat

    def __len__(self):
        return len(self._items)

    def _item(self, i):
        return _item(self._items, i, self._what)

    def _item_position(self, item):
        raise NotImplementedError

    def position(self, i):
        """The position of end (or outcome) ``i``."""
        return self._item_position(self._item(i))

    def code(self, i):
        """The position code of end (or outcome) ``i``."""
        return self.position(i).code()


class Ends(_EndSet):
    """The result of one stage: its distinct end positions (RULES §3.7) in
    canonical order (RULES §3.8). Computed eagerly."""

    __slots__ = ("_dice", "_playable_dice")

    def __init__(self, start, seat, dice):
        legal, playable_dice = _legal_plays(start, seat, dice)

        # RULES §3.7: plays that leave the same position are the same choice.
        plays_by_end = {}
        for steps, end in legal:
            plays_by_end.setdefault(end, []).append(steps)

        # RULES §3.8: the canonical steps of an end are its first play in the
        # canonical order; the ends are listed in the order of those steps.
        ends = []
        for end, plays in plays_by_end.items():
            canonical = min(plays, key=_canonical_key)
            ends.append((canonical, end))
        ends.sort(key=lambda item: _canonical_key(item[0]))

        self._start = start
        self._seat = seat
        self._dice = dice
        self._playable_dice = playable_dice
        self._items = tuple(ends)

    @property
    def dice(self):
        """The stage's dice, in descending order."""
        return self._dice

    @property
    def playable_dice(self):
        """The greatest effective length (RULES §3.4)."""
        return self._playable_dice

    def _item_position(self, item):
        return item[1]

    def steps(self, i):
        """The canonical steps of end ``i`` (RULES §3.8), in the mover's numbering."""
        return self._item(i)[0]

    def ends_game(self, i):
        """Whether the play of end ``i`` bore off the mover's 15th checker (RULES §3.3)."""
        steps, end = self._item(i)
        return bool(steps) and end.borne_off(self._seat) == CHECKERS_PER_SIDE

    def index(self, position):
        """The index of the end equal to ``position``, or -1."""
        for i, (_, end) in enumerate(self._items):
            if end == position:
                return i
        return -1

    def __repr__(self):
        return (
            f"<Ends seat={self._seat} dice={self._dice} "
            f"playable_dice={self._playable_dice} ends={len(self._items)}>"
        )


def stage_ends(code, seat, dice):
    """Parse the position code (RULES §9.1) and enumerate the stage (RULES §3)."""
    return Position.from_code(code).stage_ends(seat, dice)


# ---------------------------------------------------------------------------
# Whole chains and remainders (RULES §4.3-4.4, §5.3), stage by stage
# ---------------------------------------------------------------------------

STOP_COMPLETE, STOP_STALLED, STOP_UNSTARTED, STOP_GAME_OVER = 0, 1, 2, 3


def chain_outcomes(code, seat, stages, is_chain, generate=None):
    """Every distinct outcome of a sequence of equal-dice stages, expanded
    stage by stage with a stage generator (this module's ``stage_ends`` unless
    ``generate`` is given).

    ``stages`` are (number, count) pairs. An outcome is (end code, stop,
    number, dice played in that stage): for an escalating chain
    (``is_chain``) the chain stops at the first stage not played in full
    (RULES §4.4; ``STOP_UNSTARTED`` when not even one die of the first stage
    moves, RULES §5.2); for a remainder every stage is played, its unplayable
    dice lost (RULES §5.3). A stage that ends the game stops everything
    (RULES §5.5), and passes nothing: the game-ending outcome is one however
    many stages can end the game (RULES §5.6), tagged with the first of them.
    """
    generate = generate or stage_ends
    outcomes = set()
    game_over = None
    frontier = {code}
    for index, (number, count) in enumerate(stages):
        following = set()
        last = index == len(stages) - 1
        for here in frontier:
            ends = generate(here, seat, [number] * count)
            if is_chain and ends.playable_dice == 0:
                stop = STOP_UNSTARTED if index == 0 else STOP_STALLED
                outcomes.add((here, stop, number, 0))
                continue
            for i in range(len(ends)):
                if ends.ends_game(i):
                    if game_over is None:
                        game_over = (ends.code(i), STOP_GAME_OVER, number, count)
                elif is_chain and ends.playable_dice < count:
                    outcomes.add((ends.code(i), STOP_STALLED, number, ends.playable_dice))
                elif last:
                    outcomes.add((ends.code(i), STOP_COMPLETE, number, count))
                else:
                    following.add(ends.code(i))
        frontier = following
    if game_over is not None:
        outcomes.add(game_over)
    return outcomes


class ChainResult(_EndSet):
    """Every distinct outcome of a chain or a remainder (the reference's
    stage-by-stage expansion; the same interface as the core's)."""

    __slots__ = ("_stages", "_is_chain")
    _what = "outcome"

    def __init__(self, code, seat, stages, is_chain, max_ends, outcomes=None):
        self._start = Position.from_code(code)
        self._seat = seat
        self._stages = [(number, count) for number, count in stages]
        self._is_chain = is_chain
        if outcomes is None:
            outcomes = chain_outcomes(self._start.code(), seat, self._stages, is_chain)
            if max_ends is not None and len(outcomes) > max_ends:
                from gulbara.errors import EnumerationLimitError
                raise EnumerationLimitError(f"more than max_ends={max_ends:,} distinct positions")
        self._items = sorted(outcomes)

    def take(self, start, stop):
        """A result holding outcomes ``start:stop``."""
        return ChainResult(self._start.code(), self._seat, self._stages, self._is_chain, None,
                           self._items[start:stop])

    @property
    def stages(self):
        return tuple((number,) * count for number, count in self._stages)

    def _item_position(self, item):
        return Position.from_code(item[0])

    def code(self, i):
        return self._item(i)[0]

    def tag(self, i):
        return self._item(i)[1:]

    def fill(self, boards, borne_off, stop, number, played):
        for i, (code, why, where, count) in enumerate(self._items):
            end = Position.from_code(code)
            boards[i, :] = end.points()
            borne_off[i, 0] = end.borne_off(0)
            borne_off[i, 1] = end.borne_off(1)
            stop[i], number[i], played[i] = why, where, count

    def steps(self, i):
        """The first stage-by-stage play (each stage's ends in canonical order) reaching outcome i."""
        target = self._item(i)

        def search(code, index, so_far):
            number, count = self._stages[index]
            ends = stage_ends(code, self._seat, [number] * count)
            if self._is_chain and ends.playable_dice == 0:
                stop = STOP_UNSTARTED if index == 0 else STOP_STALLED
                return so_far + ((),) if (code, stop, number, 0) == target else None
            for k in range(len(ends)):
                steps = so_far + (ends.steps(k),)
                if ends.ends_game(k):
                    outcome = (ends.code(k), STOP_GAME_OVER, number, count)
                elif self._is_chain and ends.playable_dice < count:
                    outcome = (ends.code(k), STOP_STALLED, number, ends.playable_dice)
                elif index == len(self._stages) - 1:
                    outcome = (ends.code(k), STOP_COMPLETE, number, count)
                else:
                    found = search(ends.code(k), index + 1, steps)
                    if found is not None:
                        return found
                    continue
                if outcome == target or (outcome[1] == STOP_GAME_OVER
                                         and outcome[:2] == target[:2]):
                    return steps
            return None

        return search(self._start.code(), 0, ())


#: The backend contract's chain constants (docs/dev/backend.md); the reference
#: holds its outcomes as Python tuples and counts no bytes.
CHAIN_BYTES_PER_END = 128
CHAIN_MAX_PASSES = 64
DEFAULT_CHAIN_MEMORY = 3 << 30


class ChainRun:
    """A chain or remainder to enumerate in passes: ``run(q, passes)`` gives
    pass ``q``'s share of the outcomes (a contiguous slice of the whole)."""

    def __init__(self, code, seat, stages, is_chain, max_ends):
        self._args = (code, seat, stages, is_chain)
        self.max_ends = max_ends
        self._whole = None

    def __call__(self):
        return ChainResult(*self._args, self.max_ends)

    def count(self):
        """None: the reference has no diagrams (count the outcomes of its passes)."""
        return None

    @property
    def stats(self):
        """What its enumerations took (the core's keys): nothing but stage by stage."""
        return dict(diagram_chains=0, small_tries=0, stages_bucketed=0, stages_layered=0,
                    stages_turned=0, last_diagram=None)

    def run(self, q, passes):
        if passes < 1 or CHAIN_MAX_PASSES % passes or not 0 <= q < passes:
            raise ValueError(f"pass {q} of {passes}: passes must divide {CHAIN_MAX_PASSES}")
        if self._whole is None:
            self._whole = self()
        n = len(self._whole)
        return self._whole.take(q * n // passes, (q + 1) * n // passes)


def _chain_args(code_or_position, seat, first):
    code = code_or_position.code() if isinstance(code_or_position, Position) else code_or_position
    seat = _check_seat(seat)
    first = _check_int(first, "first")
    if not 1 <= first <= 6:
        raise InvalidDiceError(f"a chain starts at a number 1..6, got {first}")
    return code, seat, [(n, 4) for n in range(first, 7)]


def _remainder_args(code_or_position, seat, stages):
    code = code_or_position.code() if isinstance(code_or_position, Position) else code_or_position
    pairs = []
    for item in stages:
        number, count = (_check_int(value, "a remainder stage") for value in item)
        if not 1 <= number <= 6 or not 1 <= count <= 4 or (pairs and number <= pairs[-1][0]):
            raise InvalidDiceError(f"a remainder stage is a number 1..6 and a count 1..4 in "
                                   f"ascending order, got {item!r}")
        pairs.append((number, count))
    if not 1 <= len(pairs) <= 6:
        raise InvalidDiceError(f"a remainder has 1 to 6 stages, got {len(pairs)}")
    return code, _check_seat(seat), pairs


def chain_run_raw(code_or_position, seat, first, max_ends=None, threads=None, memory=None,
                  plan=None):
    """A ChainRun for an escalating chain from ``first`` up to 6 (``threads``,
    ``memory`` and ``plan`` are accepted and ignored: the reference is one thread,
    stage by stage, in Python)."""
    return ChainRun(*_chain_args(code_or_position, seat, first), True, max_ends)


def remainder_run_raw(code_or_position, seat, stages, max_ends=None, threads=None, memory=None,
                      plan=None):
    """A ChainRun for a remainder's stages, given as (number, count) pairs."""
    return ChainRun(*_remainder_args(code_or_position, seat, stages), False, max_ends)


def chain_ends_raw(code_or_position, seat, first, max_ends=None, threads=None, memory=None,
                   plan=None):
    """Every outcome of an escalating chain from ``first`` up to 6 (RULES §4.3-4.4)."""
    return chain_run_raw(code_or_position, seat, first, max_ends)()


def remainder_ends_raw(code_or_position, seat, stages, max_ends=None, threads=None, memory=None,
                       plan=None):
    """Every outcome of a remainder's stages (RULES §5.3), given as (number, count) pairs."""
    return remainder_run_raw(code_or_position, seat, stages, max_ends)()


def buffer_pool(max_bytes=None):
    """The pure-Python reference keeps no buffers: nothing to reuse or free."""
    return {"kept": 0, "kept_bytes": 0, "live": 0, "reused": 0, "max_bytes": 0, "from_bytes": 0}


def release_buffers():
    """Nothing is kept by the reference: 0 bytes freed."""
    return 0
