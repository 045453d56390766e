"""``gulbara luck``: fit the "model" luck rule's function for the network of a rule set.

``gulbara luck OUT [--games N] [--seed S] [--units U] [--epochs E] [--workers W]
[--rules RULES]`` plays ``N`` games of the net policy against itself from the opening under the
rules, takes every roll's features and its luck by the "full" rule, fits the function (a linear
part and ``U`` softsign units, ``E`` passes of Adam) and writes it to ``OUT`` (``.npz``). The
shipped ``gulbara/data/gb1-luck.npz`` and ``gb1-plain-doubles-luck.npz`` are made by the
commands in :mod:`gulbara.rollouts.luckmodel` (docs/user/rollouts.md, "The luck rules").
"""

import sys
from typing import Optional, TextIO

from gulbara.cli._args import add_rules_argument, check_output_path
from gulbara.errors import GulBaraError
from gulbara.rules import Rules

__all__ = ["add_arguments", "run"]


def add_arguments(parser) -> None:
    parser.add_argument("out", metavar="OUT", help="the .npz file to write")
    parser.add_argument("--games", type=int, default=12000,
                        help="games of the net policy to fit on (default 12000)")
    parser.add_argument("--seed", type=int, default=0, help="their seed and the fit's (default 0)")
    parser.add_argument("--units", type=int, default=32,
                        help="softsign units besides the linear part (default 32; 0: linear)")
    parser.add_argument("--epochs", type=int, default=40,
                        help="passes of Adam over the rows (default 40)")
    parser.add_argument("--workers", "-w", type=int, default=1,
                        help="threads playing the games (default 1; the same rows)")
    add_rules_argument(parser, "the rules, whose shipped network the function is for")


def run(args, stdin: Optional[TextIO] = None, stdout: Optional[TextIO] = None,
        stderr: Optional[TextIO] = None) -> int:
    from gulbara.rollouts.luckmodel import fit_luck_model
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    try:
        rules = Rules.from_text(args.rules, where="--rules")
        check_output_path(args.out, "OUT")
        model = fit_luck_model(args.games, args.seed, rules=rules, units=args.units,
                               epochs=args.epochs, workers=args.workers)
        model.save(args.out)
    except GulBaraError as exc:
        print(f"gulbara: {exc}", file=stderr)
        return 2
    except OSError as exc:
        print(f"gulbara: cannot write {args.out}: {exc.strerror or exc}", file=stderr)
        return 2
    print(f"{args.out}: {model.units} units for network {model.network[:12]}, "
          f"{args.games} games, seed {args.seed}", file=stdout)
    return 0
