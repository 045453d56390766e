# cython: language_level=3
"""The greedy heuristic's native entry points for Python: the greedy end of a stage (the
choice :class:`gulbara.bots.GreedyBot` plays) and the score of one position, the twin of
:func:`gulbara.eval.greedy.greedy_score` (the scoring itself is in ``_greedy.pxd``)."""

from gulbara.core._movegen cimport Position, Ends

from gulbara.core import _movegen


def greedy_end(Ends ends):
    """The index of the greedy policy's end of a stage (the core's ``stage_ends``
    result): the highest :func:`gulbara.bots.simple.greedy_score`, the first on a tie.
    :class:`gulbara.bots.simple.GreedyBot` plays it."""
    if ends is None:
        raise TypeError("greedy_end takes the core's stage ends, not None")
    return greedy_choose(&ends.base, ends.seat, ends.ends, ends.n)


def py_greedy_score(code, seat, ends_game):
    """greedy_score of a position code for ``seat`` (tests against the Python twin)."""
    cdef Position position = _movegen.Position.from_code(code)
    return greedy_score(&position.pos, seat, ends_game)
