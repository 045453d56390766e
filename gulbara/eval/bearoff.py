"""The one-sided bear-off database: races where both sides are bearing off, valued exactly.

When every checker of both sides is in its own home board (or borne off),
the sides can no longer touch: every die can be played (RULES §2.3), a
double's chain always runs to its 6's (RULES §4.2, §4.4) and nothing passes
to the opponent (RULES §5). Each side's future is then its own, and one table
of one-sided positions values every such race (the technique of gnubg's
one-sided bear-off databases).

:func:`bearoff_table` builds it natively on first use (about 0.15 s,
about 30 MB: :data:`TABLE_BYTES`) and keeps it: for each of the 54,264 ways
to have at most 15 checkers on one's points 1..6, the distribution of the
number of rolls to bear them all off and, with all 15 on the board, to bear
off the first one, each under the play that minimises its expectation, with
doubles escalating (every side is past its exempt rolls in a bear-off).
:func:`race_equity` values a race for the side about to roll from the two
sides' distributions: its probability of winning, of winning with a mars and
of losing with one (RULES §7.1). The ``net`` bots play such races by it.

>>> table = bearoff_table()
>>> len(table), round(table.mean_rolls([0, 0, 0, 0, 0, 15]), 3)
(54264, 7.714)
>>> table.mean_rolls([2, 0, 0, 0, 0, 0])     # two on point 1: any roll bears them off
1.0
>>> import gulbara
>>> two = gulbara.Position.from_points([2] + [0] * 11 + [-2] + [0] * 11, 13, 13)
>>> round(race_equity(two, 0), 12)  # White rolls first and bears both off
1.0
>>> three = gulbara.Position.from_points([3] + [0] * 11 + [-3] + [0] * 11, 12, 12)
>>> round(race_equity(three, 0), 4)  # White loses only to a non-double, then Black's double
0.7222
"""

import operator
from functools import lru_cache
from typing import Optional, Sequence, Tuple

import numpy as np

from gulbara.eval import _bearoff
from gulbara.core._backend import as_position
from gulbara.eval.greedy import own_counts
from gulbara.errors import GulBaraError, checked_seat

__all__ = ["BearoffTable", "bearoff_table", "home_counts", "is_bearoff", "is_race", "race_equity",
           "bearoff_applies", "bearoff_values", "bearoff_turn_value", "bearoff_outcome_values",
           "N_BEAROFF", "MAX_ROLLS", "TABLE_BYTES"]

#: One side's bear-off positions: at most 15 checkers on 6 points, C(21, 6).
N_BEAROFF = 54_264
#: The length of each distribution: the most rolls any bear-off needs is 30.
MAX_ROLLS = 32
#: The table's memory: counts (int32), two means and two distributions (float64).
TABLE_BYTES = N_BEAROFF * (6 * 4 + 2 * 8 + 2 * MAX_ROLLS * 8)


class BearoffTable:
    """The database (module docstring). Positions are given as six counts, a side's own
    points 1..6 (the rest borne off), or as ranks (:meth:`rank`).

    Arrays, one row a rank: ``counts`` (``N x 6``, own points 1..6), ``mean``
    and ``dist`` (``N x MAX_ROLLS``: P(k rolls)) to bear off all, ``first_mean``
    and ``first_dist`` to bear off the first checker (0 rolls when one is off).
    """

    def __init__(self) -> None:
        (self.counts, self.mean, self.dist, self.first_mean,
         self.first_dist) = _bearoff.build(MAX_ROLLS)
        for array in (self.counts, self.mean, self.dist, self.first_mean, self.first_dist):
            array.flags.writeable = False

    def __len__(self) -> int:
        return N_BEAROFF

    @staticmethod
    def rank(counts: Sequence[int]) -> int:
        """The rank of six counts (own points 1..6, at most 15 in all)."""
        if isinstance(counts, (str, bytes)) or not hasattr(counts, "__len__"):
            raise TypeError(f"counts must be a sequence of 6 ints, got {type(counts).__name__}")
        try:
            counts = [operator.index(c) for c in counts]
        except TypeError:
            raise TypeError(f"counts must be ints, got {list(counts)!r}") from None
        return int(_ranks(np.array([counts], dtype=np.int64).reshape(1, -1))[0])

    def mean_rolls(self, counts: Sequence[int]) -> float:
        """The expected number of rolls to bear off every checker of ``counts``."""
        return float(self.mean[self.rank(counts)])

    def rolls(self, counts: Sequence[int]) -> np.ndarray:
        """P(bearing off every checker takes exactly k rolls), k = 0..MAX_ROLLS-1."""
        return self.dist[self.rank(counts)]

    def first_off_rolls(self, counts: Sequence[int]) -> np.ndarray:
        """P(bearing off the first checker takes exactly k rolls) (0 rolls if one is off)."""
        return self.first_dist[self.rank(counts)]

    def chances(self, roller: int, others: np.ndarray) -> np.ndarray:
        """For the side about to roll at rank ``roller`` against each rank of ``others`` (the
        other side): its chances of winning, of winning with a mars and of losing with one,
        an ``N x 3`` array (the network's three outputs, exactly).

        The roller wins when it needs no more rolls than the other side (it rolls
        first); it wins a mars when it is done before the other side has borne off
        a checker, and loses one when the other side is done before it has.
        Ranks out of range raise :class:`GulBaraError`.
        """
        roller = operator.index(roller)
        others = np.asarray(others)
        if others.dtype.kind not in "iu":
            raise TypeError(f"others must be integer ranks, got dtype {others.dtype}")
        if not 0 <= roller < N_BEAROFF or (others.size and not
                                           (0 <= others.min() and others.max() < N_BEAROFF)):
            raise GulBaraError(f"ranks must be 0..{N_BEAROFF - 1}")
        return _bearoff.chances(self.dist, self.first_dist, roller,
                                np.ascontiguousarray(others, dtype=np.int64).reshape(-1))

    def equities(self, roller: int, others: np.ndarray, mars: bool = True) -> np.ndarray:
        """The equity, for the side about to roll at rank ``roller``, against each rank of
        ``others`` (the other side): ``2 P(win) - 1 + P(win mars) - P(lose mars)``, the
        chances of :meth:`chances`."""
        chances = self.chances(roller, others)
        value = 2.0 * chances[:, 0] - 1.0
        if mars:
            value += chances[:, 1]
            value -= chances[:, 2]
        return value

    def __repr__(self) -> str:
        return f"BearoffTable({N_BEAROFF} positions)"


def _ranks(counts: np.ndarray) -> np.ndarray:
    """The ranks of rows of six counts (int64); GulBaraError for a bad row."""
    if counts.ndim != 2 or counts.shape[1] != 6:
        raise GulBaraError(f"a bear-off position has 6 counts, got shape {counts.shape}")
    if counts.size and (counts.min() < 0 or counts.max() > 15):
        raise GulBaraError(f"counts must be >= 0 and at most 15 in all, got {counts.tolist()}")
    try:
        return _bearoff.ranks(np.ascontiguousarray(counts, dtype=np.int32))
    except ValueError as error:
        raise GulBaraError(str(error)) from None


@lru_cache(maxsize=1)
def bearoff_table() -> BearoffTable:
    """The database, built on first use and kept."""
    return BearoffTable()


def home_counts(position, seat: int) -> Optional[Tuple[int, ...]]:
    """``seat``'s counts on its own points 1..6 when all its checkers are home (or off), else
    None. ``position`` is a ``Position`` or a position code."""
    counts = own_counts(as_position(position), checked_seat(seat))
    if any(counts[7:]):
        return None
    return counts[1:7]


def is_bearoff(position) -> bool:
    """Whether both sides have every checker home or borne off (the database applies)."""
    return home_counts(position, 0) is not None and home_counts(position, 1) is not None


def is_race(position) -> bool:
    """Whether no checker can block the other side's any more: each side's checkers all on its
    own points 1..12 or off. Both sides move the same way round from opposite corners (RULES
    §1.2-1.3), so those halves are disjoint, and a checker further back has the other side's
    path ahead of it. A bear-off (:func:`is_bearoff`) is a race.

    >>> import gulbara
    >>> is_race(gulbara.START_CODE)
    False
    >>> white = [2] * 6 + [1] * 3 + [0] * 3               # on its points 1..9
    >>> black = [-2] * 6 + [-1] * 3 + [0] * 3             # on White's 13..21: Black's 1..9
    >>> is_race(gulbara.Position.from_points(white + black, 0, 0))
    True
    """
    position = as_position(position)
    return not any(own_counts(position, 0)[13:]) and not any(own_counts(position, 1)[13:])


def race_equity(position, seat: int, mars: bool = True) -> float:
    """The equity of a bear-off ``position`` for ``seat`` about to roll (both sides past their
    exempt rolls; ``mars`` as RULES §8's option). Raises :class:`GulBaraError` when a
    checker of either side is outside its home board, or the game is over."""
    seat = checked_seat(seat)
    position = as_position(position)
    mine, theirs = home_counts(position, seat), home_counts(position, 1 - seat)
    if mine is None or theirs is None:
        raise GulBaraError("race_equity needs every checker of both sides home or borne off")
    if not any(mine) or not any(theirs):
        raise GulBaraError("race_equity needs a game not over: a side has borne off all 15")
    table = bearoff_table()
    return float(table.equities(table.rank(mine), _ranks(np.array([theirs])), mars)[0])


# -- the net bots' use (gulbara.bots.netbot) ---------------------------------------

def bearoff_applies(game) -> bool:
    """Whether ``game``'s decision is valued by the database: both sides bearing off
    (:func:`is_bearoff`), every later double of either side escalating (RULES §4.2,
    as the table assumes), and the stage not a remainder's (the mover's own roll or
    chain: after it the opponent rolls)."""
    d = game.decision
    if d is None or d.is_remainder:
        return False
    if not (game.next_roll_escalates(0) and game.next_roll_escalates(1)):
        return False
    return is_bearoff(game.position)


def _turn_values(mine: np.ndarray, theirs: Sequence[int], mars: bool) -> np.ndarray:
    """The mover's value of each end of its turn in a bear-off, given as rows of its six
    counts (``mine``) against the opponent's (``theirs``), the opponent to roll next:
    its points when it has borne off all 15 (2 with a mars, RULES §7.1), else minus the
    opponent's race equity."""
    table = bearoff_table()
    opponent = int(_ranks(np.array([theirs]))[0])
    values = np.full(len(mine), 2.0 if mars and sum(theirs) == 15 else 1.0)
    live = np.flatnonzero(mine.any(axis=1))
    if len(live):
        values[live] = -table.equities(opponent, _ranks(mine[live]), mars)
    return values


def _home_rows(positions, seat: int) -> np.ndarray:
    rows = [home_counts(position, seat) for position in positions]
    if any(row is None for row in rows):
        raise GulBaraError("a bear-off needs every checker of both sides home or borne off")
    return np.array(rows, dtype=np.int64).reshape(len(rows), 6)


def bearoff_values(game) -> np.ndarray:
    """The value of each legal play of a plain stage for the mover, by the database
    (:func:`bearoff_applies`): its points when it ends the game, else minus the
    opponent's :func:`race_equity` with the opponent to roll."""
    if not bearoff_applies(game):
        raise GulBaraError("bearoff_values needs a decision the database applies to "
                           "(bearoff_applies)")
    mover = game.decision.seat
    positions = [as_position(play.code) for play in game.legal_plays()]
    theirs = home_counts(game.position, 1 - mover)
    assert theirs is not None                           # bearoff_applies: all home
    return _turn_values(_home_rows(positions, mover), theirs, game.rules.mars)


def bearoff_turn_value(position, mover: int, rules) -> float:
    """The mover's value of ``position`` at the end of its turn in a bear-off: its points
    when it has borne off all 15, else minus the opponent's :func:`race_equity`."""
    position = as_position(position)
    mover = checked_seat(mover)
    theirs = _home_rows([position], 1 - mover)[0]
    return float(_turn_values(_home_rows([position], mover), theirs, rules.mars)[0])


def bearoff_outcome_values(outcomes, mars: bool = True) -> np.ndarray:
    """The value, for the side that played, of each whole-chain outcome of a bear-off
    (a :class:`gulbara.ChainEnds`): a bear-off chain never stops short (module
    docstring), so each outcome ends the game or gives the opponent the roll."""
    # any object with a ChainEnds' arrays (the evaluators sit below the chains' layer)
    if not all(hasattr(outcomes, name) for name in ("seat", "boards", "borne_off", "remainder")):
        raise TypeError(f"outcomes must be a ChainEnds, got {type(outcomes).__name__}")
    seat = outcomes.seat
    # own points 1..6 in White's columns: White's 0..5, Black's 12..17 (RULES §1.3)
    mine = outcomes.boards[:, 0:6] if seat == 0 else -outcomes.boards[:, 12:18]
    theirs = -outcomes.boards[0, 12:18] if seat == 0 else outcomes.boards[0, 0:6]
    off = outcomes.borne_off
    if ((mine < 0).any() or (theirs < 0).any()
            or (mine.sum(axis=1) + off[:, seat] != 15).any()
            or theirs.sum() + off[0, 1 - seat] != 15):
        raise GulBaraError("bearoff_outcome_values needs a bear-off: every checker home or off")
    if outcomes.remainder.any():
        raise GulBaraError("bearoff_outcome_values: a bear-off chain passed a remainder")
    return _turn_values(mine.astype(np.int64), theirs.tolist(), mars)
