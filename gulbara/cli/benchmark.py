"""``gulbara benchmark``: a bot's error rate on the rolled-out decision set, or build the set.

``gulbara benchmark BOT... [--set FILE] [--json]`` scores each bot (a registered name or an
``.npz`` network): its error rate in millipoints per decision with a 95% interval, how many of
its choices were outside the rolled-out candidates, and the set's noise floor; with several
bots, each one's difference to the best of them, decision by decision, with its 95% interval.

``gulbara benchmark --build FILE --decisions N [--sample-seed S] [--per-game uniform|first]
[--games G] [--target-se SE] [--luck full|fast|pips|model] [--workers W]`` samples decisions from the
net policy's games, enough to top ``FILE`` up to ``N`` in the proportion play meets them, and
rolls out each one ``FILE`` does not have yet, appending it (resumable; docs/user/rollouts.md).
"""

import json
import os
import sys
from typing import Optional, TextIO

from gulbara.cli._args import check_output_path
from gulbara.errors import GulBaraError
from gulbara.workers import on_stop

__all__ = ["add_arguments", "run"]


def add_arguments(parser) -> None:
    from gulbara.rollouts import LUCK_RULES
    parser.add_argument("bots", nargs="*", metavar="BOT",
                        help="bots to score (names of gulbara.bots.REGISTRY or .npz networks)")
    parser.add_argument("--set", metavar="FILE", default=None,
                        help="the decision set (default: the one shipped with gulbara)")
    parser.add_argument("--json", action="store_true", help="one JSON line per bot")
    parser.add_argument("--build", metavar="FILE",
                        help="add rolled-out decisions to FILE instead of scoring")
    parser.add_argument("--decisions", type=int, default=1000,
                        help="with --build: the decisions to sample (default 1000)")
    parser.add_argument("--sample-seed", type=int, default=0,
                        help="with --build: the seed of the games sampled (default 0)")
    parser.add_argument("--per-game", choices=("uniform", "first"), default="uniform",
                        help="with --build: keep three of a game's picks drawn uniformly, "
                             "topping FILE up to N in proportion (default), or its first three")
    parser.add_argument("--games", type=int, default=5184,
                        help="with --build: the most games per candidate (default 5184)")
    parser.add_argument("--target-se", type=float, default=0.005,
                        help="with --build: stop a decision at this standard error (default "
                             "0.005, about 0.01 at 95%%)")
    parser.add_argument("--luck", choices=tuple(LUCK_RULES), default="full",
                        help="with --build: the luck rule of the rollouts (default full)")
    parser.add_argument("--workers", "-w", type=int, default=1,
                        help="with --build: threads per rollout (default 1)")


def run(args, stdin: Optional[TextIO] = None, stdout: Optional[TextIO] = None,
        stderr: Optional[TextIO] = None) -> int:
    from gulbara.rollouts import benchmark
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    try:
        if args.build:
            if args.bots:
                raise GulBaraError("--build makes the set; score bots without it")
            check_output_path(args.build, "--build")
            have = benchmark.load_set(args.build) if os.path.exists(args.build) else []
            decisions = benchmark.sample(args.decisions, args.sample_seed,
                                         per_game=args.per_game, have=have)

            added_so_far = [0]

            def progress(done, total, line):
                added_so_far[0] += 1
                best = line["candidates"][0]
                print(f"{done}/{total} {line['id']} {line['kind']}: {best['play']} "
                      f"{best['equity']:+.3f}", file=stderr, flush=True)

            with on_stop(say=lambda: f"{added_so_far[0]} decisions added to {args.build}; "
                                     "the same command resumes"):
                added = benchmark.build(args.build, decisions, games=args.games,
                                        target_se=args.target_se, luck=args.luck,
                                        workers=args.workers, progress=progress)
            print(f"{added} decisions added to {args.build}", file=stdout)
            return 0
        if not args.bots:
            raise GulBaraError("name a bot to score (or --build FILE)")
        lines = benchmark.load_set(args.set or benchmark.DEFAULT_SET)
        scores = [benchmark.score(bot, lines) for bot in args.bots]
        best = min(scores, key=lambda s: s.error_rate)
        againsts = [None if s is best else s.against(best) for s in scores]
    except (GulBaraError, ValueError, TypeError, OSError) as exc:
        print(f"gulbara: {exc}", file=stderr)
        return 2
    for s, against in zip(scores, againsts):
        if args.json:
            record = s.as_dict()
            if against is not None:
                record["against"] = {"bot": best.bot, "difference": against[0],
                                     "difference_low": against[1],
                                     "difference_high": against[2]}
            print(json.dumps(record), file=stdout)
        else:
            versus = "" if against is None else (
                f", {against[0]:+.1f} [{against[1]:+.1f}, {against[2]:+.1f}] against {best.bot}")
            print(f"{s.bot:<14} {s.error_rate:7.1f} mp/decision [{s.low:.1f}, {s.high:.1f}]  "
                  f"{s.decisions} decisions, {s.outside} outside the candidates, noise floor "
                  f"{s.noise_floor:.1f}{versus}", file=stdout)
    return 0
