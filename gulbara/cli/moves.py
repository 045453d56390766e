"""``gulbara moves DICE... [--position CODE] [--seat S]``: the board and the legal plays of one stage."""

import sys
from typing import TextIO

from gulbara.core._backend import START_CODE
from gulbara.cli._args import position_type, seat_type
from gulbara.errors import GulBaraError
from gulbara.game.driver import SEAT_NAMES

__all__ = ["add_arguments", "run"]


def add_arguments(parser) -> None:
    parser.add_argument("dice", nargs="+", type=int, help="the stage's dice, e.g. 6 4 or 3 3 3 3")
    parser.add_argument("--position", "-p", type=position_type, default=START_CODE,
                        help="position code, or 'start' (the default)")
    parser.add_argument("--seat", "-s", type=seat_type, default=0,
                        help="side to move: white/black or 0/1 (default: white)")


def run(args, stdin, stdout: TextIO) -> int:
    from gulbara.core.board import Board

    try:
        board = Board.from_code(args.position, turn=args.seat)
        ends = board.stage_ends(args.dice)
    except GulBaraError as exc:
        print(f"gulbara: {exc}", file=sys.stderr)
        return 2
    dice = "-".join(map(str, ends.dice))
    print(board.ascii(), file=stdout)
    print(f"\n{SEAT_NAMES[args.seat]} to play {dice}: {len(ends)} distinct ends, "
          f"{ends.playable_dice} dice playable", file=stdout)
    for i, play in enumerate(ends, 1):
        note = "  (wins the game)" if play.ends_game else ""
        print(f"{i:>4}. {str(play):<28} {play.code}{note}", file=stdout)
    return 0
