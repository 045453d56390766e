"""perft over game states (RULES §10), in Python on top of :class:`gulbara.Game`.

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

This is the slow, readable version for small depths (it plays and undoes every
node through :class:`Game`); the native perft is separate. The value depends
only on the rules and the full state (RULES §10.6), so the same function run
with ``GULBARA_BACKEND=reference`` checks the core.
"""

from typing import Dict, List, Optional, Tuple

from gulbara.game import Game

__all__ = ["perft", "divide"]


def _work_copy(game: Game) -> Game:
    """A copy of ``game`` with explicit rolls, so that chance nodes can be enumerated."""
    return game.copy(auto_roll=False)


def perft(game: Game, depth: int, cache: Optional[Dict] = None) -> int:
    """The number of leaves of the game tree below ``game`` at ``depth`` decisions (RULES §10).

    ``game`` is not changed (perft works on a copy with explicit rolls).
    ``cache``, a dict, turns on a transposition table keyed by the full state
    (:meth:`Game.state_key`) and the depth: the same values, fewer stage
    enumerations.
    """
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
        raise ValueError(f"perft depth must be an int >= 0, got {depth!r}")
    return _perft(_work_copy(game), depth, cache)


def _perft(game: Game, depth: int, cache: Optional[Dict]) -> int:
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
            total += _perft(game, depth, cache)
            game.undo()
    else:                                             # RULES §10.3
        ends = game.legal_plays()
        if depth == 1:
            total = len(ends)
        else:
            for play in ends:
                game.play(play)
                total += _perft(game, depth - 1, cache)
                game.undo()
    if cache is not None:
        cache[key] = total
    return total


def divide(game: Game, depth: int, cache: Optional[Dict] = None) -> List[Tuple[str, int]]:
    """perft split by the first choice: ``[(label, perft), ...]`` in canonical order.

    At a chance node the first choices are the rolls and the plays of the
    stage after each roll (labelled ``'6-5 24/13'``); at a decision node, the
    stage's ends (labelled by their notation). The values sum to
    ``perft(game, depth)`` for ``depth >= 1``.
    """
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
        raise ValueError(f"divide depth must be an int >= 1, got {depth!r}")
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


def _rules_from_words(text: str):
    """Rules from ``default`` or comma-separated options (``remainder=lost,mars=off``)."""
    from gulbara.record import _rules_from_text
    return _rules_from_text(text.replace(",", " "), "rules")


def add_arguments(parser) -> None:
    """The options of ``gulbara perft``."""
    parser.add_argument("depth", type=int, help="depth in decisions (RULES §10)")
    parser.add_argument("--state", help="a state code (Game.state_code); default: the start")
    parser.add_argument("--rules", default="default",
                        help="'default' or options like remainder=lost,mars=off")
    parser.add_argument("--divide", action="store_true", help="split by the first choice")


def run(args, stdin=None, stdout=None) -> int:
    """``gulbara perft DEPTH [--state CODE] [--rules OPTIONS] [--divide]``."""
    import sys
    import time

    from gulbara._backend import BACKEND_NAME
    from gulbara.errors import GulBaraError

    out = stdout if stdout is not None else sys.stdout
    try:
        rules = _rules_from_words(args.rules)
        game = (Game.from_state_code(args.state, rules) if args.state
                else Game.new_perft_root(rules))
        if args.depth < 0:
            raise ValueError(f"perft depth must be >= 0, got {args.depth}")
    except (GulBaraError, ValueError) as exc:
        print(f"gulbara perft: {exc}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    if args.divide and args.depth >= 1:
        rows = divide(game, args.depth, cache={})
        for label, count in rows:
            print(f"{label}: {count}", file=out)
        total = sum(count for _, count in rows) if rows else 1
    else:
        total = perft(game, args.depth, cache={})
    seconds = time.perf_counter() - start
    print(f"perft({args.depth}) = {total}  ({seconds:.3f} s, backend {BACKEND_NAME})", file=out)
    return 0
