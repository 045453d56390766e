"""``gulbara bench [--rounds R] [--json] [--chain-limit N]``: the headline measurements
(:func:`gulbara.tools.bench.run_benchmarks`); ``gulbara bench --engine CMD``: another engine's
speed next to gulbara's (:func:`gulbara.cli.verify.run_bench_engine`)."""

import json
import sys
from typing import TextIO

from gulbara.cli._args import add_timeout_argument

__all__ = ["add_arguments", "run"]


def add_arguments(parser) -> None:
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds per figure (default 5)")
    parser.add_argument("--json", action="store_true", help="print the table as one JSON object")
    parser.add_argument("--chain-limit", type=int, default=200_000, metavar="N",
                        help="time the real-game chains of at most N outcomes (default 200,000; "
                             "0: all of them, several minutes)")
    parser.add_argument("--engine", metavar="CMD",
                        help="instead: time this engine (it speaks the gulbara ends protocol) "
                             "next to gulbara's own gulbara ends, both over a pipe")
    add_timeout_argument(parser, "with --engine: ")


def run(args, stdin=None, stdout: TextIO = sys.stdout) -> int:
    if args.rounds < 1:
        print(f"gulbara bench: --rounds must be >= 1, got {args.rounds}", file=sys.stderr)
        return 2
    if args.chain_limit < 0:                    # checked before any work (it once died midway)
        print(f"gulbara bench: --chain-limit must be >= 0, got {args.chain_limit}",
              file=sys.stderr)
        return 2
    if getattr(args, "engine", None):
        from gulbara.cli.verify import run_bench_engine
        return run_bench_engine(args, stdout)
    from gulbara.tools.bench import format_table, run_benchmarks
    result = run_benchmarks(args.rounds, args.chain_limit)
    print(json.dumps(result) if args.json else format_table(result), file=stdout)
    return 0
