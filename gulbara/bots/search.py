"""Expectimax search over Gul Bara's game tree: chance nodes (the dice) and stage decisions.

The tree is the one :class:`gulbara.Game` walks with explicit rolls
(``auto_roll=False``, RULES §10): a *chance node* averages over the rolls,
a *decision* is one stage (RULES §3.1). The stages of an escalation chain and
of a remainder are consecutive decisions (RULES §4.3, §5.3), possibly of the
other player; each decision maximises for the side that plays it.

**Values** are expected points from the *root player*'s point of view (the
side to act at the root; White at the opening), in ``[-2, 2]``: a win counts
``+1``, a mars ``+2`` (RULES §7.1), a loss ``-1`` or ``-2``, a draw of the
stuck rule ``0`` (RULES §7.2). The evaluator follows the same scale from the
*mover*'s side: ``evaluate(features)`` takes an ``N x 196`` ``float32`` array
of afterstates (:func:`gulbara.encoding.features.encode_afterstates`, each seen by the
player who just played the stage) and returns ``N`` values of those positions
for that player. An evaluator that predicts a win probability ``p`` can return
``2 * p - 1``. Each call gets an array of its own, which the evaluator may
keep; the values must be finite real numbers (``GulBaraError`` otherwise).

**Depth** counts decisions: depth 1 scores every end of the root stage with
the evaluator (one batch call) and picks the best; depth 2 plays each root
end, then goes through the chance node (all 21 rolls, 1/36 or 2/36 each) or
the next stage of the chain, and scores every end of the following decision.
Chance nodes do not use depth. A game-ending end is scored exactly.

**Opening** (RULES §6): at the opening chance node the 30 ordered pairs of
different dice ``(White's, Black's)`` are equally likely (ties are rolled
again); :meth:`gulbara.Game.roll_opening` then starts the higher die.

>>> import numpy as np
>>> from gulbara import Game
>>> game = Game.from_state_code("G:1,1,,,,,,,,,,-15,,,,,,,,,,,,|0,0|13,0 next=play:W "
...                             "stage=6-5 roll=6-5 rolls=9,9 stuck=0")
>>> result = expectimax(game, 1, lambda x: np.zeros(len(x)))
>>> str(result.play), result.value, result.nodes          # both checkers off: a mars
('2/off 1/off', 2.0, 2)
"""

import time
from dataclasses import dataclass, fields
from typing import Callable, Dict, List, Optional, Tuple, Union

import numpy as np

from gulbara.core.batch import stage_ends_batch
from gulbara.conventions import DICE_36, OTHER_POINT, ROLL_PROBABILITIES
from gulbara.encoding.features import BOARD_FEATURES, encode_afterstates, encode_boards
from gulbara.errors import GulBaraError, checked_int, checked_positive, checked_scores
from gulbara.core.play import Play, StageEnds

__all__ = ["expectimax", "SearchResult", "heuristic_evaluator", "HeuristicWeights",
           "race_evaluator", "chance_outcomes", "Evaluator"]

#: ``evaluate(features N x 196 float32) -> N values`` in ``[-2, 2]``, each for the player
#: who just played the stage that left the afterstate.
Evaluator = Callable[[np.ndarray], np.ndarray]

_WHITE_OPENING = tuple(((w, b), 1 / 30) for w, b in DICE_36 if w != b)
_ROLLS = ROLL_PROBABILITIES
# The first stage of each roll (RULES §3.1, §4.1) as stage_ends_batch rows, and its weight.
_ROLL_DICE = np.array([(a, b, 0, 0) if a != b else (a,) * 4 for (a, b), _ in _ROLLS], np.uint8)
_ROLL_WEIGHTS = np.array([p for _, p in _ROLLS])


@dataclass(frozen=True)
class SearchResult:
    """What :func:`expectimax` found.

    * ``play``: the best play of the root stage (``None`` at a chance node or
      at the end);
    * ``value``: its value, expected points for ``seat`` in ``[-2, 2]``;
    * ``seat``: the root player (``None`` once the game is over);
    * ``depth``: the deepest search completed (lower than asked when the
      budget cut it);
    * ``nodes``: decisions and chance nodes expanded plus afterstates scored;
    * ``cut``: whether the budget stopped a deeper search;
    * ``scores``: ``(play, value)`` of every root end at ``depth``, best first.
    """

    play: Optional[Play]
    value: float
    seat: Optional[int]
    depth: int
    nodes: int
    cut: bool
    scores: Tuple[Tuple[Play, float], ...] = ()


class _OutOfBudget(Exception):
    pass


def chance_outcomes(game) -> Tuple[Tuple[Tuple[int, int], float], ...]:
    """The outcomes of the game's chance node with their probabilities.

    At a roll: the 21 rolls, larger die first, 1/36 for a double and 2/36
    otherwise. At the opening: the 30 ordered pairs ``(White's die, Black's
    die)`` of different dice, 1/30 each, for :meth:`Game.roll_opening`
    (RULES §6).

    >>> from gulbara import Game
    >>> len(chance_outcomes(Game.new_perft_root())), round(sum(p for _, p in _ROLLS), 12)
    (30, 1.0)
    """
    from gulbara.game.driver import current_game
    game = current_game(game)
    if game.is_opening():
        return _WHITE_OPENING
    if not game.is_chance():
        raise GulBaraError("chance outcomes exist only at a chance node")
    return _ROLLS


def race_evaluator(features: np.ndarray) -> np.ndarray:
    """A simple evaluator from the board block: the race, and the points that block it.

    ``tanh((lead - 8) / 20) + 0.1 * (blocks - blocked)``, clipped to ``[-1, 1]``:

    * ``lead`` is the opponent's pip count minus the player's (the opponent
      usually rolls next: 8 pips is about one roll);
    * ``blocks`` counts the player's points that lie in the opponent's way,
      ahead of its rearmost checker (a single checker holds a point, RULES
      §2.2, and there is no hitting), ``blocked`` the same for the opponent.

    Against :class:`gulbara.GreedyBot`, one decision deep, the blocking term
    is worth about 20 points of win rate over the pip lead alone
    (``docs/user/bots.md``).

    >>> import gulbara.encoding.features
    >>> start, white_home = ("G:,,,,,,,,,,,-15,,,,,,,,,,,,15|0,0|0,0",
    ...                      "G:15,,,,,,,,,,,-15,,,,,,,,,,,,|0,0|0,0")
    >>> print(race_evaluator(gulbara.encoding.features.encode_boards([start, white_home], 0)).round(3))
    [-0.38  1.  ]
    """
    x = _features(features)
    lead = (x[:, 195] - x[:, 194]) * 360.0
    mine, theirs = x[:, 0:96:4], x[:, 96:192:4]          # points held, own numberings
    mine_back = (mine * _POINTS).max(axis=1)             # rearmost checkers (0: none left)
    theirs_back = (theirs * _POINTS).max(axis=1)
    # My point p is the opponent's point ((p + 11) mod 24) + 1 (RULES §1.3).
    blocks = (mine[:, _OTHER] * (_POINTS < theirs_back[:, None])).sum(axis=1)
    blocked = (theirs[:, _OTHER] * (_POINTS < mine_back[:, None])).sum(axis=1)
    return np.clip(np.tanh((lead - 8.0) / 20.0) + 0.1 * (blocks - blocked), -1.0, 1.0)


def _features(features) -> np.ndarray:
    """An evaluator's input as an ``N x >= BOARD_FEATURES`` float32 array."""
    x = np.asarray(features, dtype=np.float32)
    if x.ndim != 2 or x.shape[1] < BOARD_FEATURES:
        raise GulBaraError(f"features must have shape (N, {BOARD_FEATURES}), got {x.shape}")
    return x


_POINTS = np.arange(1, 25, dtype=np.float32)
# Column q - 1 of a side's 24 points read in the other side's numbering (RULES §1.3).
_OTHER = np.array(OTHER_POINT) - 1


@dataclass(frozen=True)
class HeuristicWeights:
    """The weights of :func:`heuristic_evaluator`, in the greedy heuristic's units.

    A side's score is, in its own numbering (with the default weights the
    first five terms are :func:`gulbara.eval.greedy.greedy_score`, and ``trap`` is off)::

        - pips    x its pip count
        + held    x points it holds (a single checker holds a point, RULES §2.2)
        + blocks  x held points in front of the opponent's rearmost checker
        + prime   x the longest run of such points
        + home    x checkers on points 1..6 or borne off
        + off     x checkers borne off
        + trap    x the sum over the opponent's checkers of (the side's points
                    among the six in front of that checker / 6) squared

    ``tempo`` is the pips a roll is worth to the side on roll (the opponent,
    after the mover's play), ``scale`` the score difference that moves the
    win probability from 50% to about 73%, ``mars`` the weight of the mars
    estimate (0: a win is one point) and ``mars_scale`` its spread in pips.

    >>> import functools
    >>> one_point_wins = functools.partial(heuristic_evaluator, weights=HeuristicWeights(mars=0.0))
    >>> HeuristicWeights(scale=-1.0)
    Traceback (most recent call last):
    ...
    gulbara.errors.GulBaraError: HeuristicWeights.scale must be > 0, got -1.0
    """

    pips: float = 4.0
    held: float = 3.0
    blocks: float = 4.0
    prime: float = 6.0
    home: float = 2.0
    off: float = 2.0
    trap: float = 0.0
    tempo: float = 9.0
    scale: float = 40.0
    mars: float = 1.0
    mars_scale: float = 12.0

    def __post_init__(self) -> None:
        for field in fields(self):
            value = getattr(self, field.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"HeuristicWeights.{field.name} must be a number, "
                                f"not {type(value).__name__}")
            if not np.isfinite(value):
                raise GulBaraError(f"HeuristicWeights.{field.name} must be finite, got {value}")
        for name in ("scale", "mars_scale"):
            if not getattr(self, name) > 0:
                raise GulBaraError(f"HeuristicWeights.{name} must be > 0, "
                                   f"got {getattr(self, name)}")
        if not 0 <= self.mars <= 1:
            raise GulBaraError(f"HeuristicWeights.mars must be in [0, 1], got {self.mars}")


_DEFAULT_WEIGHTS = HeuristicWeights()
_HOME_DISTANCE = np.maximum(np.arange(1, 25, dtype=np.float32) - 6, 0)   # pips to home, per point
_FRONT_FROM = np.maximum(np.arange(24) - 6, 0)      # point q sees points max(q-6, 1)..q-1
_BITS = 2.0 ** np.arange(24)                        # point p is bit p - 1
_POPCOUNT = np.array([bin(i).count("1") for i in range(256)], dtype=np.float32)
_LOW24 = (1 << 24) - 1


def _popcount(bits: np.ndarray) -> np.ndarray:
    return _POPCOUNT[bits & 255] + _POPCOUNT[(bits >> 8) & 255] + _POPCOUNT[bits >> 16]


def _longest_run(bits: np.ndarray) -> np.ndarray:
    """The longest run of set bits of each mask (one pass per unit of the longest run)."""
    run = np.zeros(len(bits), np.float32)
    while True:
        alive = bits != 0
        if not alive.any():
            return run
        run += alive
        bits = bits & (bits >> 1)


def _scores(x: np.ndarray, w: HeuristicWeights) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Both sides' scores (:class:`HeuristicWeights`) and checker counts (``N x 48``).

    Columns 0..23 of the counts are the player's points 1..24, 24..47 the
    opponent's, each in its own numbering.
    """
    units = x[:, 0:192].reshape(len(x), 48, 4)               # n = u1 + u2 + u3 + 12 u4
    counts = units[:, :, 0] + units[:, :, 1] + units[:, :, 2] + 12.0 * units[:, :, 3]
    held = x[:, 0:192:4]                                      # the unit n >= 1 of each point
    masks = (np.rint(held[:, :24] @ _BITS).astype(np.int64),
             np.rint(held[:, 24:] @ _BITS).astype(np.int64))
    # The rearmost checker is the highest set bit (frexp: 2^(p-1) has exponent p; 0 has 0).
    backs = np.frexp(masks[0].astype(np.float64))[1], np.frexp(masks[1].astype(np.float64))[1]
    pips = x[:, 194] * 360.0, x[:, 195] * 360.0
    off = x[:, 192] * 15.0, x[:, 193] * 15.0
    scores = []
    for side in (0, 1):
        other = 1 - side
        mine = counts[:, 24 * side:24 * side + 24]
        # My point p is the opponent's point ((p + 11) mod 24) + 1 (RULES §1.3): a 12-bit rotation.
        across = ((masks[side] << 12) | (masks[side] >> 12)) & _LOW24
        ahead = across & ((np.int64(1) << np.maximum(backs[other] - 1, 0)) - 1)
        home = off[side] + mine[:, :6].sum(axis=1)
        score = (-w.pips * pips[side] + w.held * held[:, 24 * side:24 * side + 24].sum(axis=1)
                 + w.blocks * _popcount(ahead) + w.prime * _longest_run(ahead)
                 + w.home * home + w.off * off[side])
        if w.trap:
            # My points among the six in front of each opponent's point, by prefix sums.
            crossing = held[:, 24 * side:24 * side + 24][:, _OTHER]
            sums = np.zeros((len(x), 25), np.float32)
            np.cumsum(crossing, axis=1, out=sums[:, 1:])
            front = sums[:, :24] - sums[:, _FRONT_FROM]
            theirs = counts[:, 24 * other:24 * other + 24]
            score = score + w.trap * (theirs * front * front).sum(axis=1) / 36.0
        scores.append(score)
    return scores[0], scores[1], counts


def heuristic_evaluator(features: np.ndarray,
                        weights: Optional[HeuristicWeights] = None) -> np.ndarray:
    """The default evaluator: a greedy-like score of each side, the race and the mars chances.

    From the board block (``docs/user/encoding.md``) it rebuilds both sides'
    checker counts and scores each side as :class:`HeuristicWeights` says. With
    ``d`` the mover's score minus the opponent's minus ``pips x tempo`` (the
    opponent rolls next: ``tempo`` pips at ``pips`` per pip), the mover wins with probability
    ``p = (1 + tanh(d / (2 scale))) / 2``, and the value is::

        p (1 + mars x g) - (1 - p) (1 + mars x h)

    in ``[-2, 2]``: ``g`` estimates that the mover, if it wins, marses (the
    opponent has borne off none and needs more pips to bring every checker
    home and bear one off than the mover needs to finish), a logistic of that
    pip margin with spread ``mars_scale``; ``h`` the same for the opponent.
    Swapping the two sides (the same position seen by the other player)
    changes the sign up to the tempo term.

    ``weights`` defaults to ``HeuristicWeights()``; bind others with
    ``functools.partial(heuristic_evaluator, weights=...)``.

    The start seen by White with Black to roll (a tempo behind), and White
    home against Black's checkers all outside its home board (a likely mars):

    >>> from gulbara.encoding.features import encode_boards
    >>> x = encode_boards(["G:,,,,,,,,,,,-15,,,,,,,,,,,,15|0,0|0,0",
    ...                    "G:3,3,3,3,3,,,,,,,,,,,,,,,,,,-15,|0,0|0,0"], 0)
    >>> [round(float(v), 3) for v in heuristic_evaluator(x)]
    [-0.423, 1.862]
    """
    x = _features(features)
    w = _DEFAULT_WEIGHTS if weights is None else weights
    if not isinstance(w, HeuristicWeights):
        raise TypeError(f"weights must be a HeuristicWeights, not {type(w).__name__}")
    mine_score, theirs_score, counts = _scores(x, w)
    d = mine_score - theirs_score - w.pips * w.tempo
    p = 0.5 * (1.0 + np.tanh(d / (2.0 * w.scale)))
    # A mars (RULES §7.1): the loser has borne off none and needs every checker home
    # and one off (pips beyond its home board, plus one) before the winner finishes.
    mine_pips, theirs_pips = x[:, 194] * 360.0, x[:, 195] * 360.0
    mine_first = counts[:, :24] @ _HOME_DISTANCE + 1.0
    theirs_first = counts[:, 24:] @ _HOME_DISTANCE + 1.0
    g = np.where(x[:, 193] == 0,
                 _logistic((theirs_first - w.tempo - mine_pips) / w.mars_scale), 0.0)
    h = np.where(x[:, 192] == 0,
                 _logistic((mine_first - theirs_pips + w.tempo) / w.mars_scale), 0.0)
    value = p * (1.0 + w.mars * g) - (1.0 - p) * (1.0 + w.mars * h)
    return np.clip(value, -2.0, 2.0)


def _logistic(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def _terminal(game, white: bool) -> float:
    """The result of a finished game in points for White (``white``) or Black."""
    result = game.result()
    if result.winner is None:
        return 0.0
    return float(result.points if (result.winner == 0) == white else -result.points)


class _Searcher:
    def __init__(self, evaluate: Evaluator, budget_nodes: Optional[int],
                 budget_seconds: Optional[float], cache: Optional[dict], mars: bool) -> None:
        self.evaluate = evaluate
        self.mars = mars
        self.budget_nodes = budget_nodes
        self.deadline = None if budget_seconds is None else time.perf_counter() + budget_seconds
        self.cache = cache
        self.nodes = 0
        self.enforce = False

    # -- budget ---------------------------------------------------------------

    def count(self, n: int = 1) -> None:
        self.nodes += n
        if not self.enforce:
            return
        if self.budget_nodes is not None and self.nodes > self.budget_nodes:
            raise _OutOfBudget
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise _OutOfBudget

    # -- leaves ---------------------------------------------------------------

    def _rows(self, n: int) -> np.ndarray:
        """A fresh array for ``n`` afterstates' features (an evaluator may keep what it gets)."""
        return np.empty((n, BOARD_FEATURES), np.float32)

    def _call(self, features: np.ndarray) -> np.ndarray:
        return checked_scores(self.evaluate(features), len(features), "evaluate")

    def leaf_scores(self, stages: List[StageEnds]) -> List[np.ndarray]:
        """White's values of every end of each stage, in one evaluator call."""
        total = sum(len(ends) for ends in stages)
        features = self._rows(total)[:total]
        encode_afterstates(list(stages), features)
        self.count(total)
        values = self.mover_values(features)
        out = []
        at = 0
        for ends in stages:
            n = len(ends)
            part = values[at:at + n]
            out.append(part if ends.seat == 0 else -part)
            at += n
        return out

    def mover_values(self, features: np.ndarray) -> np.ndarray:
        """The movers' values of afterstates: the evaluator's, or the result of a finished game."""
        values = self._call(features) if len(features) else np.zeros(0)
        won = features[:, 192] == 1.0          # the mover has borne off 15 (RULES §7.1)
        if won.any():
            mars = (features[:, 193] == 0.0) if self.mars else np.zeros(len(features), bool)
            values = np.where(won, np.where(mars, 2.0, 1.0), values)
        return values

    def roll_leaf(self, game) -> float:
        """White's value of a roll node one decision deep: all 21 rolls in one batch.

        The first stage after a roll has the same dice whether or not the
        double escalates (RULES §4.1-4.2), so the value depends only on the
        position and the side to roll: that is the cache key.
        """
        position, seat = game.position, game.to_move
        key = ("roll", position, seat)
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                return hit
        self.count()
        boards = np.repeat(np.array(position.points(), dtype=np.int8)[None, :], 21, axis=0)
        off = np.repeat(np.array([[position.borne_off(0), position.borne_off(1)]],
                                 dtype=np.uint8), 21, axis=0)
        batch = stage_ends_batch(boards, off, np.full(21, seat, np.uint8), _ROLL_DICE,
                                 steps=False)
        m = batch.n_ends
        features = encode_boards(batch.end_boards, seat, self._rows(m)[:m],
                                 borne_off=batch.end_borne_off)
        self.count(m)
        values = self.mover_values(features)
        best = np.maximum.reduceat(values, batch.offsets[:-1])
        value = float(best @ _ROLL_WEIGHTS) * (1.0 if seat == 0 else -1.0)
        if self.cache is not None:
            self.cache[key] = value
        return value

    # -- the tree -------------------------------------------------------------

    def value(self, game, depth: int) -> float:
        """White's expected points of ``game`` searched to ``depth`` decisions."""
        if game.is_over():
            return _terminal(game, True)
        key = None
        if self.cache is not None:
            key = (game.state_key(), depth)
            hit = self.cache.get(key)
            if hit is not None:
                return hit
        if game.is_chance():
            v = self.chance(game, depth)
        else:
            v = self.decision(game, depth)[0]
        if key is not None:
            assert self.cache is not None               # a key only with a cache
            self.cache[key] = v
        return v

    def chance(self, game, depth: int) -> float:
        opening = game.is_opening()
        if depth == 1 and not opening:
            return self.roll_leaf(game)
        self.count()
        outcomes = chance_outcomes(game)
        total = 0.0
        for roll, p in outcomes:
            if opening:
                game.roll_opening(*roll)
            else:
                game.roll(*roll)
            try:
                total += p * self.value(game, depth)
            finally:
                game.undo()
        return total

    def decision(self, game, depth: int, order: Optional[List[int]] = None,
                 root: bool = False) -> Tuple[float, List[Tuple[int, float]]]:
        """White's value of a decision, and (at the root) ``(end index, White's value)`` pairs."""
        self.count()
        ends = game.legal_plays()
        mover = ends.seat
        sign = 1.0 if mover == 0 else -1.0
        scores = self.leaf_scores([ends])[0]
        if depth <= 1:
            best = float(scores.max() if mover == 0 else scores.min())
            pairs = [(i, float(v)) for i, v in enumerate(scores)] if root else []
            return best, pairs
        if order is None:       # move ordering: the evaluator's best first (for the mover)
            order = np.argsort(-sign * scores, kind="stable").tolist()
        pairs = []
        raw = ends.raw
        for i in order:
            if raw.ends_game(i):
                pairs.append((i, float(scores[i])))
                continue
            game.play(ends[i])
            try:
                pairs.append((i, self.value(game, depth - 1)))
            finally:
                game.undo()
        best = max(sign * v for _, v in pairs) * sign
        return best, pairs


def _check_budget(budget_nodes, budget_seconds):
    if budget_nodes is not None:
        checked_int(budget_nodes, "budget_nodes", 1)
    if budget_seconds is not None:
        checked_positive(budget_seconds, "budget_seconds", "number of seconds")


def expectimax(game, depth: int, evaluate: Optional[Evaluator] = None, *,
               budget_nodes: Optional[int] = None, budget_seconds: Optional[float] = None,
               cache: Union[bool, Dict] = True) -> SearchResult:
    """Search ``game`` (a :class:`gulbara.Game` or ``Match``) ``depth`` decisions deep.

    ``evaluate`` scores afterstates (see the module docstring; default
    :func:`heuristic_evaluator`). The search deepens one decision at a time
    (1, 2, ..., ``depth``); ``budget_nodes`` and ``budget_seconds`` stop it
    between or inside those iterations (depth 1 always completes), and the
    result is that of the deepest completed one, with ``cut=True``.

    ``cache=True`` keeps a transposition table for this call, keyed on
    ``(game.state_key(), depth)`` (the full state: equal keys, equal
    futures); a ``dict`` is used and filled instead (reuse it across calls
    with the same evaluator only); ``False`` turns it off.

    The game is not changed (the search works on a copy with explicit rolls).
    """
    from gulbara.game.driver import current_game

    game = current_game(game)
    depth = checked_int(depth, "depth", 1)
    if evaluate is None:
        evaluate = heuristic_evaluator
    if not callable(evaluate):
        raise TypeError(f"evaluate must be callable, not {type(evaluate).__name__}")
    _check_budget(budget_nodes, budget_seconds)
    if cache is True:
        table: Optional[dict] = {}
    elif cache is False or cache is None:
        table = None
    elif isinstance(cache, dict):
        table = cache
    else:
        raise TypeError(f"cache must be a bool or a dict, not {type(cache).__name__}")

    searcher = _Searcher(evaluate, budget_nodes, budget_seconds, table, game.rules.mars)
    if game.is_over():
        return SearchResult(None, 0.0, None, depth, 0, False)
    root = game.copy(auto_roll=False)
    seat = 0 if root.is_opening() else root.to_move
    sign = 1.0 if seat == 0 else -1.0
    done: Optional[SearchResult] = None
    order: Optional[List[int]] = None
    for d in range(1, depth + 1):
        searcher.enforce = d > 1
        try:
            if root.is_chance():
                value = searcher.value(root, d) * sign
                done = SearchResult(None, value, seat, d, searcher.nodes, False)
                continue
            _, pairs = searcher.decision(root, d, order, root=True)
        except _OutOfBudget:
            assert done is not None                     # depth 1 runs without a budget
            return SearchResult(done.play, done.value, seat, done.depth, searcher.nodes, True,
                                done.scores)
        ends = root.legal_plays()
        ranked = sorted(pairs, key=lambda pair: (-sign * pair[1], pair[0]))
        order = [i for i, _ in ranked]
        scores = tuple((ends[i], sign * v) for i, v in ranked)
        done = SearchResult(scores[0][0], scores[0][1], seat, d, searcher.nodes, False, scores)
    assert done is not None                             # depth >= 1
    return SearchResult(done.play, done.value, seat, done.depth, searcher.nodes, False,
                        done.scores)
