"""``gulbara engine``: the documented transcript, a client in another process, errors."""

import json
import sys
from pathlib import Path

import pytest

import gulbara
from gulbara import Game
from gulbara.tools.engine import Session
from gulbara.tools.protocol import EngineProcess

DOC = Path(__file__).resolve().parents[1] / "docs" / "user" / "engine.md"
CHAIN = ("G:,,-1,-1,,-1,-2,-2,-1,-1,-1,-5,1,,,1,,1,2,1,2,1,1,5|0,0|0,0 "
         "next=chain:B stage=1-1-1-1 index=0 roll=1-1 rolls=6,7 stuck=0")


def _timeless(answer):
    return {k: v for k, v in answer.items() if k != "seconds"}


def test_the_documented_transcript():
    lines = DOC.read_text(encoding="utf-8").splitlines()
    requests = [line[2:] for line in lines if line.startswith("> ")]
    answers = [json.loads(line[2:]) for line in lines if line.startswith("< ")]
    assert len(requests) == len(answers) >= 15
    session = Session()
    for request, expected in zip(requests, answers):
        assert _timeless(session.answer(request)) == _timeless(expected), request
    assert session.done


def _engine(tmp_path):
    # from a scratch directory: the source tree never shadows the installed package
    return EngineProcess([sys.executable, "-m", "gulbara", "engine"], timeout=60,
                         cwd=str(tmp_path))


def test_a_client_plays_whole_games_in_another_process(tmp_path):
    with _engine(tmp_path) as engine:
        def ask(**request):
            return json.loads(engine.request(json.dumps(request)))
        for seed in (3, 7):
            state = ask(cmd="new", seed=seed, id=seed)
            assert state["ok"] and state["id"] == seed
            local = Game(seed=seed)
            while not state["over"]:
                best = ask(cmd="go", bot="greedy")
                assert best["play"]["steps"] == [list(s) for s in
                                                 gulbara.GreedyBot().choose(local).steps]
                legal = ask(cmd="legal")
                assert [p["notation"] for p in legal["plays"]] == \
                    [str(p) for p in local.legal_plays()]
                state = ask(cmd="play", play=best["play"]["steps"])
                local.play(gulbara.GreedyBot().choose(local))
                assert state["state"] == local.state_code()
            result = local.result()
            assert state["result"] == {"winner": ("white", "black")[result.winner],
                                       "points": result.points, "kind": result.kind}
        assert ask(cmd="quit") == {"ok": True, "bye": True}


def test_go_with_a_search_bot_and_budgets():
    session = Session()
    session.answer(json.dumps({"cmd": "new", "seed": 24}))
    before = session.answer('{"cmd": "state"}')
    one = session.answer('{"cmd": "go", "bot": "expectimax1"}')
    assert one["ok"] and one["depth"] == 1 and -2 <= one["equity"] <= 2
    assert one["play"]["notation"] in ("24/18 24/20", "24/14")
    cut = session.answer('{"cmd": "go", "bot": "expectimax2", "nodes": 50}')
    assert cut["ok"] and cut["cut"] and cut["depth"] == 1
    timed = session.answer('{"cmd": "go", "bot": "expectimax2", "seconds": 0.5}')
    assert timed["ok"] and timed["seconds"] < 5
    assert session.answer('{"cmd": "state"}') == before          # go changes nothing


def test_chain_outcomes_count_and_chunks():
    session = Session()
    session.answer(json.dumps({"cmd": "set", "state": CHAIN}))
    count = session.answer('{"cmd": "chain", "count": true}')["count"]
    expected = gulbara.chain_ends(Game.from_state_code(CHAIN).position, 1, 1)
    assert count == len(expected) == 7771
    seen, answer = [], session.answer('{"cmd": "chain", "chunk": 3000}')
    while True:
        assert answer["offset"] == len(seen)
        seen.extend(answer["outcomes"])
        if not answer["more"]:
            break
        answer = session.answer('{"cmd": "next"}')
    assert [o["position"] for o in seen] == [o.code for o in expected]
    assert [o["stop"] for o in seen] == [o.stop for o in expected]
    assert "no chain outcomes pending" in session.answer('{"cmd": "next"}')["error"]


@pytest.mark.parametrize("request_, message", [
    ('{"cmd": "legal"}', "no game"),
    ("[1, 2]", "a request is a JSON object"),
    ("{nope", "invalid JSON"),
    ('{"cmd": "fly"}', "unknown cmd 'fly'"),
    ('{"cmd": "new", "rules": "bulgarain"}', "unknown preset or option 'bulgarain'"),
    ('{"cmd": "new", "seed": "x"}', "seed must be an int"),
    ('{"cmd": "set", "state": "G:,1,,1,,,,,,,,,-12,,,,,,,,,,,|0,0|13,3"}', "side to roll"),
])
def test_errors_without_a_game(request_, message):
    answer = Session().answer(request_)
    assert answer["ok"] is False and message in answer["error"]


def test_errors_change_nothing():
    session = Session()
    session.answer('{"cmd": "new", "seed": 24}')
    before = session.answer('{"cmd": "state"}')
    for request, message in [
            ('{"cmd": "play", "play": 5}', "out of range: 2 legal plays"),
            ('{"cmd": "play", "play": "24/10"}', "is not a legal play"),
            ('{"cmd": "play", "play": [[24, 6], [24, 6]]}', ""),
            ('{"cmd": "play", "play": true}', "not a bool"),
            ('{"cmd": "play"}', 'needs "play"'),
            ('{"cmd": "roll", "dice": [3, 4]}', "no dice to roll"),
            ('{"cmd": "chain", "count": true}', "not a stage of an escalation chain"),
            ('{"cmd": "go", "bot": "oracle"}', "unknown bot 'oracle'"),
            ('{"cmd": "undo"}', "nothing to undo")]:
        answer = session.answer(request)
        assert answer["ok"] is False and message in answer["error"], (request, answer)
        assert session.answer('{"cmd": "state"}') == before


def test_explicit_dice_after_set():
    session = Session()
    answer = session.answer('{"cmd": "set", "state": "start", "seat": "black"}')
    assert answer["chance"] and answer["to_roll"] == "black"
    assert "roll the dice first" in session.answer('{"cmd": "legal"}')["error"]
    rolled = session.answer('{"cmd": "roll", "dice": [6, 6]}')
    assert rolled["decision"]["stage"] == "chain"              # rolls=3,3: it escalates
    assert session.answer('{"cmd": "undo"}')["chance"]
    opening = Session()
    opening.answer('{"cmd": "set", "state": "start"}')
    first = opening.answer('{"cmd": "roll", "dice": [2, 5]}')
    assert first["decision"]["seat"] == "black" and first["decision"]["dice"] == [5, 2]
    seeded = [Session(), Session()]
    for s in seeded:
        s.answer('{"cmd": "set", "state": "start", "seed": 9}')
    assert seeded[0].answer('{"cmd": "roll"}') == seeded[1].answer('{"cmd": "roll"}')


def test_the_documented_client_runs(tmp_path):
    import os
    import re
    import subprocess
    code = re.search(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S).group(1)
    env = dict(os.environ, PATH=os.pathsep.join([str(Path(sys.executable).parent),
                                                 os.environ.get("PATH", "")]))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=tmp_path, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    result = eval(proc.stdout.strip())                     # the printed result dict
    assert result["winner"] in ("white", "black") and result["points"] in (1, 2)


def test_regression_undo_of_a_roll_answers_its_dice():
    """undo of a roll answered "undone": "(3, 4)", a Python tuple's repr as a string."""
    session = Session()
    session.answer('{"cmd": "set", "state": "start"}')
    session.answer('{"cmd": "roll", "dice": [3, 4]}')
    answer = session.answer('{"cmd": "undo"}')
    assert answer["ok"] and answer["undone"] == [3, 4]


def test_regression_one_request_line_cannot_end_the_engine_session(tmp_path):
    """An "id" of "\\ud800" was echoed back, writing it raised UnicodeEncodeError and the
    session exited 1 (under every locale); "\\udc80" came back as bytes that are not UTF-8,
    and a line that was not UTF-8 ended it too. Now every answer is UTF-8 JSON that carries
    the id back, a bad or an overlong line gets an error answer, and the session goes on."""
    import subprocess
    from conftest import same_package_environment
    from gulbara.cli.engine import MAX_REQUEST_BYTES
    requests = (b'{"cmd":"set","state":"start","id":"\\ud800"}\n'
                b'{"cmd":"state","id":"\\udc80"}\n'
                b'\xff\xfe not utf-8\n'
                + b'{"cmd":"state","id":"' + b"x" * (MAX_REQUEST_BYTES + 10) + b'"}\n'
                + '{"cmd":"state","id":"é"}\n'.encode("utf-8"))
    env = {**same_package_environment(), "LANG": "C", "LC_ALL": "C", "PYTHONIOENCODING": "ascii"}
    env.pop("PYTHONUTF8", None)
    proc = subprocess.run([sys.executable, "-m", "gulbara", "engine"], input=requests,
                          capture_output=True, timeout=120, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    answers = [json.loads(line.decode("utf-8")) for line in proc.stdout.splitlines()]
    assert len(answers) == 5
    assert answers[0]["id"] == "\ud800" and answers[1]["id"] == "\udc80"
    assert answers[1]["ok"] and answers[1]["state"] == answers[0]["state"]   # the game lives
    assert not answers[2]["ok"] and "UTF-8" in answers[2]["error"]
    assert not answers[3]["ok"] and "at most" in answers[3]["error"]
    assert answers[4]["ok"] and answers[4]["id"] == "é"


def test_regression_go_with_a_network_bot_answers_its_equity():
    """`go` with net or net2 answered "equity": null while the terminal's hint shows them."""
    from gulbara.bots.netbot import NetBot
    session = Session()
    session.answer(json.dumps({"cmd": "set", "state": Game(seed=24).state_code()}))
    answer = session.answer(json.dumps({"cmd": "go", "bot": "net"}))
    assert answer["ok"] and isinstance(answer["equity"], float)
    best, value = NetBot().rank(Game(seed=24))[0]
    assert answer["equity"] == pytest.approx(value)
    assert answer["play"]["notation"] == str(best) if "notation" in answer["play"] else True
