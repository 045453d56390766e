"""``gulbara rollout``: roll a state out, or the candidate plays of a decision.

``gulbara rollout STATE [--seat SIDE] [--games N] [--policy P] [--vr | --no-vr]
[--luck full|fast|pips|model] [--truncate T] [--candidates K | --plays PLAY ...] [--target-se SE] [--seed S]
[--workers W] [--backend local|ray] [--resume FILE] [--out FILE] [--json] [--quiet]``

STATE is a state code (docs/user/state-codes.md) or a position code (or ``start``) with
``--seat``. A progress bar on stderr shows the games and the current 95% interval; at the end a
table of the candidates (best first, each against the best) goes to stdout, or with ``--json``
the summary of :meth:`gulbara.rollouts.Rollout.summary`. ``--out`` saves the whole run (its
sufficient statistics included) and ``--resume`` goes on with one (docs/user/rollouts.md).
"""

import argparse
import json
import sys
import time
from typing import Optional, TextIO

from gulbara.cli._args import (add_rules_argument, check_output_path, require_extra,
                               rolls_type, seat_type)
from gulbara.errors import GulBaraError
from gulbara.rules import Rules
from gulbara.workers import on_stop

__all__ = ["add_arguments", "run"]


def add_arguments(parser) -> None:
    from gulbara.net._play import NATIVE_POLICIES
    from gulbara.rollouts import BLOCK_GAMES, DEFAULT_POLICY, LUCK_RULES
    parser.add_argument("state", metavar="STATE",
                        help="a game state code, or a position code (or 'start') with --seat")
    parser.add_argument("--seat", type=seat_type, default=None, metavar="SIDE",
                        help="with a position code: the side to roll, white/black or 0/1")
    parser.add_argument("--rolls", type=rolls_type, default=None, metavar="W,B",
                        help="with a position code: the rolls each side has made (default: "
                             "past the exempt rolls, so doubles escalate)")
    parser.add_argument("--games", "-n", type=int, default=1296,
                        help="games per candidate (default 1296)")
    parser.add_argument("--policy", default=DEFAULT_POLICY,
                        help=f"the policy of both sides: {', '.join(NATIVE_POLICIES)}, or a "
                             f"network's .npz path (default {DEFAULT_POLICY})")
    parser.add_argument("--vr", action=argparse.BooleanOptionalAction, default=True,
                        help="subtract each roll's luck (default: on)")
    parser.add_argument("--luck", choices=tuple(LUCK_RULES), default="full",
                        help="how a roll's luck is found: full (all 36 rolls valued by their "
                             "whole turns before every roll), fast (the chains played out "
                             "only when a double is drawn), pips (as fast, and of the "
                             "non-doubles only 1-2, 3-4, 5-6 and the drawn roll's pip total) "
                             "or model (nothing played out: a fitted function of the "
                             "network's view before the roll; the cheapest); "
                             "docs/user/rollouts.md")
    parser.add_argument("--quasi", action=argparse.BooleanOptionalAction, default=True,
                        help="quasi-random first two rolls (default: on)")
    parser.add_argument("--truncate", type=int, default=0, metavar="T",
                        help="score a game by the network after T rolls (0: play it out)")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--candidates", type=int, default=None, metavar="K",
                       help="at a decision: the best K plays by --ranker, on common dice")
    which.add_argument("--plays", nargs="+", default=None, metavar="PLAY",
                       help="at a decision: these plays (notation), on common dice")
    parser.add_argument("--ranker", default="net", help="the bot that picks --candidates "
                                                        "(net or net2; default net)")
    parser.add_argument("--target-se", type=float, default=None, metavar="SE",
                        help="stop once the equity and each difference to the best have a "
                             "standard error at most SE")
    parser.add_argument("--drop", type=float, default=3.0, metavar="Z",
                        help="drop a candidate once its difference to the best is Z standard "
                             f"errors below 0 (after {BLOCK_GAMES} games; default 3; 0: never)")
    parser.add_argument("--seed", type=int, default=0, help="run seed (default 0)")
    parser.add_argument("--workers", "-w", type=int, default=1,
                        help="threads (the games release the GIL; default 1)")
    parser.add_argument("--backend", default="local", choices=("local", "ray"),
                        help="local threads, or a Ray cluster (pip install \"gulbara[ray]\")")
    parser.add_argument("--resume", metavar="FILE", help="go on with a run saved by --out")
    parser.add_argument("--out", metavar="FILE",
                        help="save the run (its sums too: --resume and merge read it)")
    parser.add_argument("--json", action="store_true", help="print the summary as one JSON line")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    add_rules_argument(parser)


class _Progress:
    """The progress line: games played and the best candidate's interval so far."""

    def __init__(self, stream: TextIO, total: int) -> None:
        self.stream, self.total, self.began = stream, total, time.perf_counter()

    def __call__(self, result) -> None:
        e = result.equity
        elapsed = max(time.perf_counter() - self.began, 1e-9)
        self.stream.write(f"\r{result.games:,}/{self.total:,} games  equity {e.value:+.4f} "
                          f"[{e.low:+.4f}, {e.high:+.4f}]  {result.games / elapsed:,.0f} "
                          f"games/s ")
        self.stream.flush()

    def close(self) -> None:
        self.stream.write("\n")
        self.stream.flush()


def run(args, stdin: Optional[TextIO] = None, stdout: Optional[TextIO] = None,
        stderr: Optional[TextIO] = None) -> int:
    from gulbara.game.driver import Game
    from gulbara.game.state_codes import state_code
    from gulbara.rollouts import load, rollout
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    bar = None
    try:
        rules = Rules.from_text(args.rules, where="--rules")
        start = Game.from_state_code(state_code(args.state, args.seat, rules=rules,
                                                rolls=args.rolls), rules)
        if args.out:                          # never fail at the end of a long run
            check_output_path(args.out, "--out")
        if args.backend == "ray":
            require_extra("ray", "--backend ray")
        if args.drop < 0:
            raise GulBaraError(f"--drop must be >= 0, got {args.drop}")
        resume = load(args.resume) if args.resume else None
        bar = None if args.quiet else _Progress(stderr, args.games)
        candidates = args.plays if args.plays is not None else args.candidates
        last = [resume]                       # the run so far, after its last whole block

        def progress(partial) -> None:
            last[0] = partial
            if bar is not None:
                bar(partial)

        def save_so_far() -> None:
            if args.out and last[0] is not None:
                last[0].save(args.out)

        def said() -> str:
            games = last[0].games if last[0] is not None else 0
            if args.out and last[0] is not None:
                return (f"{games:,} games played, the run so far saved to {args.out} "
                        f"(--resume {args.out} goes on)")
            return f"{games:,} games played, nothing written"

        with on_stop(save_so_far, say=said):
            result = rollout(start, args.games, policy=args.policy, candidates=candidates,
                             vr=args.vr, luck=args.luck, quasi=args.quasi,
                             truncate=args.truncate, seed=args.seed, workers=args.workers,
                             backend=args.backend, target_se=args.target_se,
                             drop=args.drop or None, ranker=args.ranker, resume=resume,
                             progress=progress)
    except (GulBaraError, ValueError, TypeError, ImportError) as exc:
        if bar is not None:
            bar.close()
        print(f"gulbara: {exc}", file=stderr)
        return 2
    if bar is not None:
        bar.close()
    try:
        if args.out:
            result.save(args.out)
    except OSError as exc:
        print(f"gulbara: cannot write {args.out}: {exc.strerror or exc}", file=stderr)
        return 2
    if args.json:
        print(json.dumps(result.summary()), file=stdout)
    else:
        print(result.table(), file=stdout)
        chances = result.chances()
        print("  ".join(f"{name} {v.value:.3f}" for name, v in chances.items()), file=stdout)
    return 0
