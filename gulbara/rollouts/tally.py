"""A rollout's sufficient statistics, exact to merge: counts and sums of every quantity per game.

Each game of a rollout gives, for the side rolled out, a few numbers (its points, the luck of
its dice, whether it won, with a mars...). A :class:`Tally` keeps, for each quantity, the
number of games, the sum and the sum of squares; a :class:`PairTally` keeps the same of the
difference between two candidates over the games both played. Every value is first rounded to
a multiple of :data:`QUANTUM` (``2**-40``, far below any interval a rollout reports) and the
sums are kept as Python integers in that unit, so adding two tallies is exact and does not
depend on the order: the tallies of two disjoint runs merged equal the tally of the union, bit
for bit, whatever the split (``tests/test_rollouts_native.py``).

>>> t = Tally.of({"points": [1.0, -1.0, 2.0]})
>>> t.games, t.mean("points")
(3, 0.6666666666666666)
>>> (Tally.of({"points": [1.0]}) + Tally.of({"points": [-1.0, 2.0]})) == t
True
"""

import math
from dataclasses import dataclass, field
from typing import Dict, Iterable, Mapping, Tuple

import numpy as np

from gulbara.conventions import Z95
from gulbara.errors import GulBaraError

__all__ = ["QUANTUM_BITS", "QUANTUM", "Tally", "PairTally", "Interval"]

#: Values are summed in units of ``2**-QUANTUM_BITS``.
QUANTUM_BITS = 40
QUANTUM = 2.0 ** -QUANTUM_BITS
_SCALE = float(1 << QUANTUM_BITS)
# int64 partial sums: |value| and value**2 below 2**20 give units below 2**60, 4 of them at
# most per partial sum
_CHUNK = 4
_LIMIT = 2.0 ** 20


def _exact_sum(units: np.ndarray) -> int:
    """The exact sum of int64 ``units`` (a Python int: no overflow)."""
    if units.size == 0:
        return 0
    total = 0
    for start in range(0, units.size, 1 << 12):
        block = units[start:start + (1 << 12)]
        # pairwise in int64 while it cannot overflow (|unit| < 2**60), then as Python ints
        total += sum(int(x) for x in block[:block.size - block.size % _CHUNK]
                     .reshape(-1, _CHUNK).sum(axis=1))
        total += sum(int(x) for x in block[block.size - block.size % _CHUNK:])
    return total


def _units(values) -> np.ndarray:
    values = np.asarray(values, dtype=np.float64).ravel()
    if values.size and not (np.all(np.isfinite(values)) and np.abs(values).max() < _LIMIT):
        raise GulBaraError("a rollout's per-game values must be finite and below 2**20")
    return np.rint(values * _SCALE).astype(np.int64)


@dataclass(frozen=True)
class Interval:
    """A mean with its standard error and 95% interval."""

    value: float
    se: float

    @property
    def low(self) -> float:
        return self.value - Z95 * self.se

    @property
    def high(self) -> float:
        return self.value + Z95 * self.se


def _interval(games: int, total: int, squares: int) -> Interval:
    if games == 0:
        return Interval(math.nan, math.inf)
    mean = total / (games * _SCALE)
    if games < 2:
        return Interval(mean, math.inf)
    # exact: n * sum(x^2) - sum(x)^2 in units squared (squares are in units, once scaled)
    numerator = games * squares * (1 << QUANTUM_BITS) - total * total
    variance = max(numerator, 0) / (games * (games - 1) * _SCALE * _SCALE)
    return Interval(mean, math.sqrt(variance / games))


@dataclass
class Tally:
    """Games, sums and sums of squares of named per-game quantities (module docstring)."""

    games: int = 0
    sums: Dict[str, int] = field(default_factory=dict)
    squares: Dict[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, columns: Mapping[str, Iterable[float]]) -> "Tally":
        """The tally of per-game values, one sequence a quantity (all of one length)."""
        tally = cls()
        n = None
        for name, values in columns.items():
            arr = np.asarray(values, dtype=np.float64).ravel()
            if n is not None and arr.size != n:
                raise GulBaraError("every quantity needs one value a game")
            n = arr.size
            tally.sums[name] = _exact_sum(_units(arr))
            tally.squares[name] = _exact_sum(_units(arr * arr))
        tally.games = n or 0
        return tally

    def __add__(self, other: "Tally") -> "Tally":
        if not isinstance(other, Tally):
            return NotImplemented
        if self.games and other.games and set(self.sums) != set(other.sums):
            raise GulBaraError("tallies of different quantities do not add")
        names = set(self.sums) | set(other.sums)
        return Tally(self.games + other.games,
                     {k: self.sums.get(k, 0) + other.sums.get(k, 0) for k in sorted(names)},
                     {k: self.squares.get(k, 0) + other.squares.get(k, 0) for k in sorted(names)})

    def mean(self, name: str) -> float:
        return self.interval(name).value

    def interval(self, name: str) -> Interval:
        """``name``'s mean over the games, its standard error and 95% interval."""
        return _interval(self.games, self.sums.get(name, 0), self.squares.get(name, 0))

    def to_json(self) -> dict:
        return {"games": self.games, "sums": dict(self.sums), "squares": dict(self.squares)}

    @classmethod
    def from_json(cls, data: dict) -> "Tally":
        try:
            return cls(int(data["games"]), {str(k): int(v) for k, v in data["sums"].items()},
                       {str(k): int(v) for k, v in data["squares"].items()})
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise GulBaraError(f"not a rollout tally: {exc}") from None


@dataclass
class PairTally:
    """The difference of one quantity between two candidates, over the games both played."""

    games: int = 0
    total: int = 0
    squares: int = 0

    @classmethod
    def of(cls, first: Iterable[float], second: Iterable[float]) -> "PairTally":
        d = np.asarray(first, dtype=np.float64).ravel() - np.asarray(second, dtype=np.float64).ravel()
        return cls(d.size, _exact_sum(_units(d)), _exact_sum(_units(d * d)))

    def __add__(self, other: "PairTally") -> "PairTally":
        if not isinstance(other, PairTally):
            return NotImplemented
        return PairTally(self.games + other.games, self.total + other.total,
                         self.squares + other.squares)

    def interval(self) -> Interval:
        return _interval(self.games, self.total, self.squares)

    def to_json(self) -> list:
        return [self.games, self.total, self.squares]

    @classmethod
    def from_json(cls, data) -> "PairTally":
        try:
            games, total, squares = data
            return cls(int(games), int(total), int(squares))
        except (TypeError, ValueError) as exc:
            raise GulBaraError(f"not a rollout pair tally: {exc}") from None


Pair = Tuple[int, int]
