"""``gulbara train --games N --out PATH [...]``: TD(lambda) self-play training of a value
network (:func:`gulbara.net.train.train`), checkpoints against greedy, the best kept."""

import os
import sys
import time
from typing import TextIO

from gulbara.cli._args import add_rules_argument, check_output_path, check_plot_path
from gulbara.errors import GulBaraError
from gulbara.net.model import ValueNet
from gulbara.rules import Rules
from gulbara.workers import on_stop
from gulbara.net.train import DEFAULT_EVAL_PAIRS, TRAIN_DEFAULTS, last_path, plot_history, train

__all__ = ["add_arguments", "run"]


def add_arguments(parser) -> None:
    parser.add_argument("--games", type=int, required=True, help="self-play games to train on")
    parser.add_argument("--seed", type=int, default=0, help="the run's seed (default 0)")
    parser.add_argument("--out", required=True, help="the best network's .npz path")
    parser.add_argument("--workers", type=int, default=1,
                        help="threads (the weights do not depend on it)")
    parser.add_argument("--checkpoint", type=int, default=100_000,
                        help="games between evaluations against greedy (default 100000)")
    parser.add_argument("--eval-pairs", type=int, default=DEFAULT_EVAL_PAIRS,
                        help=f"duplicate pairs per evaluation (default {DEFAULT_EVAL_PAIRS})")
    parser.add_argument("--resume", action="store_true", help="continue from OUT's .last.npz")
    parser.add_argument("--plot", help="draw the learning curve to this image file")
    parser.add_argument("--init", help="start from this network (.npz) instead of random weights")
    parser.add_argument("--teacher", nargs="+", metavar="NPZ",
                        help="with --target teacher: move each after-state toward this "
                             "network's outputs (several: their average, ValueNet.average)")
    add_rules_argument(parser, "the rules of the training and checkpoint games")
    for key, value in TRAIN_DEFAULTS.items():
        parser.add_argument("--" + key.replace("_", "-"), type=type(value), default=value,
                            help=f"(default {value})")


def _resumable(args, began: float) -> str:
    """What a stopped training run leaves: the checkpoint ``--resume`` continues from, or
    nothing to resume (before the first checkpoint of a new run)."""
    last = last_path(args.out)
    try:
        fresh = os.path.getmtime(last) >= began - 1.0
    except OSError:
        fresh = False
    if fresh or (args.resume and os.path.exists(last)):
        return f"the same command with --resume continues from the last checkpoint ({last})"
    return (f"no checkpoint yet (the first comes after --checkpoint {args.checkpoint:,} games), "
            "nothing to resume: run the same command again to start over")


def run(args, stdin=None, stdout: TextIO = sys.stdout) -> int:
    options = {key: getattr(args, key) for key in TRAIN_DEFAULTS}
    try:
        rules = Rules.from_text(args.rules, where="--rules")
        if args.plot:        # the files first: never fail after the training
            check_plot_path(args.plot)
        check_output_path(args.out, "--out")
        check_output_path(last_path(args.out), "--out (its .last.npz twin)")
        init = ValueNet.load(args.init) if args.init else None
        teacher = None
        if args.teacher:
            nets = [ValueNet.load(path) for path in args.teacher]
            teacher = nets[0] if len(nets) == 1 else ValueNet.average(nets)
        began = time.time()
        with on_stop(say=lambda: _resumable(args, began)):
            result = train(args.games, args.seed, args.out, workers=args.workers,
                           checkpoint=args.checkpoint, eval_pairs=args.eval_pairs,
                           resume=args.resume, init=init, teacher=teacher, rules=rules,
                           **options)
    except (GulBaraError, OSError, ImportError) as exc:
        print(f"gulbara: {exc}", file=sys.stderr)
        return 2
    print(f"trained {result.games:,} games in {result.seconds:.1f} s; best checkpoint "
          f"{result.best.sha256()} written to {args.out}", file=stdout)
    if args.plot:
        try:
            plot_history(result.history, args.plot)
        except (ImportError, OSError) as exc:
            print(f"gulbara: {exc}", file=sys.stderr)
            return 2
    return 0
