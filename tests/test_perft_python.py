"""perft over game states in Python (RULES §10), checked with the core and the naive reference.

tests/data/start.perft names each full state (Game.state_code) with its rules,
depth and value (its header documents the format). Every line is recomputed
with the core here; every line not marked ``slow`` is also recomputed with the
package switched onto the naive reference generator, in subprocesses with
GULBARA_BACKEND=reference.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import read_perft_table, DATA
from gulbara import Game, Rules
# the Python perft through Game (gulbara.perft and gulbara.divide are the native core by default;
# tests/test_perft_native.py checks them against these)
from gulbara.game.perft import divide_python as divide
from gulbara.game.perft import perft_python as perft

# subprocesses import the same gulbara as this process (installed, or the source tree)
PACKAGE_PARENT = str(Path(__import__("gulbara").__file__).resolve().parents[1])
START = "G:,,,,,,,,,,,-15,,,,,,,,,,,,15|0,0|0,0 next=opening rolls=0,0 stuck=0"


def read_table(path=DATA / "start.perft"):
    return read_perft_table(path)


TABLE = read_table()


def compute(row):
    game = Game.from_state_code(row["state"], Rules.from_text(row["rules"]))
    return perft(game, row["depth"], cache={})


def test_table_covers_the_start_at_depths_1_to_3():
    start = {row["depth"]: row["nodes"] for row in TABLE
             if row["state"] == START and row["rules"] == "default"}
    assert start[1] == 30 and start[2] == 1576 and start[3] == 262810
    for row in TABLE:
        game = Game.from_state_code(row["state"], Rules.from_text(row["rules"]))
        assert game.state_code() == row["state"]           # the state code is canonical


@pytest.mark.parametrize("row", [r for r in TABLE if not r["slow"]],
                         ids=lambda r: f"{r['rules']}-d{r['depth']}-{r['state'][-40:]}")
def test_table_with_the_core(row):
    assert compute(row) == row["nodes"], divide_report(row)


@pytest.mark.slow
@pytest.mark.parametrize("row", [r for r in TABLE if r["slow"]],
                         ids=lambda r: f"{r['rules']}-d{r['depth']}")
def test_slow_table_lines_with_the_core(row):
    assert compute(row) == row["nodes"]


def divide_report(row):
    game = Game.from_state_code(row["state"], Rules.from_text(row["rules"]))
    return "\n".join(f"{label}: {count}" for label, count in divide(game, row["depth"], cache={}))


REFERENCE_SCRIPT = """
import json, sys
import gulbara
from gulbara.game.driver import Game
from gulbara.game.perft import NATIVE, perft
assert gulbara.BACKEND_NAME == "reference" and not NATIVE, gulbara.BACKEND_NAME
rows = json.loads(sys.stdin.read())
out = []
for row in rows:
    game = Game.from_state_code(row["state"], gulbara.Rules.from_text(row["rules"]))
    out.append(perft(game, row["depth"], cache={}))
print(json.dumps(out))
"""


def test_table_with_the_reference():
    rows = [r for r in TABLE if not r["slow"]]
    # two subprocesses side by side: the start at depth 3 (the longest) and the rest
    heavy = [r for r in rows if r["state"] == START and r["depth"] == 3]
    groups = [heavy, [r for r in rows if r not in heavy]]
    env = dict(os.environ, GULBARA_BACKEND="reference",
               PYTHONPATH=PACKAGE_PARENT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    procs = [subprocess.Popen([sys.executable, "-c", REFERENCE_SCRIPT], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=env, cwd=PACKAGE_PARENT) for _ in groups]
    for proc, group in zip(procs, groups):
        proc.stdin.write(json.dumps(group))
        proc.stdin.close()
    for proc, group in zip(procs, groups):
        out, err = proc.stdout.read(), proc.stderr.read()
        assert proc.wait(timeout=300) == 0, err
        values = json.loads(out)
        assert values == [r["nodes"] for r in group]
    assert heavy and heavy[0]["nodes"] == 262810


def test_perft_rules():
    root = Game.new_perft_root()
    assert perft(root, 0) == 1                                   # RULES §10.1
    assert perft(root, 1) == 30                                  # RULES §10.5: 15 rolls x 2 ends
    assert root.state_code() == START                            # the game is not changed
    rerolls = Game.new_perft_root(Rules(opening="starter_rerolls"))
    assert len(rerolls.chance_rolls()) == 21 and perft(rerolls, 1) == 53
    over = Game.from_state_code(
        "G:,,,,,,,,,,,-15,,,,,,,,,,,,|0,0|15,0 next=over result=W:2:mars rolls=20,19 stuck=0")
    assert perft(over, 3) == 1                                   # RULES §10.4
    # the same board, different states, different values (RULES §10.6)
    chain = ("G:-1,-3,-1,,-1,-1,-1,-1,-1,6,5,1,1,1,1,,,,,-1,-1,-1,-1,-1|0,0|0,0 "
             "next=chain:W stage=3-3-3-3 index=2 roll=1-1 rolls=17,17 stuck=0")
    assert perft(Game.from_state_code(chain), 2) == 13
    assert perft(Game.from_state_code(chain, Rules(remainder="lost")), 2) == 8783
    with pytest.raises(ValueError):
        perft(root, -1)


def test_divide_sums_to_perft_and_perft_works_on_auto_games():
    root = Game.new_perft_root()
    rows = divide(root, 2)
    assert len(rows) == 30 and sum(count for _, count in rows) == 1576
    assert rows[0] == ("6-5 24/18 24/19", 53)
    game = Game(seed=4)                                          # at a decision, dice rolled
    before = game.state_code()
    value = perft(game, 2)
    assert game.state_code() == before and game.plies == 0
    explicit = Game.from_state_code(before)
    assert perft(explicit, 2) == value == sum(c for _, c in divide(explicit, 2))
    assert perft(explicit, 2, cache={}) == value


def test_gulbara_perft_command(capsys):
    from gulbara.cli import main
    assert main(["perft", "2"]) == 0
    assert "perft(2) = 1576" in capsys.readouterr().out
    assert main(["perft", "1", "--rules", "opening=starter_rerolls", "--divide"]) == 0
    out = capsys.readouterr().out
    assert "3-3 24/21(4): 1" in out and "perft(1) = 53" in out
    assert main(["perft", "1", "--state", "nonsense"]) == 2
