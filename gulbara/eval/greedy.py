"""The greedy heuristic: one position's score for the side that moved, its numpy batch
form over a chain's outcomes, and the native greedy end of a stage.

The three are one function in three forms, checked against each other: :func:`greedy_score`
(Python, the definition), :func:`greedy_scores` (numpy, every outcome of a
:class:`gulbara.ChainEnds` at once) and ``_greedy.pxd`` (native, used by self-play, the network
search and :class:`gulbara.bots.GreedyBot` through :func:`greedy_end`).
"""

from typing import Optional, Protocol, Tuple

import numpy as np

from gulbara.conventions import OTHER_POINT, other_point
from gulbara.core._backend import BACKEND_NAME

__all__ = ["GREEDY_WEIGHTS", "GREEDY_WIN", "greedy_score", "greedy_scores", "own_counts",
           "greedy_end"]


def greedy_end(ends) -> Optional[int]:
    """The index of the greedy end of a stage (the core's ``stage_ends`` result, ``ends.raw``)
    computed natively, or ``None`` under ``GULBARA_BACKEND=reference`` (Python only)."""
    if _native is None:
        return None
    return _native.greedy_end(ends)


if BACKEND_NAME == "core":
    from gulbara.eval import _greedy as _native
else:       # GULBARA_BACKEND=reference: the Python heuristic only
    _native = None  # type: ignore[assignment]  # (no compiled module)


def own_counts(position, seat: int) -> Tuple[int, ...]:
    """``seat``'s checker counts on its own points 1..24 (index 0 unused), RULES §1.2-1.3."""
    points = position.points()                       # White's numbering, signed
    if seat == 0:
        return (0,) + tuple(max(n, 0) for n in points)
    # Black's own point p is White's point other_point(p) (RULES §1.3)
    return (0,) + tuple(max(-points[other_point(p) - 1], 0) for p in range(1, 25))


#: The greedy heuristic's weights (:func:`greedy_score`; its numpy batch form is
#: :func:`greedy_scores`, the native one ``_greedy.pxd``).
GREEDY_WEIGHTS = dict(pips=-4, held=3, blocks=4, prime=6, home=2)
#: The greedy score of a play that ends the game.
GREEDY_WIN = 1_000_000


def greedy_score(position, seat: int, ends_game: bool = False) -> int:
    """The greedy heuristic: the score of an end ``position`` for the side ``seat`` that moved.

    A play that ends the game scores 1,000,000. Otherwise, in the mover's own
    numbering (RULES §1.2-1.3)::

        - 4 x pips      the mover's pip count (progress)
        + 3 x held      points the mover holds (a single checker holds a point, RULES §2.2)
        + 4 x blocks    held points in front of the opponent's rearmost checker
        + 6 x prime     the longest run of such points in a row
        + 2 x home      checkers on points 1..6 or borne off

    The native self-play's greedy policy computes the same integer.

    >>> from gulbara import Position, START_CODE
    >>> greedy_score(Position.from_code(START_CODE), 0)
    -1427
    """
    mine = own_counts(position, seat)
    theirs = own_counts(position, 1 - seat)
    if ends_game:
        return GREEDY_WIN
    pips = sum(p * mine[p] for p in range(1, 25))
    held = sum(1 for p in range(1, 25) if mine[p])
    home = position.borne_off(seat) + sum(mine[1:7])
    back = max((p for p in range(1, 25) if theirs[p]), default=0)
    # my point p is the opponent's point other_point(p) (RULES §1.3); "ahead" of its
    # rearmost checker means a lower number than ``back`` in its numbering
    ahead = sorted(other_point(p) for p in range(1, 25) if mine[p])
    ahead = [q for q in ahead if q < back]
    prime = run = 0
    for i, q in enumerate(ahead):
        run = run + 1 if i and q == ahead[i - 1] + 1 else 1
        prime = max(prime, run)
    w = GREEDY_WEIGHTS
    return (w["pips"] * pips + w["held"] * held + w["blocks"] * len(ahead) + w["prime"] * prime
            + w["home"] * home)


# RULES §1.3: own point p of Black is White's point OTHER_POINT[p - 1], and the map
# is its own inverse; as 0-based columns of a White-numbered board.
_OTHER_FRAME = np.array(OTHER_POINT) - 1


class _Outcomes(Protocol):
    """What :func:`greedy_scores` reads of a :class:`gulbara.ChainEnds` (this layer does not
    import the chains)."""

    @property
    def seat(self) -> int: ...
    @property
    def boards(self) -> np.ndarray: ...
    @property
    def borne_off(self) -> np.ndarray: ...
    @property
    def ends_game(self) -> np.ndarray: ...


def greedy_scores(chain: _Outcomes) -> np.ndarray:
    """The greedy heuristic (:func:`greedy_score`) of every
    outcome for the side that played, as an ``int64`` array, computed on the
    outcome arrays at once (a game-ending outcome scores 1,000,000).

    >>> from gulbara import START_CODE, chain_ends
    >>> chain = chain_ends(START_CODE, 0, 5)
    >>> scores = greedy_scores(chain)
    >>> int(scores[7]) == greedy_score(chain.position(7), 0)
    True
    """
    w = GREEDY_WEIGHTS
    boards = chain.boards.astype(np.int64)
    seat = chain.seat
    if seat == 0:
        mine, theirs = np.maximum(boards, 0), np.maximum(-boards[:, _OTHER_FRAME], 0)
    else:
        mine, theirs = np.maximum(-boards[:, _OTHER_FRAME], 0), np.maximum(boards, 0)
    points = np.arange(1, 25)
    pips = mine @ points
    held = (mine > 0).sum(axis=1)
    home = chain.borne_off[:, seat].astype(np.int64) + mine[:, :6].sum(axis=1)
    # the opponent's rearmost checker, in its numbering (0: none on the board)
    back = np.where(theirs > 0, points, 0).max(axis=1)
    # my points seen in the opponent's numbering, in front of its rearmost checker
    ahead = (mine[:, _OTHER_FRAME] > 0) & (points[None, :] < back[:, None])
    run = np.zeros(len(boards), dtype=np.int64)
    prime = np.zeros(len(boards), dtype=np.int64)
    for q in range(24):
        run = (run + 1) * ahead[:, q]
        np.maximum(prime, run, out=prime)
    scores = (w["pips"] * pips + w["held"] * held + w["blocks"] * ahead.sum(axis=1)
              + w["prime"] * prime + w["home"] * home)
    return np.where(chain.ends_game, GREEDY_WIN, scores)
