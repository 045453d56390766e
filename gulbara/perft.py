"""perft over game states (RULES §10): the native core, and the Python version it is checked against.

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

:func:`perft` and :func:`divide` run the native core (``gulbara._perft``: a C
struct of the full game state, the GIL released, the last level counted
without building the ends) whenever the compiled core is the backend.
:func:`perft_python` and :func:`divide_python` are the slow, readable version
(they play and undo every node through :class:`Game`); with
``GULBARA_BACKEND=reference`` the whole package, perft included, runs on
them and the naive reference generator. The value depends only on the rules
and the full state (RULES §10.6), so each checks the other.
"""

from typing import Callable, Dict, List, Optional, Sequence, Tuple

from gulbara._backend import BACKEND_NAME
from gulbara.errors import checked_int
from gulbara.game import Game
from gulbara.play import format_steps

__all__ = ["perft", "divide", "perft_python", "divide_python", "NATIVE", "ENGINES", "bench_rows"]

if BACKEND_NAME == "core":
    try:
        from gulbara import _perft as _native
    except ImportError:            # an old build without the extension: the Python perft
        _native = None
else:
    _native = None

#: Whether :func:`perft` and :func:`divide` run the native core by default.
NATIVE: bool = _native is not None
#: The engines :func:`perft` accepts: ``"native"`` (needs the compiled core) and ``"python"``.
ENGINES = ("native", "python")


def _engine(engine: Optional[str]) -> str:
    if engine is None:
        return "native" if NATIVE else "python"
    if engine not in ENGINES:
        raise ValueError(f"perft engine must be 'native' or 'python', got {engine!r}")
    if engine == "native" and not NATIVE:
        raise ValueError(f"the native perft needs the compiled core (backend {BACKEND_NAME!r})")
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


def _rules_from_words(text: str):
    """Rules from the ``--rules`` grammar (:func:`gulbara.cli_args.parse_rules`)."""
    from gulbara.cli_args import parse_rules
    return parse_rules(text)


def add_arguments(parser) -> None:
    """The options of ``gulbara perft``."""
    parser.add_argument("depth", type=int, help="depth in decisions (RULES §10)")
    from gulbara.cli_args import add_rules_argument, add_state_arguments
    add_state_arguments(parser, "the start of a game, White starting (RULES §10.5)")
    add_rules_argument(parser)
    parser.add_argument("--divide", action="store_true", help="split by the first choice")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object: depth, nodes, seconds, nodes_per_second "
                             "(and the divide rows with --divide)")
    parser.add_argument("--engine", choices=ENGINES, default=None,
                        help="native (the default with the compiled core) or python")


def run(args, stdin=None, stdout=None) -> int:
    """``gulbara perft DEPTH [--state CODE] [--rules OPTIONS] [--divide] [--json] [--engine E]``.

    Prints the divide rows (with ``--divide``), then ``perft(D) = N`` with the
    time and the nodes (leaves) per second; or, with ``--json``, one JSON
    object with ``depth``, ``nodes``, ``seconds``, ``nodes_per_second``,
    ``engine``, ``rules`` and ``state`` (and ``divide``: ``[[label, count], ...]``).
    """
    import json
    import sys
    import time

    from gulbara.errors import GulBaraError

    out = stdout if stdout is not None else sys.stdout
    try:
        from gulbara.cli_args import parse_rules, state_from_args
        rules = parse_rules(args.rules)
        state = state_from_args(args, rules)
        game = (Game.from_state_code(state, rules) if state is not None
                else Game.new_perft_root(rules))
        _check_depth(args.depth, 0, "perft")
        engine = _engine(getattr(args, "engine", None))
    except (GulBaraError, ValueError) as exc:
        print(f"gulbara perft: {exc}", file=sys.stderr)
        return 2
    cache = {} if engine == "python" else None
    rows = None
    start = time.perf_counter()
    if args.divide and args.depth >= 1:
        rows = divide(game, args.depth, cache, engine=engine)
        total = sum(count for _, count in rows) if rows else 1
    else:
        total = perft(game, args.depth, cache, engine=engine)
    seconds = time.perf_counter() - start
    rate = total / seconds if seconds > 0 else 0.0
    if getattr(args, "json", False):
        report = {"depth": args.depth, "nodes": total, "seconds": round(seconds, 6),
                  "nodes_per_second": round(rate), "engine": engine,
                  "rules": args.rules, "state": game.state_code()}
        if rows is not None:
            report["divide"] = [[label, count] for label, count in rows]
        print(json.dumps(report), file=out)
        return 0
    for label, count in rows or ():
        print(f"{label}: {count}", file=out)
    if engine == "native":
        what = "native"
    else:
        what = f"python, backend {BACKEND_NAME}"
    print(f"perft({args.depth}) = {total}  ({seconds:.3f} s, {_rate_text(rate)} nodes/s, {what})",
          file=out)
    return 0


def _rate_text(rate: float) -> str:
    """``'31.2M'``, ``'845.1k'``, ``'12'``."""
    if rate >= 1e6:
        return f"{rate / 1e6:.1f}M"
    if rate >= 1e3:
        return f"{rate / 1e3:.1f}k"
    return f"{rate:.0f}"


#: Named states for :func:`bench_rows` (values from tests/data/start.perft and states.perft).
_BENCH = (
    ("start", "G:,,,,,,,,,,,-15,,,,,,,,,,,,15|0,0|0,0 next=opening rolls=0,0 stuck=0",
     ((3, 262_810), (4, 43_508_585))),
    ("mid-game", "G:1,,,,2,-4,,,,,1,-8,,1,,1,-1,2,2,,-1,-1,,5|0,0|0,0 next=roll:W rolls=8,8 "
                 "stuck=0", ((3, 53_173_422),)),
)


def bench_rows(rounds: int = 5) -> List[Dict]:
    """The perft rows of ``gulbara bench``: million leaves per second of the native perft
    (median of ``rounds``), each count checked first; the reference column is the Python
    perft through :class:`Game` on the same work, where it takes well under a second."""
    import statistics
    import time

    def rate(func, nodes: int, n_rounds: int) -> float:
        times = []
        for _ in range(n_rounds):
            start = time.perf_counter()
            if func() != nodes:
                raise AssertionError("perft: the count differs from the table's")
            times.append(time.perf_counter() - start)
        return nodes / statistics.median(times) / 1e6

    if not NATIVE:
        return []
    rows = []
    for name, code, lines in _BENCH:
        game = Game.from_state_code(code)
        for depth, nodes in lines:
            core = rate(lambda: perft(game, depth), nodes, rounds)
            python = None
            if name == "start" and depth == 3:
                python = rate(lambda: perft_python(game, depth), nodes, max(1, rounds // 2))
            rows.append(dict(measure=f"perft, {name} depth {depth}, M leaves/s", core=core,
                             reference=python, ratio=None if python is None else core / python,
                             work=f"{nodes:,} leaves" + ("; reference column: the Python "
                                                          "perft through Game" if python else "")))
    return rows
