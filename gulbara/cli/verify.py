"""``gulbara verify`` and ``gulbara bench --engine``: another engine against gulbara.

``gulbara verify --engine CMD [--positions N] [--seed S] [--rules OPTIONS]
[--timeout SECONDS] [--show K]`` sends the stage requests of
:func:`gulbara.tools.verify.verify_cases` to the engine started by ``CMD`` and prints
the differences, smallest failing case first, each named by its rule.
``gulbara verify --engine CMD --perft DEPTH [--state CODE]`` compares perft
divides level by level down to the stage where the engines part
(:func:`gulbara.tools.verify.locate_perft`). Exit status: 0 when everything matched,
1 when something differs, 2 for bad arguments, 3 when the engine failed (could
not start, exited, or did not answer in time).

``gulbara bench --engine CMD`` (:mod:`gulbara.tools.engine_bench`) prints the engine's
speed next to gulbara's ``gulbara ends``, both over a pipe.
"""

import argparse
import json
import sys
from typing import TextIO

from gulbara.cli._args import (TIMEOUT, add_rules_argument, add_timeout_argument,
                               checked_seconds, refuse_unused)
from gulbara.errors import GulBaraError
from gulbara.game.perft import MAX_DEPTH
from gulbara.rules import Rules

__all__ = ["add_arguments", "run", "run_bench_engine"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``gulbara verify``."""
    parser.add_argument("--engine", required=True, metavar="CMD",
                        help="the engine's command line, e.g. \"./my-engine --jsonl\" (split "
                             "like a shell would, not run by one)")
    parser.add_argument("--positions", type=int, default=None,
                        help="positions reached by seeded random play, each with the 21 rolls "
                             "and a partial stage (default 200)")
    parser.add_argument("--seed", type=int, default=None,
                        help="seed of the random play (default 1)")
    add_rules_argument(parser, "the rules of the random play and of perft")
    add_timeout_argument(parser)
    parser.add_argument("--show", type=int, default=None,
                        help="failures shown in full, smallest first (default 5)")
    parser.add_argument("--perft", type=int, metavar="DEPTH",
                        help="compare perft divides to DEPTH, level by level, instead")
    parser.add_argument("--state", help="with --perft: the root state (Game.state_code); "
                                        "default: the start of a game (RULES §10.5)")
    parser.add_argument("--perft-timeout", type=float, default=None,
                        help="seconds to wait for each perft answer (default 600)")


def run(args, stdin=None, stdout: TextIO = sys.stdout) -> int:
    """Run ``gulbara verify``; the report goes to ``stdout``, progress to stderr."""
    from gulbara.game.driver import Game
    from gulbara.tools.protocol import EngineError, EngineProcess
    from gulbara.tools.verify import locate_perft, run_verify, verify_cases

    try:
        rules = Rules.from_text(args.rules, where="--rules")
        timeout = checked_seconds(TIMEOUT if args.timeout is None else args.timeout,
                                  "--timeout")
        if args.perft is not None:              # every option a mode does not use refused
            refuse_unused(args, "verify --perft", "--positions", "--seed", "--show")
            if not 0 <= args.perft <= MAX_DEPTH:
                raise GulBaraError(f"--perft depth must be 0..{MAX_DEPTH}, got {args.perft}")
            perft_timeout = checked_seconds(600.0 if args.perft_timeout is None
                                            else args.perft_timeout, "--perft-timeout")
        else:
            refuse_unused(args, "verify without --perft", "--state", "--perft-timeout")
            positions = 200 if args.positions is None else args.positions
            seed = 1 if args.seed is None else args.seed
            show = 5 if args.show is None else args.show
            if positions < 0:
                raise GulBaraError(f"--positions must be >= 0, got {positions}")
            if show < 0:
                raise GulBaraError(f"--show must be >= 0, got {show}")
        if args.state is not None:
            Game.from_state_code(args.state, rules)
        engine = EngineProcess(args.engine, timeout)
    except EngineError as exc:
        print(f"gulbara verify: {exc}", file=sys.stderr)
        return 3
    except (GulBaraError, ValueError, TypeError) as exc:
        print(f"gulbara verify: {exc}", file=sys.stderr)
        return 2
    with engine:
        if args.perft is not None:
            perft_report = locate_perft(engine, args.perft, args.state, rules, perft_timeout)
            print(perft_report.format(), file=stdout)
            return perft_report.exit_status
        cases = verify_cases(positions, seed, rules)
        progress = _progress if sys.stderr.isatty() else None
        report = run_verify(engine, cases, progress)
        if progress is not None:
            sys.stderr.write("\r" + " " * 40 + "\r")
    print(report.format(show), file=stdout)
    return report.exit_status


def _progress(done: int, total: int) -> None:
    sys.stderr.write(f"\r  {done:,}/{total:,} requests")
    sys.stderr.flush()


def run_bench_engine(args, stdout: TextIO = sys.stdout) -> int:
    """``gulbara bench --engine CMD [--rounds R] [--timeout S] [--json]``."""
    from gulbara.tools.engine_bench import bench_engine, format_engine_table
    from gulbara.tools.protocol import EngineError

    try:
        result = bench_engine(args.engine, args.rounds, args.timeout)
    except EngineError as exc:
        print(f"gulbara bench: {exc.describe()}", file=sys.stderr)
        return 3
    except (RuntimeError, ValueError) as exc:
        print(f"gulbara bench: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result), file=stdout)
    else:
        print(format_engine_table(result), file=stdout)
    return 1 if result["mismatched"] else 0
