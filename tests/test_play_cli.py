"""``gulbara play``, driven through stdin by a script."""

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gulbara import read_record
from gulbara.cli.play import build_parser, render_board
from gulbara.core._backend import START_CODE, Position

# subprocesses import the same gulbara as this process (installed, or the source tree)
PACKAGE_PARENT = str(Path(__import__("gulbara").__file__).resolve().parents[1])


def run_play(argv, lines):
    """Run ``gulbara play`` in-process on scripted input; returns (exit code, output)."""
    out = io.StringIO()
    from gulbara.cli.play import run
    code = run(build_parser().parse_args(argv), io.StringIO("".join(f"{x}\n" for x in lines)), out)
    return code, out.getvalue()


def test_a_scripted_game_is_played_to_the_end(tmp_path):
    record = tmp_path / "game.txt"
    code, out = run_play(["--seed", "5", "--bot", "random", "--bot-seed", "3", "--seat", "black",
                          "--record", str(record)], ["1"] * 400)
    assert code == 0
    assert "Traceback" not in out
    assert out.count("You play ") > 20 and "random bot) rolled" in out
    assert "Game over: " in out and ("You win!" in out or "The bot wins." in out)
    game = read_record(record.read_text())
    assert game.is_over()
    assert f"Game over: {game.result().describe()}." in out


def test_commands_and_illegal_input_are_explained():
    code, out = run_play(["--seed", "24", "--hint", "greedy"], [
        "help", "board", "hint", "foo", "24/1", "99", "undo", "", "24/18 24/20", "undo",
        "24/14", "quit"])
    assert code == 0 and "Traceback" not in out
    assert "Commands: hint, undo, board, help, quit." in out
    assert "Hint: 24/18 24/20 (the greedy bot's choice)" in out
    assert "Not a legal play: cannot read 'foo'" in out
    assert "Not a legal play: '24/1' is not a legal play of 6-4 for White; legal: " \
           "'24/18 24/20', '24/14'" in out
    assert "No play number 99: choose 1 to 2." in out
    assert "Nothing to undo." in out
    assert "You play 24/18 24/20." in out
    assert "Undone: your last play" in out
    assert "You play 24/14." in out
    assert out.rstrip().endswith("Bye.")
    # after the undo, White's opening is shown again with the same dice
    assert out.count("Dice: 6-4  ⚅⚃    White: opening roll: 6-4") == 2
    assert out.count("Black (greedy bot) rolled 3-1") == 2     # the same dice after undo


def test_the_board_shows_the_players_own_numbering():
    start = Position.from_code(START_CODE)
    white = render_board(start, 0, unicode=False).splitlines()
    black = render_board(start, 1, unicode=False).splitlines()
    assert white[0] == black[0] == "  13 14 15 16 17 18  19 20 21 22 23 24"
    assert white[6] == " |                  |               15 |"   # White's 15 on its 24
    assert black[6] == " |                  |               15 |"   # Black's 15 on its own 24
    assert white[5].endswith("O |") and black[5].endswith("X |")
    assert white[11].startswith(" | X") and black[11].startswith(" | O")
    assert "●" in render_board(start, 0) and "○" in render_board(start, 0)


def test_a_match_and_end_of_input():
    code, out = run_play(["--seed", "3", "--match", "1", "--ascii"], ["1"] * 400)
    assert code == 0 and "Traceback" not in out
    assert "A match to 1 points." in out or "A match to 1 point" in out
    assert "Match over: " in out
    code, out = run_play(["--seed", "3"], ["1", "1"])           # the input runs out: quit
    assert code == 0 and out.rstrip().endswith("Bye.")


def test_bad_options_are_reported_without_a_traceback():
    code, out = run_play(["--rules", "colour=red"], [])
    assert code == 2


def test_the_command_line_entry_point():
    env = dict(os.environ, PYTHONPATH=PACKAGE_PARENT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(
        [sys.executable, "-m", "gulbara", "play", "--seed", "11", "--ascii", "--bot", "greedy"],
        input="1\n" * 400, capture_output=True, text=True, env=env, cwd=PACKAGE_PARENT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert "Game over: " in proc.stdout
    proc = subprocess.run([sys.executable, "-m", "gulbara", "play", "--bot", "clever"],
                          capture_output=True, text=True, env=env, cwd=PACKAGE_PARENT, timeout=60)
    assert proc.returncode == 2 and "unknown bot 'clever'" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("seat", ["white", "black"])
def test_greedy_against_greedy_scripted_with_hints(seat):
    """Typing the hint every time plays the greedy bot against itself, to the end."""
    from gulbara.cli.play import run
    parser = build_parser()
    args = parser.parse_args(["--seed", "8", "--seat", seat, "--hint", "greedy"])

    class HintTyper(io.StringIO):
        """Answers each prompt with the play the last hint suggested."""

        def __init__(self, out):
            super().__init__()
            self.out = out
            self.asked_hint = False

        def readline(self, *args):
            if not self.asked_hint:
                self.asked_hint = True
                return "hint\n"
            self.asked_hint = False
            last = self.out.getvalue().rsplit("Hint: ", 1)[1]
            return last.split(" (the greedy", 1)[0] + "\n"

    out = io.StringIO()
    assert run(args, HintTyper(out), out) == 0
    text = out.getvalue()
    assert "Game over: " in text and "Not a legal play" not in text


def test_hint_lists_the_net_bots_best_plays_with_equities():
    from gulbara import Game
    from gulbara.bots.netbot import NetBot
    code, out = run_play(["--seed", "24"], ["hint", "quit"])
    assert code == 0 and "Traceback" not in out
    ranked = NetBot().rank(Game(seed=24))
    assert f"Hint: {ranked[0][0]} (the net bot's choice); equities in points for you:" in out
    for k, (play, value) in enumerate(ranked, 1):
        assert f"  {k}. {str(play):<28} {value:+.3f}" in out


def test_play_against_the_net_bot():
    code, out = run_play(["--seed", "3", "--bot", "net"], ["1"] * 400)
    assert code == 0 and "Traceback" not in out
    assert "net bot" in out and "Game over: " in out


def test_regression_unicode_digits_and_the_record_path():
    """Typing '²' crashed the game (isdigit() is true, int() refuses it); a --record path
    in a missing directory failed only after the whole game, losing the record."""
    code, out = run_play(["--seed", "3", "--bot", "first"], ["²", "①", "quit"])
    assert code == 0 and "Traceback" not in out
    assert out.count("Not a legal play") == 2
    code, out = run_play(["--seed", "3", "--bot", "first", "--record",
                          os.path.join(os.sep, "nonexistent", "dir", "r.txt")], ["1"] * 400)
    assert code == 2 and "You play" not in out


def test_regression_quitting_writes_the_record_of_the_game_so_far(tmp_path):
    """`echo quit | gulbara play --record rec.txt` wrote no record."""
    from gulbara.game.record import read_record
    record = tmp_path / "rec.txt"
    code, out = run_play(["--seed", "3", "--bot", "first", "--record", str(record)],
                         ["1", "quit"])
    assert code == 0 and "Record written to" in out
    game = read_record(record.read_text(encoding="utf-8"))
    assert not game.is_over() and len(game.plays) >= 1


def test_regression_ctrl_c_in_play_writes_the_record_of_the_game_so_far(tmp_path):
    """Ctrl-C ended a terminal game with no record, though quit writes one."""
    from gulbara.game.record import read_record

    class CtrlC(io.StringIO):
        def readline(self, *args):
            line = super().readline(*args)
            if not line:
                raise KeyboardInterrupt
            return line

    record = tmp_path / "rec.txt"
    out = io.StringIO()
    from gulbara.cli.play import run
    code = run(build_parser().parse_args(["--seed", "3", "--bot", "first", "--record",
                                          str(record)]), CtrlC("1\n"), out)
    assert code == 0 and "Bye." in out.getvalue() and "Record written to" in out.getvalue()
    assert len(read_record(record.read_text(encoding="utf-8")).plays) >= 1


def test_regression_a_roll_is_shown_in_one_order():
    """The terminal game printed a roll twice in two orders: "rolled 4-6 ... roll 1: 6-4"."""
    import re
    code, out = run_play(["--seed", "5", "--bot", "random", "--bot-seed", "3", "--seat",
                          "black"], ["1"] * 400)
    assert code == 0
    pairs = re.findall(r"rolled (\d)-(\d)(?:  \S+)?: \w+: (?:roll \d+|opening roll): (\d)-(\d)",
                       out)
    assert len(pairs) > 10
    assert all((a, b) == (c, d) for a, b, c, d in pairs)
