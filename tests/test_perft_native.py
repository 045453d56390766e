"""The native perft (gulbara.game._perft) against the Python perft (RULES §10).

* Every line of the golden tables ``tests/data/*.perft`` (``start.perft`` and
  ``states.perft``; the lines marked ``slow`` with ``pytest -m slow``).
* A few hundred full game states reached by seeded random play with explicit
  dice (chance nodes, plain stages, chains at their first and later stages,
  remainders, stuck counts, bear-offs near the end, finished games), under
  eight rule variants, at depths 1 and 2: the same perft and the same divide as
  the Python perft through :class:`gulbara.Game`; the native state struct
  writes back the same state code, and every child state (after each roll,
  after each end) is the one ``Game`` reaches.
* The nodes-only count of one stage against ``len(stage_ends)``.
* The API: errors, the engine switch, the GIL released, ``gulbara perft --json``, the
  rows of ``gulbara bench``.

On a perft mismatch the message prints ``divide`` from both engines.
"""

import json
import random
import threading
from collections import defaultdict

import pytest

from conftest import DATA
from gulbara import Game, Rules
from gulbara.core import _movegen
from gulbara.tools.bench import perft_rows
from gulbara.game.perft import divide, divide_python, perft, perft_python
from positions import mixed_positions

from gulbara.game import _perft

from gulbara.game import _state   # compiled in every build: no skipping
from conftest import read_perft_table as read_table




TABLES = sorted(DATA.glob("*.perft"))
ROWS = [row for path in TABLES for row in read_table(path)]


def row_id(row):
    return f"{row['file']}-{row['rules']}-d{row['depth']}-{row['state'][-36:]}"


def divide_report(game, depth, python_too=True):
    """Both divides side by side, the rows that differ first."""
    native = divide(game, depth, engine="native") if depth >= 1 else []
    python = divide_python(game, depth, cache={}) if depth >= 1 and python_too else []
    lines = [f"state {game.state_code()} rules {game.rules} depth {depth}"]
    if python_too:
        want = dict(python)
        diff = [(label, count, want.get(label)) for label, count in native
                if want.get(label) != count]
        diff += [(label, None, count) for label, count in python
                 if label not in dict(native)]
        lines.append(f"differing rows (label, native, python): {diff}")
        lines.append(f"python divide: {python}")
    lines.append(f"native divide: {native}")
    return "\n".join(lines)


def game_of(row):
    return Game.from_state_code(row["state"], Rules.from_text(row["rules"]))


# -- the golden tables ---------------------------------------------------------------

def test_tables_are_there_and_name_full_states():
    names = {path.name for path in TABLES}
    assert {"start.perft", "states.perft"} <= names
    states = [row for row in ROWS if row["file"] == "states.perft"]
    assert len(states) >= 30
    for row in ROWS:
        assert game_of(row).state_code() == row["state"]       # canonical state codes


@pytest.mark.parametrize("row", [r for r in ROWS if not r["slow"]], ids=row_id)
def test_table_lines(row):
    game = game_of(row)
    got = perft(game, row["depth"])
    assert got == row["nodes"], (
        f"native perft {got} != {row['nodes']}\n"
        + divide_report(game, row["depth"], python_too=row["nodes"] < 2_000_000))


@pytest.mark.slow
@pytest.mark.parametrize("row", [r for r in ROWS if r["slow"]], ids=row_id)
def test_slow_table_lines(row):
    game = game_of(row)
    got = perft(game, row["depth"])
    assert got == row["nodes"], f"native perft {got} != {row['nodes']}\n" + divide_report(
        game, row["depth"], python_too=False)


def test_states_table_with_the_python_perft():
    """The lines of states.perft the Python perft does quickly, through Game on the core."""
    rows = [r for r in ROWS if r["file"] == "states.perft" and not r["slow"]
            and r["nodes"] <= 300_000]
    assert len(rows) >= 20
    for row in rows:
        assert perft_python(game_of(row), row["depth"], {}) == row["nodes"], row_id(row)


# -- random reachable states ----------------------------------------------------------

VARIANTS = {
    "default": Rules(),
    "escalation-off": Rules(escalation=False),
    "exempt-0": Rules(exempt_rolls=0),
    "game-wide": Rules(exempt_counting="game_wide"),
    "remainder-lost": Rules(remainder="lost"),
    "unstarted-to-opponent": Rules(unstarted_chain="to_opponent"),
    "starter-rerolls": Rules(opening="starter_rerolls"),
    "stuck-limit-1": Rules(stuck_limit=1),
}

# states per category and variant
QUOTA = {"opening": 1, "roll": 8, "play": 8, "chain-first": 6, "chain-later": 6,
         "unstarted": 3, "remainder": 8, "remainder-pass": 3, "stuck": 4, "near-end": 8,
         "over": 2}
AT_LEAST = 45


def walk(rules, seed):
    """Every node (state code) of one random game with explicit dice, the opening included:
    half the games open with ``roll`` (White starts, RULES §10.5), half with ``roll_opening``."""
    rng = random.Random(seed)
    game = Game(rules, auto_roll=False)
    codes = []
    while True:
        codes.append(game.state_code())
        if game.is_over():
            return codes
        if game.is_opening():
            if seed % 2:
                rolls = game.chance_rolls()
                game.roll(*rolls[rng.randrange(len(rolls))])
            else:
                game.roll_opening(rng.randint(1, 6), rng.randint(1, 6))
        elif game.is_chance():
            game.roll(rng.randint(1, 6), rng.randint(1, 6))
        else:
            plays = game.legal_plays()
            game.play(plays[rng.randrange(len(plays))])


def category(code):
    words = dict(word.split("=", 1) for word in code.split()[1:])
    what = words["next"]
    if what == "opening":
        return "opening"
    if what == "over":
        return "over"
    if what.startswith("remainder"):
        return "remainder"
    if what.startswith("chain"):
        return "chain-first" if words["index"] == "0" else "chain-later"
    if int(words["stuck"]) > 0:
        return "stuck"
    off = [int(n) for n in code.split()[0].split("|")[2].split(",")]
    if max(off) >= 10:
        return "near-end"
    return "roll" if what.startswith("roll") else "play"


def with_stuck(code, stuck):
    words = code.split()
    return " ".join(words[:-1] + [f"stuck={stuck}"])


def sample_states(name, rules):
    """About 50 states of the variant, chosen by category from 40 seeded games (topped up
    with roll and play states when a variant has no chains), plus a few rewritten one roll
    short of the stuck limit (RULES §7.2)."""
    rng = random.Random(f"perft-{name}")
    pool = defaultdict(list)
    for seed in range(40):
        for code in walk(rules, 1000 * len(name) + seed):
            kind = category(code)
            if kind in ("chain-first", "remainder") and \
                    Game.from_state_code(code, rules).legal_plays().playable_dice == 0:
                # the first stage of a chain that cannot start (RULES §5.2), a remainder
                # stage passed (its dice lost, RULES §5.3; not a stuck roll, RULES §7.2)
                kind = "unstarted" if kind == "chain-first" else "remainder-pass"
            pool[kind].append(code)
    chosen = []
    for kind, quota in QUOTA.items():
        codes = pool[kind]
        chosen += rng.sample(codes, min(quota, len(codes)))
    spare = [c for c in pool["roll"] + pool["play"] if c not in chosen]
    chosen += rng.sample(spare, max(0, AT_LEAST - len(chosen)))
    if rules.stuck_limit is not None and rules.stuck_limit > 1:
        chance = [c for c in pool["roll"] + pool["near-end"] if "next=roll" in c]
        chosen += [with_stuck(c, rules.stuck_limit - 1) for c in rng.sample(chance, 3)]
    return chosen


STATES = {name: sample_states(name, rules) for name, rules in VARIANTS.items()}


def python_children(game):
    """The state codes after each roll (chance node) or each end (decision), through Game."""
    work = game.copy(auto_roll=False)
    out = []
    if work.is_over():
        return out
    if work.is_chance():
        for roll in work.chance_rolls():
            work.roll(*roll)
            out.append(work.state_code())
            work.undo()
        return out
    for play in work.legal_plays():
        work.play(play)
        out.append(work.state_code())
        work.undo()
    return out


def test_samples_cover_every_kind_of_state():
    for name, codes in STATES.items():
        kinds = {category(code) for code in codes}
        assert {"roll", "play", "near-end", "over"} <= kinds, (name, kinds)
        if VARIANTS[name].escalation:
            assert {"chain-first", "chain-later"} <= kinds, (name, kinds)
            if VARIANTS[name].remainder == "to_opponent":
                assert "remainder" in kinds, name
        assert len(codes) >= AT_LEAST, name
    everything = [c for codes in STATES.values() for c in codes]
    assert len(everything) >= 380
    assert sum(category(c) == "remainder" for c in everything) >= 20
    assert sum(category(c) == "stuck" for c in everything) >= 10
    passes = [c for name, codes in STATES.items() for c in codes if category(c) == "remainder"
              and Game.from_state_code(c, VARIANTS[name]).legal_plays().playable_dice == 0]
    assert len(passes) >= 3


@pytest.mark.parametrize("name", list(VARIANTS))
def test_random_states_perft_and_divide(name):
    rules = VARIANTS[name]
    for code in STATES[name]:
        game = Game.from_state_code(code, rules)
        assert _state._py_state_code(game) == code
        assert _perft._py_children(game) == python_children(game), code
        for depth in (0, 1, 2):
            want = perft_python(game, depth, {})
            got = perft(game, depth)
            assert got == want, (f"{name}: native {got} != python {want}\n"
                                 + divide_report(game, max(depth, 1)))
        assert divide(game, 1) == divide_python(game, 1), code


@pytest.mark.parametrize("name", ["default", "remainder-lost", "unstarted-to-opponent"])
def test_random_states_divide_depth_2(name):
    rules = VARIANTS[name]
    codes = [c for c in STATES[name] if category(c) in ("chain-first", "chain-later",
                                                          "remainder", "play")]
    for code in codes[:12]:
        game = Game.from_state_code(code, rules)
        assert divide(game, 2) == divide_python(game, 2, cache={}), code


def test_perft_from_games_with_automatic_dice():
    for seed in range(6):
        game = Game(seed=seed)
        for _ in range(seed * 7):
            plays = game.legal_plays()
            game.play(plays[seed % len(plays)])
            if game.is_over():
                break
        before = game.state_code()
        assert perft(game, 2) == perft_python(game, 2, {})
        assert game.state_code() == before


# -- the nodes-only count of one stage ---------------------------------------------------

STAGES = ([[a, b] for a in range(6, 0, -1) for b in range(a - 1, 0, -1)]
          + [[d] * k for d in range(1, 7) for k in (1, 2, 3, 4)])


def test_count_stage_is_the_number_of_ends():
    checked = 0
    for code, seat in mixed_positions(4242, 400):
        for dice in STAGES:
            want = len(_movegen.stage_ends(code, seat, dice))
            assert _perft._py_count_stage(code, seat, dice) == want, (code, seat, dice)
            checked += 1
    assert checked == 400 * len(STAGES)


# -- API and CLI --------------------------------------------------------------------------

def test_api():
    root = Game.new_perft_root()
    assert perft(root, 0) == 1 and perft(root, 1) == 30
    assert perft(root, 2, engine="python") == perft(root, 2, engine="native") == 1576
    assert divide(root, 1)[:2] == [("6-5 24/18 24/19", 1), ("6-5 24/13", 1)]
    assert divide(root, 2) == divide_python(root, 2)
    over = Game.from_state_code(
        "G:,,,,,,,,,,,-15,,,,,,,,,,,,|0,0|15,0 next=over result=W:2:mars rolls=20,19 stuck=0")
    assert perft(over, 5) == 1 and divide(over, 2) == []
    with pytest.raises(ValueError):
        perft(root, -1)
    for bad in (1.0, True, "2"):                    # a wrong type: TypeError (checked_int)
        with pytest.raises(TypeError):
            perft(root, bad)
    with pytest.raises(ValueError):
        divide(root, 0)
    with pytest.raises(ValueError):
        perft(root, 1, engine="fast")
    with pytest.raises(ValueError):
        perft(root, 65)
    with pytest.raises(TypeError):
        perft(root.state_code(), 1)


def test_the_gil_is_released():
    """A Python thread keeps running while a native perft counts."""
    game = Game.from_state_code(
        "G:-1,-3,-1,,-1,-1,-1,-1,-1,6,5,1,1,1,1,,,,,-1,-1,-1,-1,-1|0,0|0,0 "
        "next=chain:W stage=3-3-3-3 index=2 roll=1-1 rolls=17,17 stuck=0",
        Rules(remainder="lost"))
    started = threading.Event()
    result = []

    def count():
        started.set()
        result.append(perft(game, 3))

    worker = threading.Thread(target=count)
    worker.start()
    started.wait()
    ticks = 0
    while worker.is_alive():
        ticks += 1
    worker.join()
    assert result == [3944664]
    assert ticks > 1000


def test_gulbara_perft_command(capsys):
    from gulbara.cli import main
    assert main(["perft", "3"]) == 0
    out = capsys.readouterr().out
    assert "perft(3) = 262810" in out and "nodes/s" in out and "native" in out
    assert main(["perft", "3", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["depth"] == 3 and report["nodes"] == 262810
    assert report["seconds"] > 0 and report["nodes_per_second"] > 0
    assert report["engine"] == "native"
    state = "G:,,,,,1,,,,,,-14,,,,,,-1,,,,,,14|0,0|0,0 next=roll:W rolls=5,5 stuck=0"
    assert main(["perft", "2", "--state", state, "--rules", "stuck_limit=1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["nodes"] == 4683
    assert main(["perft", "1", "--divide", "--json", "--engine", "python"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["nodes"] == 30 and report["divide"][0] == ["6-5 24/18 24/19", 1]
    assert main(["perft", "2", "--engine", "python"]) == 0
    assert "perft(2) = 1576" in capsys.readouterr().out
    assert main(["perft", "-1"]) == 2


def test_bench_rows():
    """The perft rows of ``gulbara bench`` (each checks its count before timing)."""
    rows = perft_rows(1)
    assert [row["measure"] for row in rows] == [
        "perft, start depth 3, M leaves/s", "perft, start depth 4, M leaves/s",
        "perft, mid-game depth 3, M leaves/s"]
    assert all(row["core"] > 0 for row in rows)
    assert rows[0]["reference"] > 0 and rows[0]["ratio"] > 1
