"""``gulbara arena A B [--games N] [--seed S] [--rules R] [--duplicate] [--workers W] [--json]``:
bot against bot (:func:`gulbara.selfplay.arena.arena`), A's win rate and points per game with 95% intervals."""

import json
import sys
from dataclasses import replace
from typing import TextIO

from gulbara.selfplay.arena import arena
from gulbara.bots import REGISTRY, bot_label, make_bot
from gulbara.cli._args import add_rules_argument
from gulbara.errors import GulBaraError
from gulbara.rules import Rules

__all__ = ["add_arguments", "run"]


def add_arguments(parser) -> None:
    """The options of ``gulbara arena``."""
    names = ", ".join(sorted(REGISTRY)) + ", or a network's .npz path"
    parser.add_argument("a", help=f"bot A ({names})")
    parser.add_argument("b", help=f"bot B ({names})")
    parser.add_argument("--games", "-n", type=int, default=100,
                        help="games to play, A White in the even ones (default 100)")
    parser.add_argument("--seed", type=int, default=0,
                        help="game i plays the dice of game i of the run seeded SEED (default 0)")
    add_rules_argument(parser)
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress line on stderr")
    parser.add_argument("--duplicate", action="store_true",
                        help="each pair of games on the same dice, seats swapped")
    parser.add_argument("--workers", "-w", type=int, default=1,
                        help="processes playing blocks of games (default 1)")
    parser.add_argument("--native", action="store_true",
                        help="play natively (random, first, greedy, net), on the self-play dice")


def run(args, stdin=None, stdout: TextIO = sys.stdout) -> int:
    try:
        a, b = make_bot(args.a, args.seed), make_bot(args.b, args.seed + 1_000_003)
        rules = Rules.from_text(args.rules, where="--rules")
        if args.workers != 1 or args.native:
            a, b = args.a, args.b                  # built by name in each worker, or native
        result = arena(a, b, args.games, args.seed, rules=rules,
                       progress=False if args.quiet else sys.stderr,
                       duplicate=args.duplicate, workers=args.workers, native=args.native)
    except (GulBaraError, TypeError) as exc:
        print(f"gulbara arena: {exc}", file=sys.stderr)
        return 2
    result = replace(result, a=bot_label(args.a), b=bot_label(args.b))
    if args.json:
        print(json.dumps(result.as_dict()), file=stdout)
    else:
        print(result.describe(), file=stdout)
    return 0

