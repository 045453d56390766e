"""``gulbara bench [--rounds R] [--json] [--chain-limit N]``: the headline measurements
(:func:`gulbara.tools.bench.run_benchmarks`); ``gulbara bench --engine CMD``: another engine's
speed next to gulbara's (:func:`gulbara.cli.verify.run_bench_engine`)."""

import json
import sys
from typing import TextIO

from gulbara.cli._args import TIMEOUT, add_timeout_argument, checked_seconds, refuse_unused
from gulbara.errors import GulBaraError

__all__ = ["add_arguments", "run"]


def add_arguments(parser) -> None:
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds per figure (default 5)")
    parser.add_argument("--json", action="store_true", help="print the table as one JSON object")
    parser.add_argument("--chain-limit", type=int, default=None, metavar="N",
                        help="time the real-game chains of at most N outcomes (default 200,000; "
                             "0: all of them, several minutes)")
    parser.add_argument("--engine", metavar="CMD",
                        help="instead: time this engine (it speaks the gulbara ends protocol) "
                             "next to gulbara's own gulbara ends, both over a pipe")
    add_timeout_argument(parser, "with --engine: ")


#: ``--chain-limit``'s default.
CHAIN_LIMIT = 200_000


def run(args, stdin=None, stdout: TextIO = sys.stdout) -> int:
    try:                                        # every option before any work
        if args.rounds < 1:
            raise GulBaraError(f"--rounds must be >= 1, got {args.rounds}")
        if getattr(args, "engine", None):
            refuse_unused(args, "bench --engine (another engine's speed)", "--chain-limit")
            args.timeout = checked_seconds(TIMEOUT if args.timeout is None else args.timeout,
                                           "--timeout")
        else:
            refuse_unused(args, "bench without --engine", "--timeout")
            if args.chain_limit is None:
                args.chain_limit = CHAIN_LIMIT
            if args.chain_limit < 0:            # it once died midway with a traceback
                raise GulBaraError(f"--chain-limit must be >= 0, got {args.chain_limit}")
    except GulBaraError as exc:
        print(f"gulbara bench: {exc}", file=sys.stderr)
        return 2
    if getattr(args, "engine", None):
        from gulbara.cli.verify import run_bench_engine
        return run_bench_engine(args, stdout)
    from gulbara.tools.bench import format_table, run_benchmarks
    result = run_benchmarks(args.rounds, args.chain_limit)
    print(json.dumps(result) if args.json else format_table(result), file=stdout)
    return 0
