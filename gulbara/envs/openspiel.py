"""An adapter in the shape of OpenSpiel's Python game API, with no OpenSpiel needed.

:class:`GulBaraGame` and :class:`GulBaraState` offer the calls that OpenSpiel
algorithms make (``current_player``, ``legal_actions``, ``apply_action``,
``chance_outcomes``, ``returns``, ``observation_tensor``, ``clone``...), with
its conventions: the chance player is ``-1`` (:data:`CHANCE_PLAYER_ID`), a
finished game's current player ``-4`` (:data:`TERMINAL_PLAYER_ID`).

* **Decisions** take step actions (see :mod:`gulbara.envs._actions`:
  ``(from - 1) * 6 + (die - 1)`` for a step, ``144`` to pass), one per die;
  the stages of a chain and of a remainder are consecutive decisions of the
  side that plays them (RULES §4-5).
* **Rolls** are chance nodes of the 21 distinct rolls, the action of ``a-b``
  (``a >= b``) being ``(a - 1) * 6 + (b - 1)``, with probability 1/36 for a
  double and 2/36 for the others (RULES §10.2).
* **The opening** (RULES §6) is the first chance node: White's die and
  Black's die, the action of ``(w, b)`` being ``(w - 1) * 6 + (b - 1)``, as
  :meth:`gulbara.Game.roll_opening` takes them. A tie is rolled again and
  leaves the game as it was, so the node offers the 30 pairs that are not a
  tie, each with probability 1/30 (the same distribution as rolling until
  there is no tie, without a chance node that repeats itself).

>>> game = GulBaraGame()
>>> state = game.new_initial_state()
>>> state.current_player(), len(state.chance_outcomes())
(-1, 30)
>>> state.apply_action(5 * 6 + 3)                      # White's die 6, Black's 4: White opens 6-4
>>> state.current_player(), state.legal_actions()
(0, [141, 143])
>>> state.apply_action(143); state.apply_action(141)   # 24/18 24/20
>>> state.is_chance_node(), state.chance_outcomes()[0] # Black to roll: 1-1 is 1/36
(True, (0, 0.027777777777777776))
"""

from typing import List, Optional, Tuple

import numpy as np

from gulbara.envs._actions import N_ACTIONS, IllegalActionError, action_to_string, check_action
from gulbara.envs._driver import StepGame
from gulbara.envs._observe import STATE_FEATURES, observe
from gulbara.envs._render import render_text
from gulbara.conventions import DICE_36, ROLLS
from gulbara.errors import GulBaraError, InvalidSeatError, checked_int
from gulbara.game.driver import Game
from gulbara.rules import Rules, checked_rules

__all__ = ["GulBaraGame", "GulBaraState", "CHANCE_PLAYER_ID", "TERMINAL_PLAYER_ID",
           "roll_action", "opening_action"]

#: ``current_player()`` at a chance node (as ``pyspiel.PlayerId.CHANCE``).
CHANCE_PLAYER_ID = -1
#: ``current_player()`` once the game is over (as ``pyspiel.PlayerId.TERMINAL``).
TERMINAL_PLAYER_ID = -4
#: Chance actions are ``(a - 1) * 6 + (b - 1)``, below this bound.
MAX_CHANCE_OUTCOMES = 36


def roll_action(high: int, low: int) -> int:
    """The chance action of the roll ``high-low`` (``high >= low``).

    >>> roll_action(6, 4), roll_action(1, 1)
    (33, 0)
    """
    return (high - 1) * 6 + (low - 1)


def opening_action(white_die: int, black_die: int) -> int:
    """The chance action of the opening pair: White's die, Black's die (RULES §6).

    >>> opening_action(4, 6)                   # Black starts, playing 6-4
    23
    """
    return (white_die - 1) * 6 + (black_die - 1)


_ROLL_OUTCOMES: Tuple[Tuple[int, float], ...] = tuple(
    (roll_action(a, b), (1 if a == b else 2) / 36) for a, b in sorted(ROLLS, key=lambda r: r[::-1]))
_OPENING_OUTCOMES: Tuple[Tuple[int, float], ...] = tuple(
    (opening_action(w, b), 1 / 30) for w, b in DICE_36 if w != b)


class GulBaraGame:
    """The game object: its sizes and :meth:`new_initial_state`; ``rules`` a :class:`gulbara.Rules`.

    >>> GulBaraGame().num_distinct_actions(), GulBaraGame().observation_tensor_shape()
    (145, [220])
    """

    def __init__(self, rules: Optional[Rules] = None) -> None:
        self.rules = checked_rules(rules)

    def new_initial_state(self) -> "GulBaraState":
        """A game at its opening chance node (RULES §6)."""
        return GulBaraState(self)

    def num_distinct_actions(self) -> int:
        return N_ACTIONS

    def max_chance_outcomes(self) -> int:
        return MAX_CHANCE_OUTCOMES

    def num_players(self) -> int:
        return 2

    def min_utility(self) -> float:
        return -2.0

    def max_utility(self) -> float:
        return 2.0

    def utility_sum(self) -> float:
        return 0.0

    def observation_tensor_shape(self) -> List[int]:
        return [STATE_FEATURES]

    def observation_tensor_size(self) -> int:
        return STATE_FEATURES

    def __str__(self) -> str:
        return "gulbara()"


class GulBaraState:
    """A game state: a :class:`gulbara.Game` with explicit dice, played one step at a time."""

    def __init__(self, game: GulBaraGame, _driver: Optional[StepGame] = None) -> None:
        self._game = game
        self._driver = _driver if _driver is not None else StepGame(
            Game(game.rules, auto_roll=False))
        self._history: List[int] = []

    # -- reading -------------------------------------------------------------

    def get_game(self) -> GulBaraGame:
        return self._game

    @property
    def game(self) -> Game:
        """The :class:`gulbara.Game` (at the start of the stage being played)."""
        return self._driver.game

    def current_player(self) -> int:
        """The seat to act; -1 at a chance node, -4 at the end (as OpenSpiel's player ids)."""
        game = self._driver.game
        if game.is_over():
            return TERMINAL_PLAYER_ID
        if game.is_chance():
            return CHANCE_PLAYER_ID
        return game.to_move

    def is_chance_node(self) -> bool:
        return self._driver.game.is_chance()

    def is_terminal(self) -> bool:
        return self._driver.game.is_over()

    def is_player_node(self) -> bool:
        return self._driver.game.is_decision()

    def chance_outcomes(self) -> List[Tuple[int, float]]:
        """``(action, probability)`` of the chance node, ascending; raises elsewhere."""
        game = self._driver.game
        if game.is_opening():
            return list(_OPENING_OUTCOMES)
        if game.is_chance():
            return list(_ROLL_OUTCOMES)
        raise GulBaraError("chance_outcomes() is only for a chance node")

    def legal_actions(self, player: Optional[int] = None) -> List[int]:
        """The legal actions, ascending, of the side to act (of ``player``: none if not to act)."""
        current = self.current_player()
        if player is not None and player != current:
            return []
        if current == CHANCE_PLAYER_ID:
            return [action for action, _ in self.chance_outcomes()]
        return self._driver.legal_actions()

    def legal_actions_mask(self, player: Optional[int] = None) -> List[int]:
        """0/1 per action: ``num_distinct_actions()`` long, ``max_chance_outcomes()`` at chance."""
        size = MAX_CHANCE_OUTCOMES if self.is_chance_node() else N_ACTIONS
        mask = [0] * size
        for action in self.legal_actions(player):
            mask[action] = 1
        return mask

    def returns(self) -> List[float]:
        """The points per seat at the end (RULES §7.1: +1 or +2 for the winner, the loser as many
        negative; 0 for a draw); zeros before the end."""
        result = self._driver.game.result()
        if result is None:
            return [0.0, 0.0]
        white, black = result.score
        return [float(white - black), float(black - white)]

    def rewards(self) -> List[float]:
        """The reward of the last action: :meth:`returns` once the game is over, else zeros."""
        return self.returns()

    def history(self) -> List[int]:
        """Every action applied so far, chance actions included."""
        return list(self._history)

    def history_str(self) -> str:
        return ", ".join(map(str, self._history))

    def move_number(self) -> int:
        return len(self._history)

    def observation_tensor(self, player: Optional[int] = None) -> List[float]:
        """``STATE_FEATURES`` floats: the game-state block of :mod:`gulbara.encoding.features` seen by
        ``player`` (the side to act, White at chance nodes and at the end, when ``None``)."""
        return self.observation_array(player).tolist()

    def observation_array(self, player: Optional[int] = None) -> np.ndarray:
        """:meth:`observation_tensor` as a float32 numpy array."""
        if player is None:
            player = self._driver.game.to_move if self._driver.game.to_move is not None else 0
        if isinstance(player, bool) or player not in (0, 1):
            raise InvalidSeatError(f"player must be 0 (White) or 1 (Black), got {player!r}")
        return observe(self._driver, player)

    def observation_string(self, player: Optional[int] = None) -> str:
        return str(self)

    def information_state_string(self, player: Optional[int] = None) -> str:
        """The history of actions: the game has perfect information."""
        return self.history_str()

    def action_to_string(self, player_or_action: int, action: Optional[int] = None) -> str:
        """Text for an action: ``'24/18'``, ``'pass'``, ``'roll 6-4'``, ``'opening W6 B4'``.

        Takes ``(action)`` or ``(player, action)``, as OpenSpiel does; a
        chance action is read for the current chance node.
        """
        if action is None:
            player, action = self.current_player(), player_or_action
        else:
            player = player_or_action
        if player == CHANCE_PLAYER_ID:
            action = checked_int(action, "a chance action", 0, MAX_CHANCE_OUTCOMES - 1,
                                 IllegalActionError, IllegalActionError)
            high, low = divmod(action, 6)
            if self._driver.game.is_opening():
                return f"opening W{high + 1} B{low + 1}"
            return f"roll {high + 1}-{low + 1}"
        return action_to_string(action)

    # -- acting --------------------------------------------------------------

    def apply_action(self, action: int) -> None:
        """Apply a chance outcome or a step action; raises, changing nothing, if it is not legal."""
        game = self._driver.game
        if game.is_over():
            raise GulBaraError(f"action {action!r}: the game is over")
        if game.is_chance():
            if isinstance(action, (bool, np.bool_)):
                raise IllegalActionError(f"a chance action is an int, not a bool: {action!r}")
            try:
                action = int(check_action(action))
            except IllegalActionError:
                raise IllegalActionError(f"{action!r} is not a chance outcome here") from None
            if action not in dict(self.chance_outcomes()):
                raise IllegalActionError(
                    f"{action} is not an outcome of this chance node; outcomes: "
                    f"{[a for a, _ in self.chance_outcomes()]}")
            first, second = divmod(action, 6)
            if game.is_opening():
                game.roll_opening(first + 1, second + 1)
            else:
                game.roll(first + 1, second + 1)
        else:
            action = check_action(action)
            self._driver.apply(action)
        self._history.append(action)

    def child(self, action: int) -> "GulBaraState":
        """A copy with ``action`` applied."""
        state = self.clone()
        state.apply_action(action)
        return state

    def clone(self) -> "GulBaraState":
        """An independent copy."""
        state = GulBaraState(self._game, self._driver.copy())
        state._history = list(self._history)
        return state

    def __str__(self) -> str:
        return render_text(self._driver)

    def __repr__(self) -> str:
        stage = self._driver.stage
        steps = stage.steps if stage is not None else ()
        return f"<GulBaraState {self._driver.game.state_code()} steps={steps}>"


try:                                # with OpenSpiel installed: pyspiel.load_game("gul_bara")
    import pyspiel as _pyspiel      # noqa: F401
except ImportError:                 # pragma: no cover - depends on the install
    pass
else:
    from gulbara.envs._pyspiel import register as _register
    _register()
