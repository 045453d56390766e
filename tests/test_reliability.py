"""Regression tests of the twelve faults of the adversarial pass (one test named after each),
and Ctrl-C in every long native call."""

import copy
import multiprocessing
import os
import pickle
import signal
import threading
import time
import tracemalloc

import numpy as np
import pytest

import gulbara
from gulbara import Game, Match
from gulbara.core.batch import arrays_from_requests, stage_ends_batch
from gulbara.errors import GulBaraError
from gulbara.game.perft import perft
from gulbara.selfplay.games import CHUNK_GAMES, play_games

from flaky_bots import FlakyBot

START = gulbara.START_CODE
# White on its 24, 22, ..., 2 and 23, 21, 19: 2,208 ends for 1-1-1-1.
HUGE_STAGE = "G:,1,,1,,1,,1,,1,,1,,1,,1,,1,1,1,1,1,1,1|0,0|0,15"
# 202 ends for 1-1-1-1, about 9 microseconds a row: a batch of them runs long on little memory.
SLOW_ROW = "G:2,2,2,2,2,2,1,1,1,,,,,,,,,,,,,,,|0,0|0,15"


# ---------------------------------------------------------------------------
# 1. Self-play from several threads at once
# ---------------------------------------------------------------------------


def test_regression_threads_with_worker_pools_play_their_own_games():
    runs = [("random", 1), ("greedy", 2), ("first", 3)]
    n = 2 * CHUNK_GAMES + 1                         # three chunks: two worker processes
    results = [None] * len(runs)

    def run(k):
        policy, seed = runs[k]
        results[k] = play_games(n, policy, seed=seed, workers=2)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(len(runs))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for (policy, seed), result in zip(runs, results):
        alone = play_games(n, policy, seed=seed, workers=1)
        assert result.policy == (policy, policy)
        assert np.array_equal(result.rows, alone.rows), policy


# ---------------------------------------------------------------------------
# 3. The batch's output sized per call
# ---------------------------------------------------------------------------


def test_regression_batch_output_is_sized_by_its_own_call():
    big = stage_ends_batch(*arrays_from_requests([(HUGE_STAGE, 0, (1, 1, 1, 1))] * 64))
    assert big.n_ends == 64 * 2208
    small = arrays_from_requests([(START, 0, (6, 5))] * 200_000)
    tracemalloc.start()
    try:
        out = stage_ends_batch(*small)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert out.n_ends == 400_000
    held = sum(a.nbytes for a in (out.end_boards, out.end_borne_off, out.end_steps,
                                  out.end_n_steps, out.end_game, out.counts, out.offsets))
    assert peak < 4 * held, (peak, held)
    # and a big batch after it still gets every end
    again = stage_ends_batch(*arrays_from_requests([(HUGE_STAGE, 0, (1, 1, 1, 1))] * 3))
    assert again.n_ends == 3 * 2208


def test_regression_batch_grows_past_a_small_start():
    requests = [(START, 0, (6, 5))] * 100 + [(HUGE_STAGE, 0, (1, 1, 1, 1))] * 40
    out = stage_ends_batch(*arrays_from_requests(requests))
    assert out.n_ends == 200 + 40 * 2208
    assert out.counts.tolist() == [2] * 100 + [2208] * 40


# ---------------------------------------------------------------------------
# 4. Ctrl-C stops every long call promptly
# ---------------------------------------------------------------------------

def _perft_long():
    game = Game.new_perft_root()
    return lambda: perft(game, 5)


def _batch_long():
    arrays = arrays_from_requests([(SLOW_ROW, 0, (1, 1, 1, 1))] * 200_000)
    return lambda: stage_ends_batch(*arrays, steps=False)


def _selfplay_long(workers):
    return lambda: lambda: play_games(1_000_000, "greedy", seed=1, workers=workers)


# A 2-2 chain met in play with 11,837,942 outcomes (tens of seconds).
BIG_CHAIN = "G:-3,-7,-3,-1,-1,,,,,,,,1,,1,1,1,1,2,1,2,1,1,3|0,0|0,0"


# The early-game stress chain: 27,070,371 outcomes (seconds, by decision diagram).
STRESS_CHAIN = "G:,,,-4,,,,,,,,-11,1,1,1,,1,,,,,,,11|0,0|0,0"


def _chain_long(threads):
    return lambda: lambda: gulbara.chain_ends(STRESS_CHAIN, 0, 1, threads=threads)


def _remainder_long(threads):
    stages = [[n] * 4 for n in range(2, 7)]
    return lambda: lambda: gulbara.remainder_ends(BIG_CHAIN, 0, stages, threads=threads)


#: Calls that run for many seconds, each to be stopped by SIGINT: name -> a function that
#: prepares the call (its input built before the signal is armed) and returns it.
LONG_CALLS = {
    "perft": _perft_long,
    "batch": _batch_long,
    "selfplay-1-worker": _selfplay_long(1),
    "selfplay-2-workers": _selfplay_long(2),
    "chain-1-thread": _chain_long(1),
    "chain-2-threads": _chain_long(2),
    # (the stress chain is counted in about half a second, so once it finished before
    # the signal of a loaded machine: counted over and over, the call outlasts it)
    "chain-count": lambda: lambda: [gulbara.chain_count(STRESS_CHAIN, 0, 1, threads=1)
                                    for _ in range(40)],
    "remainder-1-thread": _remainder_long(1),
    "remainder-2-threads": _remainder_long(2),
}


def interrupt(call, delay=0.3):
    """Send SIGINT to this process ``delay`` seconds into ``call``; the seconds from the
    signal to the KeyboardInterrupt."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    sent = []

    def fire():
        sent.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(delay, fire)
    try:
        timer.start()
        try:
            call()
        except KeyboardInterrupt:
            return time.perf_counter() - sent[0]
        timer.cancel()
        pytest.fail("the call finished before the signal")
    finally:
        timer.join()
        signal.signal(signal.SIGINT, previous)


@pytest.mark.parametrize("name", sorted(LONG_CALLS))
def test_regression_ctrl_c_stops_long_calls(name):
    seconds = interrupt(LONG_CALLS[name]())
    assert seconds < 1.0, f"{name}: KeyboardInterrupt {seconds:.2f} s after the signal"
    # the process goes on as before
    assert multiprocessing.active_children() == []
    assert perft(Game.new_perft_root(), 2) == 1576
    assert stage_ends_batch(*arrays_from_requests([(START, 0, (6, 5))])).n_ends == 2
    assert play_games(10, "first", seed=1, workers=1).games == 10


@pytest.mark.parametrize("threads", [1, 2])
def test_regression_a_diagram_stopped_part_way_unwinds_at_once(threads):
    """After a failure inside a diagram operation (Ctrl-C, the node bound, the memory
    budget) the recursive operations went on walking the diagram, nothing cached,
    before they returned: Ctrl-C took up to 1 s to stop chain_count of the stress
    chain. Each now returns at once: signals at several points stop it within 0.2 s,
    on two threads too (the helper thread building the diagram stopped and joined)."""
    seconds = []
    for delay in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6):
        try:
            seconds.append(interrupt(lambda: [gulbara.chain_count(STRESS_CHAIN, 0, 1,
                                                                  threads=threads)
                                              for _ in range(40)], delay))
        except pytest.fail.Exception:           # (the count finished before the signal)
            break
    assert len(seconds) >= 3 and max(seconds) < 0.2, seconds


# ---------------------------------------------------------------------------
# 2. A draw function that only ties the opening
# ---------------------------------------------------------------------------


def test_regression_endless_opening_ties_raise():
    with pytest.raises(GulBaraError, match="draw function .*lambda.* tied opening pairs"):
        Game(draw=lambda: 0)
    with pytest.raises(GulBaraError, match="draw function"):
        Match(draw=lambda: 3)
    game = Game(auto_roll=False)                    # explicit ties are the caller's own
    for _ in range(1500):
        assert game.roll_opening(2, 2) is None


# ---------------------------------------------------------------------------
# 5. Copies share nothing
# ---------------------------------------------------------------------------


def test_regression_copy_copy_is_independent():
    game = Game(seed=5)
    shallow = copy.copy(game)
    shallow.play(shallow.legal_plays()[0])
    shallow.play(shallow.legal_plays()[0])
    assert game.plays == [] and len(shallow.plays) == 2
    state = game.state_code()
    game.play(game.legal_plays()[-1])
    game.undo()
    assert game.state_code() == state
    with pytest.raises(IndexError):
        game.undo()
    match = Match(seed=5)
    other = copy.copy(match)
    other.play(other.legal_plays()[0])
    assert match.game.plays == [] and len(other.game.plays) == 1
    assert other.game._stream is other._stream and match.game._stream is match._stream


# ---------------------------------------------------------------------------
# 6. Pickling and deep copies
# ---------------------------------------------------------------------------


def _round_trips(obj):
    return [pickle.loads(pickle.dumps(obj)), copy.deepcopy(obj)]


def test_regression_game_match_and_stage_ends_pickle():
    game = Game(seed=11)
    for _ in range(6):
        game.play(game.legal_plays()[-1])
    plays = list(game.legal_plays())
    for again in _round_trips(game):
        assert again.state_code() == game.state_code()
        assert list(again.legal_plays()) == plays
        assert again.plays == game.plays
        again.undo()                                 # the history came along
        assert again.state_code() != game.state_code()
    match = Match(seed=2)
    match.legal_plays()
    for again in _round_trips(match):
        assert again.game.state_code() == match.game.state_code()
        assert list(again.legal_plays()) == list(match.legal_plays())
        assert again.game._stream is again._stream
    ends = gulbara.Position.from_code(START).stage_ends(1, (3, 3, 3, 3))
    for again in _round_trips(ends):
        assert again.dice == ends.dice and again.seat == 1
        assert [again.code(i) for i in range(len(again))] == [ends.code(i)
                                                             for i in range(len(ends))]
    stage = game.legal_plays()
    for again in _round_trips(stage):
        assert list(again) == list(stage) and again.playable_dice == stage.playable_dice


def test_regression_environments_pickle_after_reset():
    gymnasium_env = pytest.importorskip("gulbara.envs.gymnasium")
    pettingzoo_env = pytest.importorskip("gulbara.envs.pettingzoo")
    env = gymnasium_env.GulBaraEnv("greedy")
    obs, info = env.reset(seed=24)
    env.step(143)                                    # mid-stage: one step of 6-4 taken
    for again in _round_trips(env):
        assert again.game.state_code() == env.game.state_code()
        _, _, _, _, info2 = again.step(141)
        assert again.game.state_code() != env.game.state_code()
    aec = pettingzoo_env.env()
    aec.reset(seed=24)
    aec.step(143)
    for again in _round_trips(aec):
        assert again.unwrapped.game.state_code() == aec.unwrapped.game.state_code()
        assert np.array_equal(again.observe("white")["action_mask"],
                              aec.observe("white")["action_mask"])


# ---------------------------------------------------------------------------
# 8. The Gymnasium environment and a failing opponent
# ---------------------------------------------------------------------------


def test_regression_failing_opponent_leaves_the_env_consistent():
    gymnasium_env = pytest.importorskip("gulbara.envs.gymnasium")

    bot = FlakyBot()
    env = gymnasium_env.GulBaraEnv(bot)
    env.reset(seed=24)                               # White (the agent) to play 6-4
    state = env.game.state_code()
    env.step(143)
    with pytest.raises(RuntimeError, match="the bot broke"):
        env.step(141)                                # completes the stage: the bot fails
    assert env.game.state_code() == state            # as before the failed step
    assert env.game.decision.seat == 0
    bot.fail = False
    env.step(141)
    assert env.game.to_move == 0 or env.game.is_over()
    env.reset(seed=3)
    assert env.game.decision.seat == env.seat


def test_regression_step_refuses_when_the_agent_is_not_to_act():
    gymnasium_env = pytest.importorskip("gulbara.envs.gymnasium")
    env = gymnasium_env.GulBaraEnv("first")
    env.reset(seed=24)
    env._driver = type(env._driver)(Game.from_state_code(
        "G:,,,,,,,,,,,-15,,1,,,,,,,,,,14|0,0|0,0 next=play:B stage=5-2 roll=5-2 rolls=1,1 "
        "stuck=0"))
    with pytest.raises(GulBaraError, match="no step to take"):
        env.step(0)


# ---------------------------------------------------------------------------
# 10. State codes: every field bounded and checked
# ---------------------------------------------------------------------------

REMAINDER = (f"{START} next=remainder:B stage=5-5 index=0 then=6x4 roll=4-4 roller=W "
             "rolls=5,4 stuck=0")
REMAINDER_2 = REMAINDER.replace("stage=5-5 index=0", "stage=5-5-5-5 index=1")
WON = "G:,,,,,,,,,,,-5,,,,,,,,,,,,|0,0|15,10 next=over result=W:1:single rolls=24,24 stuck=0"
MARS = "G:,,,,,,,,,,,-15,,,,,,,,,,,,|0,0|15,0 next=over result=W:2:mars rolls=24,24 stuck=0"


@pytest.mark.parametrize("code", [
    f"{START} next=roll:W rolls=2147483647,0 stuck=0",
    f"{START} next=roll:W rolls={2**31},0 stuck=0",
    f"{START} next=roll:W rolls={10**30},0 stuck=0",
    f"{START} next=roll:W rolls=10,10 stuck=500",
    f"{START} next=roll:W rolls=10,10 stuck=100",
    f"{START} next=chain:W stage=4-4-4-4 index=1,99 roll=3-3 rolls=5,4 stuck=0",
    f"{START} next=chain:W stage=4-4-4-4 index=1 roll=3-3 rolls=1,1 stuck=0",   # exempt
    f"{START} next=play:W stage=3-3-3-3 roll=3-3 rolls=5,4 stuck=0",   # escalates
    REMAINDER.replace("index=0", "index=99"),
    REMAINDER.replace("index=0", "index=1"),         # a later stage holds four dice
    REMAINDER_2.replace("index=1", "index=2"),       # would have begun below the double
    REMAINDER.replace("then=6x4", "then=6x2"),
    f"{START} next=roll:W rolls=\u0661,\u0660 stuck=0",
    f"{START} next=roll:W rolls=1_0,0 stuck=0",
    f"{START} next=roll:W rolls=+1,0 stuck=0",
    f"{START} next=opening rolls=1,0 stuck=0",
    WON.replace("result=W:1:single", "result=W:2:mars"),
    MARS.replace("W:2:mars", "W:1:single"),
    "G:,,,,,,,,,,,,,,,,,,,,,,,|0,0|15,15 next=over result=W:1:single rolls=9,9 stuck=0",
    f"{START} next=over result=draw rolls=50,50 stuck=3",
])
def test_regression_out_of_range_state_codes_are_refused(code):
    with pytest.raises(gulbara.GameStateError):
        Game.from_state_code(code)


def test_regression_accepted_codes_agree_native_and_python():
    from gulbara.game.perft import perft_python
    from gulbara.rules import Rules
    codes = [REMAINDER, REMAINDER_2, WON, MARS,
             f"{START} next=roll:B rolls=999999999,999999999 stuck=0",
             f"{START} next=chain:W stage=4-4-4-4 index=1 roll=3-3 rolls=5,4 stuck=0"]
    for code in codes:
        game = Game.from_state_code(code)
        assert game.state_code() == code
        assert perft(game, 2) == perft_python(game, 2)
    lost = Rules(remainder="lost")
    with pytest.raises(gulbara.GameStateError, match="no remainder"):
        Game.from_state_code(REMAINDER, lost)
    no_mars = Rules(mars=False)
    single = MARS.replace("W:2:mars", "W:1:single")
    assert Game.from_state_code(single, no_mars).result().kind == "single"
    draw = f"{START} next=over result=draw rolls=50,50 stuck=100"
    assert Game.from_state_code(draw).result().winner is None


# ---------------------------------------------------------------------------
# 11. Records: RecordError for every malformed record
# ---------------------------------------------------------------------------


def _record_json(obj):
    import json
    from gulbara.game.record import write_record
    return json.loads(write_record(obj, "json"))


def test_regression_malformed_records_raise_record_error():
    import json
    from gulbara.game.record import read_record, write_record
    game = Game(seed=4)
    for _ in range(8):
        game.play(game.legal_plays()[0])
    match = Match(target=1, seed=4)
    match.play(match.legal_plays()[0])
    data, match_data = _record_json(game), _record_json(match)
    broken = []
    for key in ("rolls", "openings", "rules", "dice", "convention"):
        broken.append({k: v for k, v in data.items() if k != key})
    broken.append({k: v for k, v in match_data.items() if k != "games"})
    broken.append({**data, "dice": {"mode": "seed"}})
    broken.append({**data, "dice": {"mode": "seed", "seed": "abc"}})
    broken.append({**data, "dice": {"mode": "seed", "seed": 10**5000}})
    broken.append({**data, "dice": {"mode": "seed", "seed": -5}})
    broken.append({**data, "rolls": [data["rolls"][0]["stages"]]})
    broken.append({**data, "rolls": [{**data["rolls"][0], "stages": [[]]}]})
    broken.append({**data, "openings": [[6]]})
    broken.append({**data, "rules": [1, 2]})
    broken.append({**data, "rules": {1: 2}})
    broken.append({**match_data, "games": [{}]})
    broken.append({**match_data, "target": "3"})
    for record in broken:
        with pytest.raises(gulbara.RecordError):
            read_record(record)
        if record.get("dice", {}).get("seed") != 10**5000:
            with pytest.raises(gulbara.RecordError):
                read_record(json.dumps(record))
    with pytest.raises(gulbara.RecordError, match="nested too deeply"):
        read_record('{"a":' + "[" * 50_000 + "]" * 50_000 + "}")
    text = write_record(game)
    assert "Dice: seed 4" in text
    for bad in ("Dice: seed " + "7" * 5000, "Dice: seed -5", "Dice: seed \u0661"):
        with pytest.raises(gulbara.RecordError) as info:
            read_record(text.replace("Dice: seed 4", bad))
        assert len(str(info.value)) < 400
    assert read_record(text).state_code() == game.state_code()


# ---------------------------------------------------------------------------
# 7. Evaluators get arrays of their own
# ---------------------------------------------------------------------------


def test_regression_evaluator_features_are_not_reused():
    kept, copies = [], []

    def keeper(features):
        kept.append(features)
        copies.append(features.copy())
        return features[:, 0] - features[:, 100]

    play_games(3, keeper, seed=4, workers=1)
    assert len(kept) > 60
    assert len({id(f) for f in kept}) == len(kept)
    for features, snapshot in zip(kept, copies):
        assert np.array_equal(features, snapshot)


# ---------------------------------------------------------------------------
# 12. Clear errors
# ---------------------------------------------------------------------------


def test_regression_messages_cut_echoed_input():
    from gulbara.cli import answer_request
    import json
    for call in (lambda: Game.from_state_code(START + " next=" + "x" * 10_000_000),
                 lambda: Game.from_state_code("G:" + "9" * 1_000_000),
                 lambda: gulbara.parse_notation("24/18" + "x" * 1_000_000),
                 lambda: Game(seed=1).play("24/1" + " 13/7" * 200_000),
                 lambda: Game(seed=1).play([(24, 1)] * 100_000)):
        with pytest.raises(GulBaraError) as info:
            call()
        assert len(str(info.value)) < 1000
    line = answer_request(json.dumps({"position": START, "seat": 0, "dice": [1] * 2_000_000}))
    assert len(line) < 1000 and "error" in json.loads(line)


def test_regression_huge_ints_as_seats_and_dice():
    huge = 10**5000
    position = gulbara.Position.from_code(START)
    with pytest.raises(gulbara.InvalidSeatError):
        position.stage_ends(huge, (6, 5))
    with pytest.raises(gulbara.InvalidDiceError):
        position.stage_ends(0, (huge, 5))
    with pytest.raises(gulbara.InvalidSeatError):
        gulbara.Board(turn=huge)
    with pytest.raises(gulbara.InvalidDiceError):
        Game(auto_roll=False).roll(huge, 1)
    with pytest.raises(GulBaraError):
        Game(seed=huge)
    with pytest.raises(GulBaraError):
        play_games(huge, "first")


def test_regression_any_integer_type_no_bools():
    from gulbara.rules import Rules
    assert gulbara.Board(turn=np.int64(1)).turn == 1
    assert perft(Game.new_perft_root(), np.int64(2)) == 1576
    assert perft(Game.new_perft_root(), np.uint8(1), engine="python") == 30
    assert Rules(stuck_limit=np.int32(7)).stuck_limit == 7
    assert type(Rules(exempt_rolls=np.int16(2)).exempt_rolls) is int
    assert Match(target=np.int64(2), seed=1).target == 2
    with pytest.raises(TypeError):
        perft(Game.new_perft_root(), True)
    with pytest.raises(TypeError):
        gulbara.Board(turn=True)
    with pytest.raises(GulBaraError):
        Match(target=True)
    with pytest.raises(GulBaraError):
        Rules(stuck_limit=np.bool_(True))


def test_regression_indexing_and_cli_depth():
    import contextlib
    import io
    from gulbara.cli import main
    ends = Game(seed=1).legal_plays()
    for index in ("a", 1.5, None):
        with pytest.raises(TypeError, match="indexed by an int"):
            ends[index]
    assert ends[np.int64(0)] == ends[0]
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        assert main(["perft", "99"]) == 2
        assert main(["perft", "-1"]) == 2
    assert "Traceback" not in err.getvalue() and "0..64, got 99" in err.getvalue()


def test_regression_unpicklable_worker_error_names_the_cause():
    class LocalError(Exception):
        pass

    def broken(features):
        raise LocalError("the network is down")

    with pytest.raises(RuntimeError, match="LocalError: the network is down"):
        play_games(2 * CHUNK_GAMES + 1, broken, seed=1, workers=2)
    assert multiprocessing.active_children() == []

    def picklable(features):
        raise KeyError("gone")

    with pytest.raises(KeyError, match="gone"):
        play_games(2 * CHUNK_GAMES + 1, picklable, seed=1, workers=2)


def test_regression_one_rule_for_scores_and_seeds():
    from gulbara.bots.search import expectimax
    from gulbara.selfplay.games import replay
    game = Game(seed=3)
    for bad in (lambda f: np.full(len(f), np.inf), lambda f: np.zeros(len(f)) + 1j,
                lambda f: np.full(len(f), np.nan)):
        with pytest.raises(GulBaraError):
            play_games(3, bad, seed=1, workers=1)
        with pytest.raises(GulBaraError):
            expectimax(game, 1, evaluate=bad)
    with pytest.raises(GulBaraError):
        Game(seed=-5)
    with pytest.raises(GulBaraError):
        play_games(3, "first", seed=-5)
    with pytest.raises(GulBaraError):
        replay(-5, 0)
    assert Game(seed=2**64 - 1).seed == 2**64 - 1


def test_regression_an_opponents_illegal_action_error_is_not_the_agents_illegal_action():
    """The steps env took any IllegalActionError raised while the opponent played for the
    agent's own illegal action: the episode ended lost (reward -1) with the agent's step
    applied. Now only the agent's action can lose; the opponent's error is raised and the
    env is as before the step."""
    gymnasium_env = pytest.importorskip("gulbara.envs.gymnasium")
    from gulbara.envs import IllegalActionError

    bot = FlakyBot(fail=False, error=IllegalActionError("the opponent's own illegal action"))
    env = gymnasium_env.GulBaraEnv(bot, illegal_action="lose")
    env.reset(seed=24)                               # White (the agent) to play 6-4
    state = env.game.state_code()
    env.step(143)
    bot.fail = True
    with pytest.raises(IllegalActionError, match="opponent's own"):
        env.step(141)                                # completes the stage: the bot fails
    assert env.game.state_code() == state
    bot.fail = False
    obs, reward, terminated, truncated, info = env.step(141)
    assert not info.get("illegal_action") and not terminated
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    obs, reward, terminated, truncated, info = env.step(illegal)   # the agent's own: lost
    assert info["illegal_action"] and terminated and reward == gymnasium_env.ILLEGAL_ACTION_REWARD


def test_regression_two_writers_of_one_network_file_never_share_a_temporary_name(tmp_path):
    """Two `gulbara train` runs with the same --out wrote through the same temporary name:
    one died with "No such file or directory: '....last.npz.tmp'", and the file could hold
    another run's network. Every write now goes through a temporary file of its own."""
    import threading
    from gulbara.net.model import ValueNet
    path = tmp_path / "x.npz"
    nets = [ValueNet.random(hidden=8, seed=s) for s in range(2)]
    errors = []

    def writer(net):
        try:
            for _ in range(40):
                net.save(str(path))
        except BaseException as exc:          # noqa: BLE001 - any failure is the bug
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(net,)) for net in nets]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert ValueNet.load(str(path)).sha256() in {net.sha256() for net in nets}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.npz"]


def test_regression_a_failed_write_leaves_the_old_file_and_no_other(tmp_path, monkeypatch):
    """A write that failed half-way (a full disk) left a 0-byte or partial file behind
    (selfplay --out, --plot, show -o)."""
    import json as json_module
    from gulbara.cli import main
    out = tmp_path / "stats.json"
    out.write_text("old", encoding="utf-8")

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(json_module, "dump", full_disk)
    assert main(["selfplay", "--games", "20", "--policy", "first", "-q", "-w", "1",
                 "--out", str(out)]) == 2
    assert out.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["stats.json"]
