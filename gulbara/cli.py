"""The ``gulbara`` command line.

* ``gulbara ends``: the engine protocol. Reads JSON lines
  ``{"position": code, "seat": s, "dice": [...]}`` on stdin and writes one
  JSON line per request in the test vectors' case format, or
  ``{"error": "..."}`` for a malformed request; ``{"perft": depth, "state":
  code}`` is answered with the node count and the divide
  (:func:`gulbara.protocol.perft_answer`, docs/verify.md).
* ``gulbara moves DICE... [--position CODE] [--seat S]``: the board and the
  legal plays of one stage, in notation.
* ``gulbara play [--bot greedy|random] [--seat white|black] ...``: a game
  against a built-in bot in the terminal (:mod:`gulbara.play_cli`).
* ``gulbara perft DEPTH [--state CODE] [--rules OPTIONS] [--divide] [--json]
  [--engine native|python]``: perft over game states (RULES §10,
  :mod:`gulbara.perft`), with the nodes per second.
* ``gulbara engine``: a JSON-lines session holding one game (:mod:`gulbara.engine`,
  docs/engine.md).
* ``gulbara verify --engine CMD [--positions N] [--perft DEPTH]``: another
  engine speaking this protocol checked against gulbara; ``gulbara bench
  --engine CMD``: its speed next to gulbara's (:mod:`gulbara.verify_cli`).
"""

import argparse
import json
import sys
from typing import List, Optional, TextIO

from gulbara._backend import START_CODE, raw_stage_ends
from gulbara.errors import GulBaraError
from gulbara.play import StageEnds
from gulbara.state_codes import position_code

__all__ = ["main", "answer_request", "ends_as_case"]


def ends_as_case(code: str, ends) -> dict:
    """One stage's result in the vectors' case format.

    >>> from gulbara import stage_ends
    >>> case = ends_as_case(START_CODE, stage_ends(START_CODE, 0, [6, 5]))
    >>> case["playableDice"], case["ends"][1]
    (2, {'position': 'G:,,,,,,,,,,,-15,1,,,,,,,,,,,14|0,0|0,0', 'steps': [[24, 6], [18, 5]], 'end': 'none'})
    """
    raw = ends._raw if isinstance(ends, StageEnds) else ends
    return {
        "position": code,
        "seat": raw.seat,
        "dice": list(raw.dice),
        "playableDice": raw.playable_dice,
        "ends": [
            {
                "position": raw.code(i),
                "steps": [list(step) for step in raw.steps(i)],
                "end": "borneOff" if raw.ends_game(i) else "none",
            }
            for i in range(len(raw))
        ],
    }


def answer_request(line: str) -> str:
    """Answer one line of the engine protocol with one JSON line (no newline)."""
    try:
        request = json.loads(line)
    except (ValueError, RecursionError) as exc:
        return _error(f"invalid JSON: {exc}")
    if not isinstance(request, dict):
        return _error("a request is a JSON object with position, seat and dice")
    if "perft" in request:
        from gulbara.protocol import perft_answer
        try:
            return json.dumps(perft_answer(request), separators=(",", ":"), ensure_ascii=False)
        except (GulBaraError, TypeError) as exc:
            return _error(str(exc))
    missing = [key for key in ("position", "seat", "dice") if key not in request]
    if missing:
        return _error(f"missing {', '.join(missing)} in request")
    code, seat, dice = request["position"], request["seat"], request["dice"]
    try:
        code = position_code(code) if isinstance(code, str) else code
        if not isinstance(dice, list):
            raise TypeError("dice must be a JSON array of numbers 1..6")
        ends = raw_stage_ends(code, seat, dice)
    except (GulBaraError, TypeError) as exc:
        return _error(str(exc))
    return json.dumps(ends_as_case(code, ends), separators=(",", ":"), ensure_ascii=False)


def _error(message: str) -> str:
    return json.dumps({"error": message}, ensure_ascii=False)


def run_ends(stdin: TextIO, stdout: TextIO) -> int:
    for line in stdin:
        if not line.strip():
            stdout.write(_error("empty line: a request is one JSON object per line") + "\n")
            stdout.flush()
            continue
        stdout.write(answer_request(line) + "\n")
        stdout.flush()
    return 0


def run_moves(args, stdout: TextIO) -> int:
    from gulbara.board import Board

    try:
        board = Board.from_code(args.position, turn=args.seat)
        ends = board.stage_ends(args.dice)
    except GulBaraError as exc:
        print(f"gulbara: {exc}", file=sys.stderr)
        return 2
    colour = "White" if args.seat == 0 else "Black"
    dice = "-".join(map(str, ends.dice))
    print(board.ascii(), file=stdout)
    print(f"\n{colour} to play {dice}: {len(ends)} distinct ends, "
          f"{ends.playable_dice} dice playable", file=stdout)
    for i, play in enumerate(ends, 1):
        note = "  (wins the game)" if play.ends_game else ""
        print(f"{i:>4}. {str(play):<28} {play.code}{note}", file=stdout)
    return 0


#: The subcommands that live in their own modules: (name, module, help, description).
#: Each module has ``add_arguments(parser)`` and ``run(args, stdin, stdout) -> int``;
#: it is imported only when the parser is built (``gulbara.perft`` the module is
#: shadowed by the function of that name, hence importlib).
SUBCOMMANDS = [
    ("play", "gulbara.play_cli", "play a game in the terminal against a built-in bot",
     "Play Gul Bara in the terminal against a built-in bot."),
    ("perft", "gulbara.perft", "count the game tree from a state (RULES §10)",
     "perft over game states (RULES §10): the native core by default, "
     "or --engine python (through Game); prints nodes and nodes/s."),
    ("bench", "gulbara.bench", "run the headline measurements and print one table",
     "The headline measurements (stages, chains, ...), core against the "
     "naive reference in the same run."),
    ("show", "gulbara.pictures", "draw a position as an SVG or PNG picture",
     "Draw a position (and optionally a play) as SVG on stdout, or to an .svg or .png "
     "file with -o (PNG needs: pip install \"gulbara[pictures]\")."),
    ("selfplay", "gulbara.selfplay_cli", "play many games natively and print statistics",
     "Native self-play under the full rules with built-in policies; a progress bar, "
     "a table of statistics with 95% intervals, JSON and plots."),
    ("verify", "gulbara.verify_cli", "check another engine against gulbara over `gulbara ends`",
     "Start CMD, an engine that speaks the gulbara ends protocol (docs/verify.md), send it "
     "the peer vectors, edge cases, named suites and positions from seeded play, and report "
     "every answer that differs from gulbara's, smallest first, named by its rule; or, with "
     "--perft, follow the first differing perft subtree down to the stage where they part."),
    ("engine", "gulbara.engine", "a JSON-lines session: set a game, list plays, play, undo, "
     "chains, best play (docs/engine.md)",
     "Read JSON requests on stdin, one per line, each with a \"cmd\" (new, set, state, roll, "
     "legal, play, undo, chain, next, go, quit), and answer each with one JSON line; the "
     "session holds one game (docs/engine.md)."),
    ("arena", "gulbara.arena", "play bot against bot, both seats, with 95%% intervals",
     "Play bot A against bot B for --games games (A White in the even ones, game i "
     "with dice seed SEED + i) and print A's win rate and points per game with 95% "
     "intervals."),
    ("train", "gulbara.train", "train a value network by TD(lambda) self-play",
     "TD(lambda) self-play training of a gb1 value network; checkpoints against greedy "
     "in duplicate pairs, the best kept."),
]


def build_parser() -> argparse.ArgumentParser:
    from gulbara import __version__
    from gulbara.cli_args import position_type, seat_type
    parser = argparse.ArgumentParser(
        prog="gulbara", description="Fast, exact legal-move generator for Gul Bara.")
    parser.add_argument("--version", action="version", version=f"gulbara {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser(
        "ends", help="engine protocol: JSON-lines stage requests on stdin, answers on stdout",
        description="Read {\"position\": code, \"seat\": s, \"dice\": [...]} lines on stdin; "
                    "write one JSON answer per line (the test vectors' case format).")
    moves = sub.add_parser("moves", help="show the legal plays of one stage",
                           description="Show the board and the legal plays of one stage.")
    moves.add_argument("dice", nargs="+", type=int, help="the stage's dice, e.g. 6 4 or 3 3 3 3")
    moves.add_argument("--position", "-p", type=position_type, default=START_CODE,
                       help="position code, or 'start' (the default)")
    moves.add_argument("--seat", "-s", type=seat_type, default=0,
                       help="side to move: white/black or 0/1 (default: white)")
    import importlib
    for name, module, help_text, description in SUBCOMMANDS:
        importlib.import_module(module).add_arguments(
            sub.add_parser(name, help=help_text, description=description))
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return _dispatch(args)
    except BrokenPipeError:
        # the reader went away (``gulbara ends < requests | head``): stop quietly
        import os
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141


def _dispatch(args) -> int:
    if args.command == "ends":
        return run_ends(sys.stdin, sys.stdout)
    if args.command == "moves":
        return run_moves(args, sys.stdout)
    import importlib
    module = {name: module for name, module, _, _ in SUBCOMMANDS}[args.command]
    return importlib.import_module(module).run(args, sys.stdin, sys.stdout)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
