"""The arena (gulbara.selfplay.arena) and the bots of gulbara.bots.simple: seats, reproducibility, intervals, CLI."""

import io
import json

import numpy as np
import pytest

import gulbara
from gulbara import DiceStream, Game
from gulbara.selfplay.arena import ArenaResult, arena
from gulbara.conventions import mean_interval, wilson_interval
from gulbara.bots import make_bot
from gulbara.cli.arena import run
from gulbara.bots import BOTS, Bot, ExpectimaxBot, GreedyBot, RandomBot, play_out
from gulbara.cli import build_parser, main
from gulbara.errors import GulBaraError

KEYS = {"games", "a_win_rate", "a_win_rate_low", "a_win_rate_high", "a_points_per_game",
        "a_points_per_game_low", "a_points_per_game_high", "draws", "seconds"}


class SeatRecorder:
    """A bot that plays the first legal end and notes the seats it was asked to play."""

    name = "recorder"

    def __init__(self):
        self.seats = []

    def choose(self, game):
        self.seats.append(game.decision.seat)
        return game.legal_plays()[0]


def test_reproducible_for_a_seed():
    first = arena("random", "greedy", 6, seed=11)
    again = arena("random", "greedy", 6, seed=11)
    assert first.a_points == again.a_points and first.a_seats == again.a_seats
    assert first.as_dict().keys() == again.as_dict().keys()
    other = arena("random", "random", 6, seed=12)
    assert other.seed == 12


def test_game_i_plays_the_dice_of_game_i_of_the_run_and_seats_alternate():
    a = SeatRecorder()
    result = arena(a, GreedyBot(), 4, seed=7)
    assert result.a_seats == (0, 1, 0, 1)
    assert set(a.seats) == {0, 1}
    # Game 1 (A Black) replays on the dice of game 1 of the run seeded 7 with the same bots.
    white, black = GreedyBot(), SeatRecorder()
    outcome = play_out(Game(dice=DiceStream(7, game=1)), white, black)
    expected = 0 if outcome.winner is None else (
        outcome.points if outcome.winner == 1 else -outcome.points)
    assert result.a_points[1] == expected


def test_counts_and_intervals():
    result = arena("greedy", "random", 10, seed=3)
    assert isinstance(result, ArenaResult)
    assert result.a_wins + result.b_wins + result.draws == result.games == 10
    assert result.a_win_rate == result.a_wins / 10
    assert result.a_win_rate_low <= result.a_win_rate <= result.a_win_rate_high
    assert -2 <= result.a_points_per_game_low <= result.a_points_per_game
    assert result.a_points_per_game <= result.a_points_per_game_high <= 2
    assert result.a_points_per_game == pytest.approx(np.mean(result.a_points))
    assert result.seconds > 0


@pytest.mark.parametrize("wins,n", [(0, 5), (5, 5), (3, 10), (50, 100), (1, 1)])
def test_wilson_contains_the_estimate(wins, n):
    low, high = wilson_interval(wins, n)
    assert 0 <= low <= wins / n <= high <= 1


def test_mean_interval():
    mean, low, high = mean_interval([1, 1, 1, 1])
    assert mean == low == high == 1
    assert mean_interval([2]) == (2, -2, 2)
    mean, low, high = mean_interval([1, -1] * 50)
    assert mean == 0 and low == pytest.approx(-high) and high == pytest.approx(
        1.96 * np.sqrt(100 / 99 / 100), rel=1e-3)


def test_progress_line():
    stream = io.StringIO()
    arena("greedy", "greedy", 3, seed=1, progress=stream)
    text = stream.getvalue()
    assert "\r" in text and "3/3 games" in text and "games/s" in text and text.endswith("\n")


def test_bad_arguments():
    with pytest.raises(GulBaraError, match="unknown bot 'nobody'"):
        arena("nobody", "greedy", 2)
    with pytest.raises(GulBaraError):
        arena("greedy", "greedy", 0)
    with pytest.raises(TypeError):
        arena(object(), "greedy", 2)
    with pytest.raises(TypeError):
        arena("greedy", "greedy", 2.0)


# ---------------------------------------------------------------------------
# The command line
# ---------------------------------------------------------------------------

def test_cli_json(capsys):
    assert main(["arena", "greedy", "random", "--games", "4", "--seed", "5", "--json"]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert KEYS <= set(data) and data["games"] == 4
    assert data["a_win_rate_low"] <= data["a_win_rate"] <= data["a_win_rate_high"]
    assert data["a"] == "greedy" and data["b"] == "random"
    assert "games/s" in captured.err
    again = run(build_parser().parse_args(
        ["arena", "greedy", "random", "--games", "4", "--seed", "5", "--json", "--quiet"]),
        None, io.StringIO())
    assert again == 0


def test_cli_text_and_quiet(capsys):
    assert main(["arena", "random", "greedy", "-n", "2", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert "win rate" in captured.out and captured.err == ""


def test_cli_bad_bot_name(capsys):
    assert main(["arena", "greedy", "nobody", "--games", "2"]) == 2
    err = capsys.readouterr().err
    assert "unknown bot 'nobody'" in err and "expectimax1" in err
    assert main(["arena", "greedy", "greedy", "--games", "0"]) == 2
    assert "games must be at least 1, got 0" in capsys.readouterr().err


# ---------------------------------------------------------------------------
# The bots
# ---------------------------------------------------------------------------

def test_bots_registry_and_protocol():
    assert {"random", "greedy", "expectimax1", "expectimax2"} <= set(BOTS)
    for name in BOTS:
        bot = make_bot(name, 1)
        assert isinstance(bot, Bot)
        game = Game(seed=2)
        assert bot.choose(game) in game.legal_plays()
    assert make_bot("expectimax2").depth == 2
    assert isinstance(SeatRecorder(), Bot)


def test_expectimax_bot_is_deterministic_and_plays_legal():
    game = Game(seed=9)
    first = play_out(game.copy(), ExpectimaxBot(1), ExpectimaxBot(1))
    again = play_out(game.copy(), ExpectimaxBot(1), ExpectimaxBot(1))
    assert first == again
    with pytest.raises(GulBaraError):
        ExpectimaxBot(0)
    with pytest.raises(TypeError):
        ExpectimaxBot(1, evaluate=3)


def test_expectimax_bot_with_a_custom_evaluator():
    # An evaluator that prefers the most checkers on the player's 24: it never moves off it
    # when it can help it, so the first play keeps the most there.
    bot = ExpectimaxBot(1, evaluate=lambda x: x[:, 95] + x[:, 94] + x[:, 93] + x[:, 92])
    game = Game(seed=24)                                  # White's opening 6-4
    assert str(bot.choose(game)) == "24/14"
    assert repr(bot) == "ExpectimaxBot(depth=1)"


def test_duplicate_pairs_share_the_dice():
    # the same deterministic bot on both sides: each pair is one game played twice
    result = arena("greedy", "greedy", 10, seed=5, duplicate=True)
    points = result.a_points
    assert all(points[2 * k] == -points[2 * k + 1] for k in range(5))
    assert result.a_seats == (0, 1) * 5
    plain = arena("greedy", "greedy", 10, seed=5)
    assert plain.a_points != points


def test_workers_play_the_same_games():
    serial = arena("greedy", "first", 12, seed=2, duplicate=True)
    parallel = arena("greedy", "first", 12, seed=2, duplicate=True, workers=2)
    assert parallel.a_points == serial.a_points and parallel.a_seats == serial.a_seats
    assert parallel.a_win_rate == serial.a_win_rate
    with pytest.raises(TypeError, match="by name"):
        arena(GreedyBot(), "greedy", 4, workers=2)


def test_arena_cli_duplicate_and_workers(capsys):
    from gulbara import cli
    assert cli.main(["arena", "greedy", "first", "--games", "6", "--duplicate", "--workers", "2",
                     "--json", "--quiet"]) == 0
    import json
    data = json.loads(capsys.readouterr().out)
    assert data["games"] == 6 and data["a"] == "greedy"


def test_native_arena_plays_the_policies_natively():
    from gulbara.selfplay.arena import native_arena
    result = arena("greedy", "first", 40, seed=3, duplicate=True, native=True)
    again = native_arena("greedy", "first", 40, seed=3, duplicate=True, workers=2)
    assert result.a_points == again.a_points and result.games == 40
    mirror = arena("greedy", "greedy", 10, seed=3, duplicate=True, native=True)
    assert all(mirror.a_points[2 * k] == -mirror.a_points[2 * k + 1] for k in range(5))
    # the native greedy policy is GreedyBot: the same choices on the same dice
    from gulbara.net import _play
    from gulbara.selfplay.games import replay
    rows, traces = _play.play_match("greedy", "first", Game(auto_roll=False), 3, 0, 2, True,
                                    trace=True)
    trace = []
    replay(3, 0, ("greedy", "first"), trace=trace)
    assert [tuple(p) for p in traces[0]] == trace
    with pytest.raises(GulBaraError, match="native arena plays random, first, greedy, net"):
        arena("expectimax1", "greedy", 2, native=True)
    with pytest.raises(TypeError, match="bot name"):
        arena(GreedyBot(), "greedy", 2, native=True)


def test_regression_arena_seeds_are_checked_before_any_game():
    """The native arena took seed 1.5 and overflowed on -1; the serial one checked only
    the first game's seed, failing mid-run on a seed the caller never gave."""
    for native in (False, True):
        for seed in (-1, 2**64):
            with pytest.raises(GulBaraError, match="seed"):
                arena("greedy", "first", 2, seed=seed, native=native)
        with pytest.raises(TypeError, match="seed"):
            arena("greedy", "first", 2, seed=1.5, native=native)
    # the largest seed is a run like any other: its games are the run's games 0, 1, ...
    assert arena("greedy", "first", 3, seed=2**64 - 1).games == 3
    assert arena("greedy", "first", 4, seed=2**64 - 1, duplicate=True).games == 4


def test_regression_bots_and_arena_refuse_arguments_of_the_wrong_type():
    """play_out, GreedyBot.choose and arena(progress=5) raised AttributeError."""
    with pytest.raises(TypeError, match="gulbara.Game"):
        play_out(gulbara.Board(), "greedy", "greedy")
    with pytest.raises(TypeError, match="black"):
        play_out(Game(seed=1), "greedy", None)
    for bot in (GreedyBot(), RandomBot(seed=1), BOTS["first"]()):
        with pytest.raises(TypeError, match="gulbara.Game"):
            bot.choose(gulbara.Board())
    with pytest.raises(TypeError, match="progress"):
        arena("greedy", "first", 1, progress=5)
    match = gulbara.Match(seed=3)
    assert GreedyBot().choose(match) in match.legal_plays()


def test_regression_cli_arena_seed_errors_are_messages(capsys):
    """gulbara arena --native --seed -1 ended in an OverflowError traceback."""
    assert main(["arena", "greedy", "first", "--games", "2", "--native", "--seed", "-1"]) == 2
    assert "seed must be 0 .. 2**64 - 1" in capsys.readouterr().err
    assert main(["arena", "greedy", "first", "--games", "2", "-q", "--seed", str(2**64)]) == 2
    assert "seed must be 0 .. 2**64 - 1" in capsys.readouterr().err


def test_one_seed_one_game_python_native_and_game():
    """Game(seed=s) is game 0 of the run seeded s; the Python and the native arena play the
    same games (the same dice, and the same plays by deterministic bots)."""
    from gulbara.selfplay.games import replay
    python = arena("greedy", "first", 6, seed=41)
    native = arena("greedy", "first", 6, seed=41, native=True)
    assert python.a_points == native.a_points and python.a_seats == native.a_seats
    game = Game(seed=41)
    play_out(game, GreedyBot(), GreedyBot())
    again = replay(41, 0, "greedy")
    assert [str(p) for _, p in game.plays] == [str(p) for _, p in again.plays]
    assert game.openings == again.openings


class _VandalBot:
    """Plays the first play, after playing the last one on the game it was given."""
    name = "vandal"

    def choose(self, game):
        plays = list(game.legal_plays())
        game.play(plays[-1])                        # on its copy: the arena's game is untouched
        return plays[0]


def test_regression_a_bot_gets_a_copy_of_the_game_it_chooses_for():
    """Arena bots got the live Game: one rewrote its opponent's plays and won 172-28."""
    from gulbara.bots import make_bot
    from gulbara.selfplay.arena import arena
    vandal = arena(_VandalBot(), "greedy", 12, seed=3)
    first = arena(make_bot("first"), "greedy", 12, seed=3)
    assert vandal.a_points == first.a_points


def test_regression_an_env_opponent_gets_a_copy_of_the_game():
    gymnasium = pytest.importorskip("gymnasium")  # noqa: F841
    from gulbara.envs.gymnasium import GulBaraEnv
    from gulbara.bots import make_bot
    runs = []
    for opponent in (_VandalBot(), make_bot("first")):
        env = GulBaraEnv(opponent=opponent)
        obs, info = env.reset(seed=4)
        trace = []
        for _ in range(30):
            action = int(np.flatnonzero(info["action_mask"])[0])
            obs, reward, terminated, truncated, info = env.step(action)
            trace.append((obs.tobytes(), reward, terminated))
            if terminated:
                break
        runs.append(trace)
    assert runs[0] == runs[1]
