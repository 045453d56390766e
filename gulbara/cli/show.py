"""``gulbara show CODE [-o FILE] [--turn T] [--play NOTATION --dice D...] [--flip]``: a board
picture (:mod:`gulbara.pictures`), SVG on stdout or an .svg or .png file."""

import sys

from gulbara.cli._args import require_extra, seat_type
from gulbara.errors import GulBaraError
from gulbara.pictures import board_svg, save
from gulbara.core.play import WHITE
from gulbara.game.state_codes import position_code

__all__ = ["add_arguments", "run"]

def add_arguments(parser) -> None:
    parser.add_argument("code", help="position code (RULES §9.1), or 'start'")
    parser.add_argument("-o", "--output", default=None,
                        help="write to this .svg or .png file (default: SVG on stdout)")
    parser.add_argument("--turn", "--seat", type=seat_type, default=WHITE,
                        help="the side to move: white/black or 0/1 (default: white)")
    parser.add_argument("--play", default=None,
                        help="a play of the side to move, e.g. '24/18 24/20', drawn as arrows "
                             "on the position it leaves (needs --dice)")
    parser.add_argument("--dice", nargs="+", type=int, default=None,
                        help="the stage's dice for --play, e.g. 6 4")
    parser.add_argument("--flip", action="store_true", help="Black's home board bottom right")
    parser.add_argument("--size", type=float, default=480, help="width in pixels (default 480)")


def run(args, stdin=None, stdout=None) -> int:
    """``gulbara show CODE [-o FILE] [--turn T] [--play NOTATION --dice D...] [--flip]``."""
    from gulbara.core.board import Board

    out = stdout if stdout is not None else sys.stdout
    code = position_code(args.code)
    try:
        if args.output is not None and args.output.lower().endswith(".png"):
            require_extra("cairosvg", "PNG output")
        board = Board.from_code(code, turn=args.turn)
        if (args.play is None) != (args.dice is None):
            raise GulBaraError("--play and --dice go together")
        options = dict(flipped=args.flip, size=args.size)
        if args.play is not None:
            play = board.push_notation(args.play, args.dice)
            options.update(last_play=play, play_seat=1 - board.turn)
        if args.output is None:
            out.write(board_svg(board, **options))
        else:
            save(board, args.output, **options)
    except (GulBaraError, ImportError) as exc:
        print(f"gulbara: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"gulbara: cannot write {args.output}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    return 0
