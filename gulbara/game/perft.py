"""perft over game states (RULES §10): the native core, and the Python version it is checked against.

The functions are ``gulbara.perft`` and ``gulbara.divide``; this module is
``gulbara.game.perft`` so that no module hides behind a function of its name.

perft counts the leaves of the game tree to a depth counted in decisions:

* perft(state, 0) = 1, and a finished game is a leaf: 1 at every depth (RULES §10.1, §10.4);
* at a chance node, the sum over the 21 distinct rolls, unweighted, at the same
  depth (RULES §10.2); from the start of a game the opening chance node has
  White as the starter, with the 15 non-double rolls under the default opening
  and all 21 under ``starter_rerolls`` (RULES §10.5);
* at a decision node, the sum over the stage's distinct ends of perft(next, depth - 1)
  (RULES §10.3): the stages of a chain and of a remainder are consecutive
  decision nodes, and a stage with only the empty play is a decision too.

>>> perft(Game.new_perft_root(), 1)
30
>>> divide(Game.new_perft_root(), 1)[:2]
[('6-5 24/18 24/19', 1), ('6-5 24/13', 1)]

:func:`perft` and :func:`divide` run the native core (``gulbara.game._perft``: a C
struct of the full game state, the GIL released, the last level counted
without building the ends) whenever the compiled core is the backend.
:func:`perft_python` and :func:`divide_python` are the slow, readable version
(they play and undo every node through :class:`Game`); with
``GULBARA_BACKEND=reference`` the whole package, perft included, runs on
them and the naive reference generator. The value depends only on the rules
and the full state (RULES §10.6), so each checks the other.
"""

from typing import Callable, Dict, List, Optional, Sequence, Tuple

from gulbara.core._backend import BACKEND_NAME
from gulbara.errors import GulBaraError, checked_int
from gulbara.game.driver import Game
from gulbara.core.play import format_steps

__all__ = ["perft", "divide", "perft_python", "divide_python", "NATIVE", "ENGINES"]

if BACKEND_NAME == "core":
    try:
        from gulbara.game import _perft as _native
    except ImportError:            # an old build without the extension: the Python perft
        _native = None  # type: ignore[assignment]  # (no compiled module)
else:
    _native = None  # type: ignore[assignment]  # (no compiled module)

#: Whether :func:`perft` and :func:`divide` run the native core by default.
NATIVE: bool = _native is not None
#: The engines :func:`perft` accepts: ``"native"`` (needs the compiled core) and ``"python"``.
ENGINES = ("native", "python")


def _engine(engine: Optional[str]) -> str:
    if engine is None:
        return "native" if NATIVE else "python"
    if engine not in ENGINES:
        raise GulBaraError(f"perft engine must be 'native' or 'python', got {engine!r}")
    if engine == "native" and not NATIVE:
        raise GulBaraError(f"the native perft needs the compiled core (backend {BACKEND_NAME!r})")
    return engine


def _check_game(game) -> None:
    if not isinstance(game, Game):
        raise TypeError(f"perft counts from a gulbara.Game, not {type(game).__name__}")


#: The deepest perft either engine counts (far beyond what finishes: depth 5 from the start
#: is 10**10 leaves).
MAX_DEPTH = 64


def _check_depth(depth, minimum: int, what: str) -> int:
    """``depth`` as an int ``minimum..MAX_DEPTH`` (any integer type, not a bool)."""
    return checked_int(depth, f"{what} depth", minimum, MAX_DEPTH)


def perft(game: Game, depth: int, cache: Optional[Dict] = None, *,
          engine: Optional[str] = None) -> int:
    """The number of leaves of the game tree below ``game`` at ``depth`` decisions (RULES §10).

    ``game`` is not changed. ``engine`` is ``"native"`` (the default with the
    compiled core) or ``"python"`` (:func:`perft_python`); ``cache`` is the
    Python engine's transposition table and is not used by the native one.
    """
    _check_game(game)
    depth = _check_depth(depth, 0, "perft")
    if _engine(engine) == "native":
        return _native.perft_game(game, depth)
    return perft_python(game, depth, cache)


def divide(game: Game, depth: int, cache: Optional[Dict] = None, *,
           engine: Optional[str] = None) -> List[Tuple[str, int]]:
    """perft split by the first choice: ``[(label, perft), ...]`` in canonical order.

    At a chance node the first choices are the rolls and the plays of the
    stage after each roll (labelled ``'6-5 24/13'``); at a decision node, the
    stage's ends (labelled by their notation). The values sum to
    ``perft(game, depth)`` for ``depth >= 1``. ``engine`` and ``cache`` as
    for :func:`perft`; both engines give the same list.
    """
    _check_game(game)
    depth = _check_depth(depth, 1, "divide")
    if _engine(engine) == "python":
        return divide_python(game, depth, cache)
    rows = []
    for roll, steps, count in _native.divide_game(game, depth):
        label = format_steps(steps)
        if roll is not None:
            label = f"{roll[0]}-{roll[1]} {label}"
        rows.append((label, count))
    return rows


def _work_copy(game: Game) -> Game:
    """A copy of ``game`` with explicit rolls, so that chance nodes can be enumerated."""
    return game.copy(auto_roll=False)


def perft_python(game: Game, depth: int, cache: Optional[Dict] = None, *,
                 plays: Optional[Callable[[Game], Sequence]] = None) -> int:
    """:func:`perft` in Python, through :class:`Game` (RULES §10).

    ``game`` is not changed (perft works on a copy with explicit rolls).
    ``cache``, a dict, turns on a transposition table keyed by the full state
    (:meth:`Game.state_key`) and the depth: the same values, fewer stage
    enumerations. ``plays(game)``, if given, stands in for
    ``game.legal_plays()`` at every decision (it returns some of those plays):
    the count of another stage generator on the same game driver, as
    ``gulbara verify`` compares engines.
    """
    depth = _check_depth(depth, 0, "perft")
    return _perft(_work_copy(game), depth, cache, plays)


def _perft(game: Game, depth: int, cache: Optional[Dict], plays=None) -> int:
    if game.is_over() or depth == 0:                  # RULES §10.1, §10.4
        return 1
    if cache is not None:
        key = (game.state_key(), depth)
        hit = cache.get(key)
        if hit is not None:
            return hit
    total = 0
    if game.is_chance():                              # RULES §10.2, §10.5
        for roll in game.chance_rolls():
            game.roll(*roll)
            total += _perft(game, depth, cache, plays)
            game.undo()
    else:                                             # RULES §10.3
        ends = game.legal_plays() if plays is None else plays(game)
        if depth == 1:
            total = len(ends)
        else:
            for play in ends:
                game.play(play)
                total += _perft(game, depth - 1, cache, plays)
                game.undo()
    if cache is not None:
        cache[key] = total
    return total


def divide_python(game: Game, depth: int, cache: Optional[Dict] = None) -> List[Tuple[str, int]]:
    """:func:`divide` in Python, through :class:`Game`."""
    depth = _check_depth(depth, 1, "divide")
    work = _work_copy(game)
    rows: List[Tuple[str, int]] = []
    if work.is_over():
        return rows
    if work.is_chance():
        for roll in work.chance_rolls():
            work.roll(*roll)
            if work.is_chance() or work.is_over():   # cannot happen with a fresh roll
                rows.append((f"{roll[0]}-{roll[1]}", _perft(work, depth, cache)))
            else:
                for label, count in _divide_stage(work, depth, cache):
                    rows.append((f"{roll[0]}-{roll[1]} {label}", count))
            work.undo()
        return rows
    return _divide_stage(work, depth, cache)


def _divide_stage(game: Game, depth: int, cache) -> List[Tuple[str, int]]:
    rows = []
    for play in game.legal_plays():
        game.play(play)
        rows.append((str(play), _perft(game, depth - 1, cache)))
        game.undo()
    return rows
