"""Rollouts with luck subtraction (gulbara.rollouts): the native games against their Python twin,
the estimator where the luck is known, quasi-random dice, truncation, candidates on common
dice, stop rules, and merge / resume / workers giving the very same numbers (Ray:
tests/test_ray.py)."""

import json

import numpy as np
import pytest

import gulbara
from gulbara import Game, Position
from gulbara.conventions import DICE_36
from gulbara.errors import GulBaraError
from gulbara.eval.bearoff import bearoff_table, race_equity
from gulbara.net.model import default_net
from gulbara.rollouts import _rollout
from gulbara.rollouts import LUCK_RULES, Rollout, load, merge, rollout
from gulbara.rollouts.luckmodel import (ROLL_WEIGHTS, LuckModel, fit_luck_model, luck_model,
                                        luck_samples)

import rollout_twin


def _midgame(seed=5, plies=30):
    game = Game(seed=seed)
    while not game.is_over() and plies:
        if game.is_decision():
            game.play(game.legal_plays()[0])
            plies -= 1
    return game


def _to_roll(game):
    """``game`` moved on to its next chance node (a side to roll)."""
    game = game.copy(auto_roll=False)
    while game.is_decision():
        game.play(game.legal_plays()[0])
    return game


def _native(start, side, policy, seed, first, count, race=True, **options):
    network = default_net(start.rules)
    nets = [network.native if policy == "net" else None] * 2
    if race:
        options.update(race_dist=bearoff_table().dist, race_first=bearoff_table().first_dist)
    return _rollout.rollout_block([start], side, (policy, policy), nets, network.native,
                                  options.pop("vr", True), seed, first, count, **options)


@pytest.mark.parametrize("policy", ["net", "greedy", "random"])
def test_native_games_and_luck_are_the_python_twins(policy):
    start = _to_roll(_midgame())
    side = start.to_move
    network = default_net(start.rules)
    out = _native(start, side, policy, 11, 3, 4, truncate=5)
    for g in range(4):
        points, luck, game, _ = rollout_twin.play(start, side, (policy, policy), network, 11,
                                               3 + g, truncate=5)
        assert out["luck"][0, g] == pytest.approx(luck, abs=1e-5)
        assert out["stopped"][0, g] == (points is None)
        if points is not None:
            assert out["points"][0, g] == points
        assert out["rolls"][0, g] == game.game_rolls - start.game_rolls


def test_the_fast_luck_rule_is_its_python_twin():
    start = _to_roll(_midgame(seed=2, plies=24))
    side = start.to_move
    network = default_net(start.rules)
    out = _native(start, side, "greedy", 5, 0, 3, truncate=8, luck_rule=1)
    doubles = 0
    for g in range(3):
        points, luck, _, rolled = rollout_twin.play(start, side, ("greedy", "greedy"), network,
                                                    5, g, truncate=8, rule="fast")
        assert out["luck"][0, g] == pytest.approx(luck, abs=1e-5)
        doubles += sum(a == b for a, b in rolled)
    assert doubles > 0                     # both branches of the rule: a double drawn and not


def test_the_pips_luck_rule_is_its_python_twin():
    """The twin values all 36 rolls and takes the classes' means as written in the docs; the
    native rule plays out only the anchors, the drawn roll's pip class and, on a double, the
    doubles: the same luck."""
    start = _to_roll(_midgame(seed=2, plies=24))
    side = start.to_move
    network = default_net(start.rules)
    out = _native(start, side, "greedy", 5, 0, 4, truncate=8, luck_rule=2)
    doubles = 0
    pips = set()
    for g in range(4):
        points, luck, _, rolled = rollout_twin.play(start, side, ("greedy", "greedy"), network,
                                                    5, g, truncate=8, rule="pips")
        assert out["luck"][0, g] == pytest.approx(luck, abs=1e-5)
        doubles += sum(a == b for a, b in rolled)
        pips.update(a + b for a, b in rolled if a != b)
    assert doubles > 0 and len(pips & {5, 6, 8, 9}) > 0    # a double, a class of two rolls


def test_the_model_luck_rule_is_its_python_twin():
    """The twin computes the features with numpy (the hidden activations, the checkers' reach,
    each chain's value unplayed by a whole forward pass) and the shipped model's function in
    float64; the native rule in float32, the chains' values from the waiting state's sums."""
    start = _to_roll(_midgame(seed=2, plies=24))
    side = start.to_move
    network = default_net(start.rules)
    model = luck_model()
    out = _native(start, side, "greedy", 5, 0, 4, truncate=8, luck_rule=LUCK_RULES["model"],
                  luck_model=model.packed(), luck_units=model.units)
    doubles = 0
    for g in range(4):
        points, luck, _, rolled = rollout_twin.play(start, side, ("greedy", "greedy"), network,
                                                    5, g, truncate=8, rule="model", model=model)
        assert out["luck"][0, g] == pytest.approx(luck, abs=1e-4)
        assert luck != 0.0
        doubles += sum(a == b for a, b in rolled)
    assert doubles > 0


def test_the_model_luck_rule_refuses_arrays_of_another_shape():
    start = _to_roll(_midgame())
    model = luck_model()
    with pytest.raises(GulBaraError, match="packed floats"):
        _native(start, 0, "greedy", 1, 0, 1, luck_rule=LUCK_RULES["model"],
                luck_model=np.ascontiguousarray(model.packed()[:, :-1]),
                luck_units=model.units)
    with pytest.raises(GulBaraError, match="packed floats"):
        _native(start, 0, "greedy", 1, 0, 1, luck_rule=LUCK_RULES["model"])
    with pytest.raises(GulBaraError, match="units"):
        _native(start, 0, "greedy", 1, 0, 1, luck_rule=LUCK_RULES["model"],
                luck_model=model.packed(), luck_units=-1)


def test_a_model_fitted_to_luck_removes_most_of_it():
    """Fitted on a few games' rolls, the model's h predicts each roll's luck by the full rule
    better than no h at all on the rolls of other games (what makes the rule narrow)."""
    model = fit_luck_model(games=40, seed=3, units=8, epochs=5)
    rows = luck_samples(20, seed=4)
    w = ROLL_WEIGHTS / 36
    luck = rows["values"] - (rows["values"] @ w)[:, None]
    escalating = rows["block"] == 1
    h = model.values(rows["features"][escalating], 1)
    h -= (h @ w)[:, None]
    left = (((luck[escalating] - h) ** 2) @ w).mean()
    assert left < 0.5 * ((luck[escalating] ** 2) @ w).mean()


def test_a_luck_model_saves_and_loads_and_refuses_other_files(tmp_path):
    model = fit_luck_model(games=3, seed=1, units=4, epochs=1)
    path = str(tmp_path / "luck.npz")
    model.save(path)
    back = LuckModel.load(path)
    assert np.array_equal(back.packed(), model.packed()) and back.network == model.network
    np.savez(str(tmp_path / "other.npz"), linear=np.zeros((2, 3, 4)))
    with pytest.raises(GulBaraError, match="not a luck model"):
        LuckModel.load(str(tmp_path / "other.npz"))


def test_the_model_rule_needs_a_model_fitted_to_the_network(tmp_path, monkeypatch):
    from gulbara.rollouts import luckmodel
    game = gulbara.Game(seed=3)
    monkeypatch.setattr(luckmodel, "shipped_luck_path", lambda rules=None: str(tmp_path / "no"))
    with pytest.raises(GulBaraError, match="no luck model ships"):
        rollout(game, 36, luck="model")
    other = fit_luck_model(games=2, seed=1, units=2, epochs=1,
                           rules=gulbara.Rules.preset("plain-doubles"))
    other.save(str(tmp_path / "no"))
    with pytest.raises(GulBaraError, match="another network"):
        rollout(game, 36, luck="model")
    assert rollout(game, 36, luck="model", vr=False).games == 36     # no luck: not needed


def test_a_luck_model_ships_for_each_network_and_narrows_its_rollouts():
    """Under rules without escalation (their own network, block 0 of the function only) as
    under the default rules: the model rule removes luck, the same games as without it."""
    for rules in (gulbara.Rules(), gulbara.Rules.preset("plain-doubles")):
        model = luck_model(rules)
        assert model.network == default_net(rules).sha256() and model.units == 32
        game = _to_roll(_midgame(seed=4, plies=6) if rules.escalation else
                        Game(rules=rules, seed=4))
        plain = rollout(game, 144, vr=False, seed=2, rules=rules)
        lucky = rollout(game, 144, luck="model", seed=2, rules=rules)
        assert lucky.candidates[0].tally.interval("points") == \
            plain.candidates[0].tally.interval("points")
        assert lucky.equity.se < plain.equity.se


def test_the_luck_command_fits_and_saves_a_model(tmp_path, capsys):
    from gulbara.cli import main
    out = str(tmp_path / "luck.npz")
    assert main(["luck", out, "--games", "4", "--units", "4", "--epochs", "1"]) == 0
    model = LuckModel.load(out)
    assert model.units == 4 and model.games == 4 and model.network == default_net().sha256()
    assert main(["luck", out, "--games", "0"]) == 2
    assert "games" in capsys.readouterr().err


def test_every_luck_rule_has_mean_zero_at_a_position():
    """Each luck rule's luck, averaged over the 36 rolls of one position with the doubles
    escalating, is zero: the estimator subtracts no bias (docs/user/rollouts.md)."""
    start = _to_roll(_midgame(seed=9))
    network = default_net(start.rules)
    probe = start.copy(auto_roll=False)
    probe.roll(1, 1)
    assert probe.decision.is_chain                               # the rules' classes apply
    for rule in ("full", "fast", "pips", "model"):
        lucks = [rollout_twin.luck(start, network, a, b, rule, model=luck_model())
                 for a, b in DICE_36]
        assert abs(np.mean(lucks)) < 1e-9, rule
        assert np.std(lucks) > 0.01, rule


def test_the_commands_offer_every_luck_rule():
    import argparse
    from gulbara.cli import benchmark as benchmark_command, rollout as rollout_command
    from gulbara.rollouts import LUCK_RULES
    for command, given in ((benchmark_command, []), (rollout_command, ["start"])):
        parser = argparse.ArgumentParser()
        command.add_arguments(parser)
        for rule in LUCK_RULES:
            assert parser.parse_args(given + ["--luck", rule]).luck == rule


def test_an_unknown_luck_rule_is_refused_by_the_native_games():
    with pytest.raises(GulBaraError, match="luck_rule must be one of"):
        _native(_to_roll(_midgame()), 0, "greedy", 5, 0, 1, luck_rule=len(_rollout.LUCK_RULES))


def test_a_race_decided_by_the_first_roll_has_its_luck_removed():
    """White to roll with three checkers on its 1 point, Black with one: a double wins for
    White, any other roll loses (Black then bears off). The equity is -2/3; each game's
    result is +1 or -1, but minus White's luck (the roll's value minus the mean) every
    estimate is -2/3 up to the network's error on the lost rolls."""
    position = Position.from_points([3] + [0] * 11 + [-1] + [0] * 11, 12, 14)
    start = Game.from_state_code(gulbara.game.state_codes.state_code(
        position.code(), "white", rolls=(5, 5)))
    result = rollout(start, 360, policy="greedy", seed=2)
    t = result.best.tally
    assert t.interval("points").se > 0.03                        # +1 or -1
    assert abs(t.mean("estimate") + 2 / 3) < 0.02
    assert t.interval("estimate").se < 0.1 * t.interval("points").se
    assert result.equity.low < -2 / 3 < result.equity.high or \
        abs(result.equity.value + 2 / 3) < 0.02


def test_luck_of_a_roll_is_its_value_minus_the_mean_of_the_36():
    start = _to_roll(_midgame(seed=9))
    network = default_net(start.rules)
    values = {(a, b): rollout_twin.roll_value(start, network, a, b) for a, b in DICE_36}
    assert values[(6, 5)] == values[(5, 6)]                      # order does not matter
    out = _native(start, start.to_move, "first", 4, 0, 36, truncate=1)
    mean = np.mean(list(values.values()))
    for g in range(36):                                           # quasi: game g rolls DICE_36[g]
        assert out["luck"][0, g] == pytest.approx(values[DICE_36[g]] - mean, abs=1e-5)
    assert abs(out["luck"][0].sum()) < 1e-4                       # the 36 first rolls: no luck


def test_quasi_random_dice_cover_every_first_roll_and_pair():
    start = _to_roll(_midgame())
    pairs = [tuple(rollout_twin.quasi_rolls(g)) for g in range(1296)]
    assert len(set(pairs)) == 1296
    assert sorted(p[0] for p in pairs[:36]) == sorted(DICE_36)
    assert sorted(p[1] for p in pairs[:36]) == sorted(DICE_36)
    network = default_net(start.rules)
    out = _native(start, start.to_move, "first", 3, 70, 2, truncate=2, vr=False)
    for g in range(2):
        _, _, _, rolled = rollout_twin.play(start, start.to_move, ("first", "first"), network,
                                            3, 70 + g, vr=False, truncate=2)
        assert rolled == rollout_twin.quasi_rolls(70 + g)
        assert out["rolls"][0, g] == 2


def test_two_halves_merged_are_the_whole_bit_for_bit(tmp_path):
    game = Game(seed=24)
    whole = rollout(game, 216, candidates=["24/14", "24/18 24/20"], policy="greedy", seed=7,
                    truncate=12)
    first = rollout(game, 72, candidates=["24/14", "24/18 24/20"], policy="greedy", seed=7,
                    truncate=12)
    second = rollout(game, 144, candidates=["24/14", "24/18 24/20"], policy="greedy", seed=7,
                     truncate=12, first=72)
    merged = merge(second, first)
    assert [c.tally for c in merged.candidates_in_order] == \
        [c.tally for c in whole.candidates_in_order]
    assert merged.pairs == whole.pairs
    assert merged.summary()["equity"] == whole.summary()["equity"]
    with pytest.raises(GulBaraError, match="overlap"):
        merge(first, first)
    other = rollout(game, 72, candidates=["24/14", "24/18 24/20"], policy="greedy", seed=8,
                    truncate=12)
    with pytest.raises(GulBaraError, match="settings"):
        merge(first, other)
    path = tmp_path / "run.json"
    first.save(path)
    resumed = rollout(game, 216, candidates=["24/14", "24/18 24/20"], policy="greedy", seed=7,
                      truncate=12, resume=load(path))
    assert [c.tally for c in resumed.candidates_in_order] == \
        [c.tally for c in whole.candidates_in_order]


def test_workers_give_the_same_numbers():
    game = _to_roll(_midgame())
    one = rollout(game, 288, policy="greedy", seed=3, truncate=20)
    two = rollout(game, 288, policy="greedy", seed=3, truncate=20, workers=2)
    assert one.best.tally == two.best.tally


def test_candidates_play_on_common_dice():
    """Each candidate's games are those of the state after it: the same game indices, so the
    same dice, whatever the other candidates."""
    game = Game(seed=24)
    both = rollout(game, 72, candidates=["24/14", "24/18 24/20"], policy="greedy", seed=5,
                   truncate=10)
    after = game.copy(auto_roll=False)
    after.play("24/14")
    alone = rollout(after, 72, policy="greedy", seed=5, truncate=10)
    mine, theirs = both.candidates_in_order[0].tally, alone.best.tally   # the other side's view
    for name in ("points", "luck", "estimate"):
        assert theirs.sums[name] == -mine.sums[name] != 0
        assert theirs.squares[name] == mine.squares[name]
    assert (theirs.sums["win"], theirs.sums["win_mars"]) == (mine.sums["lose"],
                                                           mine.sums["lose_mars"])
    d = both.difference("24/14")
    assert d.value == pytest.approx(both.candidates_in_order[0].equity.value
                                    - both.candidates_in_order[1].equity.value, abs=1e-9) \
        or d.value == pytest.approx(0.0)


def test_stop_rules_stop_on_the_target_and_drop_a_clearly_worse_play():
    game = Game(seed=24)
    stopped = rollout(game, 5184, policy="greedy", seed=1, target_se=0.05, truncate=8)
    assert stopped.games < 5184 and stopped.equity.se <= 0.05
    plays = [str(p) for p in game.legal_plays()]
    worst = rollout(game, 1296, candidates=plays, policy="greedy", seed=1, truncate=8,
                    drop=2.0)
    dropped = [c for c in worst.candidates_in_order if c.dropped]
    assert dropped and all(c.games < worst.games for c in dropped)
    for c in dropped:
        assert worst.difference(c.play).high < 0.05


def test_truncated_games_agree_with_full_games_on_average():
    game = _to_roll(_midgame(seed=3, plies=20))
    full = rollout(game, 1296, policy="greedy", seed=4, vr=False)
    truncated = rollout(game, 1296, policy="greedy", seed=4, vr=False, truncate=6)
    d = full.equity.value - truncated.equity.value
    se = np.hypot(full.equity.se, truncated.equity.se)
    assert abs(d) < 3.3 * se


def test_bear_offs_are_valued_by_the_database_in_the_luck_and_when_stopped():
    """Both sides bearing off, past their exempt rolls: a roll's turn is valued exactly by the
    database (its best end by race_equity), and a game stopped there scored by it."""
    position = Position.from_points([2, 2, 1, 2, 1, 0] + [0] * 6 + [-1, -2, -2, -1, -1, -1]
                                    + [0] * 6, 7, 7)
    start = Game.from_state_code(gulbara.game.state_codes.state_code(
        position.code(), "white", rolls=(6, 6)))
    network = default_net(start.rules)
    out = _native(start, 0, "net", 3, 0, 6, truncate=2)
    without = _native(start, 0, "net", 3, 0, 6, truncate=2, race=False)
    for g in range(6):
        points, luck, game, _ = rollout_twin.play(start, 0, ("net", "net"), network, 3, g,
                                                  truncate=2)
        assert out["luck"][0, g] == pytest.approx(luck, abs=1e-6)
        if points is None:
            assert out["points"][0, g] == pytest.approx(
                race_equity(game.position, 0) if game.to_move == 0
                else -race_equity(game.position, 1), abs=1e-12)
        else:
            assert out["points"][0, g] == points
    assert np.any(np.abs(out["luck"] - without["luck"]) > 1e-3)      # the network differs


def test_bad_arguments_are_refused():
    game = Game(seed=24)
    with pytest.raises(GulBaraError, match="a rollout plays random, first, greedy, net"):
        rollout(game, 36, policy="expectimax1")
    with pytest.raises(GulBaraError, match="not a legal play"):
        rollout(game, 36, candidates=["24/12"])
    with pytest.raises(TypeError):
        rollout(game, 36, candidates="24/14")
    with pytest.raises(GulBaraError, match="decision"):
        rollout(_to_roll(_midgame()), 36, candidates=2)
    with pytest.raises(TypeError):
        rollout(42, 36)
    with pytest.raises(GulBaraError, match="games"):
        rollout(game, 0)
    with pytest.raises(TypeError):
        merge(game)
    assert isinstance(rollout(game, 36, policy="first", truncate=2), Rollout)


# -- the command line ---------------------------------------------------------------------

def test_the_rollout_command_prints_json_and_resumes(tmp_path, capsys):
    import json
    from gulbara.cli import main
    state = Game(seed=24).state_code()
    common = [state, "--policy", "greedy", "--truncate", "10", "--seed", "4", "-q"]
    assert main(["rollout", *common, "--games", "72", "--plays", "24/14", "24/18 24/20",
                 "--json"]) == 0
    whole = json.loads(capsys.readouterr().out)
    for key in ("games", "seconds", "equity", "equity_low", "equity_high", "white_win",
                "white_win_low", "black_mars_high", "candidates"):
        assert key in whole
    assert whole["games"] == 72 and len(whole["candidates"]) == 2
    assert {c["play"] for c in whole["candidates"]} == {"24/14", "24/18 24/20"}
    for c in whole["candidates"]:
        assert c["equity_low"] <= c["equity"] <= c["equity_high"] and c["games"] == 72
    path = tmp_path / "half.json"
    assert main(["rollout", *common, "--games", "36", "--plays", "24/14", "24/18 24/20",
                 "--out", str(path)]) == 0
    assert "to the best" in capsys.readouterr().out
    assert main(["rollout", *common, "--games", "72", "--plays", "24/14", "24/18 24/20",
                 "--resume", str(path), "--json"]) == 0
    resumed = json.loads(capsys.readouterr().out)
    assert resumed["equity"] == whole["equity"] and resumed["candidates"] == whole["candidates"]


def test_the_rollout_command_names_every_valid_policy(capsys):
    from gulbara.cli import main
    assert main(["rollout", "start", "--seat", "white", "--policy", "best", "-q"]) == 2
    err = capsys.readouterr().err
    assert "random, first, greedy, net or an .npz network" in err


# -- the decision set and the error rate ---------------------------------------------------

def test_sampled_decisions_are_reproducible_legal_choices():
    from gulbara.rollouts import benchmark
    decisions = benchmark.sample(30, seed=2)
    assert decisions == benchmark.sample(30, seed=2)
    assert len({d["id"] for d in decisions}) == 30
    for d in decisions:
        game = Game.from_state_code(d["state"])
        assert len(game.legal_plays()) > 1 and d["kind"] in benchmark.KINDS
        assert d["phase"] in benchmark.PHASES


def test_first_three_a_game_sampling_keeps_its_chain_share():
    from gulbara.rollouts import benchmark
    kinds = [d["kind"] for d in benchmark.sample(30, seed=2, per_game="first")]
    assert kinds.count("plain") == 20 and len(kinds) == 30


def test_decisions_a_set_has_stand_in_for_the_first_picks_of_their_stratum():
    from gulbara.rollouts import benchmark
    whole = benchmark.sample(30, seed=2)
    have = [dict(d, id="other-" + d["id"]) for d in whole[:7]]     # as if from another seed
    assert benchmark.sample(30, seed=2, have=have) == whole[7:]
    assert benchmark.sample(30, seed=2, have=whole[:7]) == whole    # its own seed's: resumed


def test_uniform_sampling_reaches_the_bear_off_in_proportion():
    # a decision late in a game is as likely to be sampled as an early one: the bear-offs
    # (about 4% of the net policy's decisions) are not crowded out by the first picks
    from gulbara.rollouts import benchmark
    phases = [d["phase"] for d in benchmark.sample(300, seed=4)]
    assert phases.count("bearoff") >= 3


def test_an_unknown_sampling_scheme_is_refused():
    from gulbara.rollouts import benchmark
    with pytest.raises(GulBaraError, match="per_game must be one of uniform, first"):
        benchmark.sample(3, per_game="last")


def test_the_set_builds_resumably_and_scores_a_bot(tmp_path):
    from gulbara.rollouts import benchmark
    path = tmp_path / "set.jsonl"
    decisions = benchmark.sample(2, seed=3)
    assert benchmark.build(path, decisions[:1], games=72, target_se=0.5, luck="fast") == 1
    assert benchmark.build(path, decisions, games=72, target_se=0.5, luck="fast") == 1
    assert benchmark.build(path, decisions, games=72, target_se=0.5, luck="fast") == 0
    with open(path, "a", encoding="utf-8") as f:        # a line cut short by a kill
        f.write('{"id": "cut", "sta')
    assert benchmark.build(path, decisions, games=72, target_se=0.5, luck="fast") == 0
    lines = benchmark.load_set(path)
    assert [line["id"] for line in lines] == [d["id"] for d in decisions]
    for line in lines:
        best = line["candidates"][0]
        assert best["difference"] == 0.0 and len(line["candidates"]) >= 2
        assert all(c["difference"] <= 0.0 for c in line["candidates"])

    class Oracle:                               # always the rolled-out best: no error
        name = "oracle"

        def choose(self, game):
            line = next(x for x in lines if x["state"] == game.state_code())
            return game.legal_plays().parse(line["candidates"][0]["play"])

    perfect = benchmark.score(Oracle(), lines)
    assert perfect.error_rate == 0.0 and perfect.outside == 0 and perfect.decisions == 2
    assert perfect.noise_floor >= 0.0

    class Worst:                                # the last candidate: its loss exactly
        name = "worst"

        def choose(self, game):
            line = next(x for x in lines if x["state"] == game.state_code())
            return game.legal_plays().parse(line["candidates"][-1]["play"])

    worst = benchmark.score(Worst(), lines)
    expected = 1000 * np.mean([-x["candidates"][-1]["difference"] for x in lines])
    assert worst.error_rate == pytest.approx(expected)


def test_a_choice_outside_the_candidates_is_charged_the_largest_loss():
    from gulbara.rollouts import benchmark
    game = Game(seed=24)
    line = {"id": "x", "state": game.state_code(), "kind": "plain", "phase": "opening",
            "candidates": [{"play": "24/14", "equity": 0.1, "se": 0.01, "difference": 0.0,
                            "difference_se": 0.0, "games": 1, "dropped": False}]}
    # only one candidate rolled out; "first" plays 24/18 24/20, outside it
    result = benchmark.score("first", [line, dict(line, id="y")])
    assert result.outside == 2 and result.error_rate == 0.0
    line["candidates"].append({"play": "18/14 24/18", "equity": 0.0, "se": 0.01,
                               "difference": -0.1, "difference_se": 0.01, "games": 1,
                               "dropped": False})
    assert benchmark.score("first", [line]).error_rate == pytest.approx(100.0)
    with pytest.raises(GulBaraError, match="empty"):
        benchmark.score("first", [])


def test_bots_compare_decision_by_decision_on_the_same_set(tmp_path, capsys):
    """The difference of two bots' error rates is the mean of their per-decision differences
    (a paired interval); on another set the comparison is refused; the command prints each
    bot against the best of those named."""
    from gulbara.cli import main
    from gulbara.rollouts import benchmark
    lines = benchmark.load_set()[:40]
    first, net = benchmark.score("first", lines), benchmark.score("net", lines)
    mean, low, high = first.against(net)
    assert mean == pytest.approx(first.error_rate - net.error_rate)
    assert low <= mean <= high
    assert first.against(first)[0] == 0.0
    with pytest.raises(GulBaraError, match="same decision set"):
        first.against(benchmark.score("net", lines[:39]))
    path = tmp_path / "set.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    capsys.readouterr()
    assert main(["benchmark", "first", "net", "--set", str(path), "--json"]) == 0
    records = {r["bot"]: r for r in map(json.loads, capsys.readouterr().out.splitlines())}
    best, other = (("net", "first") if net.error_rate <= first.error_rate else ("first", "net"))
    assert "against" not in records[best]
    assert records[other]["against"]["bot"] == best
    assert records[other]["against"]["difference"] == pytest.approx(
        records[other]["error_rate"] - records[best]["error_rate"])


def test_error_rates_by_phase_make_up_the_whole():
    from gulbara.rollouts import benchmark
    lines = benchmark.load_set()[:60]
    result = benchmark.score("greedy", lines)
    phases = [benchmark.game_phase(line) for line in lines]
    assert set(result.by_phase) == set(phases) <= set(benchmark.GAME_PHASES)
    assert sum(result.by_phase[p] * phases.count(p) for p in result.by_phase) / len(lines) == \
        pytest.approx(result.error_rate)
    assert result.as_dict()["by_phase"] == result.by_phase


def test_regression_a_one_decision_set_gives_valid_json(tmp_path, capsys):
    # one decision has no spread: the intervals were +-inf, written as JSON's invalid Infinity
    from gulbara.cli import main
    from gulbara.rollouts import benchmark
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps(benchmark.load_set()[0]) + "\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["benchmark", "random", "net", "--set", str(path), "--json"]) == 0
    out = capsys.readouterr().out
    records = [json.loads(r, parse_constant=lambda c: pytest.fail(f"{c} in {r}"))
               for r in out.splitlines()]
    for r in records:
        assert 0.0 <= r["error_rate_low"] <= r["error_rate"] <= r["error_rate_high"]


def test_a_score_without_its_losses_is_not_compared():
    from gulbara.rollouts import benchmark
    whole = benchmark.score("first", benchmark.load_set()[:3])
    bare = benchmark.Score("bare", 3, 1.0, 0.0, 2.0, 0, 0.0, {})
    with pytest.raises(GulBaraError, match="score of bare has no loss for each"):
        whole.against(bare)


def test_the_shipped_decision_set_is_whole_and_scores_the_bots_in_order_of_strength():
    """The set the package ships: every line a decision with two plays or more and its
    rolled-out candidates, best first; random play errs more than greedy, greedy more than
    the net bot."""
    from gulbara.rollouts import benchmark
    lines = benchmark.load_set()
    assert len(lines) >= 100 and len({line["id"] for line in lines}) == len(lines)
    for line in lines[:20]:
        game = Game.from_state_code(line["state"])
        plays = game.legal_plays()
        assert all(c["play"] in plays for c in line["candidates"])
        assert line["candidates"][0]["difference"] == 0.0
    scores = {bot: benchmark.score(bot, lines) for bot in ("random", "greedy", "net")}
    assert scores["random"].error_rate > scores["greedy"].error_rate > scores["net"].error_rate
    assert 0 <= scores["net"].noise_floor < scores["net"].error_rate


def test_the_shipped_decision_set_holds_a_thousand_decisions_of_every_kind_and_phase():
    """What the set is for: at least 1,000 decisions, about a third of them chain or remainder
    stages, and openings, contact, races and bear-offs each a real share, as play meets them."""
    from gulbara.rollouts import benchmark
    lines = benchmark.load_set()
    assert len(lines) >= 1000
    chains = sum(line["kind"] != "plain" for line in lines)
    assert 0.28 <= chains / len(lines) <= 0.40
    phases = [benchmark.game_phase(line) for line in lines]
    for phase in benchmark.GAME_PHASES:
        assert phases.count(phase) >= 0.02 * len(lines), phase


def test_regression_every_rollout_defaults_to_the_net_policy():
    """selfplay.rollout defaulted to greedy, play_games and `gulbara selfplay` to random play
    and the old compare_plays to net: a forgotten policy gave another equity. Now all are net."""
    import inspect
    from gulbara.selfplay import games
    assert games.DEFAULT_POLICY == "net"
    for function in (games.play_games, games.rollout, games.replay, games.opening_table,
                     rollout):
        assert inspect.signature(function).parameters["policy"].default == "net", function
    state = _to_roll(_midgame(seed=4, plies=6))
    assert rollout(state, 8, seed=2).equity == rollout(state, 8, policy="net", seed=2).equity


def test_regression_candidates_may_be_given_in_notation():
    """compare_plays(game, n, plays=["24/14"]) said "24/14 is not a legal play" although
    "24/14" in game.legal_plays() was true: a candidate is a Play or notation."""
    game = Game(seed=24)                           # White to play 6-4
    assert "24/14" in game.legal_plays()
    by_name = rollout(game, 36, candidates=["24/14", "24/18 24/20"], policy="greedy", seed=1)
    by_play = rollout(game, 36, candidates=[game.legal_plays().parse("24/14"),
                                            game.legal_plays().parse("24/18 24/20")],
                      policy="greedy", seed=1)
    assert [c.play for c in by_name.candidates] == [c.play for c in by_play.candidates]
    assert [c.equity for c in by_name.candidates] == [c.equity for c in by_play.candidates]


def test_the_table_shows_each_candidate_against_the_best_only():
    game = Game(seed=24)
    result = rollout(game, 36, candidates=2, policy="greedy", seed=1)
    rows = result.table().splitlines()[1:]
    assert len(rows) == len(result.candidates) == 2
    worse = [c for c in result.candidates if c is not result.best][0]
    d = result.difference(worse.play)
    assert f"{d.value:+.3f} [{d.low:+.3f}, {d.high:+.3f}]" in rows[1]
    assert "[" not in rows[0].split("]", 1)[1]           # the best: no difference to itself
