"""A game's full state, named, and its text: the state-code writer and reader, and codes built from a position.

:class:`GameState` holds what :class:`gulbara.Game` is at one moment, field
for field the struct ``GameState`` of ``_state.pxd``: the position, the phase
(:data:`OPENING`, :data:`ROLL`, :data:`STAGE`, :data:`OVER`), the side to act,
the rolls made per seat, the stuck counter, the pending :class:`Stage` with the
:class:`Roll` that produced it, and the :class:`GameResult`. The rules a game
and the native structs share are here once: :func:`escalates` (RULES §4.2,
§4.5) and :func:`remainder_stages` (RULES §5.1-5.2).

A game state code (``Game.state_code()``, grammar in docs/user/state-codes.md) is a
position code followed by ``key=value`` fields saying what comes next:
:func:`write_state_code` writes a :class:`GameState`, :func:`read_state_code`
reads one back, every field checked. Often one has only a position and knows
who rolls next: :func:`state_code` builds the state for that, with the
escalation of doubles in force (both sides past their exempt rolls, RULES §4.2)
unless ``rolls`` says otherwise.

>>> state = read_state_code("G:,,,,,,,,,,,-15,,,,,,1,1,,,,,13|0,0|0,0 next=roll:B rolls=1,0 stuck=0")
>>> state.phase, state.seat, state.rolls
('roll', 1, (1, 0))
>>> write_state_code(state)
'G:,,,,,,,,,,,-15,,,,,,1,1,,,,,13|0,0|0,0 next=roll:B rolls=1,0 stuck=0'
>>> state_code("start")
'G:,,,,,,,,,,,-15,,,,,,,,,,,,15|0,0|0,0 next=opening rolls=0,0 stuck=0'
>>> state_code("G:,1,,1,,,,,,,,,-12,,,,,,,,,,,|0,0|13,3", "white")
'G:,1,,1,,,,,,,,,-12,,,,,,,,,,,|0,0|13,3 next=roll:W rolls=3,3 stuck=0'
>>> state_code("start", 1, rolls=(0, 0))
'G:,,,,,,,,,,,-15,,,,,,,,,,,,15|0,0|0,0 next=roll:B rolls=0,0 stuck=0'
>>> state_code("G:,,,,,,,,,,,-15,,,,,,,,,,,,15|0,0|0,0")
Traceback (most recent call last):
...
gulbara.errors.GameStateError: a position code needs the side to roll (seat white/black or 0/1) to make a game state; or give a full state code (docs/user/state-codes.md)
"""

import re
from dataclasses import dataclass
from typing import Dict, NamedTuple, Optional, Sequence, Tuple, Union, cast

from gulbara.core._backend import START_CODE, Position
from gulbara.errors import GameStateError, InvalidSeatError, checked_int, shown
from gulbara.rules import DEFAULT_RULES, Rules

__all__ = ["GameState", "Stage", "Roll", "GameResult", "StageSpec", "escalates",
           "remainder_stages", "write_state_code", "read_state_code", "state_code",
           "seat_index", "position_code", "is_state_code", "OPENING", "ROLL", "STAGE", "OVER",
           "PLAIN", "CHAIN", "REMAINDER", "SEAT_NAMES", "SEAT_LETTERS", "MAX_STATE_COUNT"]

SEAT_NAMES = ("White", "Black")
SEAT_LETTERS = ("W", "B")

# Phases of a game (_state.pxd: PH_OPENING, PH_ROLL, PH_STAGE, PH_OVER).
OPENING = "opening"      # chance node: the opening (RULES §6)
ROLL = "roll"            # chance node: a side to roll
STAGE = "stage"          # decision: a stage to play
OVER = "over"            # finished

# Kinds of stage (_state.pxd: K_PLAIN, K_CHAIN, K_REMAINDER).
PLAIN = "plain"          # the one stage of a roll that does not escalate (non-double, exempt double)
CHAIN = "chain"          # a stage of an escalation chain (RULES §4.2)
REMAINDER = "remainder"  # a stage of a remainder (RULES §5.3)

StageSpec = Tuple[int, int]  # (number, how many dice)

#: The largest roll or stuck count a state code may hold (the native structs count in
#: 32 bits; two seats' rolls and a long game after them stay far below 2**31).
MAX_STATE_COUNT = 1_000_000_000
_COUNT = re.compile(r"[0-9]{1,10}")     # ASCII digits only: no "١", no "1_0", no sign


class Stage(NamedTuple):
    """A pending stage (``_state.pxd``: ``kind``, ``high``/``low``/``count``, ``index``, ``then``)."""

    kind: str                               # PLAIN, CHAIN or REMAINDER
    dice: Tuple[int, ...]                   # larger first: (6, 4), (3, 3, 3, 3), (5, 5)
    # (a field named as in _state.pxd, which hides tuple.index: hence the ignore)
    index: int  # type: ignore[assignment]  # its place in its chain or remainder
    following: Tuple[StageSpec, ...]        # the stages after it in this turn


class Roll(NamedTuple):
    """The roll a pending stage comes from (``_state.pxd``: ``roller``, ``roll``,
    ``escalating``, ``opening``; ``number`` is ``rolls[roller]`` once it was made)."""

    roller: int
    dice: Tuple[int, int]                   # as rolled
    number: int                             # the roller's count of its rolls, this one included
    escalating: bool                        # an escalating double: a chain (RULES §4.2)
    opening: bool                           # the opening roll (RULES §6)


@dataclass(frozen=True)
class GameResult:
    """How a game ended (RULES §7.1-7.2).

    ``winner`` is the winning seat or ``None`` for a draw; ``points`` what the
    winner scores (2 for a mars, 0 for a draw); ``kind`` is ``"single"``,
    ``"mars"`` or ``"stuck"`` (the stuck rule's draw).
    """

    winner: Optional[int]
    points: int
    kind: str

    @property
    def score(self) -> Tuple[int, int]:
        """The points per seat, ``(White's, Black's)``."""
        if self.winner is None:
            return (0, 0)
        return (self.points, 0) if self.winner == 0 else (0, self.points)

    def describe(self) -> str:
        if self.winner is None:
            return "draw (stuck rule)"
        mars = " (mars)" if self.kind == "mars" else ""
        unit = "point" if self.points == 1 else "points"
        return f"{SEAT_NAMES[self.winner]} wins {self.points} {unit}{mars}"


class GameState(NamedTuple):
    """A game's full state (``_state.pxd``'s ``GameState``; ``Game``'s docstring lists it)."""

    position: Position
    phase: str                              # OPENING, ROLL, STAGE or OVER
    seat: Optional[int]                     # the side to act; None at the opening and the end
    rolls: Tuple[int, int]                  # rolls made per seat (RULES §4.5)
    stuck: int                              # rolls in a row without a move (RULES §7.2)
    roll: Optional[Roll]                    # with a pending stage
    stage: Optional[Stage]                  # phase STAGE only
    result: Optional[GameResult]            # phase OVER only


def escalates(rules: Rules, own_count: int, game_count: int) -> bool:
    """Whether a double that is roll ``own_count`` of its roller, ``game_count`` of the game,
    escalates (RULES §4.2, §4.5; ``_state.pxd``'s ``escalates``)."""
    if not rules.escalation:
        return False
    count = own_count if rules.exempt_counting == "per_player" else game_count
    return count > rules.exempt_rolls


def remainder_stages(rules: Rules, stage: Stage, played: int) -> Tuple[StageSpec, ...]:
    """The stages a chain stage not played in full hands to the opponent (RULES §5.1-5.2).

    ``played`` dice of ``stage`` (a CHAIN stage) were played. Nothing played in
    the chain's first stage is an unstarted chain (``rules.unstarted_chain``),
    anything else a remainder (``rules.remainder``); the option ``"lost"``
    hands over nothing. The stages are the rest of this one, then the later numbers.

    >>> stage = Stage(CHAIN, (4, 4, 4, 4), 1, ((5, 4), (6, 4)))
    >>> remainder_stages(DEFAULT_RULES, stage, 1)
    ((4, 3), (5, 4), (6, 4))
    >>> remainder_stages(DEFAULT_RULES, stage._replace(index=0), 0)      # unstarted: lost
    ()
    """
    unstarted = stage.index == 0 and played == 0
    option = rules.unstarted_chain if unstarted else rules.remainder
    if option != "to_opponent":
        return ()
    return ((stage.dice[0], len(stage.dice) - played),) + stage.following


def write_state_code(state: GameState) -> str:
    """The state as text: the position code, then ``key=value`` fields.

    * ``next=opening``: the opening chance node (RULES §6);
    * ``next=roll:W`` / ``roll:B``: that side to roll;
    * ``next=play:W stage=6-4``: the one stage of a roll that does not
      escalate; ``next=chain:W stage=4-4-4-4 index=1``: a chain stage
      (numbers up to 6 follow if it is played in full); ``next=remainder:B
      stage=4-4 then=5x4,6x4``: a remainder stage and the stages after it;
      a decision also names the ``roll`` that produced it (``roll=3-3``);
    * ``next=over result=W:2:mars`` (or ``result=draw``);
    * then always ``rolls=<White's>,<Black's> stuck=<count>``.
    """
    words = [state.position.code()]
    if state.phase == OPENING:
        words.append("next=opening")
    elif state.phase == ROLL:
        assert state.seat is not None
        words.append(f"next=roll:{SEAT_LETTERS[state.seat]}")
    elif state.phase == STAGE:
        stage, roll = state.stage, state.roll
        assert stage is not None and roll is not None and state.seat is not None
        words.append(f"next={'play' if stage.kind == PLAIN else stage.kind}:"
                     f"{SEAT_LETTERS[state.seat]}")
        words.append("stage=" + "-".join(map(str, stage.dice)))
        if stage.kind != PLAIN:
            words.append(f"index={stage.index}")
        if stage.kind == REMAINDER and stage.following:
            words.append("then=" + ",".join(f"{n}x{c}" for n, c in stage.following))
        words.append(f"roll={roll.dice[0]}-{roll.dice[1]}")
        if stage.kind == REMAINDER:
            words.append(f"roller={SEAT_LETTERS[roll.roller]}")
    else:
        words.append("next=over")
        r = state.result
        assert r is not None
        words.append("result=draw" if r.winner is None
                     else f"result={SEAT_LETTERS[r.winner]}:{r.points}:{r.kind}")
    words.append(f"rolls={state.rolls[0]},{state.rolls[1]}")
    words.append(f"stuck={state.stuck}")
    return " ".join(words)


class _Fields:
    """The ``key=value`` fields of one state code, read once each; errors name the code."""

    def __init__(self, text: str, words: Sequence[str]) -> None:
        self.text = text
        self.fields: Dict[str, str] = {}
        for word in words:
            key, sep, value = word.partition("=")
            if not sep or key in self.fields:
                raise self.bad(f"cannot read {shown(word)}")
            self.fields[key] = value

    def bad(self, problem: str) -> GameStateError:
        return GameStateError(f"{problem} in state code {shown(self.text)}")

    def need(self, key: str) -> str:
        if key not in self.fields:
            raise self.bad(f"no {key}=")
        return self.fields.pop(key)

    def seat(self, letter: str) -> int:
        if letter not in SEAT_LETTERS:
            raise self.bad(f"{shown(letter)} is not W or B")
        return SEAT_LETTERS.index(letter)

    def ints(self, value: str, sep: str, what: str, count: Optional[int] = None,
             high: int = MAX_STATE_COUNT) -> Tuple[int, ...]:
        parts = value.split(sep)
        if (count is not None and len(parts) != count) or \
                not all(_COUNT.fullmatch(part) for part in parts):
            raise self.bad(f"cannot read {what} {shown(value)}")
        numbers = tuple(int(part) for part in parts)
        if max(numbers) > high:
            raise self.bad(f"{what} must be at most {high:,}, got {shown(value)}")
        return numbers


def read_state_code(text: str, rules: Optional[Rules] = None) -> GameState:
    """The :class:`GameState` that :func:`write_state_code` wrote, every field bounded and
    checked against the others and ``rules``; ``GameStateError`` (or
    ``InvalidPositionError``) names what is wrong."""
    if not isinstance(text, str):
        raise TypeError(f"a state code is a str, not {type(text).__name__}")
    rules = DEFAULT_RULES if rules is None else rules
    words = text.split()
    if not words:
        raise GameStateError("empty state code")
    f = _Fields(text, words[1:])
    bad = f.bad
    position = Position.from_code(words[0])
    rolls = cast(Tuple[int, int], f.ints(f.need("rolls"), ",", "rolls", 2))
    stuck = f.ints(f.need("stuck"), ",", "stuck", 1)[0]
    off = (position.borne_off(0), position.borne_off(1))
    if off == (15, 15):
        raise bad("both sides have borne off 15")
    winner = next((s for s in (0, 1) if off[s] == 15), None)
    what, _, who = f.need("next").partition(":")
    draw = what == "over" and f.fields.get("result") == "draw"
    if (what == "over") != (winner is not None) and not draw:
        raise bad("the position and next= disagree about the end of the game")
    limit = rules.stuck_limit
    if limit is not None and not draw and stuck >= limit:
        raise bad(f"stuck={stuck} reaches the stuck limit {limit}: the game would be over")
    seat = roll = stage = result = None
    if what == "opening":
        if rolls != (0, 0):
            raise bad("no roll is made before the opening (RULES §6)")
        phase = OPENING
    elif what == "roll":
        phase, seat = ROLL, f.seat(who)
    elif what in ("play", "chain", "remainder"):
        phase, seat = STAGE, f.seat(who)
        stage, roll = _read_stage(f, rules, PLAIN if what == "play" else what, seat, rolls)
    elif what == "over":
        phase = OVER
        result = _read_result(f, rules, f.need("result"), winner, off, stuck)
    else:
        raise bad(f"cannot read next={shown(what)}")
    if f.fields:
        raise bad(f"unknown fields {shown(sorted(f.fields))}")
    return GameState(position, phase, seat, rolls, stuck, roll, stage, result)


def _read_stage(f: _Fields, rules: Rules, kind: str, seat: int,
                rolls: Tuple[int, int]) -> Tuple[Stage, Roll]:
    bad = f.bad
    dice = f.ints(f.need("stage"), "-", "stage", high=6)
    roll = cast(Tuple[int, int], f.ints(f.need("roll"), "-", "roll", 2, high=6))
    index = f.ints(f.fields.pop("index", "0"), ",", "index", 1, high=6)[0]
    then = f.fields.pop("then", "")
    roller = f.seat(f.fields.pop("roller", "")) if kind == REMAINDER else seat
    following: Tuple[StageSpec, ...] = ()
    if not all(1 <= d <= 6 for d in roll):
        raise bad("roll= needs two dice 1..6")
    if not dice or len(dice) > 4 or not all(1 <= d <= 6 for d in dice):
        raise bad("stage= needs one to four dice 1..6")
    if rolls[roller] < 1:
        raise bad("the roller has made no roll")
    escalating = roll[0] == roll[1] and escalates(rules, rolls[roller], sum(rolls))
    n = dice[0]
    if kind == PLAIN:
        expected = ((max(roll), min(roll)) if roll[0] != roll[1] else (roll[0],) * 4)
        if dice != expected or index != 0:
            raise bad(f"a roll of {roll[0]}-{roll[1]} is the stage "
                      f"{'-'.join(map(str, expected))}")
        if escalating:
            raise bad(f"roll {rolls[roller]} of the roller escalates (RULES §4.2): "
                      "its stages are next=chain")
    elif kind == CHAIN:
        if roll[0] != roll[1] or dice != (n,) * 4 or index != n - roll[0] or index < 0:
            raise bad("a chain stage is four equal dice from a double, "
                      "index = its number - the double's")
        if not escalating:
            raise bad(f"roll {rolls[roller]} of the roller does not escalate "
                      "(RULES §4.2, §4.5)")
        following = tuple((k, 4) for k in range(n + 1, 7))
    else:
        first = n - index                       # the number the remainder began with
        if roller == seat or roll[0] != roll[1] or dice != (n,) * len(dice) \
                or first < roll[0] or (index > 0 and len(dice) != 4):
            raise bad("a remainder stage is one to four equal dice of the roller's "
                      "double, for the other side, index = its number - the first's")
        if not escalating:
            raise bad(f"roll {rolls[roller]} of the roller does not escalate, "
                      "so it leaves no remainder (RULES §4.2, §5.1)")
        unstarted = first == roll[0] and (index > 0 or len(dice) == 4)
        if rules.remainder != "to_opponent" and not (
                unstarted and rules.unstarted_chain == "to_opponent"):
            raise bad("under these rules no remainder passes to the opponent "
                      "(RULES §5.1-5.2, §8)")
        specs = [f.ints(spec, "x", "then", 2, high=6) for spec in then.split(",")] \
            if then else []
        if [tuple(spec) for spec in specs] != [(k, 4) for k in range(n + 1, 7)]:
            raise bad("then= lists the later numbers up to 6 as <number>x4 "
                      "(RULES §5.1)")
        following = cast(Tuple[StageSpec, ...], tuple(tuple(spec) for spec in specs))
    opening = (rules.opening == "starter_plays_opening_pair"
               and sum(rolls) == 1 and kind != REMAINDER)
    return (Stage(kind, dice, index, following),
            Roll(roller, roll, rolls[roller], kind != PLAIN, opening))


def _read_result(f: _Fields, rules: Rules, result: str, winner: Optional[int],
                 off: Tuple[int, int], stuck: int) -> GameResult:
    bad = f.bad
    if result == "draw":
        if winner is not None:
            raise bad("a draw, but a side has borne off 15")
        if rules.stuck_limit is None or stuck != rules.stuck_limit:
            raise bad("a draw comes only from the stuck rule: stuck= must be the "
                      "stuck limit (RULES §7.2)")
        return GameResult(None, 0, "stuck")
    parts = result.split(":")
    if len(parts) != 3 or parts[2] not in ("single", "mars") or \
            parts[1] != ("2" if parts[2] == "mars" else "1"):
        raise bad(f"cannot read result={shown(result)}")
    if f.seat(parts[0]) != winner:
        raise bad("the winner has not borne off 15")
    mars = rules.mars and off[1 - winner] == 0        # RULES §7.1
    if (parts[2] == "mars") != mars:
        raise bad(f"the result is {'a mars' if mars else 'single'} here "
                  f"(the loser has borne off {off[1 - winner]}; RULES §7.1)")
    return GameResult(winner, int(parts[1]), parts[2])


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
                             "(docs/user/state-codes.md)")
    side = "WB"[seat_index(seat)]
    if rolls is None:
        exempt = (DEFAULT_RULES if rules is None else rules).exempt_rolls
        rolls = (exempt, exempt)
    rolls = tuple(rolls)
    if len(rolls) != 2:
        raise GameStateError(f"rolls must be two counts >= 0 (White's, Black's), got {rolls!r}")
    rolls = tuple(checked_int(r, "rolls (White's, Black's)", 0, MAX_STATE_COUNT,
                              GameStateError, GameStateError) for r in rolls)
    stuck = checked_int(stuck, "stuck", 0, MAX_STATE_COUNT, GameStateError, GameStateError)
    return f"{position} next=roll:{side} rolls={rolls[0]},{rolls[1]} stuck={stuck}"
