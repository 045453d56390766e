"""Step-level actions: a stage (RULES §3.1) played one die at a time.

An *action* is one step ``(from_point, die)`` in the mover's own numbering
(RULES §2.1, §9.2), encoded as an integer::

    action = (from_point - 1) * 6 + (die - 1)      # 0..143, from 1..24, die 1..6
    PASS_ACTION = 144                              # the empty play (RULES §3.6)

so there are ``N_ACTIONS = 145`` actions in all.

The legal-action mask is *prefix-closed*: a step is legal iff the steps
already taken plus this one start a legal play of the stage, that is a play
of the greatest effective length (RULES §3.4) that obeys the larger-die rule
(RULES §3.5), taken in any order of its steps (two different dice either way
round; equal dice from any point first). The stage is complete when the steps
taken form a legal play: they use ``playable_dice`` dice, or the last one
bears off the mover's 15th checker (RULES §3.3). Its :class:`~gulbara.Play`
is then the end that the steps reach, with the end's canonical steps
(RULES §3.8). A stage whose only legal play is the empty one has one legal
action, ``PASS_ACTION``, and it completes the stage at once.

>>> from gulbara import Game
>>> game = Game(seed=24)                          # White opens with 6-4
>>> stage = StepStage.from_game(game)
>>> [decode_action(a) for a in stage.legal_actions()]
[(24, 4), (24, 6)]
>>> stage.push(encode_step(24, 4)) is None        # one step taken, one to go
True
>>> [decode_action(a) for a in stage.legal_actions()]
[(20, 6), (24, 6)]
>>> stage.push(encode_step(20, 6))                # the end of '24/14', canonical steps
Play(((24, 6), (18, 4)), code='G:,,,,,,,,,,,-15,,1,,,,,,,,,,14|0,0|0,0')
"""

from typing import Dict, List, Optional, Tuple

import numpy as np

from gulbara.conventions import white_point
from gulbara.errors import IllegalPlayError, checked_int
from gulbara.core.play import Play, Step, StageEnds

__all__ = [
    "N_ACTIONS", "N_STEP_ACTIONS", "PASS_ACTION", "IllegalActionError",
    "encode_step", "decode_action", "check_action", "action_to_string", "StepStage",
]

#: Actions that are steps: ``(from_point - 1) * 6 + (die - 1)``.
N_STEP_ACTIONS = 144
#: The action of the empty play (a stage in which no die can be played, RULES §3.6).
PASS_ACTION = 144
#: All actions: the 144 steps and the pass.
N_ACTIONS = 145


class IllegalActionError(IllegalPlayError):
    """An action that is not an int 0..144, or not legal (not in the mask) where it was given."""


def encode_step(from_point: int, die: int) -> int:
    """The action of step ``(from_point, die)``.

    >>> encode_step(24, 6), encode_step(1, 1)
    (143, 0)
    """
    if not (1 <= from_point <= 24 and 1 <= die <= 6):
        raise IllegalActionError(f"a step is (from 1..24, die 1..6), got ({from_point}, {die})")
    return (from_point - 1) * 6 + (die - 1)


def decode_action(action: int) -> Optional[Step]:
    """The step ``(from_point, die)`` of an action, or ``None`` for ``PASS_ACTION``.

    >>> decode_action(143), decode_action(PASS_ACTION)
    ((24, 6), None)
    """
    action = check_action(action)
    if action == PASS_ACTION:
        return None
    return (action // 6 + 1, action % 6 + 1)


def check_action(action) -> int:
    """``action`` as a plain int 0..144; raises :class:`IllegalActionError` otherwise.

    Python and numpy integers (also 0-d integer arrays) are accepted; bools,
    floats and anything else are not.

    >>> check_action(np.int64(7))
    7
    """
    return checked_int(action, "an action", 0, N_ACTIONS - 1, IllegalActionError,
                       IllegalActionError)


def action_to_string(action: int) -> str:
    """A short text for an action: ``'24/18'`` (a die of 6 from 24), ``'3/off'``, ``'pass'``.

    >>> action_to_string(encode_step(24, 6)), action_to_string(encode_step(3, 5))
    ('24/18', '3/off')
    """
    step = decode_action(action)
    if step is None:
        return "pass"
    frm, die = step
    return f"{frm}/{'off' if frm - die <= 0 else frm - die}"


#: Black's own points 1..24 as indices (0-based) of White's numbering (RULES §1.3).
_BLACK_TO_WHITE_INDEX = tuple(white_point(1, p) - 1 for p in range(1, 25))


class StepStage:
    """One stage played step by step: the steps taken, the legal next steps, the mask.

    Built from the stage's legal plays (:meth:`from_game` takes them from a
    :class:`gulbara.Game` at a decision). :meth:`push` takes one action and
    returns the :class:`~gulbara.Play` of the stage once the steps taken
    complete a legal play (``None`` before that); it raises
    :class:`IllegalActionError`, changing nothing, for an action that is not
    legal.
    """

    __slots__ = ("_ends", "_seat", "_dice", "_need", "_start", "_position", "_steps",
                 "_left", "_memo", "_legal", "_done")

    def __init__(self, ends: StageEnds) -> None:
        if not isinstance(ends, StageEnds):
            raise TypeError(f"StepStage takes a StageEnds, not {type(ends).__name__}")
        self._ends = ends
        self._seat = ends.seat
        self._dice = tuple(ends.dice)
        self._need = ends.playable_dice            # RULES §3.4: the greatest effective length
        self._start = ends.start
        self._position = self._start
        self._steps: Tuple[Step, ...] = ()
        self._left = self._dice
        self._memo: Dict[tuple, bool] = {}
        self._legal: Optional[Tuple[Step, ...]] = None
        self._done: Optional[Play] = None

    @classmethod
    def from_game(cls, game) -> "StepStage":
        """The current stage of ``game`` (a :class:`gulbara.Game` or ``Match`` at a decision)."""
        return cls(game.legal_plays())

    def copy(self) -> "StepStage":
        """An independent copy (the stage's plays and search memo are shared, read-only)."""
        other = StepStage.__new__(StepStage)
        for name in StepStage.__slots__:
            setattr(other, name, getattr(self, name))
        return other

    # -- reading -------------------------------------------------------------

    @property
    def ends(self) -> StageEnds:
        """The stage's legal plays (its distinct ends)."""
        return self._ends

    @property
    def seat(self) -> int:
        """The mover (0 White, 1 Black)."""
        return self._seat

    @property
    def dice(self) -> Tuple[int, ...]:
        """The stage's dice, larger first."""
        return self._dice

    @property
    def dice_left(self) -> Tuple[int, ...]:
        """The dice not used by the steps taken so far, larger first."""
        return self._left

    @property
    def steps(self) -> Tuple[Step, ...]:
        """The steps taken so far, in the order they were taken."""
        return self._steps

    @property
    def position(self):
        """The position after the steps taken so far."""
        return self._position

    def is_pass(self) -> bool:
        """Whether the stage's only legal play is the empty one (RULES §3.6)."""
        return self._need == 0

    def is_complete(self) -> bool:
        """Whether the steps taken form a legal play (then :attr:`play` is its end)."""
        return self._done is not None

    @property
    def play(self) -> Optional[Play]:
        """The legal play the steps taken complete, or ``None`` while the stage goes on."""
        return self._done

    def legal_steps(self) -> Tuple[Step, ...]:
        """The steps that start or continue a legal play, in canonical order (RULES §3.8)."""
        if self._legal is None:
            self._legal = self._next_steps()
        return self._legal

    def legal_actions(self) -> List[int]:
        """The legal actions, ascending: ``[PASS_ACTION]`` for a pass, none once complete."""
        if self._done is not None:
            return []
        if self._need == 0:
            return [PASS_ACTION]
        return sorted(encode_step(f, d) for f, d in self.legal_steps())

    def action_mask(self, out: Optional[np.ndarray] = None) -> np.ndarray:
        """The legal actions as an int8 vector of ``N_ACTIONS`` zeros and ones (into ``out``)."""
        if out is None:
            out = np.zeros(N_ACTIONS, dtype=np.int8)
        else:
            out[:] = 0
        out[self.legal_actions()] = 1
        return out

    # -- acting --------------------------------------------------------------

    def push(self, action) -> Optional[Play]:
        """Take one action; return the stage's :class:`~gulbara.Play` once it is complete."""
        action = check_action(action)
        if self._done is not None:
            raise IllegalActionError(f"the stage is complete ({self._done}); no action is legal")
        if self._need == 0:
            if action != PASS_ACTION:
                raise IllegalActionError(
                    f"action {action} ({action_to_string(action)}) is illegal: no die of "
                    f"{'-'.join(map(str, self._dice))} can be played, the only action is "
                    f"PASS_ACTION ({PASS_ACTION})")
            self._done = self._ends[0]
            return self._done
        step = decode_action(action)
        if step not in self.legal_steps():
            legal = ", ".join(f"{a} ({action_to_string(a)})" for a in self.legal_actions())
            taken = " ".join(action_to_string(encode_step(*s)) for s in self._steps) or "none"
            raise IllegalActionError(
                f"action {action} ({action_to_string(action)}) is illegal for "
                f"{'White' if self._seat == 0 else 'Black'} with "
                f"{'-'.join(map(str, self._dice))} (steps taken: {taken}); legal: {legal}")
        position = self._position.apply_steps(self._seat, [step])
        left = list(self._left)
        left.remove(step[1])
        self._position = position
        self._left = tuple(left)
        self._steps += (step,)
        self._legal = None
        if len(self._steps) == self._need or position.borne_off(self._seat) == 15:
            play = self._ends.find(list(self._steps))
            if play is None:                        # cannot happen: the mask follows the rules
                raise AssertionError(f"steps {self._steps} reach no end of {self._ends!r}")
            self._done = play
        return self._done

    # -- the search ----------------------------------------------------------

    def _moves(self, position, left: Tuple[int, ...]):
        """The single legal steps from ``position`` with a die of ``left`` and where each leads.

        The step rule (RULES §2.2-2.3) is the backend's, ``Position.apply_steps``: every
        point holding a checker of the mover is tried with every die left."""
        seat = self._seat
        points = position.points()
        if seat == 0:
            mine = points
        else:                                           # own numbering (RULES §1.3)
            mine = [-points[q] for q in _BLACK_TO_WHITE_INDEX]
        out = []
        for die in sorted(set(left), reverse=True):
            for frm in range(24, 0, -1):
                if mine[frm - 1] <= 0:
                    continue                            # no checker of the mover there
                try:
                    after = position.apply_steps(seat, [(frm, die)])
                except IllegalPlayError:
                    continue
                out.append(((frm, die), after))
        return out

    def _can_finish(self, position, left: Tuple[int, ...], need: int) -> bool:
        """Whether ``need`` more steps can follow ``position`` with ``left`` (or the game ends)."""
        if need <= 0:
            return True
        key = (position, left)
        hit = self._memo.get(key)
        if hit is not None:
            return hit
        found = False
        for (frm, die), after in self._moves(position, left):
            if after.borne_off(self._seat) == 15:       # a complete play (RULES §3.3)
                found = True
                break
            rest = list(left)
            rest.remove(die)
            if self._can_finish(after, tuple(rest), need - 1):
                found = True
                break
        self._memo[key] = found
        return found

    def _next_steps(self) -> Tuple[Step, ...]:
        if self._done is not None or self._need == 0:
            return ()
        need_after = self._need - len(self._steps) - 1
        moves = self._moves(self._position, self._left)
        dice = self._dice
        if (not self._steps and len(dice) == 2 and dice[0] != dice[1] and self._need == 1
                and any(die == dice[0] for (_, die), _ in moves)):
            # RULES §3.5: no play uses both dice, and the larger one can be played
            moves = [move for move in moves if move[0][1] == dice[0]]
        legal = []
        for (frm, die), after in moves:
            if after.borne_off(self._seat) == 15:
                legal.append((frm, die))
                continue
            rest = list(self._left)
            rest.remove(die)
            if self._can_finish(after, tuple(rest), need_after):
                legal.append((frm, die))
        legal.sort(key=lambda step: (-step[0], -step[1]))   # RULES §3.8
        return tuple(legal)

    def __repr__(self) -> str:
        taken = " ".join(action_to_string(encode_step(*s)) for s in self._steps) or "-"
        return (f"<StepStage seat={self._seat} dice={self._dice} taken={taken} "
                f"left={self._left} complete={self._done is not None}>")
