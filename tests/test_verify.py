"""``gulbara verify`` and ``gulbara bench --engine``: another engine checked and timed.

gulbara's own engine on the reference backend passes; tests/engines/broken_engine.py
(gulbara's engine with one rule broken, or one that hangs, exits or writes garbage)
fails with that rule named, or is reported without being waited for. The
comparison of one answer is tested on hand-changed answers; perft's level-by-level
search on the broken engine and on stand-in engines.
"""

import json
import sys
from pathlib import Path

import pytest

import gulbara
from gulbara.core import _reference
from gulbara.cli import answer_request, main
from gulbara.game.driver import Game
from gulbara.tools.protocol import EngineError, EngineProcess, perft_answer, perft_request
from gulbara.rules import Rules
from gulbara.tools.verify import (Case, EDGE_CASES, RULE_CANONICAL_STEPS, RULE_DISTINCT,
                            RULE_GAME_END, RULE_LARGER_DIE, RULE_MAXIMAL, RULE_ORDER,
                            RULE_PROTOCOL, RULE_STEPS, compare_answer, edge_cases,
                            expected_answer, locate_perft, peer_vector_cases, play_cases,
                            suite_cases, verify_cases)
from conftest import load_gul_bara_cases, read_perft_table, DATA, same_package_environment

BROKEN = Path(__file__).resolve().parent / "engines" / "broken_engine.py"
GULBARA_ENDS = f"{sys.executable} -m gulbara ends"
REFERENCE_ENDS = f"env GULBARA_BACKEND=reference {sys.executable} -m gulbara ends"


def broken(mode):
    return f"{sys.executable} {BROKEN} {mode}"


@pytest.fixture
def engine_env(tmp_path, monkeypatch):
    """Engines started from a directory outside the source tree, importing the very
    package under test (as tests/test_vectors.py runs ``gulbara ends``)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONPATH", same_package_environment()["PYTHONPATH"])


def verify(capsys, *args):
    status = main(["verify", *args])
    return status, capsys.readouterr().out


# ---------------------------------------------------------------------------
# The requests
# ---------------------------------------------------------------------------

def test_bundled_vectors_are_the_test_vectors():
    lines = (Path(gulbara.__file__).parent / "data" / "peer-vectors.jsonl").read_text().splitlines()
    keys = ("position", "seat", "dice", "playableDice", "ends")
    assert [json.loads(line) for line in lines] == [
        {k: case[k] for k in keys} for case in load_gul_bara_cases()]
    cases = peer_vector_cases()                # each checked against gulbara's answer
    assert len(cases) == 67 and cases[0].code == json.loads(lines[0])["position"]


def test_edge_cases_agree_with_the_reference():
    for case in edge_cases():
        ref = _reference.stage_ends(case.code, case.seat, list(case.dice))
        want = expected_answer(case)
        assert want["playableDice"] == ref.playable_dice, case.name
        assert [e["position"] for e in want["ends"]] == [ref.code(i) for i in range(len(ref))]
        assert [tuple(map(tuple, e["steps"])) for e in want["ends"]] == [
            ref.steps(i) for i in range(len(ref))]
    assert len(EDGE_CASES) == 9


def test_the_request_set():
    cases = verify_cases(10, seed=3)
    groups = [c.group for c in cases]
    assert groups.count("vectors") == 67 and groups.count("edge") == 9
    assert groups.count("suite") == 12 * 39 and groups.count("play") == 10 * 22
    play = play_cases(10, seed=3)
    assert play == play_cases(10, seed=3) != play_cases(10, seed=4)      # seeded
    assert len({c.code for c in play}) >= 9
    assert {len(c.dice) for c in play[:22]} >= {2, 4}
    assert all(1 <= len(c.dice) <= 3 and len(set(c.dice)) == 1 for c in play[21::22])
    names = {c.name for c in suite_cases()}
    assert {"primed", "bear-off", "bear-off-last", "blocked-start"} <= names


# ---------------------------------------------------------------------------
# One answer against gulbara's
# ---------------------------------------------------------------------------

START = gulbara.START_CODE


def changed(case, change):
    expected = expected_answer(case)
    answer = json.loads(json.dumps(expected))
    change(answer)
    return compare_answer(case, expected, json.dumps(answer))


def kinds(findings):
    return [(f.kind, f.rule) for f in findings]


def test_the_same_answer_in_another_spelling_matches():
    case = Case("t", "start", START, 0, (6, 5))
    expected = expected_answer(case)
    assert compare_answer(case, expected, json.dumps(expected, indent=2)) == []
    loose = {"playableDice": 2, "ends": [
        dict(e, position=e["position"].replace("G:,", "G:0,")) for e in expected["ends"]]}
    assert compare_answer(case, expected, json.dumps(loose)) == []     # no echo, 0 tokens
    assert compare_answer(case, expected, json.dumps(dict(expected, dice=[5, 6]))) == []


def test_missing_extra_and_duplicate_ends():
    case = Case("t", "start", START, 0, (6, 5))
    assert kinds(changed(case, lambda a: a["ends"].pop())) == [("missing ends", RULE_DISTINCT)]
    assert kinds(changed(case, lambda a: a["ends"].append(a["ends"][0]))) == [
        ("duplicate ends", RULE_DISTINCT)]

    def one_die(answer):        # 24/18 alone: legal steps, but fewer dice than playable
        answer["ends"].append({"position": "G:,,,,,,,,,,,-15,,,,,,1,,,,,,14|0,0|0,0",
                               "steps": [[24, 6]], "end": "none"})
    findings = changed(case, one_die)
    assert kinds(findings) == [("extra ends", RULE_MAXIMAL)]
    assert "uses 1 dice where 2 can be played" in findings[0].detail

    def illegal(answer):        # 24/19 24/13: the 5 lands on Black's 12... from 19 on 14: ok;
        answer["ends"].append({"position": "G:,,,,,,,,,,,-15,,,,,,,,,,,,15|0,0|0,0",
                               "steps": [[24, 6], [18, 6]], "end": "none"})
    findings = changed(case, illegal)
    assert kinds(findings) == [("extra ends", RULE_STEPS)]
    assert "not in the stage" in findings[0].detail


@pytest.mark.parametrize("steps", [[[2**70, 6]], [[-5, 6]], [[24, 0]], [[24, 6], [2**70, 5]]])
def test_steps_out_of_any_range_are_illegal_steps(steps):
    case = Case("t", "start", START, 0, (6, 5))

    def add(answer):
        answer["ends"].append({"position": "G:,,,,,,,,,,,-15,,,,,,1,,,,,,14|0,0|0,0",
                               "steps": steps, "end": "none"})
    assert kinds(changed(case, add)) == [("extra ends", RULE_STEPS)]

    def replace(answer):
        answer["ends"][0]["steps"] = steps
    assert kinds(changed(case, replace)) == [("wrong canonical steps", RULE_STEPS)]


def test_larger_die_both_ways():
    larger = Case("t", "larger", EDGE_CASES[0][1], 0, (6, 5))

    def smaller_too(answer):
        answer["ends"].append({"position": "G:,,,,,,,,,,,,-15,,,,,,1,,,,,|0,0|14,0",
                               "steps": [[24, 5]], "end": "none"})
    assert kinds(changed(larger, smaller_too)) == [("extra ends", RULE_LARGER_DIE)]
    smaller = Case("t", "smaller", EDGE_CASES[2][1], 0, (6, 5))
    assert kinds(changed(smaller, lambda a: a["ends"].clear())) == [
        ("missing ends", RULE_LARGER_DIE)]


def test_game_ending_steps_flags_and_playable_dice():
    last = Case("t", "last", EDGE_CASES[3][1], 0, (6, 2))           # 4/off with the 6
    assert kinds(changed(last, lambda a: a.update(playableDice=1))) == [
        ("wrong playable dice", RULE_GAME_END)]

    def long_way(answer):                                            # 4/2 2/off: same end
        answer["ends"][0]["steps"] = [[4, 2], [2, 6]]
    assert kinds(changed(last, long_way)) == [("wrong canonical steps", RULE_GAME_END)]

    def not_ending(answer):
        answer["ends"][0]["end"] = "none"
    assert kinds(changed(last, not_ending)) == [("wrong end flag", RULE_GAME_END)]
    start = Case("t", "start", START, 0, (6, 5))
    assert kinds(changed(start, lambda a: a.update(playableDice=1))) == [
        ("wrong playable dice", RULE_MAXIMAL)]


def test_canonical_steps_and_order():
    case = Case("t", "start", START, 0, (6, 5))

    def other_steps(answer):                 # 24/13 as 5 then 6: the same end, not canonical
        answer["ends"][1]["steps"] = [[24, 5], [19, 6]]
    assert kinds(changed(case, other_steps)) == [
        ("wrong canonical steps", RULE_CANONICAL_STEPS)]

    def wrong_steps(answer):                 # steps that do not reach the end they name
        answer["ends"][1]["steps"] = [[24, 6], [24, 5]]
    assert kinds(changed(case, wrong_steps)) == [("wrong canonical steps", RULE_STEPS)]
    assert kinds(changed(case, lambda a: a["ends"].reverse())) == [("wrong order", RULE_ORDER)]


@pytest.mark.parametrize("line, says", [
    ("hello", "not JSON"),
    ("[1, 2]", "not a JSON object"),
    ('{"error": "no idea"}', "the engine answered an error"),
    ('{"playableDice": 2}', "'ends' is missing"),
    ('{"playableDice": 2, "ends": [{"position": "G:x", "steps": [], "end": "none"}]}',
     "not a valid position code"),
    ('{"playableDice": 2, "ends": [{"position": "' + START + '", "steps": [[24]], "end": "none"}]}',
     "not a list of [from, die] pairs"),
    ('{"playableDice": 2, "ends": [{"position": "' + START + '", "steps": [], "end": "won"}]}',
     "must be 'none' or 'borneOff'"),
    ('{"playableDice": "2", "ends": []}', "'playableDice' is missing or not an integer"),
    ('{"seat": 1, "playableDice": 2, "ends": []}', "the answer is for another request"),
])
def test_malformed_answers_are_named(line, says):
    case = Case("t", "start", START, 0, (6, 5))
    findings = compare_answer(case, expected_answer(case), line)
    assert len(findings) == 1 and findings[0].rule == RULE_PROTOCOL
    assert says in findings[0].detail


# ---------------------------------------------------------------------------
# Whole runs through the command
# ---------------------------------------------------------------------------

def test_gulbara_on_the_reference_backend_passes(capsys, engine_env):
    status, out = verify(capsys, "--engine", REFERENCE_ENDS, "--positions", "12")
    assert status == 0, out
    assert "OK: all 808 answers match gulbara's" in out


@pytest.mark.parametrize("mode, rule, kind", [
    ("larger-die", RULE_LARGER_DIE, "extra ends"),
    ("game-ending", RULE_GAME_END, "wrong playable dice"),
    ("order", RULE_ORDER, "wrong order"),
    ("drop-end", RULE_DISTINCT, "missing ends"),
])
def test_each_broken_rule_is_named(capsys, engine_env, mode, rule, kind):
    status, out = verify(capsys, "--engine", broken(mode), "--positions", "3", "--show", "2")
    assert status == 1, out
    assert f"first mismatch: {rule}: {kind}" in out
    first = out.split("#1 of ")[1].split("\n#2 of ")[0]
    assert f"  {rule}: " in first          # the smallest failing case, shown first


def test_smallest_failing_case_first(capsys, engine_env):
    status, out = verify(capsys, "--engine", broken("order"), "--positions", "3", "--show", "50")
    assert status == 1
    sizes = []
    for block in out.split("\n#")[1:]:
        want = int(block.split("  gulbara: ")[1].split("ends (")[1].split(")")[0])
        got = int(block.split("  engine:  ")[1].split("ends (")[1].split(")")[0])
        sizes.append(want + got)
    assert len(sizes) == 50 and sizes == sorted(sizes)


def test_an_engine_that_sleeps_is_not_waited_for(capsys, engine_env):
    import time
    start = time.perf_counter()
    status, out = verify(capsys, "--engine", broken("sleep"), "--positions", "0",
                         "--timeout", "1")
    assert status == 3
    assert "the engine gave no answer within 1 s" in out and "request #6:" in out
    assert "5 of 5 answers match" in out
    assert time.perf_counter() - start < 15


def test_an_engine_that_exits_mid_stream_is_reported(capsys, engine_env):
    status, out = verify(capsys, "--engine", broken("exit"), "--positions", "0")
    assert status == 3
    assert "the engine exited (status 3) after 5 answers" in out and "request #6:" in out


def test_garbage_is_reported_and_the_run_goes_on(capsys, engine_env):
    status, out = verify(capsys, "--engine", broken("garbage"), "--positions", "0")
    assert status == 1
    assert "request #3" in out and "not JSON: 'ends: 24/18 24/13, I think'" in out
    assert "543 of 544 answers match, 1 differ" in out


def test_rules_of_the_random_play(capsys, engine_env):
    plain = Rules.preset("plain-doubles")
    assert play_cases(20, 1, plain) != play_cases(20, 1)
    status, out = verify(capsys, "--engine", GULBARA_ENDS, "--rules", "plain-doubles",
                         "--positions", "4")
    assert status == 0 and "OK: all 632 answers match" in out


def test_bad_arguments_and_an_engine_that_cannot_start(capsys, engine_env):
    assert main(["verify", "--engine", "no-such-engine-xyz"]) == 3
    assert "cannot start the engine" in capsys.readouterr().err
    assert main(["verify", "--engine", GULBARA_ENDS, "--rules", "remainder=later"]) == 2
    assert main(["verify", "--engine", GULBARA_ENDS, "--positions", "-1"]) == 2
    assert main(["verify", "--engine", GULBARA_ENDS, "--perft", "1", "--state", "G:x"]) == 2
    assert main(["verify", "--engine", ""]) == 2


# ---------------------------------------------------------------------------
# The engine process
# ---------------------------------------------------------------------------

def python_engine(code):
    return [sys.executable, "-c", code]


def test_engine_process_reports_what_went_wrong(monkeypatch):
    with EngineProcess(python_engine("import sys\nfor line in sys.stdin: print(line.strip(), "
                                     "flush=True)")) as echo:
        assert echo.request('{"a": 1}') == '{"a": 1}'
        assert echo.request("second") == "second" and echo.sent == 2
    with EngineProcess(python_engine("import sys; sys.stdin.readline(); "
                                     "sys.stdout.write('{\"ends\"'); sys.stdout.flush()")) as cut:
        with pytest.raises(EngineError, match="exited .status 0. in the middle of an answer"):
            cut.request("x")
    with EngineProcess(python_engine("import sys; sys.stdin.readline(); "
                                     "raise SystemExit('boom: no such table')")) as dies:
        with pytest.raises(EngineError, match="exited .status 1. after 0 answers") as info:
            dies.request("x")
        assert "boom: no such table" in info.value.describe()
    with EngineProcess(python_engine("import sys; sys.stdin.readline(); print('x' * 1000, "
                                     "flush=True)"), max_line=100) as long:
        with pytest.raises(EngineError, match="answered a line over 100 bytes"):
            long.request("x")
    with pytest.raises(ValueError, match="timeout"):
        EngineProcess(GULBARA_ENDS, timeout=0)


# ---------------------------------------------------------------------------
# perft through the protocol
# ---------------------------------------------------------------------------

def test_perft_answers_match_the_tables():
    """Every line of the golden tables under 200,000 nodes, through the protocol, with
    its rules sent as the request's options."""
    rows = [row for name in ("start.perft", "states.perft")
            for row in read_perft_table(DATA / name)
            if not row["slow"] and row["nodes"] < 200_000]
    assert len(rows) >= 30
    for row in rows:
        rules = gulbara.Rules.from_text(row["rules"])
        answer = json.loads(answer_request(perft_request(row["state"], row["depth"], rules)))
        assert answer["nodes"] == row["nodes"], row
        if answer["divide"]:
            assert sum(entry["nodes"] for entry in answer["divide"]) == row["nodes"]
        else:
            assert row["depth"] == 0 or Game.from_state_code(row["state"], rules).is_over()


def test_perft_answer_divide_and_rules():
    answer = perft_answer({"perft": 2})
    game = Game.new_perft_root()
    assert answer["nodes"] == gulbara.perft(game, 2) == 1576
    assert answer["state"] == game.state_code()
    assert [(e["roll"], e["nodes"]) for e in answer["divide"][:2]] == [([6, 5], 53), ([6, 5], 53)]
    assert perft_answer({"perft": 0})["nodes"] == 1 and perft_answer({"perft": 0})["divide"] == []
    chain = ("G:-1,-3,-1,,-1,-1,-1,-1,-1,6,5,1,1,1,1,,,,,-1,-1,-1,-1,-1|0,0|0,0 "
             "next=chain:W stage=3-3-3-3 index=2 roll=1-1 rolls=17,17 stuck=0")
    for options in ({}, {"remainder": "lost"}):
        rules = Rules(**options)
        got = json.loads(answer_request(perft_request(chain, 2, rules)))
        assert got["nodes"] == gulbara.perft(Game.from_state_code(chain, rules), 2)
        assert all("roll" not in entry for entry in got["divide"])       # a decision node
    assert "rules" not in perft_request(chain, 2, Rules())


@pytest.mark.parametrize("request_, says", [
    ({"perft": -1}, "perft (a depth) must be at least 0, got -1"),
    ({"perft": True}, "perft (a depth) must be an int at least 0, not bool"),
    ({"perft": 1, "rules": {"remainder": "later"}}, "Rules.remainder"),
    ({"perft": 1, "rules": []}, "rules must be a JSON object"),
    ({"perft": 1, "state": 7}, "state must be a state code"),
    ({"perft": 1, "state": "G:,,,"}, ""),
])
def test_bad_perft_requests_are_answered_with_an_error(request_, says):
    answer = json.loads(answer_request(json.dumps(request_)))
    assert set(answer) == {"error"} and says in answer["error"]


def test_perft_finds_the_first_differing_subtree(capsys, engine_env):
    status, out = verify(capsys, "--engine", broken("drop-end"), "--perft", "3")
    assert status == 1, out
    assert "level 0, depth 3:" in out and "level 2, depth 1:" in out
    assert "nodes: gulbara 262810, engine " in out
    assert "the engines part at the stage: White to play" in out
    assert "missing choice: " in out
    assert f"stage check: {RULE_DISTINCT}: missing ends (1)" in out


def test_perft_of_gulbaras_own_engine_matches(capsys, engine_env):
    status, out = verify(capsys, "--engine", GULBARA_ENDS, "--perft", "2",
                         "--rules", "remainder=lost")
    assert status == 0, out
    assert "OK: the engine's perft and divide match gulbara's" in out
    status, out = verify(capsys, "--engine", REFERENCE_ENDS, "--perft", "1", "--state",
                         "G:,,,,,,,,,,,-15,,,,,,1,1,,,,,13|0,0|0,0 next=roll:B rolls=1,0 stuck=0")
    assert status == 0, out


class StandIn:
    """An engine in this process: gulbara's perft answers, changed by ``change``."""
    command = "stand-in"

    def __init__(self, change):
        self.change, self.asked = change, []

    def request(self, line, timeout=None):
        request = json.loads(line)
        self.asked.append(request)
        if "perft" not in request:
            return answer_request(line)
        return json.dumps(self.change(request, perft_answer(request)))


def test_perft_parting_in_what_follows_a_play():
    # The root's divide gives its first choice one node more, but that state asked
    # directly counts right: the engines part in the step from the play to its state.
    def root_only(request, answer):
        if request.get("state") is None or request["state"].endswith("next=opening rolls=0,0 "
                                                                     "stuck=0"):
            answer["divide"][0]["nodes"] += 1
            answer["nodes"] += 1
        return answer
    report = locate_perft(StandIn(root_only), 2)
    assert report.verdict == "transition" and report.exit_status == 1
    assert len(report.levels) == 2 and report.levels[0][2] + 1 == report.levels[0][3]
    assert "what follows that play" in report.format()


def test_perft_bad_answers():
    def wrong_total(request, answer):
        answer["nodes"] += 5
        return answer
    report = locate_perft(StandIn(wrong_total), 2)
    assert report.verdict == "bad answer" and "its 'nodes' says" in report.message

    def twice(request, answer):
        answer["divide"].append(answer["divide"][0])
        return answer
    report = locate_perft(StandIn(twice), 1)
    assert report.verdict == "bad answer" and "twice" in report.message
    report = locate_perft(StandIn(lambda request, answer: {"nodes": 1}), 1)
    assert report.verdict == "bad answer" and "'divide'" in report.message


def test_perft_extra_choice_and_stage_check():
    def extra_roll_choice(request, answer):
        if answer["divide"] and "roll" in answer["divide"][0]:
            answer["divide"].append({"roll": [5, 6], "position": gulbara.START_CODE,
                                     "nodes": 1})
        return answer
    report = locate_perft(StandIn(extra_roll_choice), 1)
    assert report.verdict == "parted" and report.stage.dice == (6, 5)
    assert report.extra == [f"6-5 ? -> {gulbara.START_CODE}"]
    assert "matches gulbara's" in report.message        # its stage answers are right

    def opening_double(request, answer):                 # RULES §10.5: no double to open
        answer["divide"].append({"roll": [1, 1], "position": gulbara.START_CODE, "nodes": 1})
        answer["nodes"] += 1
        return answer
    report = locate_perft(StandIn(opening_double), 1)
    assert report.verdict == "parted" and report.stage is None
    assert "the roll 1-1, which this chance node does not have" in report.message

    over = "G:,,,,,,,,,,,,-15,,,,,,,,,,,|0,0|15,0 next=over result=W:2:mars rolls=20,19 stuck=0"

    def after_the_end(request, answer):
        answer["divide"] = [{"position": gulbara.START_CODE, "nodes": 1}]
        return answer
    report = locate_perft(StandIn(after_the_end), 2, over)
    assert report.verdict == "parted" and "after the end of the game" in report.message

    def counts_the_end(request, answer):
        answer["nodes"] = 21
        return answer
    report = locate_perft(StandIn(counts_the_end), 2, over)
    assert report.verdict == "bad answer" and "a finished game" in report.message


# ---------------------------------------------------------------------------
# bench --engine
# ---------------------------------------------------------------------------

def test_bench_engine_table_and_json(capsys, engine_env):
    assert main(["bench", "--engine", REFERENCE_ENDS, "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    assert ("| measure | engine | gulbara ends | engine's speed / gulbara's | gulbara "
            "in-process, JSON | gulbara in-process, API (count only) |") in out
    assert "252 requests, 4,492 ends" in out
    rows = {line.split(" | ")[0]: line for line in out.splitlines() if line.startswith("| ")}
    assert {"| requests/s", "| ends/s", "| latency p50 (us)", "| latency p99 (us)"} <= set(rows)
    assert main(["bench", "--engine", GULBARA_ENDS, "--rounds", "1", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["mismatched"] == 0 and result["requests"] == 252
    for column in ("engine", "gulbara", "in_process_json", "in_process_api"):
        row = result["columns"][column]
        assert row["requests_per_second"] > 0
        assert row["ends_per_second"] == pytest.approx(row["requests_per_second"] * 4492 / 252)
        assert row["latency_p50_us"] <= row["latency_p90_us"] <= row["latency_p99_us"]


def test_bench_engine_warns_on_wrong_answers(capsys, engine_env):
    assert main(["bench", "--engine", broken("drop-end"), "--rounds", "1"]) == 1
    assert "WARNING: " in capsys.readouterr().out
    assert main(["bench", "--engine", broken("exit"), "--rounds", "1"]) == 3
    assert "the engine exited (status 3) after 5 answers" in capsys.readouterr().err
