"""``gulbara play``: a game of Gul Bara in the terminal against a built-in bot.

The board is drawn from your side, in your own numbering (RULES §1.2): your
checkers run from your 24 (top right) round to your 1 (bottom right), and the
notation you type uses those numbers (RULES §9.3). At each of your stages the
dice, the stage (a roll, a stage of an escalation chain, or a remainder you
play for your opponent: RULES §4-5) and the legal plays are shown. Type:

* a play in notation: ``24/18 24/20``, ``13/7(2)``, ``6/off``, ``24/14``;
* the number of a listed play;
* ``hint`` (the net bot's best plays with their equities, or with
  ``--hint greedy`` what the greedy bot would play), ``undo`` (take back your last
  play and the bot's answer; the dice stay the same), ``board``, ``help``,
  ``quit``.

A stage in which nothing can move is passed for you. Wrong or illegal input is
explained and asked again.

>>> import io
>>> args = build_parser().parse_args(["--seed", "24", "--bot", "greedy"])
>>> out = io.StringIO()
>>> run(args, io.StringIO("24/14\\nquit\\n"), out)
0
>>> out.getvalue().splitlines()[-2:]
['> quit', 'Bye.']
"""

import argparse
import sys
from typing import TYPE_CHECKING, List, Optional, TextIO, Union

from gulbara.bots import REGISTRY, GreedyBot, bot_label, is_network_path, make_bot
from gulbara.cli._args import add_rules_argument, check_output_path, seat_type
from gulbara.conventions import white_point
from gulbara.errors import GulBaraError
from gulbara.files import replaced_atomically
from gulbara.game.driver import SEAT_NAMES, Game, Match
from gulbara.core.play import BLACK, WHITE
from gulbara.rules import Rules

if TYPE_CHECKING:
    from gulbara.bots.netbot import NetBot

__all__ = ["render_board", "add_arguments", "build_parser", "run", "main"]

_SHOWN_PLAYS = 20
_DIE_FACES = "⚀⚁⚂⚃⚄⚅"

HELP = """\
Type a play in notation (24/18 24/20, 13/7(2), 6/off, 24/14) or the number of a listed play.
Commands: hint, undo, board, help, quit."""


def render_board(position, viewer: int = WHITE, unicode: bool = True) -> str:
    """The board drawn for ``viewer``, in its own numbering (RULES §1.2-1.3).

    The viewer's home board is bottom right; its checkers move from top right
    (its 24) leftwards, down, and rightwards to its 1. White's checkers are
    ``●`` (``O`` in ASCII), Black's ``○`` (``X``). Stacks of more than five
    show their count.

    >>> from gulbara.core._backend import Position, START_CODE
    >>> print(render_board(Position.from_code(START_CODE), unicode=False))
      13 14 15 16 17 18  19 20 21 22 23 24
     +------------------+------------------+
     |                  |                O |
     |                  |                O |
     |                  |                O |
     |                  |                O |
     |                  |               15 |
     |                  |                  |
     |15                |                  |
     | X                |                  |
     | X                |                  |
     | X                |                  |
     | X                |                  |
     +------------------+------------------+
      12 11 10  9  8  7   6  5  4  3  2  1
     O borne off 0, pips 360   X borne off 0, pips 360
    """
    points = position.points()
    from gulbara.glyphs import ASCII, UNICODE
    symbols = UNICODE if unicode else ASCII                  # White's, Black's
    h, v, corners = ("─", "│", "┌┬┐├┼┤└┴┘") if unicode else ("-", "|", "+++++++++")

    def stack(own: int):
        count = points[white_point(viewer, own) - 1]
        return abs(count), symbols[WHITE] if count > 0 else symbols[BLACK]

    def cells(owns: List[int], row: int, top: bool) -> str:
        out = []
        for own in owns:
            n, symbol = stack(own)
            level = row if top else 4 - row
            if n > 5 and level == 4:
                out.append(f"{n:>2} ")
            elif n > level:
                out.append(f" {symbol} ")
            else:
                out.append("   ")
        return "".join(out)

    top_left, top_right = list(range(13, 19)), list(range(19, 25))
    bottom_left, bottom_right = list(range(12, 6, -1)), list(range(6, 0, -1))
    rule = h * 18
    lines = ["  " + "".join(f"{p:>2} " for p in top_left) + " "
             + "".join(f"{p:>2} " for p in top_right),
             f" {corners[0]}{rule}{corners[1]}{rule}{corners[2]}"]
    for row in range(5):
        lines.append(f" {v}{cells(top_left, row, True)}{v}{cells(top_right, row, True)}{v}")
    lines.append(f" {v}{' ' * 18}{v}{' ' * 18}{v}")
    for row in range(5):
        lines.append(f" {v}{cells(bottom_left, row, False)}{v}"
                     f"{cells(bottom_right, row, False)}{v}")
    lines.append(f" {corners[6]}{rule}{corners[7]}{rule}{corners[8]}")
    lines.append("  " + "".join(f"{p:>2} " for p in bottom_left) + " "
                 + "".join(f"{p:>2} " for p in bottom_right))
    lines.append("".join(
        f" {symbols[seat]} borne off {position.borne_off(seat)}, pips {position.pip_count(seat)}  "
        for seat in (viewer, 1 - viewer)).rstrip())
    return "\n".join(line.rstrip() for line in lines)


def _dice_text(dice, unicode: bool) -> str:
    """A roll's dice, the larger first, as the stage's description shows them."""
    dice = sorted(dice, reverse=True)
    text = "-".join(map(str, dice))
    if unicode:
        text += "  " + "".join(_DIE_FACES[d - 1] for d in dice)
    return text


def _stage_text(decision) -> str:
    text = decision.describe()
    if decision.following:
        rest = ", ".join("-".join([str(n)] * count) for n, count in decision.following)
        text += (f" (then the remainder's {rest})" if decision.is_remainder
                 else f" (then {rest} if all four are played)")
    return text


def bot_type(text: str) -> str:
    """``--bot``: a name of the bot registry or a path to a network file."""
    if text in REGISTRY or is_network_path(text):
        return text
    raise argparse.ArgumentTypeError(f"unknown bot {text!r} (choose from "
                                     f"{', '.join(sorted(REGISTRY))}, or an .npz path)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``gulbara play``."""
    parser.add_argument("--bot", type=bot_type, default="greedy",
                        help=f"the opponent: {', '.join(sorted(REGISTRY))}, or a network's .npz "
                             f"path (default: greedy)")
    parser.add_argument("--seat", type=seat_type, default=WHITE,
                        help="your side: white/black or 0/1 (default: white)")
    parser.add_argument("--seed", type=int, default=None,
                        help="dice seed, for a reproducible game (default: random)")
    parser.add_argument("--bot-seed", type=int, default=None, help="seed of the random bot")
    add_rules_argument(parser)
    parser.add_argument("--match", type=int, default=None, metavar="TARGET",
                        help="play a match to TARGET points instead of one game")
    parser.add_argument("--ascii", action="store_true", help="draw the board in plain ASCII")
    parser.add_argument("--record", metavar="FILE", help="write the game's record to FILE at the end")
    parser.add_argument("--hint", choices=("net", "greedy"), default="net", dest="hint_bot",
                        help="who answers 'hint': the net bot's best plays with their equities "
                             "(default) or the greedy bot's choice")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gulbara play",
                                     description="Play Gul Bara in the terminal against a bot.")
    add_arguments(parser)
    return parser


class _Session:
    """One terminal game or match: the loop of prompts, bot moves and commands."""

    def __init__(self, args, stdin: TextIO, stdout: TextIO) -> None:
        self.stdin, self.stdout = stdin, stdout
        isatty = getattr(stdin, "isatty", None)
        self.echo = not (isatty and isatty())
        self.unicode = not args.ascii
        self.human = args.seat
        self.bot = make_bot(args.bot, seed=args.bot_seed)
        self.bot_name = bot_label(args.bot)
        self.args_hint = getattr(args, "hint_bot", "net")
        self.hinter: Optional[NetBot] = None
        rules = Rules.from_text(args.rules, where="--rules")
        self.game: Union[Match, Game]
        if args.match is not None:
            self.game = Match(rules, target=args.match, seed=args.seed)
        else:
            self.game = Game(rules, seed=args.seed)
        self.record_path = args.record
        if self.record_path:                 # checked now, not after the whole game
            check_output_path(self.record_path, "--record")
        self.marks: List[int] = []           # plies before each of the human's own plays
        self.games_seen = 1

    # -- output --------------------------------------------------------------

    def say(self, text: str = "") -> None:
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def name(self, seat: int) -> str:
        who = "you" if seat == self.human else f"{self.bot_name} bot"
        return f"{SEAT_NAMES[seat]} ({who})"

    def current_game(self) -> Game:
        return self.game.game if isinstance(self.game, Match) else self.game

    def plies(self) -> int:
        if isinstance(self.game, Match):
            return sum(game.plies for game in self.game.games)
        return self.game.plies

    def show_board(self) -> None:
        self.say(render_board(self.current_game().position, self.human, self.unicode))

    def show_decision(self) -> None:
        decision = self.game.decision
        assert decision is not None                  # the game waits for a stage
        ends = self.game.legal_plays()
        self.say()
        self.show_board()
        self.say(f"Dice: {_dice_text(decision.roll, self.unicode)}    {_stage_text(decision)}")
        self.say(f"Your legal plays ({len(ends)}; {ends.playable_dice} of the dice "
                 f"{'-'.join(map(str, ends.dice))} to play, or fewer to win the game):"
                 if any(play.ends_game and len(play.steps) < ends.playable_dice
                        for play in ends) else
                 f"Your legal plays ({len(ends)}; {ends.playable_dice} of the dice "
                 f"{'-'.join(map(str, ends.dice))} to play):")
        for k, play in enumerate(ends[:_SHOWN_PLAYS], 1):
            note = "  (wins the game)" if play.ends_game else ""
            self.say(f"  {k:>3}. {play}{note}")
        if len(ends) > _SHOWN_PLAYS:
            self.say(f"  ... {len(ends)} in all: type the play in notation")

    # -- the loop --------------------------------------------------------------

    def run(self) -> int:
        from gulbara.glyphs import glyph
        symbol = glyph(self.human, self.unicode)
        self.say(f"Gul Bara: you play {SEAT_NAMES[self.human]} ({symbol}) against the "
                 f"{self.bot_name} bot. Type 'help' for help.")
        if isinstance(self.game, Match):
            self.say(f"A match to {self.game.target} point{'' if self.game.target == 1 else 's'}.")
        self.announce_opening()
        while not self.game.is_over():
            decision = self.game.decision
            assert decision is not None              # a game that goes on waits for a stage
            if decision.seat != self.human:
                self.bot_turn()
                continue
            ends = self.game.legal_plays()
            if len(ends) == 1 and ends[0].is_empty():
                self.say(f"\nDice: {_dice_text(decision.roll, self.unicode)}    "
                         f"{_stage_text(decision)}")
                self.say("You cannot move: pass.")
                self.play(ends[0])
                continue
            self.show_decision()
            if not self.prompt():
                self.say("Bye.")
                self.save_record()                    # the game so far
                return 0
        self.finish()
        return 0

    def announce_opening(self) -> None:
        game = self.current_game()
        pairs = ", ".join(f"{w}-{b}" for w, b in game.openings)
        starter = game.starter
        if starter is not None:
            self.say(f"Opening roll (White's die - Black's die): {pairs}; "
                     f"{self.name(starter)} starts.")

    def play(self, play) -> None:
        before = self.games_number()
        self.game.play(play)
        if isinstance(self.game, Match) and self.games_number() != before:
            finished = self.game.games[before - 1].result()
            assert finished is not None
            self.say(f"\nGame {before} is over: {finished.describe()}. "
                     f"Score: White {self.game.scores[0]}, Black {self.game.scores[1]}.")
            self.say(f"\nGame {self.games_number()}.")
            self.announce_opening()

    def games_number(self) -> int:
        return self.game.game_number if isinstance(self.game, Match) else 1

    def bot_turn(self) -> None:
        decision = self.game.decision
        assert decision is not None                  # the game waits for a stage
        play = self.bot.choose(self.game)
        dice = _dice_text(decision.roll, self.unicode)
        if play.is_empty():
            self.say(f"{self.name(decision.seat)} rolled {dice}: {_stage_text(decision)}: "
                     "cannot move, pass.")
        else:
            self.say(f"{self.name(decision.seat)} rolled {dice}: {_stage_text(decision)}: "
                     f"plays {play}.")
        self.play(play)

    def read_line(self, prompt: str) -> str:
        """One line of input with its newline, ``""`` at the end; in a terminal through
        ``input()`` with line editing and history (readline, where Python has it)."""
        if self.stdin is sys.stdin and self.stdout is sys.stdout and not self.echo:
            try:
                import readline  # noqa: F401  (arrow keys, history: input() uses it)
            except ImportError:
                pass
            try:
                return input(prompt) + "\n"
            except EOFError:
                return ""
        self.stdout.write(prompt)
        self.stdout.flush()
        return self.stdin.readline()

    def prompt(self) -> bool:
        """Read commands until a play is made; ``False`` to quit."""
        while True:
            line = self.read_line("> ")
            if not line:
                self.say()
                return False
            text = line.strip()
            if self.echo:                     # a script's input, shown as if typed
                self.say(text)
            command = text.lower()
            if not text:
                continue
            if command in ("quit", "q", "exit"):
                return False
            if command in ("help", "?", "h"):
                self.say(HELP)
                continue
            if command in ("board", "b"):
                self.show_board()
                continue
            if command == "hint":
                self.hint()
                continue
            if command in ("undo", "u"):
                if self.undo():
                    return True
                continue
            ends = self.game.legal_plays()
            try:
                if text.isdecimal():          # digits int() reads (not '²' or '①')
                    k = int(text)
                    if not 1 <= k <= min(len(ends), _SHOWN_PLAYS):
                        self.say(f"No play number {k}: choose 1 to {min(len(ends), _SHOWN_PLAYS)}.")
                        continue
                    choice = ends[k - 1]
                else:
                    choice = ends.parse(text)
            except GulBaraError as exc:
                self.say(f"Not a legal play: {exc}")
                continue
            self.marks.append(self.plies())
            self.say(f"You play {choice}.")
            self.play(choice)
            return True

    def hint(self) -> None:
        if self.args_hint == "greedy":
            self.say(f"Hint: {GreedyBot().choose(self.game)} (the greedy bot's choice)")
            return
        from gulbara.bots.netbot import NetBot
        if self.hinter is None:
            self.hinter = NetBot()
        game = self.game.game if isinstance(self.game, Match) else self.game
        ranked = self.hinter.rank(game)
        self.say(f"Hint: {ranked[0][0]} (the net bot's choice); equities in points for you:")
        for k, (play, value) in enumerate(ranked[:5], 1):
            self.say(f"  {k}. {str(play):<28} {value:+.3f}")

    def undo(self) -> bool:
        if not self.marks:
            self.say("Nothing to undo.")
            return False
        target = self.marks.pop()
        while self.plies() > target:
            self.game.undo()
        self.say("Undone: your last play and everything after it (the dice stay the same).")
        return True

    def finish(self) -> None:
        self.say()
        self.show_board()
        if isinstance(self.game, Match):
            game_result = self.game.game.result()
            match_result = self.game.result()
            assert game_result is not None and match_result is not None
            white, black = self.game.scores
            self.say(f"Game {self.game.game_number} is over: {game_result.describe()}.")
            winner = match_result.winner
            self.say(f"Match over: {self.name(winner)} wins the match {max(white, black)}-"
                     f"{min(white, black)}.")
        else:
            result = self.game.result()
            assert result is not None
            self.say(f"Game over: {result.describe()}.")
            if result.winner is not None:
                self.say("You win!" if result.winner == self.human else "The bot wins.")
        self.save_record()

    def save_record(self) -> None:
        """``--record``: the game (or match) as played so far, written to its file."""
        if self.record_path:
            from gulbara.game.record import write_record
            record = write_record(self.game)
            try:
                with replaced_atomically(self.record_path) as handle:
                    handle.write(record)
            except OSError as exc:               # the game's record is not lost: shown here
                self.say(f"Cannot write the record to {self.record_path}: "
                         f"{exc.strerror or exc}. The record:\n{record}")
                return
            self.say(f"Record written to {self.record_path}.")


def run(args, stdin: Optional[TextIO] = None, stdout: Optional[TextIO] = None) -> int:
    """Run ``gulbara play`` with parsed ``args`` on the given streams."""
    stdin = stdin if stdin is not None else sys.stdin
    stdout = stdout if stdout is not None else sys.stdout
    try:
        session = _Session(args, stdin, stdout)
    except GulBaraError as exc:
        print(f"gulbara play: {exc}", file=sys.stderr)
        return 2
    try:
        return session.run()
    except KeyboardInterrupt:
        stdout.write("\nBye.\n")
        session.save_record()                   # the game so far, as on quit
        return 0
    except BrokenPipeError:            # the output was closed (e.g. piped into head)
        return 0


def main(argv: Optional[List[str]] = None) -> int:
    return run(build_parser().parse_args(argv))
