"""The conventions every layer shares, written once: the rolls, the two seats' numberings, the 95% intervals.

* :data:`ROLLS`, :data:`OPENING_ROLLS`, :data:`DOUBLE_STAGES` and
  :data:`ROLL_PROBABILITIES`: the chance node's outcomes (RULES §10.2, §10.5)
  and their weights for expectations; :data:`DICE_36` the 36 ordered pairs.
* :func:`white_point` and :func:`other_point`: a seat's own point in White's
  numbering, and in the opponent's (RULES §1.3: the numberings are a half-turn
  apart, own point ``p`` of one side is point ``((p + 11) mod 24) + 1`` of the
  other); :data:`OTHER_POINT` the same as a table.
* :data:`Z95`, :func:`wilson_interval` and :func:`mean_interval`: the two-sided
  95% intervals of a proportion and of a mean that the arena, self-play and
  training report.

>>> len(ROLLS), ROLLS[:3], len(OPENING_ROLLS)
(21, ((6, 6), (6, 5), (6, 4)), 15)
>>> white_point(1, 24), white_point(1, 12), white_point(0, 7)
(12, 24, 7)
>>> round(sum(p for _, p in ROLL_PROBABILITIES), 12)
1.0
"""

import math
from typing import Iterable, Tuple

__all__ = ["ROLLS", "OPENING_ROLLS", "DOUBLE_STAGES", "ROLL_PROBABILITIES", "DICE_36",
           "white_point", "other_point", "OTHER_POINT", "Z95", "wilson_interval",
           "mean_interval"]

#: The 21 distinct rolls (RULES §10.2), larger die first.
ROLLS: Tuple[Tuple[int, int], ...] = tuple(
    (a, b) for a in range(6, 0, -1) for b in range(a, 0, -1))
#: The 15 non-double rolls: the opening chance node under the default opening (RULES §10.5).
OPENING_ROLLS: Tuple[Tuple[int, int], ...] = tuple((a, b) for a, b in ROLLS if a != b)
#: The six doubles as the four-dice stages they are played as (RULES §4.1), 6-6-6-6 first.
DOUBLE_STAGES: Tuple[Tuple[int, ...], ...] = tuple((d,) * 4 for d in range(6, 0, -1))
#: Each distinct roll with its probability: 1/36 for a double, 2/36 for the others.
ROLL_PROBABILITIES: Tuple[Tuple[Tuple[int, int], float], ...] = tuple(
    (roll, (1 if roll[0] == roll[1] else 2) / 36) for roll in ROLLS)
#: The 36 ordered rolls of two dice, ``(first, second)``, each equally likely.
DICE_36: Tuple[Tuple[int, int], ...] = tuple((a, b) for a in range(1, 7) for b in range(1, 7))

#: ``OTHER_POINT[p - 1]``: the opponent's number of own point ``p`` (RULES §1.3).
OTHER_POINT: Tuple[int, ...] = tuple(((p + 11) % 24) + 1 for p in range(1, 25))


def other_point(point: int) -> int:
    """The opponent's number of a side's own point ``point`` 1..24 (RULES §1.3)."""
    return ((point + 11) % 24) + 1


def white_point(seat: int, point: int) -> int:
    """``seat``'s own point ``point`` in White's numbering (RULES §1.3)."""
    return point if seat == 0 else other_point(point)


#: The normal quantile of a two-sided 95% interval.
Z95 = 1.959963984540054


def wilson_interval(successes: float, n: int, z: float = Z95) -> Tuple[float, float]:
    """The Wilson score interval of a proportion ``successes / n`` (``(0, 1)`` for ``n = 0``).

    >>> [round(v, 4) for v in wilson_interval(60, 100)]
    [0.502, 0.6906]
    >>> wilson_interval(0, 0)
    (0.0, 1.0)
    """
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return (max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half)))


def mean_interval(values: Iterable[float], z: float = Z95,
                  bounds: Tuple[float, float] = (-2.0, 2.0)) -> Tuple[float, float, float]:
    """``(mean, low, high)``: the normal-approximation interval of a mean, clipped to ``bounds``.

    With fewer than two values the interval is the whole of ``bounds``.

    >>> [round(v, 3) for v in mean_interval([1, -1, 2, 1])]
    [0.75, -0.483, 1.983]
    """
    values = list(values)
    n = len(values)
    if n == 0:
        return (0.0, bounds[0], bounds[1])
    mean = sum(values) / n
    if n < 2:
        return (mean, bounds[0], bounds[1])
    variance = sum((v - mean) ** 2 for v in values) / (n - 1)
    half = z * math.sqrt(variance / n)
    return (mean, max(bounds[0], mean - half), min(bounds[1], mean + half))
