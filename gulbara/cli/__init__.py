"""The ``gulbara`` command line: one module of this package per subcommand.

Each subcommand module has ``add_arguments(parser)`` and ``run(args, stdin,
stdout) -> int``; the library modules they call (:mod:`gulbara.game.perft`,
:mod:`gulbara.tools.bench`, :mod:`gulbara.selfplay.arena`, ...) hold no argument parsing.

* ``gulbara ends``: the engine protocol (:mod:`gulbara.cli.ends`, docs/user/verify.md).
* ``gulbara moves DICE... [--position CODE] [--seat S]``: the board and the
  legal plays of one stage (:mod:`gulbara.cli.moves`).
* ``gulbara play``: a game against a built-in bot in the terminal (:mod:`gulbara.cli.play`).
* ``gulbara perft DEPTH ...``: perft over game states, RULES §10 (:mod:`gulbara.cli.perft`).
* ``gulbara bench``: the headline measurements (:mod:`gulbara.cli.bench`).
* ``gulbara show CODE``: a board picture (:mod:`gulbara.cli.show`).
* ``gulbara selfplay``: native self-play statistics (:mod:`gulbara.cli.selfplay`).
* ``gulbara benchmark BOT``: a bot's error rate on the rolled-out decisions
  (:mod:`gulbara.cli.benchmark`).
* ``gulbara rollout STATE``: a rollout with luck subtraction, candidates on common dice
  (:mod:`gulbara.cli.rollout`, docs/user/rollouts.md).
* ``gulbara verify --engine CMD``: another engine checked against gulbara
  (:mod:`gulbara.cli.verify`).
* ``gulbara engine``: a JSON-lines game session (:mod:`gulbara.cli.engine`, docs/user/engine.md).
* ``gulbara arena A B``: bot against bot (:mod:`gulbara.cli.arena`).
* ``gulbara train``: TD(lambda) training of a value network (:mod:`gulbara.cli.train`).
"""

import argparse
import importlib
import sys
from typing import List, Optional

from gulbara.tools.protocol import answer_request, ends_as_case

__all__ = ["main", "build_parser", "answer_request", "ends_as_case", "SUBCOMMANDS"]

#: The subcommands: (name, help, description); the module is ``gulbara.cli.<name>``.
SUBCOMMANDS = [
    ("ends", "engine protocol: JSON-lines stage requests on stdin, answers on stdout",
     "Read {\"position\": code, \"seat\": s, \"dice\": [...]} lines on stdin; "
     "write one JSON answer per line (the test vectors' case format)."),
    ("moves", "show the legal plays of one stage",
     "Show the board and the legal plays of one stage."),
    ("play", "play a game in the terminal against a built-in bot",
     "Play Gul Bara in the terminal against a built-in bot."),
    ("perft", "count the game tree from a state (RULES §10)",
     "perft over game states (RULES §10): the native core by default, "
     "or --engine python (through Game); prints nodes and nodes/s."),
    ("bench", "run the headline measurements and print one table",
     "The headline measurements (stages, chains, ...), core against the "
     "naive reference in the same run."),
    ("show", "draw a position as an SVG or PNG picture",
     "Draw a position (and optionally a play) as SVG on stdout, or to an .svg or .png "
     "file with -o (PNG needs: pip install \"gulbara[pictures]\")."),
    ("selfplay", "play many games natively and print statistics",
     "Native self-play under the full rules with built-in policies; a progress bar, "
     "a table of statistics with 95% intervals, JSON and plots."),
    ("rollout", "roll a state or a decision's candidate plays out, luck subtracted",
     "Roll STATE out natively (the net policy by default): each roll's luck subtracted, the "
     "first two rolls quasi-random, optionally truncated; at a decision, the best K plays "
     "(or --plays) on common dice, each against the best (docs/user/rollouts.md)."),
    ("benchmark", "a bot's error rate on the rolled-out decision set (or --build it)",
     "Score bots on the rolled-out benchmark of Gul Bara decisions: the mean equity each "
     "loses per decision against the rollout-best play, in millipoints, with a 95% interval; "
     "or, with --build FILE, sample decisions and roll them out into FILE (resumable)."),
    ("luck", "fit the model luck rule's function for a rule set's network",
     "Play games of the net policy, value every roll's luck by the full rule and fit the model "
     "luck rule's function of what the network sees before a roll to it; write it to OUT "
     "(docs/user/rollouts.md)."),
    ("verify", "check another engine against gulbara over `gulbara ends`",
     "Start CMD, an engine that speaks the gulbara ends protocol (docs/user/verify.md), send it "
     "the peer vectors, edge cases, named suites and positions from seeded play, and report "
     "every answer that differs from gulbara's, smallest first, named by its rule; or, with "
     "--perft, follow the first differing perft subtree down to the stage where they part."),
    ("engine", "a JSON-lines session: set a game, list plays, play, undo, "
     "chains, best play (docs/user/engine.md)",
     "Read JSON requests on stdin, one per line, each with a \"cmd\" (new, set, state, roll, "
     "legal, play, undo, chain, next, go, quit), and answer each with one JSON line; the "
     "session holds one game (docs/user/engine.md)."),
    ("arena", "play bot against bot, both seats, with 95%% intervals",
     "Play bot A against bot B for --games games (A White in the even ones, game i "
     "on the dice of game i of the run seeded SEED) and print A's win rate and points per "
     "game with 95% "
     "intervals."),
    ("train", "train a value network by TD(lambda) self-play",
     "TD(lambda) self-play training of a gb1 value network; checkpoints against greedy "
     "in duplicate pairs, the best kept."),
]


def _module(name: str):
    return importlib.import_module(f"gulbara.cli.{name}")


def build_parser() -> argparse.ArgumentParser:
    """The ``gulbara`` parser with every subcommand's options."""
    from gulbara import __version__
    parser = argparse.ArgumentParser(
        prog="gulbara", description="Fast, exact legal-move generator for Gul Bara.")
    parser.add_argument("--version", action="version", version=f"gulbara {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, help_text, description in SUBCOMMANDS:
        _module(name).add_arguments(sub.add_parser(name, help=help_text, description=description))
    return parser


#: The commands that start workers or run long: the first Ctrl-C or SIGTERM stops them at once
#: with one line on stderr (:func:`gulbara.workers.stop_on_signals`; README, "Stopping").
STOPPABLE = frozenset({"selfplay", "rollout", "arena", "train", "bench", "benchmark", "luck", "verify",
                       "perft"})


def main(argv: Optional[List[str]] = None) -> int:
    """The console entry point: parse ``argv`` and run the subcommand; its exit status.

    The long commands (:data:`STOPPABLE`) run under :func:`gulbara.workers.stop_on_signals`;
    any command stops quietly when its reader goes away (``| head``: status 141, as a
    shell's ``SIGPIPE``) or on a Ctrl-C it does not answer itself (130)."""
    import os
    from gulbara.workers import signal_status, stop_on_signals
    args = build_parser().parse_args(argv)
    try:
        if args.command in STOPPABLE:
            with stop_on_signals(args.command):
                return _module(args.command).run(args, sys.stdin, sys.stdout)
        return _module(args.command).run(args, sys.stdin, sys.stdout)
    except BrokenPipeError:
        # the reader went away (``gulbara ends < requests | head``): stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    except KeyboardInterrupt:
        print(f"gulbara {args.command}: stopped by SIGINT", file=sys.stderr)
        return signal_status(2)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
