"""``gulbara selfplay``: native self-play from the command line.

``gulbara selfplay --games N [--policy P] [--black-policy P] [--workers W]
[--backend local|ray] [--seed S] [--rules RULES] [--state CODE [--seat SIDE]
[--rolls W,B]] [--max-rolls R] [--out stats.json] [--plot lengths.png] [--json]
[--quiet]``

A progress bar on stderr shows games per second; at the end a table of the
statistics with 95% intervals, then each seat's win, mars and equity (a
rollout of the state, :func:`gulbara.selfplay.games.rollout`), or, with ``--json``,
one JSON object with the same keys as ``RolloutResult.as_dict()``, goes to
stdout. ``--out`` writes the JSON object to a file; ``--plot`` draws the game
length, points and chain length distributions (``pip install "gulbara[plot]"``).
"""

import argparse
import json
import os
import sys
import time
from typing import Optional, TextIO

from gulbara.cli._args import (add_rules_argument, add_state_arguments, check_output_path,
                               check_plot_path, refuse_unused, require_extra, state_from_args)
from gulbara.errors import GulBaraError
from gulbara.files import replaced_atomically
from gulbara.rules import Rules
from gulbara.workers import on_stop

__all__ = ["add_arguments", "run", "ProgressBar", "plot_result"]


class ProgressBar:
    """A one-line text progress bar with games per second, redrawn with ``\\r``."""

    def __init__(self, stream: TextIO, total: int, width: int = 30) -> None:
        self.stream = stream
        self.total = total
        self.width = width
        self.began = time.perf_counter()

    def __call__(self, done: int, total: int) -> None:
        elapsed = max(time.perf_counter() - self.began, 1e-9)
        filled = int(self.width * done / total) if total else self.width
        bar = "#" * filled + "." * (self.width - filled)
        self.stream.write(f"\r[{bar}] {done:,}/{total:,} games  {done / elapsed:,.0f} games/s")
        self.stream.flush()

    def close(self) -> None:
        self.stream.write("\n")
        self.stream.flush()


class _Counted:
    """A progress callback that keeps the count of games played (for the line a stop signal
    prints) and passes it on to ``bar``, if any."""

    def __init__(self, bar: Optional[ProgressBar]) -> None:
        self.bar = bar
        self.done = 0

    def __call__(self, done: int, total: int) -> None:
        self.done = done
        if self.bar is not None:
            self.bar(done, total)


def plot_result(result, path: str) -> None:
    """Draw the distributions of a run (game length, points, chain length) into ``path``."""
    from gulbara.plotting import pyplot
    plt = pyplot()
    import numpy as np
    rolls = result.column("rolls")
    points = result.column("points")
    winner = result.column("winner")
    fig, axes = plt.subplots(1, 3, figsize=(14, 4))
    top = int(rolls.max()) if len(rolls) else 1
    axes[0].hist(rolls, bins=range(0, top + 2), color="#4a7ab7")
    axes[0].set_title(f"Game length (mean {result.mean_rolls.value:.1f} rolls)")
    axes[0].set_xlabel("rolls per game")
    axes[0].set_ylabel("games")
    signed = np.where(winner == 0, points, np.where(winner == 1, -points, 0))
    values, counts = np.unique(signed, return_counts=True)
    labels = {-2: "Black mars", -1: "Black", 0: "draw", 1: "White", 2: "White mars"}
    axes[1].bar([labels.get(int(v), str(v)) for v in values], counts, color="#b7744a")
    axes[1].set_title("Points")
    axes[1].set_ylabel("games")
    hist = result.chain_histogram[:7]
    axes[2].bar(range(7), hist, color="#5a9a5a")
    axes[2].set_title(f"Chain length (mean {result.mean_chain_length.value:.2f} stages)")
    axes[2].set_xlabel("stages played in full")
    axes[2].set_ylabel("chains")
    policy = " vs ".join(result.policy)
    fig.suptitle(f"gulbara self-play: {result.games:,} games, {policy}, seed {result.seed}")
    fig.tight_layout()
    with replaced_atomically(path, "wb") as f:
        fig.savefig(f, dpi=100, format=os.path.splitext(path)[1][1:].lower() or None)
    plt.close(fig)


def _policy_name(text: str) -> str:
    from gulbara.selfplay.games import POLICIES
    if text in POLICIES or text == "net" or text.endswith(".npz"):
        return text
    from gulbara.net._play import NATIVE_POLICIES
    raise argparse.ArgumentTypeError(f"unknown policy {text!r}: use one of "
                                     f"{', '.join(NATIVE_POLICIES)} or a network's .npz path")


def add_arguments(parser) -> None:
    from gulbara.net._play import NATIVE_POLICIES
    from gulbara.selfplay.games import DEFAULT_POLICY
    parser.add_argument("--games", "-n", type=int, default=10_000, help="games to play")
    parser.add_argument("--policy", default=DEFAULT_POLICY, type=_policy_name,
                        help="policy of both seats (or White's with --black-policy): "
                             f"{', '.join(NATIVE_POLICIES)}, or a network's .npz path "
                             f"(default: {DEFAULT_POLICY})")
    parser.add_argument("--black-policy", type=_policy_name, help="Black's policy")
    parser.add_argument("--workers", "-w", type=int, default=None,
                        help="worker processes (default: all cores)")
    parser.add_argument("--backend", default="local", choices=("local", "ray"),
                        help="local processes, or a Ray cluster (pip install \"gulbara[ray]\")")
    parser.add_argument("--seed", type=int, default=0, help="run seed (default 0)")
    add_rules_argument(parser)
    add_state_arguments(parser, "the start of a game (the opening roll)")
    parser.add_argument("--max-rolls", type=int, default=None,
                        help="stop a game after this many rolls (default 10000)")
    parser.add_argument("--openings", action="store_true",
                        help="the opening table: --games games for each of the 15 opening "
                             "rolls, the starter's win rate and equity")
    parser.add_argument("--out", help="write the JSON result to this file")
    parser.add_argument("--plot", help="draw the distributions into this image (PNG, SVG, PDF)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress bar")


def run(args, stdin: Optional[TextIO] = None, stdout: Optional[TextIO] = None,
        stderr: Optional[TextIO] = None) -> int:
    from gulbara.game.driver import Game
    from gulbara.selfplay.games import rollout
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    bar = None
    try:
        rules = Rules.from_text(args.rules, where="--rules")
        if args.openings:
            # the opening table starts from the opening, plays its games to the end and draws
            # no plot: refuse what it would ignore (it once exited 0 with no file)
            refuse_unused(args, "--openings (the opening table, from the start)", "--plot",
                          "--state", "--seat", "--rolls", "--max-rolls")
        state = state_from_args(args, rules)
        start = Game.from_state_code(state, rules) if state else Game(rules, auto_roll=False)
        policy = args.policy if args.black_policy is None else (args.policy, args.black_policy)
        max_rolls = 10_000 if args.max_rolls is None else args.max_rolls
        if args.plot:       # the extras and files first: never fail after the games
            check_plot_path(args.plot)
        if args.out:
            check_output_path(args.out, "--out")
        if args.backend == "ray":
            require_extra("ray", "--backend ray")
        if args.openings:
            return run_openings(args, rules, policy, stdout, stderr)
        bar = None if args.quiet else ProgressBar(stderr, args.games)
        counted = _Counted(bar)
        with on_stop(say=lambda: f"{counted.done:,} of {args.games:,} games played, "
                                 "nothing written"):
            result = rollout(start, args.games, policy, seed=args.seed, workers=args.workers,
                             backend=args.backend, max_rolls=max_rolls, progress=counted)
    except (GulBaraError, ValueError, TypeError, ImportError) as exc:
        if bar is not None:
            bar.close()
        print(f"gulbara: {exc}", file=stderr)
        return 2
    if bar is not None:
        bar.close()
    data = result.as_dict()
    try:
        if not _json_out(args, data, stdout):
            print(result.table(), file=stdout)
    except BrokenPipeError:
        raise                               # stdout's reader went away: gulbara.cli.main
    except OSError as exc:
        print(f"gulbara: cannot write {args.out}: {exc.strerror or exc}", file=stderr)
        return 2
    stdout.flush()
    if args.plot:
        try:
            plot_result(result, args.plot)
        except (ImportError, OSError) as exc:
            print(f"gulbara: {exc}", file=stderr)
            return 2
    return 0


def run_openings(args, rules, policy, stdout: TextIO, stderr: TextIO) -> int:
    from gulbara.selfplay.games import OPENING_ROLLS, opening_table
    total = args.games * len(OPENING_ROLLS)
    bar = None if args.quiet else ProgressBar(stderr, total)
    counted = _Counted(bar)
    began = time.perf_counter()
    with on_stop(say=lambda: f"{counted.done:,} of {total:,} games played, nothing written"):
        table = opening_table(args.games, policy, seed=args.seed, rules=rules,
                              workers=args.workers, backend=args.backend, progress=counted)
    seconds = time.perf_counter() - began
    if bar is not None:
        bar.close()
    rows = []
    for (a, b), result in table:
        win, equity = result.win_probability[0], result.equity[0]
        rows.append({"roll": f"{a}-{b}", "games": result.games,
                     "starter_win_rate": win.value, "starter_win_rate_low": win.low,
                     "starter_win_rate_high": win.high, "starter_equity": equity.value,
                     "starter_equity_low": equity.low, "starter_equity_high": equity.high,
                     "mean_rolls": result.mean_rolls.value})
    names = result.policy
    data = {"games_per_roll": args.games, "policy": names[0] if names[0] == names[1]
            else list(names), "seed": args.seed, "seconds": round(seconds, 3),
            "rules": rules.to_dict(), "openings": rows}
    try:
        if _json_out(args, data, stdout):
            return 0
    except BrokenPipeError:
        raise                               # stdout's reader went away: gulbara.cli.main
    except OSError as exc:
        print(f"gulbara: cannot write {args.out}: {exc.strerror or exc}", file=stderr)
        return 2
    print(f"{'roll':<5} {'starter wins (95% CI)':<27} {'equity (95% CI)':<28} rolls", file=stdout)
    for row in rows:
        print(f"{row['roll']:<5} {row['starter_win_rate']:.4f} "
              f"[{row['starter_win_rate_low']:.4f}, {row['starter_win_rate_high']:.4f}]   "
              f"{row['starter_equity']:+.4f} [{row['starter_equity_low']:+.4f}, "
              f"{row['starter_equity_high']:+.4f}]  {row['mean_rolls']:.1f}", file=stdout)
    return 0


def _json_out(args, data: dict, stdout: TextIO) -> bool:
    """``--out``: the JSON result, indented, to that file; ``--json``: on one line to
    ``stdout``. True if ``--json`` printed it (the table is then left out)."""
    if args.out:
        with replaced_atomically(args.out) as handle:
            json.dump(data, handle, indent=2)
            handle.write("\n")
    if args.json:
        print(json.dumps(data), file=stdout)
    return bool(args.json)
