"""Plays, the lazy sequence of a stage's ends, and backgammon notation (RULES §9.3).

>>> ends = stage_ends(START_CODE, WHITE, [6, 4])
>>> len(ends), ends.playable_dice
(2, 2)
>>> [str(play) for play in ends]
['24/18 24/20', '24/14']
>>> ends.parse("24/20 20/14") == ends[1]
True
>>> format_steps([(13, 6), (13, 6)])
'13/7(2)'
"""

import operator
import re
from typing import Iterator, List, Optional, Sequence, Tuple, Union

from gulbara.core._backend import START_CODE  # noqa: F401  (for the doctests)
from gulbara.core._backend import Position, raw_stage_ends
from gulbara.conventions import white_point
from gulbara.errors import (IllegalPlayError, InvalidNotationError, InvalidPositionError,
                            checked_index, shown)

__all__ = [
    "WHITE", "BLACK", "Step", "Play", "EndsView", "StageEnds", "stage_ends",
    "format_steps", "parse_notation", "EMPTY_PLAY_NOTATION",
]

WHITE = 0
BLACK = 1

#: A step ``(from, die)`` in the mover's own numbering (RULES §2.1).
Step = Tuple[int, int]

#: What gulbara writes for the empty play (RULES §3.6); "", "-" and "(no play)" are read too.
EMPTY_PLAY_NOTATION = "pass"
_EMPTY_PLAY_TEXTS = {"", "-", "pass", "(no play)", "no play"}

_MOVE_TOKEN = re.compile(r"([0-9]{1,3}|off|bar)((?:/(?:[0-9]{1,3}|off|bar)\*?)+)(?:\(([0-9]{1,3})\))?")


class Play:
    """One legal choice of a stage: its canonical steps and the position it leaves.

    ``steps`` is a tuple of ``(from, die)`` in the mover's numbering, ``code``
    the end position (``None`` for a play read from notation without a
    position), ``ends_game`` whether it bears off the mover's last checker.
    Plays are immutable and hashable.

    >>> Play(((24, 6), (24, 4)))
    Play(((24, 6), (24, 4)))
    >>> str(Play(((6, 6),)))
    '6/off'
    """

    __slots__ = ("_steps", "_code", "_ends_game")

    def __init__(self, steps: Sequence[Step] = (), code: Optional[str] = None,
                 ends_game: bool = False) -> None:
        self._steps = checked_steps(steps)
        self._code = code
        self._ends_game = bool(ends_game)

    @classmethod
    def from_notation(cls, text: str) -> "Play":
        """Read a play whose every move is a single die, e.g. ``'24/18 24/20'`` or ``'13/7(2)'``.

        Moves that span several dice (``24/14``) or bear off with an unknown
        die need the stage: use :meth:`StageEnds.parse` or
        :meth:`gulbara.Board.push_notation` for those.

        >>> Play.from_notation("13/7(2)").steps
        ((13, 6), (13, 6))
        """
        steps = []
        for path in parse_notation(text):
            for start, end in zip(path, path[1:]):
                if end == 0 or not 1 <= start - end <= 6:
                    raise InvalidNotationError(
                        f"move {start}/{'off' if end == 0 else end} in {shown(text)} does not name one "
                        f"die; read it against a stage with StageEnds.parse")
                steps.append((start, start - end))
        return cls(steps)

    @property
    def steps(self) -> Tuple[Step, ...]:
        """The canonical steps ``(from, die)`` in the mover's numbering (RULES §3.8)."""
        return self._steps

    @property
    def code(self) -> Optional[str]:
        """The end position's code, or ``None`` for a play read from notation alone."""
        return self._code

    @property
    def ends_game(self) -> bool:
        """Whether the play bears off the mover's last checker (RULES §7.1)."""
        return self._ends_game

    def is_empty(self) -> bool:
        """Whether this is the empty play (nothing could move, RULES §3.6)."""
        return not self._steps

    def notation(self) -> str:
        """The play in backgammon notation (RULES §9.3)."""
        return format_steps(self._steps)

    __str__ = notation

    def __repr__(self) -> str:
        args = [repr(self._steps)]
        if self._code is not None:
            args.append(f"code={self._code!r}")
        if self._ends_game:
            args.append("ends_game=True")
        return f"Play({', '.join(args)})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Play):
            return NotImplemented
        return (self._steps, self._code, self._ends_game) == (
            other._steps, other._code, other._ends_game)

    def __hash__(self) -> int:
        return hash((self._steps, self._code, self._ends_game))

    def __setattr__(self, name, value):
        if name in Play.__slots__ and not hasattr(self, name):
            object.__setattr__(self, name, value)
        else:
            raise AttributeError("Play is immutable")


class EndsView:
    """What a stage's ends (:class:`StageEnds`) and a chain's outcomes
    (:class:`gulbara.chains.enumeration.ChainEnds`) share: the backend's result they read
    (``raw``, its arrays and codes for the batch encoders and the protocol),
    the start, the mover and the end positions' codes."""

    __slots__ = ("_raw",)

    def __init__(self, raw) -> None:
        self._raw = raw

    @property
    def raw(self):
        """The backend's result this view reads (``Position.stage_ends``, ``chain_ends_raw``)."""
        return self._raw

    @property
    def start(self):
        """The position the mover starts from (a backend ``Position``)."""
        return self._raw.start()

    @property
    def seat(self) -> int:
        """The side that plays the stage or the chain."""
        return self._raw.seat

    def __len__(self) -> int:
        return len(self._raw)

    def codes(self) -> List[str]:
        """The end position codes, in order (a Python list: mind the size)."""
        raw = self._raw
        return [raw.code(i) for i in range(len(raw))]


class StageEnds(EndsView, Sequence[Play]):
    """The legal choices of one stage: its distinct ends in canonical order (RULES §3.7-3.8).

    A lazy sequence: ``len``, indexing, iteration and ``in`` build
    :class:`Play` objects only for the ends asked for.
    """

    __slots__ = ()

    @property
    def dice(self) -> Tuple[int, ...]:
        """The stage's dice, larger first."""
        return self._raw.dice

    @property
    def playable_dice(self) -> int:
        """How many dice every legal play uses; a game-ending play counts as all (RULES §3.4)."""
        return self._raw.playable_dice

    def _play(self, i: int) -> Play:
        raw = self._raw
        return Play(raw.steps(i), raw.code(i), raw.ends_game(i))

    def __getitem__(self, i):
        if type(i) is int and 0 <= i < len(self._raw):      # the common case: a plain index
            return self._play(i)
        if isinstance(i, slice):
            return [self._play(k) for k in range(*i.indices(len(self._raw)))]
        return self._play(checked_index(i, len(self._raw),
                                        "stage ends are indexed by an int or a slice", "ends"))

    def __iter__(self) -> Iterator[Play]:
        for i in range(len(self._raw)):
            yield self._play(i)

    def __contains__(self, item) -> bool:
        try:
            return self.find(item) is not None
        except (InvalidNotationError, TypeError):
            return False

    def find(self, item: Union[Play, str, Sequence[Step]]) -> Optional[Play]:
        """The end that ``item`` reaches if it is a legal play of this stage, else ``None``.

        ``item`` is a :class:`Play`, a notation string or a list of steps, in
        any legal order (the canonical :class:`Play` is returned).
        """
        index = self._find_index(item)
        return None if index < 0 else self._play(index)

    def parse(self, text: str) -> Play:
        """The legal play that notation ``text`` describes; raises if there is none.

        Lenient in what it reads: moves in any order, a checker's moves joined
        (``24/14``) or split (``24/18 18/14``), ``(n)`` repeats, ``off`` in any
        case, and ``pass`` / ``-`` / ``""`` for the empty play.
        """
        index = self._find_index(text)
        if index < 0:
            legal = ", ".join(repr(str(p)) for p in self[:12])
            more = "" if len(self) <= 12 else f" ... ({len(self)} in all)"
            raise IllegalPlayError(
                f"{shown(text)} is not a legal play of {'-'.join(map(str, self.dice))} for "
                f"{'White' if self.seat == WHITE else 'Black'}; legal: {legal}{more}")
        return self._play(index)

    def _find_index(self, item) -> int:
        raw = self._raw
        if isinstance(item, Play):
            index = self._index_of_steps(item.steps)
            if item.code is not None and index >= 0 and raw.code(index) != item.code:
                return -1
            return index
        if isinstance(item, str):
            return self._index_of_paths(parse_notation(item), item)
        return self._index_of_steps([tuple(step) for step in item])

    def _index_of_steps(self, steps) -> int:
        """Index of the end reached by ``steps`` if they form a legal play, else -1."""
        raw = self._raw
        start = raw.start()
        try:
            end = start.apply_steps(raw.seat, steps)
        except IllegalPlayError:
            return -1
        dice = list(raw.dice)
        for _, die in steps:
            if die not in dice:
                return -1
            dice.remove(die)
        if len(steps) != raw.playable_dice:
            if not (steps and end.borne_off(raw.seat) == 15 and len(steps) < raw.playable_dice):
                return -1
        return raw.index(end)

    def _index_of_paths(self, paths, text: str) -> int:
        """Index of the end that the checker paths of a notation reach, else -1.

        The notation is taken as the position it leaves (RULES §3.7): its net
        effect, whatever the order of its moves, and its moves must be made of
        distinct dice of the stage.
        """
        raw = self._raw
        start = raw.start()
        if not paths:
            return 0 if raw.playable_dice == 0 else -1
        seat = raw.seat
        points = list(start.points())
        off = [start.borne_off(0), start.borne_off(1)]
        sign = 1 if seat == WHITE else -1
        hops: List[Tuple[int, int]] = []
        for path in paths:
            points[white_point(seat, path[0]) - 1] -= sign
            if path[-1] == 0:
                off[seat] += 1
            else:
                points[white_point(seat, path[-1]) - 1] += sign
            hops.extend(zip(path, path[1:]))
        before = start.points()
        for q in range(24):
            # Only the mover's checkers may change, and never onto the opponent's points.
            if before[q] * sign < 0 and points[q] != before[q]:
                return -1
            if before[q] * sign >= 0 and points[q] * sign < 0:
                return -1
        if not _dice_cover(hops, list(raw.dice)):
            return -1
        try:
            end = Position.from_points(points, off[0], off[1])
        except InvalidPositionError:
            return -1
        return raw.index(end)

    def __repr__(self) -> str:
        return (f"<StageEnds seat={self.seat} dice={self.dice} "
                f"playable_dice={self.playable_dice} ends={len(self)}>")


def _dice_cover(hops, dice) -> bool:
    """Whether each hop (from, to) can be made of its own dice of the stage."""
    if not hops:
        return True
    (start, end), rest = hops[0], hops[1:]
    distance = start - end
    options = set()
    n = len(dice)
    for mask in range(1, 1 << n):
        chosen: Sequence[int] = [dice[i] for i in range(n) if mask >> i & 1]
        total = sum(chosen)
        if end == 0:
            ok = total >= start and total - max(chosen) < start
        else:
            ok = total == distance
        if ok:
            options.add(tuple(sorted(chosen)))
    for chosen in options:
        left = list(dice)
        for die in chosen:
            left.remove(die)
        if _dice_cover(rest, left):
            return True
    return False


def parse_notation(text: str) -> List[List[int]]:
    """Read notation into checker paths (lists of points in the mover's numbering, 0 = off).

    >>> parse_notation("24/18 24/20")
    [[24, 18], [24, 20]]
    >>> parse_notation("13/7(2) 6/OFF")
    [[13, 7], [13, 7], [6, 0]]
    >>> parse_notation("pass")
    []
    """
    if not isinstance(text, str):
        raise TypeError(f"notation must be a str, not {type(text).__name__}")
    cleaned = text.strip().lower()
    if cleaned in _EMPTY_PLAY_TEXTS:
        return []
    paths: List[List[int]] = []
    for token in re.split(r"[\s,;]+", cleaned):
        if not token:
            continue
        match = _MOVE_TOKEN.fullmatch(token)
        if not match:
            raise InvalidNotationError(f"cannot read {shown(token)} in {shown(text)} as a move like '24/18'")
        names = [match.group(1)] + match.group(2).replace("*", "").split("/")[1:]
        path = []
        for k, name in enumerate(names):
            if name == "bar":
                raise InvalidNotationError(f"there is no bar in Gul Bara: {shown(token)} in {shown(text)}")
            if name == "off":
                if k != len(names) - 1:
                    raise InvalidNotationError(f"'off' must end a move: {shown(token)} in {shown(text)}")
                path.append(0)
                continue
            point = int(name)
            if not 1 <= point <= 24:
                raise InvalidNotationError(f"point {point} is not 1..24 in {shown(text)}")
            path.append(point)
        if path[0] == 0:
            raise InvalidNotationError(f"a move cannot start off the board: {shown(token)} in {shown(text)}")
        for a, b in zip(path, path[1:]):
            if b >= a:
                raise InvalidNotationError(
                    f"checkers move to lower points: {shown(token)} in {shown(text)}")
        repeat = int(match.group(3)) if match.group(3) else 1
        if not 1 <= repeat <= 15:
            raise InvalidNotationError(f"repeat count ({repeat}) must be 1..15 in {shown(text)}")
        paths.extend(list(path) for _ in range(repeat))
    return paths


def checked_steps(steps) -> Tuple[Step, ...]:
    """``steps`` as a tuple of ``(from, die)`` pairs of plain ints (RULES §2.1).

    A step that is not a pair of ints (a float, a bool, a string, a triple)
    raises ``TypeError``, as :meth:`gulbara.Game.play` does. The values are not
    judged here: a position does that when the steps are played
    (:meth:`gulbara.Board.push`).

    >>> checked_steps([(24, 6), (18, 4)])
    ((24, 6), (18, 4))
    """
    if isinstance(steps, (str, bytes)):
        raise TypeError(f"steps are pairs of ints (from, die), not {type(steps).__name__}")
    checked = []
    for step in steps:
        try:
            frm, die = step
        except (TypeError, ValueError):
            raise TypeError(f"a step is a pair (from, die), got {shown(step)}") from None
        if type(frm) is not int or type(die) is not int:
            for value in (frm, die):
                if isinstance(value, bool) or not hasattr(type(value), "__index__"):
                    raise TypeError(f"a step is a pair of ints (from, die), got {shown(step)}")
            frm, die = operator.index(frm), operator.index(die)
        checked.append((frm, die))
    return tuple(checked)


def format_steps(steps: Sequence[Step]) -> str:
    """Canonical notation of a play's steps (RULES §9.3).

    A checker that moves again from where it landed is written as one move
    (``24/14``); equal moves are counted (``13/7(2)``); moves keep the order of
    their first steps; ``off`` marks a bear-off; the empty play is ``pass``.

    >>> format_steps([(24, 6), (18, 4)])
    '24/14'
    >>> format_steps([(6, 6), (5, 6)])
    '6/off 5/off'
    >>> format_steps([])
    'pass'

    The steps are checked as :func:`checked_steps` checks them.
    """
    paths: List[List[int]] = []
    for frm, die in checked_steps(steps):
        target = max(frm - die, 0)
        for path in paths:
            if path[-1] == frm:
                path.append(target)
                break
        else:
            paths.append([frm, target])
    if not paths:
        return EMPTY_PLAY_NOTATION
    counts: dict = {}
    for path in paths:
        move = (path[0], path[-1])
        counts[move] = counts.get(move, 0) + 1
    words = []
    for (start, end), count in counts.items():
        word = f"{start}/{'off' if end == 0 else end}"
        words.append(word if count == 1 else f"{word}({count})")
    return " ".join(words)


def stage_ends(code: str, seat: int, dice: Sequence[int]) -> StageEnds:
    """The legal choices of one stage (RULES §3): its distinct ends, in canonical order.

    ``code`` is a position code (RULES §9.1), ``seat`` 0 (White) or 1 (Black),
    ``dice`` a stage: two different dice or one to four equal dice.

    >>> ends = stage_ends(START_CODE, BLACK, [6, 6, 6, 6])
    >>> len(ends), str(ends[0]), ends[0].code
    (1, '24/18(4)', 'G:,,,,,-4,,,,,,-11,,,,,,,,,,,,15|0,0|0,0')
    """
    return StageEnds(raw_stage_ends(code, seat, dice))
