"""One grammar in every subcommand (rules, seats, positions, states), extras checked first,
clean errors, ``--version``; the import error of an unbuilt source tree. Through subprocesses."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import gulbara
from gulbara import START_CODE, Game
from gulbara.glyphs import ASCII, UNICODE
from gulbara.game.state_codes import state_code

ROOT = Path(__file__).resolve().parents[1]
MID = "G:1,,,,2,-4,,,,,1,-8,,1,,1,-1,2,2,,-1,-1,,5|0,0|0,0"
RACE = "G:,1,,1,,,,,,,,,-12,,,,,,,,,,,|0,0|13,3"


def gulbara_cli(*args, stdin="", env=None, cwd=None):
    environ = {k: v for k, v in os.environ.items() if k != "GULBARA_BACKEND"}
    environ.update(env or {})
    return subprocess.run([sys.executable, "-m", "gulbara", *args], input=stdin,
                          capture_output=True, text=True, timeout=120, env=environ,
                          cwd=cwd or Path.home())


# -- the source tree -------------------------------------------------------------


def test_unbuilt_source_tree_says_what_to_do(tmp_path):
    tree = tmp_path / "clone"
    shutil.copytree(ROOT / "gulbara", tree / "gulbara",
                    ignore=shutil.ignore_patterns("*.so", "*.pyd", "*.c", "__pycache__"))
    (tree / "setup.py").write_text("")
    # -S: no site-packages, so nothing installed can stand in for the unbuilt tree
    proc = subprocess.run([sys.executable, "-S", "-c", "import gulbara"], cwd=tree,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: gulbara is being imported from its source tree")
    assert "pip install -e ." in last and "outside the source tree" in last
    assert "circular import" not in proc.stderr


def test_built_package_is_not_taken_for_unbuilt():
    from gulbara._unbuilt import is_unbuilt
    assert not is_unbuilt(gulbara.__path__[0])


def test_version():
    proc = gulbara_cli("--version")
    assert (proc.returncode, proc.stdout.strip()) == (0, f"gulbara {gulbara.__version__}")


# -- rules -----------------------------------------------------------------------------


@pytest.mark.parametrize("command", [["perft", "1"], ["selfplay", "--games", "4", "-q", "-w", "1"],
                                     ["arena", "random", "first", "--games", "2", "-q"],
                                     ["verify", "--engine", "true", "--perft", "1"],
                                     ["play", "--seed", "1"]])
def test_every_subcommand_takes_presets_and_lists_the_valid_names(command):
    good = gulbara_cli(*command, "--rules", "bulgarian", stdin="quit\n")
    if command[0] != "verify":              # verify then goes on to start the engine `true`
        assert good.returncode == 0, good.stderr
    bad = gulbara_cli(*command, "--rules", "bulgarain", stdin="quit\n")
    assert bad.returncode == 2
    assert "unknown preset or option 'bulgarain'" in bad.stderr
    assert "bulgarian" in bad.stderr and "remainder=to_opponent|lost" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_preset_then_options_in_perft_and_selfplay():
    perft = gulbara_cli("perft", "2", "--rules", "plain-doubles,mars=off", "--json")
    data = json.loads(perft.stdout)
    assert data["nodes"] == gulbara.perft(Game.new_perft_root(gulbara.Rules(
        escalation=False, mars=False)), 2)
    bad = gulbara_cli("perft", "1", "--rules", "mars=maybe")
    assert bad.returncode == 2 and "mars must be on or off; got 'maybe'" in bad.stderr


# -- states: a position code and a side --------------------------------------------------


def test_perft_takes_a_position_and_a_side():
    proc = gulbara_cli("perft", "3", "--state", MID, "--seat", "black", "--json")
    data = json.loads(proc.stdout)
    expected = gulbara.perft(Game.from_state_code(state_code(MID, 1)), 3)
    assert data["nodes"] == expected
    assert data["state"] == f"{MID} next=roll:B rolls=3,3 stuck=0"
    same = json.loads(gulbara_cli("perft", "3", "--state", MID, "--seat", "1", "--json").stdout)
    assert same["nodes"] == expected
    exempt = json.loads(gulbara_cli("perft", "2", "--state", MID, "--seat", "b", "--rolls", "0,0",
                                    "--json").stdout)
    assert exempt["state"].endswith("rolls=0,0 stuck=0")


def test_perft_state_start_is_the_opening():
    proc = gulbara_cli("perft", "2", "--state", "start", "--json")
    assert json.loads(proc.stdout)["nodes"] == 1576


def test_position_without_side_is_a_clear_error():
    proc = gulbara_cli("perft", "1", "--state", MID)
    assert proc.returncode == 2 and "needs the side to roll" in proc.stderr
    proc = gulbara_cli("selfplay", "--games", "3", "--seat", "white", "-q")
    assert proc.returncode == 2 and "--seat and --rolls go with --state" in proc.stderr


def test_selfplay_rollout_prints_each_seat_without_nan():
    proc = gulbara_cli("selfplay", "--games", "300", "--state", RACE, "--seat", "black",
                       "-q", "-w", "1")
    assert proc.returncode == 0, proc.stderr
    assert "nan" not in proc.stdout
    white, black = proc.stdout.splitlines()[-2:]
    assert white.startswith("White: win ") and "equity +" in white and "mars" in white
    assert black.startswith("Black: win ") and "equity -" in black


def test_selfplay_json_has_equity_and_no_nan():
    proc = gulbara_cli("selfplay", "--games", "300", "--state", RACE, "--seat", "0", "-q",
                       "-w", "1", "--json")
    assert "NaN" not in proc.stdout
    data = json.loads(proc.stdout)
    assert data["first_player_win_rate"] is None            # no opening in this rollout
    assert data["white_equity"] == pytest.approx(-data["black_equity"])
    for key in ("white_win_probability", "black_mars_probability", "white_equity_low",
                "black_equity_high"):
        assert isinstance(data[key], float)
    python = gulbara.selfplay.games.rollout(RACE, 300, seat="white", seed=0, workers=1)
    assert data["white_equity"] == python.equity[0].value


# -- extras, rounds ----------------------------------------------------------------------


def _without(module, *args):
    code = (f"import sys; sys.modules[{module!r}] = None; from gulbara.cli import main; "
            f"sys.exit(main({list(args)!r}))")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, cwd=Path.home())


def test_plot_without_matplotlib_fails_before_playing(tmp_path):
    proc = _without("matplotlib", "selfplay", "--games", "100000000", "--plot",
                    str(tmp_path / "x.png"))
    assert proc.returncode == 2
    assert 'pip install "gulbara[plot]"' in proc.stderr
    assert "games/s" not in proc.stderr and not (tmp_path / "x.png").exists()


def test_png_without_cairosvg_fails_before_drawing(tmp_path):
    proc = _without("cairosvg", "show", "start", "-o", str(tmp_path / "x.png"))
    assert proc.returncode == 2 and 'pip install "gulbara[pictures]"' in proc.stderr


def test_plot_table_comes_first(tmp_path, monkeypatch, capsys):
    pytest.importorskip("matplotlib")
    from gulbara.cli import main, selfplay

    def fails(result, path):
        raise OSError("the disk is full")

    monkeypatch.setattr(selfplay, "plot_result", fails)
    assert main(["selfplay", "--games", "50", "-q", "-w", "1", "--plot",
                 str(tmp_path / "x.png")]) == 2
    out, err = capsys.readouterr()
    assert "White's win rate" in out and "the disk is full" in err


def test_regression_selfplay_output_files_are_checked_before_playing(tmp_path):
    """--out to a missing directory or a directory, and --plot of an unknown format, failed
    with a traceback after all the games."""
    pytest.importorskip("matplotlib")
    for option, path, says in (
            ("--out", tmp_path / "bad-dir" / "x.json", "there is no directory"),
            ("--out", tmp_path, "is a directory"),
            ("--plot", tmp_path / "bad-dir" / "x.png", "there is no directory"),
            ("--plot", tmp_path / "x.unknownext", "cannot write .unknownext")):
        proc = gulbara_cli("selfplay", "--games", "200", "-w", "1", option, str(path))
        assert proc.returncode == 2 and says in proc.stderr, proc.stderr
        assert "Traceback" not in proc.stderr and "games/s" not in proc.stderr
        assert proc.stdout == ""


def test_bench_rounds_zero_is_a_clean_error():
    proc = gulbara_cli("bench", "--rounds", "0")
    assert proc.returncode == 2
    assert "--rounds must be >= 1, got 0" in proc.stderr and "Traceback" not in proc.stderr


# -- seats, start, glyphs ------------------------------------------------------------------


def test_seats_as_words_or_numbers_everywhere():
    assert gulbara_cli("moves", "6", "5", "--seat", "black").stdout == \
        gulbara_cli("moves", "6", "5", "--seat", "1").stdout
    assert "Black to play 6-5" in gulbara_cli("moves", "6", "5", "-s", "B").stdout
    assert gulbara_cli("show", "start", "--turn", "1").stdout == \
        gulbara_cli("show", "start", "--turn", "black").stdout
    play = gulbara_cli("play", "--seat", "1", "--seed", "24", stdin="quit\n")
    assert "you play Black" in play.stdout
    bad = gulbara_cli("moves", "6", "5", "--seat", "red")
    assert bad.returncode == 2 and "seat must be 0/1 or white/black, got 'red'" in bad.stderr


def test_start_wherever_a_position_is_taken():
    assert gulbara_cli("moves", "6", "5", "--position", "start").stdout == \
        gulbara_cli("moves", "6", "5", "--position", START_CODE).stdout
    answer = gulbara_cli("ends", stdin=json.dumps({"position": "start", "seat": 0,
                                                   "dice": [6, 5]}) + "\n")
    assert len(json.loads(answer.stdout)["ends"]) == 2


def test_ends_answers_a_blank_line():
    proc = gulbara_cli("ends", stdin="\n")
    assert "empty line" in json.loads(proc.stdout)["error"]


def test_one_set_of_glyphs():
    from gulbara.envs._render import render_text
    from gulbara.envs._driver import StepGame
    from gulbara.cli.play import render_board
    board = gulbara.Board()
    assert "15O" in board.ascii() and "15X" in board.ascii()
    plain = render_board(board.position, unicode=False)
    assert ASCII[0] in plain and ASCII[1] in plain and UNICODE[0] not in plain
    fancy = render_board(board.position)
    assert UNICODE[0] in fancy and UNICODE[1] in fancy
    assert render_text(StepGame(Game(seed=1))).startswith(board.ascii().rsplit("\n", 1)[0])


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal (POSIX)")
def test_play_has_line_editing_in_a_terminal():
    """An arrow key in ``gulbara play`` is line editing, not ``^[[A`` in the command."""
    import select
    import time
    pytest.importorskip("readline")
    master, slave = os.openpty()
    environ = {k: v for k, v in os.environ.items() if k != "GULBARA_BACKEND"}
    environ["TERM"] = "xterm"
    proc = subprocess.Popen([sys.executable, "-m", "gulbara", "play", "--seed", "24"],
                            stdin=slave, stdout=slave, stderr=slave, env=environ,
                            cwd=Path.home(), close_fds=True)
    os.close(slave)
    out = b""

    def read_until(marker, seconds=60):
        nonlocal out
        end = time.monotonic() + seconds
        while marker not in out and time.monotonic() < end:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    out += os.read(master, 65536)
                except OSError:
                    break
        return marker in out

    try:
        assert read_until(b"> ")
        os.write(master, b"quix\x1b[D\x1b[3~t\r")       # left arrow, delete: "quit"
        assert read_until(b"Bye."), out[-500:]
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)


def test_regression_damaged_network_files_are_messages(tmp_path):
    """selfplay --policy and train --init/--teacher with a damaged .npz ended in a
    zipfile.BadZipFile traceback."""
    from gulbara.net.model import DEFAULT_NET_PATH
    data = Path(DEFAULT_NET_PATH).read_bytes()
    damaged = tmp_path / "damaged.npz"
    damaged.write_bytes(data[:len(data) // 2])
    train = ["train", "--games", "20", "--checkpoint", "20", "--eval-pairs", "1", "--out",
             str(tmp_path / "t.npz")]
    for args in (["selfplay", "--games", "3", "-q", "-w", "1", "--policy", str(damaged)],
                 train + ["--init", str(damaged)],
                 train + ["--target", "teacher", "--teacher", str(damaged)]):
        proc = gulbara_cli(*args)
        assert proc.returncode == 2, proc.stderr
        assert "cannot read weights" in proc.stderr and "Traceback" not in proc.stderr
