"""Replay the peer's recorded matches through gulbara.Match (RULES §4-7).

tests/data/matches-gyulbara.json holds whole matches played by an independent
engine under our default rules (see tests/data/README.md and check_vectors.py):
its dice draws, the players' actions, checkpoints and final scores. Each match
is replayed through Match with the recorded draws as the draw function:

* every draw is made in the recorded order and with the recorded purpose
  (opening pairs White's die first, two draws per roll, none for chains and
  remainders), and the match uses exactly the recorded draws;
* the peer ran with ``autoPlayForcedStages: false``: stages with a single
  legal play are still the players' actions, and the only stages the engine
  played by itself (``auto: true``, no steps) are stages with no legal move.
  In gulbara those are decisions whose only legal play is the empty one (a
  pass), so the replay plays ``pass`` there and checks that the record's
  auto stages are exactly the pass-only decisions;
* every recorded action is legal at its turn, and its steps are our canonical
  steps of that end (RULES §3.8);
* every checkpoint (the state at each action) and the final view agree with
  the game state: board, pips, side to move, roll, stage dice and number,
  chain rest, escalation, remainder, rolls made, stuck count, scores.
"""

import json

import pytest

from conftest import DATA
from gulbara import Match, Rules

MATCHES = json.loads((DATA / "matches-gyulbara.json").read_text())["matches"]


def record_plays(match_data):
    return [play for game in match_data["final"]["record"]["games"] for play in game["plays"]]


def pips(game):
    position = game.position
    return [position.pip_count(0), position.pip_count(1)]


def checkpoint_view(match):
    """Our state in the fields of the peer's checkpoints (seat 0's view)."""
    game = match.game
    view = {
        "board": game.code(),
        "pips": pips(game),
        "gameNumber": match.game_number,
        "scores": list(match.scores),
        "results": sum(1 for g in match.games if g.is_over()),
        "rollsMade": list(game.rolls_made),
        "stuckRolls": game.stuck_rolls,
    }
    decision = match.decision
    if decision is None:
        view.update(toMove=-1, roll=[], rollSeat=-1, rollNumber=0, stageDice=[], stageNumber=0,
                    chainRest=[], isEscalating=False, isPlayingRemainder=False)
    else:
        view.update(
            toMove=decision.seat, roll=list(decision.roll), rollSeat=decision.roller,
            rollNumber=decision.roll_number, stageDice=sorted(decision.dice, reverse=True),
            stageNumber=decision.stage, chainRest=[list(spec) for spec in decision.following],
            isEscalating=decision.is_escalating, isPlayingRemainder=decision.is_remainder)
    return view


def peer_view(checkpoint):
    view = {key: checkpoint[key] for key in (
        "board", "pips", "gameNumber", "scores", "results", "rollsMade", "stuckRolls", "toMove",
        "roll", "rollSeat", "rollNumber", "stageDice", "stageNumber", "chainRest",
        "isEscalating", "isPlayingRemainder")}
    view["stageDice"] = sorted(view["stageDice"], reverse=True)
    return view


def recorded_draw(match_data):
    values = iter([draw["value"] for draw in match_data["draws"]])
    calls = []

    def draw():
        calls.append(1)
        return next(values)
    return draw, calls


@pytest.mark.parametrize("match_data", MATCHES, ids=[f"seed{m['seed']}" for m in MATCHES])
def test_peer_match_replays_exactly(match_data):
    assert match_data["options"]["variant"] == "gyulbara"
    assert match_data["options"]["autoPlayForcedStages"] is False
    draw, calls = recorded_draw(match_data)
    match = Match(Rules(), target=match_data["options"]["targetPoints"], draw=draw)
    plays = record_plays(match_data)
    actions = match_data["actions"]
    checkpoints = match_data.get("checkpoints")
    action_index = 0
    passes = forced = 0
    for play_data in plays:
        where = f"ply {play_data['ply']}"
        decision = match.decision
        assert decision is not None, f"{where}: the match has no decision"
        ends = match.legal_plays()
        only_pass = len(ends) == 1 and ends[0].is_empty()
        # stages the recorder played itself are exactly those with no legal move
        assert only_pass == play_data["auto"], f"{where}: auto={play_data['auto']}, ends={list(ends)}"
        steps = [(step["from"], step["die"]) for step in play_data["steps"]]
        assert (decision.seat, sorted(decision.dice), decision.is_remainder, decision.stage,
                list(decision.roll), decision.roll_number) == (
            play_data["seat"], sorted(play_data["dice"]), play_data["isRemainder"],
            play_data["stage"], play_data["roll"], play_data["rollNumber"]), where
        assert decision.is_opening == play_data["isOpeningRoll"], where
        if play_data["auto"]:
            assert steps == []
            played = match.play("pass")
            passes += 1
        else:
            action = actions[action_index]
            assert action == {"seat": play_data["seat"], "steps": [list(s) for s in steps]}
            if checkpoints is not None:
                assert checkpoint_view(match) == peer_view(checkpoints[action_index]), where
            if len(ends) == 1:
                forced += 1
            played = match.play(steps)          # raises if the action is illegal
            assert list(played.steps) == steps, f"{where}: not our canonical steps"
            action_index += 1
    assert action_index == len(actions)
    assert passes == sum(1 for p in plays if p["auto"])
    assert forced > 0          # forced (single-end) stages were the players' own actions
    # the match is over, with the recorded results and scores
    final = match_data["final"]
    assert match.is_over()
    assert list(match.scores) == final["scores"]
    assert match.result().winner == final["matchWinner"]
    results = [g.result() for g in match.games]
    assert [(r.winner, list(r.score), r.kind == "mars") for r in results] == [
        (r["winner"], r["points"], r["kind"] == "mars") for r in final["results"]]
    if checkpoints is not None:
        assert checkpoint_view(match) == peer_view(checkpoints[-1])
    assert pips(match.game) == final["pips"]
    assert list(match.game.rolls_made) == final["rollsMade"]
    assert [match.game.next_roll_escalates(s) for s in (0, 1)] == final["nextRollEscalates"]
    # draw for draw: the same values, the same purposes, all of them and no more
    assert len(calls) == len(match_data["draws"])
    assert match.draws == [(d["purpose"], d["value"]) for d in match_data["draws"]]
    # the openings and starters of the record
    for game, game_data in zip(match.games, final["record"]["games"]):
        assert [list(pair) for pair in game.openings] == game_data["openings"]
        assert game.starter == game_data["starter"]


def test_replay_rejects_a_tampered_action():
    """The replay is a real check: an action changed to another legal-looking one fails."""
    match_data = MATCHES[0]
    draw, _ = recorded_draw(match_data)
    match = Match(draw=draw)
    first = record_plays(match_data)[0]
    assert [[s["from"], s["die"]] for s in first["steps"]] == [[24, 2], [24, 1]]
    with pytest.raises(ValueError):
        match.play([(24, 2), (22, 2)])        # a 2 used twice in a 2-1 roll
    with pytest.raises(ValueError):
        match.play("24/20")
    assert match.decision.dice == (2, 1)       # unchanged
    match.play([(24, 1), (24, 2)])             # any order of a legal play
    assert match.game.code() == "G:,,,,,,,,,,,-15,,,,,,,,,,1,1,13|0,0|0,0"
