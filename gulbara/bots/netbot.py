"""Bots that play by a gb1 value network: ``net`` (1-ply) and ``net2`` (two decisions deep).

By default both play by :func:`gulbara.net.model.bot_net`: under the default rules the
average of four shipped networks (docs/user/bots.md, "The net bots' network").

**How a stage's ends are valued** (docs/user/bots.md, "The net bots"):

* A play that ends the game is worth its points (2 with a mars, RULES §7.1).
* A plain stage (a non-double, an exempt double): the network's equity for
  the opponent, about to roll, negated.
* When both sides are bearing off, by the one-sided bear-off database
  (:mod:`gulbara.eval.bearoff`) instead of the network: a plain stage's ends, or a
  chain's whole-turn outcomes, by their points or the opponent's race equity.
* A stage of an escalating chain, or of a remainder, is valued by what the
  whole rest of the turn can reach: :func:`gulbara.chain_ends` (or
  :func:`gulbara.remainder_ends`) lists every whole-chain outcome from the
  current stage; each is valued after the turn (the game's result; or, when
  the chain stopped and passes a remainder, the opponent to play that
  remainder first; or the opponent to roll after a chain, the player itself
  after a remainder, RULES §5.4), and the bot plays the first stage of the
  best outcome's canonical play, keeping the plan for the chain's next
  stages. When an enumeration holds more than ``chain_budget`` positions it
  falls back to playing the rest of the chain by the network stage by
  stage: each end of the current stage is followed, stage by stage, by the
  network's best end there until the turn is over, and valued there.

``net2`` adds a second decision to the plays that give the opponent the roll:
the best ``top`` ends by the 1-ply value are valued by the average over the
opponent's 36 rolls of its best answer by the network (native code).

>>> import gulbara
>>> bot = NetBot(ValueNet.random(hidden=8, seed=1))
>>> game = gulbara.Game(seed=4)
>>> bot.choose(game) in list(game.legal_plays())
True
"""

import os
from typing import List, Optional, Tuple, Union

import numpy as np

from gulbara.net import _search
from gulbara.eval.bearoff import (bearoff_applies, bearoff_outcome_values, bearoff_turn_value,
                             bearoff_values)
from gulbara.bots.simple import Bot
from gulbara.chains.enumeration import chain_ends, remainder_ends
from gulbara.errors import EnumerationLimitError, checked_int
from gulbara.game.driver import decision_game
from gulbara.net.model import ValueNet, bot_net, load
from gulbara.core.play import Play

__all__ = ["NetBot", "Net2Bot", "DEFAULT_CHAIN_BUDGET"]

#: Positions a whole-chain enumeration may hold before the stage-by-stage fallback.
DEFAULT_CHAIN_BUDGET = 20_000
#: The largest ``chain_budget`` (an enumeration's ``max_ends``) and ``top``.
MAX_CHAIN_BUDGET = 2**63 - 1
MAX_TOP = 2**31 - 1


class NetBot(Bot):
    """The network's best play, 1-ply, chains and remainders valued as a whole (module docstring).

    ``net`` is ``"net"`` or ``None`` (the bots' shipped network for the rules of the
    game played: :func:`gulbara.net.model.bot_net`), a path to an ``.npz`` file or a
    :class:`ValueNet`. ``chain_budget`` (an int, at least 1) bounds the whole-chain
    enumerations. Deterministic.
    """

    name = "net"

    def __init__(self, net: Union[str, ValueNet, None] = None, *,
                 chain_budget: int = DEFAULT_CHAIN_BUDGET) -> None:
        self._shipped = net is None or (isinstance(net, str) and net == "net")
        self.net = bot_net() if self._shipped else load(net)
        if isinstance(net, (str, os.PathLike)) and not self._shipped:
            self.name = self.labelled(os.path.basename(os.fspath(net)))   # by its file
        self.chain_budget = checked_int(chain_budget, "chain_budget", 1, MAX_CHAIN_BUDGET)
        # (the next stage's key, the position it starts from, the stages left)
        self._plan: Optional[Tuple[str, str, List[Tuple[Tuple[int, int], ...]]]] = None

    # -- the rule --------------------------------------------------------

    def labelled(self, file_name: str) -> str:
        """The bot's name on a network file: the file's name."""
        return file_name

    def _network_for(self, game) -> None:
        """With the shipped network, take the one shipped for the game's rules."""
        if self._shipped:
            self.net = bot_net(game.rules)

    def choose(self, game) -> Play:
        game = decision_game(game)
        self._network_for(game)
        plays = game.legal_plays()
        if len(plays) == 1:
            return plays[0]
        d = game.decision
        if d.is_chain or d.is_remainder:
            play = self._from_plan(game, plays)
            if play is not None:
                return play
        if bearoff_applies(game):                  # both sides bearing off: the database
            if not d.is_chain:
                return plays[int(np.argmax(bearoff_values(game)))]
            outcome = self._best_outcome(game, bearoff=True)
            if outcome is not None:
                return outcome
        if d.is_chain or d.is_remainder:
            outcome = self._best_outcome(game)
            if outcome is not None:
                return outcome
            return plays[int(np.argmax(self._stage_by_stage(game)))]
        return plays[int(np.argmax(self.stage_values(game)))]

    def stage_values(self, game) -> np.ndarray:
        """The 1-ply value of each end of a plain stage (native)."""
        self._network_for(decision_game(game))
        return self.net.stage_values(game)

    def rank(self, game) -> List[Tuple[Play, float]]:
        """Every legal play with its value (equity in points for the mover), best first.

        Chain and remainder stages are valued by their best whole-turn outcome
        through each play (the stage-by-stage fallback beyond the budget).
        """
        game = decision_game(game)
        self._network_for(game)
        plays = game.legal_plays()
        d = game.decision
        bearoff = bearoff_applies(game)
        if bearoff and not d.is_chain:
            values = bearoff_values(game)
        elif d.is_chain or d.is_remainder:
            values = self._whole_turn_values(game, bearoff)
        else:
            values = self.stage_values(game)
        order = sorted(range(len(plays)), key=lambda i: (-float(values[i]), i))
        return [(plays[i], float(values[i])) for i in order]

    # -- chains and remainders -------------------------------------------

    def _enumerate(self, code: str, game, seat: int, first_stage: Tuple[int, ...],
                   following):
        """The whole-turn outcomes from ``code`` of the stages starting with ``first_stage``
        (bounded by ``chain_budget``, so on one thread: the bot plays the same on any machine)."""
        d = game.decision
        if d.is_remainder:
            stages = [list(first_stage)] + [[n] * c for n, c in following]
            return remainder_ends(code, seat, stages, max_ends=self.chain_budget, rules=game.rules)
        return chain_ends(code, seat, first_stage[0], game.rules, max_ends=self.chain_budget)

    def _best_outcome(self, game, bearoff: bool = False) -> Optional[Play]:
        d = game.decision
        try:
            outcomes = self._enumerate(game.code(), game, d.seat, d.dice, d.following)
        except EnumerationLimitError:
            return None
        if bearoff:
            values = bearoff_outcome_values(outcomes, game.rules.mars)
        else:
            values = self.net.outcome_values(outcomes, game.rolls_made)
        best = int(np.argmax(values))
        stages = list(outcomes.steps(best))
        play = self._play_with_steps(game, stages[0])
        self._plan = self._next_plan(game, play, stages[1:])
        return play

    def _plan_key(self, game, ahead: int) -> str:
        d = game.decision
        return f"{d.seat}:{d.roller}:{d.roll}:{game.rolls_made}:{d.is_remainder}:{d.stage + ahead}"

    def _next_plan(self, game, play: Optional[Play], stages
                   ) -> Optional[Tuple[str, str, List[Tuple[Tuple[int, int], ...]]]]:
        """The plan for the turn's next stage: its key, the position it starts from (the
        one ``play`` leaves) and the stages left; None when there is none."""
        if play is None or play.code is None or not stages:
            return None
        return (self._plan_key(game, 1), play.code, list(stages))

    def _from_plan(self, game, plays) -> Optional[Play]:
        """The planned play of this stage, if the plan was made for this very game: the same
        turn and stage and the position the planned play before it left (a plan is never
        applied to another game that happens to be at the same stage of the same roll)."""
        plan, self._plan = self._plan, None
        if plan is None or plan[0] != self._plan_key(game, 0) or plan[1] != game.position.code():
            return None
        play = self._play_with_steps(game, plan[2][0])
        self._plan = self._next_plan(game, play, plan[2][1:])
        return play

    @staticmethod
    def _play_with_steps(game, steps) -> Optional[Play]:
        code = game.position.apply_steps(game.decision.seat, list(steps)).code()
        for play in game.legal_plays():
            if play.code == code:
                return play
        return None

    def _whole_turn_values(self, game, bearoff: bool) -> np.ndarray:
        """Each play's value: the best whole-turn outcome through it (``bearoff``:
        valued by the bear-off database, as ``bearoff_applies(game)`` says)."""
        d = game.decision
        plays = game.legal_plays()
        values = np.zeros(len(plays))
        fallback = None
        for i, play in enumerate(plays):
            after = game.copy(auto_roll=False)
            after.play(play)
            nd = after.decision
            if nd is None or nd.seat != d.seat or nd.is_remainder != d.is_remainder:
                values[i] = (bearoff_turn_value(after.position, d.seat, game.rules) if bearoff
                             else self._after_value(after, d.seat))
                continue
            try:
                outcomes = self._enumerate(after.code(), after, d.seat, nd.dice, nd.following)
            except EnumerationLimitError:
                if fallback is None:
                    fallback = self._stage_by_stage(game)
                values[i] = fallback[i]
                continue
            if bearoff:
                values[i] = float(bearoff_outcome_values(outcomes, game.rules.mars).max())
            else:
                values[i] = float(self.net.outcome_values(outcomes, after.rolls_made).max())
        return values

    def _after_value(self, after, mover: int) -> float:
        return self.net.after_value(after, mover, native=True)

    def _stage_by_stage(self, game) -> np.ndarray:
        """Each end followed by the network's best end at every later stage of the turn (native)."""
        return _search.continuation_values(self.net.native, decision_game(game))

    def __repr__(self) -> str:
        return f"NetBot({self.net!r})"


class Net2Bot(NetBot):
    """Expectimax two decisions deep with the network at the leaves (module docstring).

    Chain and remainder stages are played as by :class:`NetBot`. ``top`` is an int,
    at least 1.
    """

    name = "net2"

    def __init__(self, net: Union[str, ValueNet, None] = None, *, top: int = 6,
                 chain_budget: int = DEFAULT_CHAIN_BUDGET) -> None:
        super().__init__(net, chain_budget=chain_budget)
        self.top = checked_int(top, "top", 1, MAX_TOP)

    def labelled(self, file_name: str) -> str:
        return f"net2:{file_name}"

    def stage_values(self, game) -> np.ndarray:
        self._network_for(decision_game(game))
        one, two, searched = _search.search_values(self.net.native, decision_game(game), self.top)
        # only the searched ends compete: the others rank below them, by their 1-ply value
        if searched.any():
            return np.where(searched, two, one - 4.0)
        return one

    def __repr__(self) -> str:
        return f"Net2Bot({self.net!r}, top={self.top})"
