"""The game driver: the whole turn structure of Gul Bara (RULES §4-7) on top of the stage generator.

A :class:`Game` is one game, a :class:`Match` a series of games to a target
(RULES §7.3). Both are state machines that stop at *decisions*: a stage
(RULES §3.1) that one side has to play. Everything between two decisions (the
dice, the opening, the next stage of a chain, the hand-over of a remainder,
the end of the game) is worked out by the driver.

>>> game = Game(seed=24)
>>> game.openings                                      # White's die 6, Black's 4
[(6, 4)]
>>> d = game.decision
>>> d.seat, d.dice, d.roll_number, d.is_opening       # White starts, playing 6-4 as roll 1
(0, (6, 4), 1, True)
>>> [str(play) for play in game.legal_plays()]
['24/18 24/20', '24/14']
>>> game.play("24/14")
Play(((24, 6), (18, 4)), code='G:,,,,,,,,,,,-15,,1,,,,,,,,,,14|0,0|0,0')
>>> game.decision.seat, game.decision.dice, game.rolls_made   # Black rolled 3-1
(1, (3, 1), (1, 1))
>>> game.undo()                                        # exact restore; the same dice come again
Play(((24, 6), (18, 4)), code='G:,,,,,,,,,,,-15,,1,,,,,,,,,,14|0,0|0,0')
>>> game.decision.seat, game.rolls_made
(0, (1, 0))

Chance nodes (the dice still to be rolled) are normally passed automatically:
the dice come from a seeded generator (``seed``) or from the caller's
``draw`` function. With ``auto_roll=False`` the game stops at them too, and
:meth:`Game.roll` applies a given roll: that is the mode perft uses
(RULES §10).
"""

import random
from dataclasses import dataclass
from typing import Any, Callable, List, NamedTuple, Optional, Sequence, Tuple, Union, cast

from gulbara.core._backend import START_CODE, Position
from gulbara.conventions import DICE_36, OPENING_ROLLS, ROLLS
from gulbara.errors import (GameStateError, GulBaraError, IllegalPlayError, InvalidDiceError,
                            checked_bool, checked_int, checked_seat, shown)
from gulbara.core.play import BLACK, WHITE, Play, StageEnds
from gulbara.rules import DEFAULT_RULES, Rules, checked_rules
from gulbara.game.rng import Rng
from gulbara.game.state_codes import (CHAIN, MAX_STATE_COUNT, OPENING, OVER, PLAIN, REMAINDER, ROLL,
                                 SEAT_NAMES, STAGE, GameResult, GameState, Roll, Stage,
                                 StageSpec, escalates, read_state_code, remainder_stages,
                                 write_state_code)

__all__ = [
    "Game", "Match", "Decision", "GameResult", "MatchResult", "DiceStream", "GameEvent",
    "current_game",
    "ROLLS", "OPENING_ROLLS", "SEAT_NAMES", "MAX_STATE_COUNT",
]


# ---------------------------------------------------------------------------
# Value objects
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Decision:
    """A stage waiting to be played: who plays it, with which dice, and where it comes from.

    * ``seat``: the side that plays the stage (for a remainder, the receiver).
    * ``dice``: the stage's dice, larger first: ``(6, 4)``, ``(3, 3, 3, 3)``, ``(5, 5)``.
    * ``is_remainder``: a stage of a remainder handed over by the roller (RULES §5.3).
    * ``stage``: the stage's place in its chain (0 is the first stage of a roll)
      or in its remainder (0 is the first remainder stage).
    * ``following``: the stages that follow in this turn as ``(number, count)``:
      for a chain, the numbers still to come if this stage is played in full
      (RULES §4.4); for a remainder, its later stages (RULES §5.3).
    * ``roller``, ``roll``, ``roll_number``, ``game_roll_number``: the roll that
      produced the stage (as rolled), the roller's count of its rolls so far
      and the game's count of rolls by either side, both including this roll
      (RULES §4.5).
    * ``is_escalating``: the roll is an escalating double, a chain (RULES §4.2).
    * ``is_opening``: the roll is the opening roll (RULES §6).
    """

    seat: int
    dice: Tuple[int, ...]
    is_remainder: bool
    stage: int
    following: Tuple[StageSpec, ...]
    roller: int
    roll: Tuple[int, int]
    roll_number: int
    game_roll_number: int
    is_escalating: bool
    is_opening: bool

    @property
    def is_chain(self) -> bool:
        """Whether this is a stage of the roller's own escalation chain."""
        return self.is_escalating and not self.is_remainder

    def describe(self) -> str:
        """A one-line description, e.g. ``'White: roll 4 (5-5), chain stage 2: 6-6-6-6'``."""
        roll = f"{self.roll[0]}-{self.roll[1]}"
        dice = "-".join(map(str, self.dice))
        name = SEAT_NAMES[self.seat]
        if self.is_remainder:
            return (f"{name}: remainder of {SEAT_NAMES[self.roller]}'s {roll}, "
                    f"stage {self.stage + 1}: {dice}")
        what = "opening roll" if self.is_opening else f"roll {self.roll_number}"
        if self.is_escalating:
            return f"{name}: {what} ({roll}), chain stage {self.stage + 1}: {dice}"
        return f"{name}: {what}: {dice}"


@dataclass(frozen=True)
class MatchResult:
    """How a match ended (RULES §7.3): the winning seat and the final scores."""

    winner: int
    scores: Tuple[int, int]


# ---------------------------------------------------------------------------
# Dice
# ---------------------------------------------------------------------------


class DiceStream:
    """The source of a game's (or a match's) dice: a seeded generator or a draw function.

    Each draw is a value 0..5 (the die is ``value + 1``). Every value drawn is
    kept, and :meth:`Game.undo` rewinds the stream's position instead of
    forgetting the values: after an undo the same dice come again, so the
    i-th draw of a game is always the same value however often it is undone.

    The seeded generator is the one of native self-play (:class:`gulbara.game.rng.Rng`): the
    dice of game ``game`` of the run seeded ``seed`` (stream 0), one ``below(6)`` per draw, so
    that ``Game(seed=s)`` plays the dice of native game 0 of the run seeded ``s``, and the
    arena's game ``i`` those of native game ``i``.

    >>> stream = DiceStream(seed=1)
    >>> [stream.next("dice") for _ in range(4)]
    [1, 5, 1, 1]
    >>> stream.position = 1; stream.next("dice")
    5
    """

    __slots__ = ("seed", "game", "_draw", "_rng", "_values", "_purposes", "position")

    def __init__(self, seed: Optional[int] = None,
                 draw: Optional[Callable[[], int]] = None, *, game: int = 0) -> None:
        if draw is not None and seed is not None:
            raise TypeError("give a seed or a draw function, not both")
        if draw is not None and not callable(draw):
            raise TypeError(f"draw must be a callable returning 0..5, not {type(draw).__name__}")
        if draw is None and seed is None:
            seed = random.SystemRandom().randrange(2**63)
        if seed is not None:                    # the rule of gulbara.selfplay.games's seeds too
            seed = checked_int(seed, "seed", 0, 2**64 - 1, bounds="0 .. 2**64 - 1")
        self.seed = seed
        self.game = checked_int(game, "game", 0, 2**64 - 1, bounds="0 .. 2**64 - 1")
        self._draw = draw
        self._rng = Rng(seed, self.game, 0) if seed is not None else None
        self._values: List[int] = []
        self._purposes: List[str] = []
        self.position = 0

    def next(self, purpose: str) -> int:
        """The next draw (0..5), labelled ``purpose`` (``"opening"`` or ``"dice"``)."""
        i = self.position
        if i < len(self._values):
            value = self._values[i]
            self._purposes[i] = purpose
        else:
            if self._draw is not None:
                value = checked_int(self._draw(), "the value draw() returns", 0, 5,
                                    InvalidDiceError, InvalidDiceError)
            else:
                assert self._rng is not None            # seeded: no draw function
                value = self._rng.die()
            self._values.append(value)
            self._purposes.append(purpose)
        self.position = i + 1
        return value

    @property
    def draw_function(self) -> Optional[Callable[[], int]]:
        """The caller's draw function, or ``None`` for the seeded generator."""
        return self._draw

    def drawn(self) -> List[Tuple[str, int]]:
        """The draws up to the current position, as ``(purpose, value)``."""
        return list(zip(self._purposes[:self.position], self._values[:self.position]))

    def copy(self) -> "DiceStream":
        """An independent copy; a caller's draw function is shared, not copied."""
        other = DiceStream.__new__(DiceStream)
        other.seed = self.seed
        other.game = self.game
        other._draw = self._draw
        other._rng = self._rng.copy() if self._rng is not None else None
        other._values = list(self._values)
        other._purposes = list(self._purposes)
        other.position = self.position
        return other


#: Tied opening pairs in a row after which an automatic opening gives up (RULES §6): the
#: chance of 1,000 ties from fair dice is 6**-1000, so only a broken draw function gets there.
MAX_OPENING_TIES = 1000


def _draw_name(stream: "DiceStream") -> str:
    """How an error names the source of a stream's dice."""
    draw = stream.draw_function
    if draw is None:
        return f"the generator seeded {stream.seed}"
    name = getattr(draw, "__qualname__", None) or type(draw).__name__
    return f"the draw function {name}"


def _check_die(value, what: str) -> int:
    return checked_int(value, what, 1, 6, InvalidDiceError)


class GameEvent(NamedTuple):
    """One entry of a game's history (:attr:`Game.events`), oldest first.

    * ``"opening"``: an opening pair, ``dice`` = (White's die, Black's die) (RULES §6);
    * ``"start"``: ``seat`` starts the game;
    * ``"roll"``: ``seat`` rolled ``dice`` (as rolled; ``opening``: the opening roll);
    * ``"play"``: ``play`` was played at ``decision``.
    """

    kind: str
    seat: Optional[int] = None
    dice: Tuple[int, ...] = ()
    opening: bool = False
    decision: Optional["Decision"] = None
    play: Optional[Play] = None


# ---------------------------------------------------------------------------
# The game
# ---------------------------------------------------------------------------

# The first stage of each roll and the record of each roll, made once (they are immutable).
_PLAIN_STAGES = {(a, b): Stage(PLAIN, (a, b) if a != b else (a,) * 4, 0, ()) for a, b in ROLLS}
#: RULES §4.2: a chain from n plays n, n+1, ..., 6.
_CHAIN_STARTS = {(n, n): Stage(CHAIN, (n,) * 4, 0, tuple((k, 4) for k in range(n + 1, 7)))
                 for n in range(1, 7)}
_ROLL_EVENTS = {(seat, dice, opening): GameEvent("roll", seat, dice, opening)
                for seat in (WHITE, BLACK) for dice in DICE_36 for opening in (False, True)}


class _RulesAndDice:
    """What a :class:`Game` and a :class:`Match` both hold (the rules, the dice, the rolling
    mode) and both do the same way."""

    # python-chess's names for the same ideas, which gulbara.Board uses too, so that code
    # taking a Board or a Game needs no type switch.

    @property
    def turn(self) -> Optional[int]:
        """The side to act (:attr:`to_move`), as :attr:`gulbara.Board.turn` names it."""
        return cast(Any, self).to_move

    def is_game_over(self) -> bool:
        """Whether the game (or match) is over (:meth:`is_over`), as a Board names it."""
        return bool(cast(Any, self).is_over())

    def push(self, play) -> Play:
        """Play ``play`` (:meth:`play`), as :meth:`gulbara.Board.push` names it."""
        return self.play(play)

    def pop(self):
        """Undo the last play (:meth:`undo`), as :meth:`gulbara.Board.pop` names it."""
        return cast(Any, self).undo()

    _rules: Rules
    _stream: Optional[DiceStream]
    _auto: bool
    play: Callable[[Union[Play, str, Sequence[Tuple[int, int]]]], Play]   # each its own

    @property
    def rules(self) -> Rules:
        return self._rules

    @property
    def seed(self) -> Optional[int]:
        """The seed of the dice generator (``None`` with a ``draw`` function or explicit rolls)."""
        return self._stream.seed if self._stream is not None else None

    @property
    def auto_roll(self) -> bool:
        """Whether chance nodes are rolled automatically (from :attr:`dice`)."""
        return self._auto

    @property
    def dice(self) -> Optional[DiceStream]:
        """The source of the dice (a match's games share one), or ``None`` for a game of
        explicit rolls without one."""
        return self._stream

    def play_notation(self, text: str) -> Play:
        """Play the current stage from notation (RULES §9.3); raises if it is not legal."""
        if not isinstance(text, str):
            raise TypeError(f"notation must be a str, not {type(text).__name__}")
        return self.play(text)


class Game(_RulesAndDice):
    """One game of Gul Bara under ``rules`` (RULES §4-7), as a state machine.

    **State.** A game's full state is:

    * the position (RULES §9.1);
    * what comes next: the *opening* chance node (RULES §6), a *roll* chance
      node (a side to roll), a *stage* decision, or the end;
    * the rolls made per seat (RULES §4.5; the game-wide count is their sum);
    * for a stage: who plays it, its dice, and what follows it: the rest of an
      escalation chain (numbers up to 6, played only if this stage is played
      in full, RULES §4.4) or the later stages of a remainder (RULES §5.3),
      and its place in the chain (the first stage of a roll decides an
      unstarted chain and the stuck count);
    * the stuck counter: rolls in a row, by either side, in which no checker
      moved (RULES §7.2);
    * the result once the game is over.

    :meth:`state_code` writes exactly this state as text, :meth:`state_key`
    as a hashable tuple, and :meth:`from_state_code` rebuilds a game from it.

    **Dice.** With ``auto_roll=True`` (the default) the game rolls by itself
    whenever it reaches a chance node, so a caller only sees decisions. The
    dice come from ``draw`` (a callable returning 0..5; the die is the value
    plus one) or from a generator seeded with ``seed`` (a random seed is
    chosen when neither is given, and kept in :attr:`seed`). Draws are made in
    the order of RULES §6 and §4: two per opening pair (White's die, then
    Black's), repeated on a tie; two more for the starter's roll under
    ``opening="starter_rerolls"``; then two per roll when it starts (a chain
    or a remainder draws nothing). With ``auto_roll=False`` the game stops at
    chance nodes: apply :meth:`roll_opening` or :meth:`roll` (perft,
    RULES §10).

    **Decisions.** A stage whose only legal play is the empty one is still a
    decision (a pass), as in RULES §10.3.

    **Turns.** A roll's stages (one, or a chain's, RULES §4.2-4.4) are played
    by the roller; a chain that stops hands its remainder to the opponent
    (RULES §5.1, §5.3) unless ``remainder="lost"``, or, for a chain whose first
    stage moved nothing, unless ``unstarted_chain="lost"`` (RULES §5.2; each
    option governs only its own case). A remainder is played stage by stage,
    the unplayable dice of a stage lost; then its receiver rolls. A stage that
    ends the game ends it at once (RULES §5.5).

    **Stuck rule** (RULES §7.2). The count goes up after the first stage of a
    roll when no checker moved (so an unstarted chain counts, a chain that
    stalls later does not) and goes back to 0 after any stage that moves a
    checker, a remainder's included; a remainder stage that moves nothing
    leaves it as it is. When it reaches ``stuck_limit`` the game ends at once
    as a draw with no points (a pending remainder is not played).
    """

    def __init__(self, rules: Optional[Rules] = None, seed: Optional[int] = None,
                 draw: Optional[Callable[[], int]] = None, *, auto_roll: bool = True,
                 dice: Optional[DiceStream] = None, _start: bool = True) -> None:
        rules = checked_rules(rules, DEFAULT_RULES)
        self._rules = rules
        self._auto = checked_bool(auto_roll, "auto_roll")
        if dice is None:
            dice = DiceStream(seed, draw) if (self._auto or seed is not None
                                              or draw is not None) else None
        elif not isinstance(dice, DiceStream):
            raise TypeError(f"dice must be a gulbara.DiceStream, not {type(dice).__name__}")
        self._stream = dice
        self._stream_start = dice.position if dice is not None else 0
        # the state
        self._position = Position.from_code(START_CODE)
        self._phase = OPENING
        self._seat: Optional[int] = None
        self._rolls = (0, 0)
        self._stuck = 0
        self._roll: Optional[Roll] = None
        self._stage: Optional[Stage] = None
        self._result: Optional[GameResult] = None
        self._log: List[GameEvent] = []     # the record (Game.events)
        self._history: list = []  # (snapshot, action kind) before each action
        self._from_state = False  # rebuilt by from_state_code: no history before it
        self._ends: Optional[StageEnds] = None
        if _start:
            self._advance()

    # -- construction --------------------------------------------------------

    @classmethod
    def new_perft_root(cls, rules: Optional[Rules] = None) -> "Game":
        """A game at its opening chance node that waits for explicit rolls (RULES §10.5).

        >>> game = Game.new_perft_root()
        >>> game.is_chance(), len(game.chance_rolls())
        (True, 15)
        """
        return cls(rules, auto_roll=False)

    @classmethod
    def from_state_code(cls, code: str, rules: Optional[Rules] = None) -> "Game":
        """A game (with explicit rolls) in the state that :meth:`state_code` wrote.

        The game has no history before that state (nothing to undo there, and
        no record). Raises ``GameStateError`` (or ``InvalidPositionError``) for a
        malformed code.

        >>> text = "G:,,,,,,,,,,,-15,,,,,,1,1,,,,,13|0,0|0,0 next=roll:B rolls=1,0 stuck=0"
        >>> game = Game.from_state_code(text)
        >>> game.is_chance(), game.to_move, game.state_code() == text
        (True, 1, True)
        """
        game = cls(rules, auto_roll=False, _start=False)
        game._set_state(read_state_code(code, game._rules))
        game._from_state = True
        return game

    def copy(self, auto_roll: Optional[bool] = None, *,
             dice: Optional[DiceStream] = None) -> "Game":
        """An independent copy of the game with its history (undo works on it too).

        The dice stream is copied (a caller's ``draw`` function is shared), or
        the copy draws from ``dice`` (a copied match's games share one stream).
        ``auto_roll`` switches the copy's rolling mode; ``copy(auto_roll=False)``
        is what :func:`gulbara.perft` works on. ``copy.copy(game)`` is
        ``game.copy()``; ``copy.deepcopy`` and ``pickle`` work too (the legal
        plays are not kept: they are worked out again when asked for).
        """
        if auto_roll is not None:
            auto_roll = checked_bool(auto_roll, "auto_roll")
        if dice is None and self._stream is not None:
            dice = self._stream.copy()
        game = Game.__new__(Game)
        game.__dict__.update(self.__dict__)
        game._stream = dice
        game._log = list(self._log)
        game._history = list(self._history)
        game._ends = None
        if auto_roll is not None:
            game._auto = auto_roll
            if game._auto:
                if game._stream is None:
                    game._stream = DiceStream()
                game._advance()
        return game

    def __copy__(self) -> "Game":
        return self.copy()

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_ends"] = None                   # a cache, rebuilt when asked for
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    # -- reading the state ---------------------------------------------------

    @property
    def dice_start(self) -> int:
        """The position in :attr:`dice` of this game's first draw (0 but in a match)."""
        return self._stream_start

    @property
    def events(self) -> Tuple[GameEvent, ...]:
        """The game's history, oldest first (what a record holds; undone events are gone)."""
        return tuple(self._log)

    @property
    def from_state(self) -> bool:
        """Whether the game was rebuilt by :meth:`from_state_code` (no history before that)."""
        return self._from_state

    @property
    def state(self) -> GameState:
        """The full state, named (:class:`gulbara.game.state_codes.GameState`)."""
        return GameState(self._position, self._phase, self._seat, self._rolls, self._stuck,
                         self._roll, self._stage, self._result)

    def _set_state(self, state: GameState) -> None:
        (self._position, self._phase, self._seat, self._rolls, self._stuck, self._roll,
         self._stage, self._result) = state

    @property
    def position(self):
        """The current position (an immutable backend ``Position``)."""
        return self._position

    def code(self) -> str:
        """The current position code (RULES §9.1)."""
        return self._position.code()

    def board(self):
        """A :class:`gulbara.Board` of the current position, with the side to act to move."""
        from gulbara.core.board import Board
        seat = self._seat if self._seat is not None else WHITE
        return Board._from_position(self._position, seat)

    @property
    def to_move(self) -> Optional[int]:
        """The side to act: the one to play the stage, or to roll; ``None`` at the opening and at the end."""
        return self._seat

    @property
    def rolls_made(self) -> Tuple[int, int]:
        """The rolls each seat has made in this game, ``(White's, Black's)`` (RULES §4.5)."""
        return self._rolls

    @property
    def game_rolls(self) -> int:
        """The rolls made in this game by either side (the ``game_wide`` count of RULES §4.5)."""
        return self._rolls[0] + self._rolls[1]

    @property
    def stuck_rolls(self) -> int:
        """Rolls in a row, by either side, in which no checker moved (RULES §7.2)."""
        return self._stuck

    @property
    def plies(self) -> int:
        """How many stages have been played (passes included)."""
        return sum(1 for event in self._log if event.kind == "play")

    @property
    def plays(self) -> List[Tuple[Decision, Play]]:
        """Every stage played so far, as ``(decision, play)``, oldest first."""
        # a "play" event has both
        return cast(List[Tuple[Decision, Play]],
                    [(event.decision, event.play) for event in self._log if event.kind == "play"])

    @property
    def move_stack(self) -> List[Play]:
        """The plays made so far, oldest first (as :attr:`gulbara.Board.move_stack`)."""
        return [cast(Play, event.play) for event in self._log if event.kind == "play"]

    @property
    def openings(self) -> List[Tuple[int, int]]:
        """The opening pairs rolled, ``(White's die, Black's die)``, ties first (RULES §6)."""
        # an "opening" event's dice are a pair
        return cast(List[Tuple[int, int]],
                    [event.dice for event in self._log if event.kind == "opening"])

    @property
    def starter(self) -> Optional[int]:
        """The side that started (RULES §6), once known."""
        return next((event.seat for event in self._log if event.kind == "start"), None)

    @property
    def draws(self) -> List[Tuple[str, int]]:
        """The dice draws this game used, as ``(purpose, value)`` (value = die - 1)."""
        if self._stream is None:
            return []
        return self._stream.drawn()[self._stream_start:]

    def is_chance(self) -> bool:
        """Whether the game waits for dice (the opening or a roll; RULES §10.2)."""
        return self._phase in (OPENING, ROLL)

    def is_opening(self) -> bool:
        """Whether the game waits for its opening (RULES §6)."""
        return self._phase == OPENING

    def is_decision(self) -> bool:
        """Whether a stage waits to be played."""
        return self._phase == STAGE

    def is_over(self) -> bool:
        return self._phase == OVER

    def result(self) -> Optional[GameResult]:
        """How the game ended, or ``None`` while it goes on."""
        return self._result

    @property
    def decision(self) -> Optional[Decision]:
        """The stage waiting to be played, or ``None`` at a chance node or at the end."""
        if self._phase != STAGE:
            return None
        stage, roll = self._stage, self._roll
        assert stage is not None and roll is not None and self._seat is not None
        return Decision(
            seat=self._seat, dice=stage.dice, is_remainder=stage.kind == REMAINDER,
            stage=stage.index, following=stage.following, roller=roll.roller, roll=roll.dice,
            roll_number=roll.number, game_roll_number=self.game_rolls,
            is_escalating=roll.escalating, is_opening=roll.opening)

    def legal_plays(self) -> StageEnds:
        """The legal plays of the current stage: its distinct ends in canonical order (RULES §3)."""
        self._need(STAGE, "there are legal plays only at a decision")
        if self._ends is None:
            assert self._seat is not None and self._stage is not None
            self._ends = StageEnds(self._position.stage_ends(self._seat, self._stage.dice))
        return self._ends

    def next_roll_escalates(self, seat: int) -> bool:
        """Whether a double that ``seat`` rolled next would escalate (RULES §4.2, §4.5).

        ``seat`` is 0 (White) or 1 (Black): :class:`~gulbara.errors.InvalidSeatError`
        otherwise, ``TypeError`` for a non-int."""
        seat = checked_seat(seat)
        rolls = list(self._rolls)
        rolls[seat] += 1
        return escalates(self._rules, rolls[seat], sum(rolls))

    def chance_rolls(self) -> Tuple[Tuple[int, int], ...]:
        """The rolls of the current chance node for perft (RULES §10.2, §10.5)."""
        if self._phase == OPENING and self._rules.opening == "starter_plays_opening_pair":
            return OPENING_ROLLS
        self._need((OPENING, ROLL), "there are rolls only at a chance node")
        return ROLLS

    # -- actions -------------------------------------------------------------

    def play(self, play: Union[Play, str, Sequence[Tuple[int, int]]]) -> Play:
        """Play the current stage: ``play`` is a :class:`Play`, notation or a list of steps.

        The play must be legal (RULES §3); otherwise ``IllegalPlayError`` (or
        ``InvalidNotationError``) is raised and the game is unchanged. Returns
        the canonical play. With ``auto_roll``, the game then rolls on to the
        next decision; if the draw function raises, the play is taken back and
        the error passes through.
        """
        self._need(STAGE, "nothing to play")
        ends = self.legal_plays()
        chosen: Optional[Play]
        if isinstance(play, str):
            chosen = ends.parse(play)
        else:
            if not isinstance(play, Play):
                try:
                    play = cast(List[Tuple[int, int]], [tuple(step) for step in play])
                except TypeError:
                    raise TypeError(
                        "play takes a Play, a notation string or a list of (from, die) steps, "
                        f"not {type(play).__name__}") from None
            chosen = ends.find(play)
            if chosen is None:
                legal = ", ".join(repr(str(p)) for p in ends[:12])
                more = "" if len(ends) <= 12 else f" ... ({len(ends)} in all)"
                what = str(play) if isinstance(play, Play) else shown(play)
                assert self._seat is not None
                raise IllegalPlayError(
                    f"{what} is not a legal play of {'-'.join(map(str, ends.dice))} for "
                    f"{SEAT_NAMES[self._seat]}; legal: {legal}{more}")
        depth = len(self._history)
        try:
            self._play(chosen)
            self._advance()
        except BaseException:                   # e.g. a failing draw function: undo it all
            self._restore(self._history[depth][0])
            del self._history[depth:]
            raise
        return chosen

    def roll(self, d1: int, d2: int) -> None:
        """Apply a roll at a chance node (explicit rolls: ``auto_roll=False``).

        At a roll node the side to roll rolls ``d1-d2``. At the opening node
        this is the convention of RULES §10.5: White starts, and ``d1-d2`` is
        its roll 1 (never a double under the default opening); use
        :meth:`roll_opening` for the real opening of RULES §6.
        """
        self._need((OPENING, ROLL), "the dice are rolled only at a chance node")
        d1, d2 = _check_die(d1, "d1"), _check_die(d2, "d2")
        if self._phase == OPENING:
            if self._rules.opening == "starter_plays_opening_pair" and d1 == d2:
                raise InvalidDiceError(
                    f"the opening roll cannot be a double (RULES §6), got {d1}-{d2}")
            self._push("roll")
            self._log.append(GameEvent("start", WHITE))
            self._begin_roll(WHITE, (d1, d2),
                             opening=self._rules.opening == "starter_plays_opening_pair")
        else:
            self._push("roll")
            assert self._seat is not None               # a roll node has a side to roll
            self._begin_roll(self._seat, (d1, d2), opening=False)
        self._advance()

    def roll_opening(self, white_die: int, black_die: int) -> Optional[int]:
        """Roll the opening (RULES §6): each side one die. Returns the starter, or ``None`` on a tie.

        Under the default opening the starter then plays the pair as its roll
        1; under ``opening="starter_rerolls"`` the starter is next to roll.
        """
        self._need(OPENING, "the opening is rolled only at the start")
        white_die, black_die = _check_die(white_die, "white_die"), _check_die(black_die, "black_die")
        self._push("opening")
        self._log.append(GameEvent("opening", dice=(white_die, black_die)))
        if white_die == black_die:
            self._advance()
            return None
        starter = WHITE if white_die > black_die else BLACK
        self._log.append(GameEvent("start", starter))
        if self._rules.opening == "starter_plays_opening_pair":
            self._begin_roll(starter, (white_die, black_die), opening=True)
        else:
            self._phase, self._seat = ROLL, starter
        self._advance()
        return starter

    def undo(self):
        """Undo the last play exactly (position, rolls, pending stages, dice stream).

        With ``auto_roll`` the automatic rolls made after the play are undone
        with it, and the same dice come again. With explicit rolls, the last
        action (a play or a roll) is undone. Returns the undone play (or the
        undone roll). Raises ``IndexError`` when there is nothing to undo.
        """
        if not self.can_undo():
            raise IndexError("nothing to undo")
        while True:
            snapshot, kind = self._history.pop()
            events = self._log[snapshot[-1]:]
            self._restore(snapshot)
            if not self._auto or kind == "play":
                break
        for event in events:
            if event.kind == "play":
                return event.play
            if event.kind in ("roll", "opening"):
                return event.dice
        return None

    def can_undo(self) -> bool:
        """Whether :meth:`undo` has something to undo (with ``auto_roll``: a play)."""
        if self._auto:
            return any(kind == "play" for _, kind in self._history)
        return bool(self._history)

    # -- state code ----------------------------------------------------------

    def state_key(self) -> tuple:
        """The full state as a hashable tuple (equal keys: equal futures; for perft tables)."""
        stage = None
        if self._phase == STAGE:
            assert self._stage is not None
            kind, dice, index, following = self._stage
            # only the first stage of a roll is special (RULES §5.2, §7.2)
            stage = (kind, dice, index == 0 if kind != REMAINDER else None, following)
        result = None
        if self._result is not None:
            result = (self._result.winner, self._result.points, self._result.kind)
        return (self._position.key(), self._position.code(), self._phase, self._seat,
                self._rolls, self._stuck, stage, result)

    def state_code(self) -> str:
        """The full state as text: the position code, then ``key=value`` fields
        (:func:`gulbara.game.state_codes.write_state_code`, docs/user/state-codes.md).

        >>> Game.new_perft_root().state_code()
        'G:,,,,,,,,,,,-15,,,,,,,,,,,,15|0,0|0,0 next=opening rolls=0,0 stuck=0'
        """
        return write_state_code(self.state)

    # -- the state machine ---------------------------------------------------

    def _need(self, phases, what: str) -> None:
        if isinstance(phases, str):
            phases = (phases,)
        if self._phase in phases:
            return
        if self._phase == OVER:
            assert self._result is not None
            raise GameStateError(f"{what}: the game is over ({self._result.describe()})")
        if self._phase == STAGE:
            assert self._seat is not None
            raise GameStateError(f"{what}: {SEAT_NAMES[self._seat]} has a stage to play")
        if self._phase == OPENING:
            raise GameStateError(f"{what}: the game waits for its opening roll")
        assert self._seat is not None                   # a side to roll
        raise GameStateError(f"{what}: {SEAT_NAMES[self._seat]} has to roll")

    def _snapshot(self) -> tuple:
        """The fields of :attr:`state`, the dice position and the history length: what undo
        restores (a plain tuple: one is taken before every action)."""
        stream_pos = self._stream.position if self._stream is not None else 0
        return (self._position, self._phase, self._seat, self._rolls, self._stuck, self._roll,
                self._stage, self._result, stream_pos, len(self._log))

    def _restore(self, snapshot: tuple) -> None:
        (self._position, self._phase, self._seat, self._rolls, self._stuck, self._roll,
         self._stage, self._result, stream_pos, log_len) = snapshot
        if self._stream is not None:
            self._stream.position = stream_pos
        del self._log[log_len:]
        self._ends = None

    def _push(self, kind: str) -> None:
        self._history.append((self._snapshot(), kind))
        self._ends = None

    def _begin_roll(self, seat: int, dice: Tuple[int, int], opening: bool) -> None:
        dice = cast(Tuple[int, int], tuple(dice))
        rolls = list(self._rolls)
        rolls[seat] += 1                                # RULES §4.5
        self._rolls = (rolls[0], rolls[1])
        high, low = max(dice), min(dice)
        escalating = high == low and escalates(self._rules, rolls[seat], sum(rolls))
        self._roll = Roll(seat, dice, rolls[seat], escalating, opening)
        self._phase, self._seat = STAGE, seat
        # a roll's first stage: the plain stage, or a chain's (RULES §4.1-4.2, §4.6)
        self._stage = (_CHAIN_STARTS if escalating else _PLAIN_STAGES)[high, low]
        self._log.append(_ROLL_EVENTS[seat, dice, opening])

    def _play(self, play: Play) -> None:
        decision = self.decision
        assert decision is not None and self._stage is not None and self._seat is not None
        self._push("play")
        self._log.append(GameEvent("play", decision.seat, decision.dice, False, decision, play))
        seat = self._seat
        kind, dice, index, following = stage = self._stage
        self._position = self._position.apply_steps(seat, play.steps)
        moved = bool(play.steps)
        if moved:
            self._stuck = 0                             # RULES §7.2: any move resets
        if play.ends_game:                              # RULES §5.5, §7.1
            loser = 1 - seat
            mars = self._rules.mars and self._position.borne_off(loser) == 0
            self._finish(GameResult(seat, 2 if mars else 1, "mars" if mars else "single"))
            return
        if kind != REMAINDER and index == 0 and not moved:
            self._stuck += 1                            # a roll in which no checker moved
            limit = self._rules.stuck_limit
            if limit is not None and self._stuck >= limit:
                self._finish(GameResult(None, 0, "stuck"))
                return
        if kind == PLAIN:                              # unplayable dice are lost (RULES §4.6)
            self._next_roll(1 - seat)
        elif kind == CHAIN:
            played = len(play.steps)
            if played == len(dice):                     # in full: the next number (RULES §4.4)
                if following:
                    n, count = following[0]
                    self._stage = Stage(CHAIN, (n,) * count, index + 1, following[1:])
                else:
                    self._next_roll(1 - seat)
            else:                                       # RULES §5.1-5.2: stopped
                rest = remainder_stages(self._rules, stage, played)
                if rest:
                    self._hand_over(1 - seat, rest)
                else:
                    self._next_roll(1 - seat)
        else:                                           # a remainder stage (RULES §5.3-5.4)
            if following:
                n, count = following[0]
                self._stage = Stage(REMAINDER, (n,) * count, index + 1, following[1:])
            else:
                self._next_roll(seat)

    def _hand_over(self, receiver: int, stages: Tuple[StageSpec, ...]) -> None:
        n, count = stages[0]
        self._phase, self._seat = STAGE, receiver
        self._stage = Stage(REMAINDER, (n,) * count, 0, stages[1:])

    def _next_roll(self, seat: int) -> None:
        self._phase, self._seat = ROLL, seat
        self._stage = None
        self._roll = None

    def _finish(self, result: GameResult) -> None:
        self._phase, self._seat = OVER, None
        self._stage = None
        self._roll = None
        self._result = result

    def _advance(self) -> None:
        """Roll automatically until the game reaches a decision or its end (``auto_roll``)."""
        if not self._auto:
            return
        stream = self._stream
        assert stream is not None                       # auto_roll has a stream
        ties = 0
        while self._phase in (OPENING, ROLL):
            mark = stream.position                  # a failing draw leaves the game as it was
            try:
                self._auto_roll_once(stream)
            except BaseException:
                stream.position = mark
                raise
            if self._phase == OPENING:             # a tie: rolled again (RULES §6)
                ties += 1
                if ties >= MAX_OPENING_TIES:
                    raise GulBaraError(
                        f"{_draw_name(stream)} gave {ties:,} tied opening pairs in a row "
                        "(RULES §6): it cannot start a game")

    def _auto_roll_once(self, stream: DiceStream) -> None:
        """Draw and apply one opening pair or one roll (RULES §6, §4)."""
        purpose = "opening" if self._phase == OPENING else "dice"
        first = stream.next(purpose) + 1
        second = stream.next(purpose) + 1
        self._auto = False                      # one step at a time inside the loop
        try:
            if purpose == "opening":
                self.roll_opening(first, second)
            else:
                self.roll(first, second)
        finally:
            self._auto = True

    # -- display -------------------------------------------------------------

    def __repr__(self) -> str:
        return f"<Game {self.state_code()}>"


# ---------------------------------------------------------------------------
# The match
# ---------------------------------------------------------------------------


class Match(_RulesAndDice):
    """Games to a target (RULES §7.3), with the decision API of :class:`Game` across them.

    ``target`` defaults to ``rules.match_target`` (3 by default). All games
    draw from one dice stream (``seed`` or ``draw``, as for :class:`Game`), so
    a recorded match replays draw for draw. When a game ends and the match
    goes on, the next game starts at once (with its opening roll).

    >>> match = Match(target=1, seed=3)
    >>> match.decision.seat, match.game_number, match.scores
    (0, 1, (0, 0))
    """

    def __init__(self, rules: Optional[Rules] = None, target: Optional[int] = None,
                 seed: Optional[int] = None, draw: Optional[Callable[[], int]] = None, *,
                 auto_roll: bool = True) -> None:
        rules = checked_rules(rules, DEFAULT_RULES)
        if target is None:
            target = rules.match_target
        target = checked_int(target, "a match target", 1, type_error=GulBaraError)
        self._rules = rules
        self._target = target
        self._auto = checked_bool(auto_roll, "auto_roll")
        self._stream = DiceStream(seed, draw) if (auto_roll or seed is not None
                                                 or draw is not None) else None
        self._games: List[Game] = []
        self._new_game()

    def _new_game(self) -> None:
        self._games.append(Game(self._rules, auto_roll=self._auto, dice=self._stream))

    def copy(self) -> "Match":
        """An independent copy of the match: its games and their one dice stream (a
        caller's ``draw`` function is shared). ``copy.copy(match)`` is ``match.copy()``;
        ``copy.deepcopy`` and ``pickle`` work too."""
        other = Match.__new__(Match)
        other.__dict__.update(self.__dict__)
        other._stream = self._stream.copy() if self._stream is not None else None
        other._games = [game.copy(dice=other._stream) for game in self._games]
        return other

    def __copy__(self) -> "Match":
        return self.copy()

    # -- reading -------------------------------------------------------------

    @property
    def target(self) -> int:
        return self._target

    @property
    def game(self) -> Game:
        """The current game (the last one, once the match is over)."""
        return self._games[-1]

    @property
    def games(self) -> List[Game]:
        """Every game of the match so far, the current one last."""
        return list(self._games)

    @property
    def game_number(self) -> int:
        return len(self._games)

    @property
    def scores(self) -> Tuple[int, int]:
        """The match score, ``(White's, Black's)``, from the finished games."""
        white = black = 0
        for game in self._games:
            result = game.result()
            if result is not None:
                w, b = result.score
                white += w
                black += b
        return (white, black)

    def is_over(self) -> bool:
        """Whether a player has reached the target and leads (RULES §7.3), after a finished game."""
        if not self.game.is_over():
            return False
        white, black = self.scores
        return max(white, black) >= self._target and white != black

    def result(self) -> Optional[MatchResult]:
        if not self.is_over():
            return None
        white, black = self.scores
        return MatchResult(WHITE if white > black else BLACK, (white, black))

    @property
    def draws(self) -> List[Tuple[str, int]]:
        """Every dice draw of the match, as ``(purpose, value)``."""
        return self._stream.drawn() if self._stream is not None else []

    # -- the decision API, forwarded to the current game ----------------------

    @property
    def decision(self) -> Optional[Decision]:
        return self.game.decision

    @property
    def rolls_made(self) -> Tuple[int, int]:
        return self.game.rolls_made

    @property
    def to_move(self) -> Optional[int]:
        return self.game.to_move

    def legal_plays(self) -> StageEnds:
        return self.game.legal_plays()

    def is_chance(self) -> bool:
        return self.game.is_chance()

    def play(self, play) -> Play:
        """Play the current game's stage (as :meth:`Game.play`); a finished game starts the next."""
        if self.is_over():
            raise GameStateError("the match is over")
        game = self.game
        chosen = game.play(play)
        try:
            self._after_action()
        except BaseException:                   # the next game's opening could not be drawn
            game.undo()
            raise
        return chosen

    def roll(self, d1: int, d2: int) -> None:
        self.game.roll(d1, d2)
        self._after_action()

    def roll_opening(self, white_die: int, black_die: int) -> Optional[int]:
        starter = self.game.roll_opening(white_die, black_die)
        self._after_action()
        return starter

    def _after_action(self) -> None:
        if self.game.is_over() and not self.is_over():
            self._new_game()

    def undo(self):
        """Undo the last play of the match, back into the previous game if need be."""
        game = self.game
        if not game.can_undo():
            if len(self._games) == 1:
                raise IndexError("nothing to undo")
            self._games.pop()
            if self._stream is not None:
                self._stream.position = game.dice_start
            game = self.game
        return game.undo()

    def __repr__(self) -> str:
        return (f"<Match target={self._target} game={self.game_number} "
                f"scores={self.scores[0]}-{self.scores[1]}>")


def current_game(game: Union[Game, Match]) -> Game:
    """``game`` itself, or a match's current game; ``TypeError`` for anything else."""
    if isinstance(game, Match):
        return game.game
    if not isinstance(game, Game):
        raise TypeError(f"game must be a gulbara.Game, not {type(game).__name__}")
    return game


def decision_game(game: Union[Game, Match]) -> Game:
    """``game`` (a Game, or a Match's current game) at a decision, checked before native
    code reads it: ``TypeError`` for another object, ``GameStateError`` elsewhere."""
    game = current_game(game)
    if not game.is_decision():
        raise GameStateError("the game is not at a decision: its stage values need a stage "
                             "to play")
    return game
