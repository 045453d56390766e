"""``gulbara perft DEPTH [--state CODE] [--rules OPTIONS] [--divide] [--json] [--engine E]``:
perft over game states (RULES §10, :mod:`gulbara.game.perft`), with the nodes per second."""

import json
import sys
from typing import Dict, Optional

from gulbara.core._backend import BACKEND_NAME
from gulbara.cli._args import add_rules_argument, add_state_arguments, state_from_args
from gulbara.errors import GulBaraError
from gulbara.game.driver import Game
from gulbara.game.perft import ENGINES, MAX_DEPTH, NATIVE, divide, perft
from gulbara.rules import Rules
from gulbara.tools.timing import rate_text, time_call

__all__ = ["add_arguments", "run"]


def add_arguments(parser) -> None:
    """The options of ``gulbara perft``."""
    parser.add_argument("depth", type=int, help="depth in decisions (RULES §10)")
    add_state_arguments(parser, "the start of a game, White starting (RULES §10.5)")
    add_rules_argument(parser)
    parser.add_argument("--divide", action="store_true", help="split by the first choice")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object: depth, nodes, seconds, nodes_per_second "
                             "(and the divide rows with --divide)")
    parser.add_argument("--engine", choices=ENGINES, default=None,
                        help="native (the default with the compiled core) or python")


def run(args, stdin=None, stdout=None) -> int:
    """Prints the divide rows (with ``--divide``), then ``perft(D) = N`` with the
    time and the nodes (leaves) per second; or, with ``--json``, one JSON
    object with ``depth``, ``nodes``, ``seconds``, ``nodes_per_second``,
    ``engine``, ``rules`` and ``state`` (and ``divide``: ``[[label, count], ...]``).
    """
    out = stdout if stdout is not None else sys.stdout
    try:
        rules = Rules.from_text(args.rules, where="--rules")
        state = state_from_args(args, rules)
        game = (Game.from_state_code(state, rules) if state is not None
                else Game.new_perft_root(rules))
        if not 0 <= args.depth <= MAX_DEPTH:
            raise GulBaraError(f"perft depth must be 0..{MAX_DEPTH}, got {args.depth}")
        engine = args.engine or ("native" if NATIVE else "python")
        cache: Optional[Dict] = {} if engine == "python" else None
        if args.divide and args.depth >= 1:
            timing = time_call(lambda: divide(game, args.depth, cache, engine=engine))
            rows = timing.result
            total = sum(count for _, count in rows) if rows else 1
        else:
            timing = time_call(lambda: perft(game, args.depth, cache, engine=engine))
            rows, total = None, timing.result
    except GulBaraError as exc:
        print(f"gulbara perft: {exc}", file=sys.stderr)
        return 2
    seconds = timing.best
    rate = total / seconds if seconds > 0 else 0.0
    if args.json:
        report = {"depth": args.depth, "nodes": total, "seconds": round(seconds, 6),
                  "nodes_per_second": round(rate), "engine": engine,
                  "rules": args.rules, "state": game.state_code()}
        if rows is not None:
            report["divide"] = [[label, count] for label, count in rows]
        print(json.dumps(report), file=out)
        return 0
    for label, count in rows or ():
        print(f"{label}: {count}", file=out)
    what = "native" if engine == "native" else f"python, backend {BACKEND_NAME}"
    print(f"perft({args.depth}) = {total}  ({seconds:.3f} s, {rate_text(rate)} nodes/s, {what})",
          file=out)
    return 0

