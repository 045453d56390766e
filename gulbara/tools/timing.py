"""Timing one call: repeat it in rounds, keep each round's seconds per call, then the median or the best.

The one timing loop of ``gulbara bench``, ``gulbara perft`` and the scripts of
``benchmarks/`` (report.py, compare_builds.py, chain_profile.py). It needs
nothing beyond the standard library, so ``benchmarks/compare_builds.py`` loads
this file by path into builds of other commits too. Timings are wall-clock
(``time.perf_counter``): on a shared machine they only ever gain noise, so the
best of several rounds is the steadier figure and the median the typical one.

>>> timing = time_call(lambda: sum(range(100)), rounds=3, number=10, expected=4950)
>>> len(timing.seconds), timing.result, timing.best <= timing.median
(3, 4950, True)
>>> time_call(lambda: 1, expected=2)
Traceback (most recent call last):
...
AssertionError: the timed call returned 1, expected 2
>>> ns_per_item(0.5, 1000)
500000.0
"""

import statistics
import time
from typing import Any, Callable, NamedTuple, Tuple

__all__ = ["Timing", "time_call", "calibrate", "ns_per_item", "rate_text"]

_UNSET = object()


class Timing(NamedTuple):
    """The rounds of :func:`time_call`: each round's seconds per call, and the last result."""

    seconds: Tuple[float, ...]
    result: Any

    @property
    def median(self) -> float:
        """The median round, seconds per call."""
        return statistics.median(self.seconds)

    @property
    def best(self) -> float:
        """The fastest round, seconds per call."""
        return min(self.seconds)


def time_call(func: Callable[[], Any], rounds: int = 1, number: int = 1, *,
              expected: Any = _UNSET, what: str = "the timed call") -> Timing:
    """Time ``rounds`` rounds of ``number`` back-to-back calls of ``func()``.

    With ``expected``, every round's last result must equal it (a benchmark
    checks what it times): ``AssertionError`` naming ``what`` otherwise.
    """
    if rounds < 1 or number < 1:
        raise ValueError(f"rounds and number must be >= 1, got {rounds} and {number}")
    seconds = []
    result = None
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(number):
            result = func()
        seconds.append((time.perf_counter() - start) / number)
        if expected is not _UNSET and result != expected:
            raise AssertionError(f"{what} returned {result!r}, expected {expected!r}")
    return Timing(tuple(seconds), result)


def calibrate(func: Callable[[], Any], target: float = 0.05) -> int:
    """How many back-to-back calls of ``func()`` take about ``target`` seconds (a power of 2)."""
    number = 1
    while time_call(func, 1, number).seconds[0] * number < target:
        number *= 2
    return number


def ns_per_item(seconds: float, items: int) -> float:
    """Nanoseconds per item of work."""
    return seconds / items * 1e9


def rate_text(rate: float) -> str:
    """A rate for people: ``'31.2M'``, ``'845.1k'``, ``'12'``.

    >>> rate_text(31_234_000), rate_text(845_100), rate_text(12.4)
    ('31.2M', '845.1k', '12')
    """
    if rate >= 1e6:
        return f"{rate / 1e6:.1f}M"
    if rate >= 1e3:
        return f"{rate / 1e3:.1f}k"
    return f"{rate:.0f}"
