"""Game and match records: text and JSON, written and read back losslessly."""

import json

import pytest

from conftest import DATA
from gulbara import (Game, GreedyBot, Match, RandomBot, RecordError, Rules, read_record,
                     write_record)
from gulbara.bots import play_out
from gulbara.game.record import record_data

RULE_SETS = [
    Rules(),
    Rules(remainder="lost"),
    Rules(unstarted_chain="to_opponent", exempt_rolls=0),
    Rules(opening="starter_rerolls", exempt_counting="game_wide"),
    Rules(escalation=False, mars=False, stuck_limit=None),
]


def finished_game(rules, seed):
    game = Game(rules, seed=seed)
    play_out(game, GreedyBot(), RandomBot(seed=seed))
    return game


def assert_round_trip(obj):
    """Text and JSON both read back to the same state and write back identically."""
    text = write_record(obj)
    as_json = write_record(obj, format="json")
    for record in (text, as_json, json.loads(as_json)):
        again = read_record(record)
        assert type(again) is type(obj)
        assert write_record(again) == text
        assert write_record(again, format="json") == as_json
        game, twin = (obj, again) if isinstance(obj, Game) else (obj.game, again.game)
        assert twin.state_code() == game.state_code()
        assert twin.result() == game.result()
        assert twin.rolls_made == game.rolls_made
        assert twin.draws == game.draws
    return text


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: str(sorted(
    k for k, v in r.to_dict().items() if v != Rules().to_dict()[k])) or "default")
def test_finished_games_round_trip(rules):
    for seed in (1, 2):
        game = finished_game(rules, seed)
        assert game.is_over()
        text = assert_round_trip(game)
        assert text.startswith("[Gul Bara game]\n")
        assert f"Dice: seed {seed}\n" in text
        assert "Result: " in text


def test_record_marks_chains_and_remainders():
    game = Game(seed=0)
    play_out(game, GreedyBot(), GreedyBot())
    text = write_record(game)
    lines = text.splitlines()
    chain = [line for line in lines if " chain: [" in line]
    remainder = [line for line in lines if " remainder: [" in line]
    assert chain and remainder
    assert "W12 6-6 chain: [6666] 16/10 | B remainder: [666] 24/6" in lines
    assert lines[:5] == ["[Gul Bara game]", "Rules: default", "Dice: seed 0",
                         "Opening: 6-3", "W1 6-3: 24/18 24/21"]


def test_rules_are_named_in_the_header():
    game = Game(Rules(remainder="lost", mars=False, stuck_limit=None), seed=3)
    text = write_record(game)
    assert "Rules: remainder=lost mars=off stuck_limit=none\n" in text
    assert read_record(text).rules == game.rules


def test_unfinished_game_mid_chain_round_trips_and_continues_identically():
    game = Game(seed=2)
    bot = GreedyBot()
    while not (game.decision.is_chain and game.decision.stage == 2):
        game.play(bot.choose(game))
    text = assert_round_trip(game)
    assert "Result:" not in text
    again = read_record(text)
    assert again.decision == game.decision
    play_out(game, bot, bot)                      # the seed gives the replay the same future dice
    play_out(again, bot, bot)
    assert write_record(again) == write_record(game)


def test_draw_function_and_explicit_records():
    values = [3, 3, 5, 0] + [k * 7 % 6 for k in range(400)]
    it = iter(values)
    game = Game(draw=lambda: next(it))
    play_out(game, GreedyBot(), GreedyBot(), max_plies=60)
    text = assert_round_trip(game)
    assert "Dice: draw\n" in text and "Opening: 4-4 6-1\n" in text
    explicit = Game(auto_roll=False)
    explicit.roll_opening(2, 2)
    explicit.roll(5, 3)                           # the RULES §10.5 convention after a tie
    explicit.play("24/16")
    explicit.roll(4, 4)
    text = assert_round_trip(explicit)
    assert "Dice: explicit\nOpening: 2-2 White starts\nW1 5-3: 24/16\nB1 4-4:\n" in text
    explicit.play(explicit.legal_plays()[0])      # at a chance node
    assert explicit.is_chance()
    assert_round_trip(explicit)


def test_matches_round_trip():
    match = Match(target=3, seed=5)
    play_out(match, GreedyBot(), RandomBot(seed=5))
    text = assert_round_trip(match)
    assert text.startswith("[Gul Bara match]\n")
    assert "Target: 3\n" in text and "\nGame 2\n" in text
    white, black = match.scores
    winner = "White" if white > black else "Black"
    assert text.endswith(f"\nWinner: {winner} {white}-{black}\n")
    again = read_record(text)
    assert again.scores == match.scores and len(again.games) == len(match.games)
    unfinished = Match(Rules(opening="starter_rerolls"), target=2, seed=6)
    play_out(unfinished, GreedyBot(), GreedyBot(), max_plies=120)
    assert unfinished.game_number >= 2 and not unfinished.is_over()
    assert_round_trip(unfinished)


def test_peer_match_as_a_record():
    """The peer's recorded match, replayed and written as our record, reads back exactly."""
    data = json.loads((DATA / "matches-gyulbara.json").read_text())["matches"][0]
    values = iter(d["value"] for d in data["draws"])
    match = Match(draw=lambda: next(values))
    for play in (p for g in data["final"]["record"]["games"] for p in g["plays"]):
        match.play([(s["from"], s["die"]) for s in play["steps"]])
    text = assert_round_trip(match)
    assert "\nW7 3-3 chain:" not in text and "\nB7 3-3 chain: [3333]" in text
    assert "| W remainder: [55] 24/19 7/2 [6666]" in text
    assert list(read_record(text).scores) == data["final"]["scores"]
    assert [v for _, v in read_record(text).draws] == [d["value"] for d in data["draws"]]


def test_records_that_do_not_replay_raise():
    game = finished_game(Rules(), 1)
    text = write_record(game)
    lines = text.splitlines()
    k = next(i for i, line in enumerate(lines) if line.startswith("W2 "))
    head, play = lines[k].split(": ", 1)
    bad_play = lines[:k] + [f"{head}: 24/1"] + lines[k + 1:]
    with pytest.raises(RecordError, match=f"line {k + 1} "):
        read_record("\n".join(bad_play))
    bad_dice = text.replace("Dice: seed 1", "Dice: seed 2")
    with pytest.raises(RecordError):
        read_record(bad_dice)
    bad_state = text.replace("stuck=0", "stuck=1")
    with pytest.raises(RecordError, match="reaches"):
        read_record(bad_state)
    truncated = "\n".join(lines[:k]) + "\n"      # fewer plays: the recorded result is not reached
    with pytest.raises(RecordError):
        read_record(truncated)
    for broken in ("", "hello", "[Gul Bara game]\nRules: default\n",
                   "[Gul Bara game]\nRules: colour=red\nDice: seed 1\nOpening: 2-1\n",
                   "[Gul Bara game]\nRules: default\nDice: seed 1\nOpening: 2-1\nW1 2-1 24/22\n",
                   "{not json"):
        with pytest.raises(RecordError):
            read_record(broken)
    data = record_data(game)
    data["rolls"][1]["stages"][0]["steps"] = [[24, 6], [24, 6]]
    with pytest.raises(RecordError):
        read_record(data)
    with pytest.raises(TypeError):
        read_record(42)


def test_a_later_game_of_a_match_is_recorded_with_its_dice():
    match = Match(target=3, seed=1)
    play_out(match, GreedyBot(), GreedyBot())
    second = match.games[1]
    text = write_record(second)
    assert "Dice: draw\n" in text                 # the seed alone would give game 1's dice
    again = read_record(text)
    assert again.state_code() == second.state_code() and again.result() == second.result()


def test_a_game_without_history_has_no_record():
    game = Game.from_state_code("G:,,,,,,,,,,,-15,,,,,,,,,,,,15|0,0|0,0 next=roll:B rolls=1,0 "
                                "stuck=0")
    with pytest.raises(RecordError):
        write_record(game)


def test_regression_json_stage_with_steps_and_no_play_reads():
    import gulbara
    """A JSON stage may give its steps without the notation; the check that the
    two agree read the missing notation (KeyError) even when there was none."""
    import json
    game = gulbara.Game(seed=24)
    game.play("24/14")
    data = json.loads(gulbara.write_record(game, format="json"))
    for stage in (s for g in [data] for r in _rolls_of(g) for s in r["stages"]):
        stage.pop("play", None)
    again = gulbara.read_record(json.dumps(data))
    assert again.state_code() == game.state_code()


def _rolls_of(data):
    if "rolls" in data:
        return data["rolls"]
    return [roll for g in data.get("games", []) for roll in g["rolls"]]


def test_regression_data_to_text_raises_record_error_on_malformed_data():
    """data_to_text raised raw KeyError, TypeError and IndexError on malformed records."""
    import copy as copying
    import random
    from gulbara.errors import RecordError
    from gulbara.game.record import data_to_text, record_data
    game = Game(seed=11)
    for _ in range(12):
        game.play(game.legal_plays()[0])
    match = Match(target=5, seed=2)
    for _ in range(6):
        match.play(match.legal_plays()[0])
    junk = [None, 7, -1, "x", [], {}, [1, 2, 3], 10 ** 30, 2.5, True]
    rng = random.Random(0)
    outcomes = set()
    for source in (record_data(game), record_data(match)):
        assert data_to_text(source)             # the sound data still prints

        def paths(node, prefix=()):
            yield prefix
            items = node.items() if isinstance(node, dict) else (
                enumerate(node) if isinstance(node, list) else ())
            for key, value in items:
                yield from paths(value, prefix + (key,))

        every = [p for p in paths(source) if p]
        for path in rng.sample(every, min(150, len(every))):
            for action in ("delete", "junk"):
                broken = copying.deepcopy(source)
                parent = broken
                for key in path[:-1]:
                    parent = parent[key]
                if action == "delete":
                    del parent[path[-1]]
                else:
                    parent[path[-1]] = rng.choice(junk)
                try:
                    data_to_text(broken)
                    outcomes.add("printed")
                except RecordError:
                    outcomes.add("refused")
    assert outcomes == {"printed", "refused"}
    with pytest.raises(TypeError):
        data_to_text(["not", "a", "dict"])
