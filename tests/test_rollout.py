"""Rollouts and parallel self-play: reproducible whatever the workers; errors; the CLI."""

import json

import numpy as np
import pytest

from gulbara import Game, Rules
from gulbara.cli import main
from gulbara.errors import GameStateError
from gulbara.selfplay.games import (CHUNK_GAMES, Estimate, InvalidPolicyError,
                              play_games, rollout)


def chain_state():
    """A decision inside an escalating chain, from a seeded game."""
    game = Game(seed=4)
    while not (game.decision.is_chain and game.decision.stage >= 1):
        game.play(game.legal_plays()[0])
    return Game.from_state_code(game.state_code(), game.rules)


def test_same_numbers_for_any_number_of_workers():
    n = 2 * CHUNK_GAMES + 321
    one = play_games(n, "random", seed=42, workers=1)
    two = play_games(n, "random", seed=42, workers=2)
    three = play_games(n, "random", seed=42, workers=3)
    assert np.array_equal(one.rows, two.rows) and np.array_equal(one.rows, three.rows)
    assert np.array_equal(one.chain_histogram, two.chain_histogram)
    assert one.as_dict()["first_player_win_rate"] == two.as_dict()["first_player_win_rate"]


def test_a_block_of_games_is_the_same_inside_a_longer_run():
    short = play_games(100, "greedy", seed=9, workers=1)
    long = play_games(CHUNK_GAMES + 50, "greedy", seed=9, workers=2)
    assert np.array_equal(short.rows, long.rows[:100])


def test_different_seeds_differ():
    a = play_games(200, "random", seed=1, workers=1)
    b = play_games(200, "random", seed=2, workers=1)
    assert not np.array_equal(a.rows, b.rows)


def test_rollout_from_a_chain_state_is_reproducible_and_leaves_the_game_alone():
    game = chain_state()
    code = game.state_code()
    a = rollout(game, 3000, "greedy", seed=5, workers=1)
    b = rollout(game, 3000, "greedy", seed=5, workers=2)
    c = rollout(code, 3000, "greedy", seed=5, workers=1)
    assert game.state_code() == code
    assert np.array_equal(a.rows, b.rows) and np.array_equal(a.rows, c.rows)
    white, black = a.win_probability
    draws = a.draws / a.games
    assert abs(white.value + black.value + draws - 1) < 1e-12
    assert white.low <= white.value <= white.high
    eq_white, eq_black = a.equity
    assert eq_white.value == pytest.approx(-eq_black.value)
    # equity = P(win) + P(mars win) - P(loss) - P(mars loss)
    mars_w, mars_b = a.mars_probability
    assert eq_white.value == pytest.approx(white.value + mars_w.value
                                           - black.value - mars_b.value)
    # chains begun before the rollout are not counted again; stages still are
    assert (a.column("starter") == -1).all()


def test_rollout_from_a_remainder_and_from_a_finished_game():
    game = Game(seed=2)
    while not game.decision.is_remainder:
        game.play(game.legal_plays()[0])
    result = rollout(game, 500, "random", seed=1, workers=1)
    assert result.games == 500 and (result.column("decisions") >= 1).all()
    over = Game(seed=3)
    while not over.is_over():
        over.play(over.legal_plays()[-1])
    done = rollout(over, 50, "random", seed=1, workers=1)
    winner = over.result().winner
    assert (done.column("winner") == winner).all() and (done.column("rolls") == 0).all()
    assert done.win_probability[winner].value == 1.0


def test_rollout_of_a_won_race_is_certain():
    # White bears off its last checker with any roll; Black has everything at home
    code = "G:1,,,,,,,,,,,,-15,,,,,,,,,,,|0,0|14,0 next=roll:W rolls=10,10 stuck=0"
    result = rollout(code, 200, "random", seed=0, workers=1)
    assert result.win_probability[0].value == 1.0
    assert result.mars_probability[0].value == 1.0      # Black bore off none
    assert result.equity[0].value == 2.0


def test_estimates():
    p = Estimate.proportion(0, 10)
    assert p.value == 0 and p.low == 0 and 0 < p.high < 0.35
    m = Estimate.mean(np.array([1, 2, 3, 4, 5]))
    assert m.value == 3 and m.low < 3 < m.high
    r = Estimate.ratio(np.array([2, 4, 6]), np.array([1, 2, 3]))
    assert r.value == 2 and r.low == pytest.approx(2) and r.high == pytest.approx(2)
    assert f"{p:.2f}".startswith("0.00 [0.00, 0.")


@pytest.mark.parametrize("kwargs,error", [
    (dict(n=0), ValueError),
    (dict(n=True), TypeError),
    (dict(n=10, seed=-1), ValueError),
    (dict(n=10, seed=2**64), ValueError),
    (dict(n=10, seed=1.5), TypeError),
    (dict(n=10, policy="clever"), InvalidPolicyError),
    (dict(n=10, policy=("random",)), InvalidPolicyError),
    (dict(n=10, policy=(lambda f: f[:, 0], lambda f: f[:, 1])), InvalidPolicyError),
    (dict(n=10, policy=3), InvalidPolicyError),
    (dict(n=10, workers=0), ValueError),
    (dict(n=10, backend="spark"), ValueError),
    (dict(n=10, max_rolls=0), ValueError),
    (dict(n=10, rules="default"), TypeError),
    (dict(n=10, start="G:"), TypeError),
])
def test_bad_arguments(kwargs, error):
    with pytest.raises(error):
        play_games(**kwargs)


def test_bad_rollout_inputs():
    with pytest.raises(TypeError):
        rollout(42, 10)
    with pytest.raises((GameStateError, ValueError)):
        rollout("G:,,,,,,,,,,,-15,,,,,,,,,,,,15|0,0|0,0 next=sideways", 10)
    with pytest.raises(ValueError):
        rollout(Game(auto_roll=False), 10, rules=Rules(mars=False))


def test_evaluator_errors_are_raised_and_named():
    def wrong_shape(features):
        return np.zeros(len(features) + 1)

    def broken(features):
        raise RuntimeError("network down")

    with pytest.raises(ValueError, match="must return"):
        play_games(3, wrong_shape, seed=1, workers=1)
    with pytest.raises(RuntimeError, match="network down"):
        play_games(3, broken, seed=1, workers=1)
    with pytest.raises(ValueError, match="NaN"):
        play_games(3, lambda f: np.full(len(f), np.nan), seed=1, workers=1)


def test_evaluator_sees_the_documented_features():
    seen = []

    def evaluator(features):
        seen.append((features.dtype, features.shape))
        return features[:, 192]              # borne off: prefer bearing off

    result = play_games(5, evaluator, seed=3, workers=1)
    assert result.games == 5 and seen
    assert all(dtype == np.float32 and shape[1] == 196 for dtype, shape in seen)


def test_evaluator_runs_in_worker_processes():
    def evaluator(features):
        return -features[:, 194]             # fewest pips
    n = CHUNK_GAMES + 10
    one = play_games(n, evaluator, seed=8, workers=1)
    two = play_games(n, evaluator, seed=8, workers=2)
    assert np.array_equal(one.rows, two.rows)


# ---------------------------------------------------------------------------
# The command line
# ---------------------------------------------------------------------------


def test_selfplay_cli_json_and_out(tmp_path, capsys):
    out = tmp_path / "stats.json"
    assert main(["selfplay", "--games", "300", "--policy", "greedy", "--workers", "2",
                 "--seed", "4", "--json", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    for key in ("games", "seconds", "games_per_second", "policy", "seed",
                "first_player_win_rate", "mars_rate", "mean_rolls", "draws"):
        assert key in data, key
    assert data["games"] == 300 and data["policy"] == "greedy" and data["seed"] == 4
    assert data["workers"] == 1 and data["backend"] == "local"     # 300 games: one block
    assert json.loads(out.read_text())["mean_rolls"] == data["mean_rolls"]
    assert "games/s" in captured.err and "300/300 games" in captured.err
    again = play_games(300, "greedy", seed=4, workers=1)
    assert data["mean_rolls"] == again.mean_rolls.value


def test_selfplay_cli_table_state_and_rules(capsys):
    state = chain_state().state_code()
    assert main(["selfplay", "--games", "100", "--state", state, "--rules", "default",
                 "--black-policy", "first", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert "net vs first" in captured.out and "mean rolls per game" in captured.out   # the default
    assert captured.err == ""


def test_selfplay_cli_plot(tmp_path, capsys):
    path = tmp_path / "lengths.png"
    assert main(["selfplay", "--games", "200", "--quiet", "--plot", str(path)]) == 0
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("argv,message", [
    (["--games", "0"], "at least 1"),
    (["--rules", "remainder=sometimes"], "remainder"),
    (["--state", "nonsense"], ""),
    (["--workers", "0"], "workers"),
])
def test_selfplay_cli_errors(argv, message, capsys):
    assert main(["selfplay", "--quiet"] + argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("gulbara: ") and message in err


@pytest.mark.parametrize("extra", [["--plot", "openings.png"],
                                   ["--state", "G:,,,,,,,,,,,-15,,,,,,,,,,,,15|0,0|0,0",
                                    "--seat", "white"],
                                   ["--seat", "black"], ["--rolls", "1,1"],
                                   ["--max-rolls", "50"]])
def test_regression_openings_refuse_the_options_they_would_ignore(extra, tmp_path, capsys,
                                                                  monkeypatch):
    """gulbara selfplay --openings --plot openings.png exited 0 with no file and no message."""
    from gulbara.cli import main
    monkeypatch.chdir(tmp_path)
    assert main(["selfplay", "--openings", "--games", "36", "--quiet"] + extra) == 2
    err = capsys.readouterr().err
    assert f"--openings (the opening table, from the start) does not take {extra[0]}" in err
    assert not (tmp_path / "openings.png").exists()
