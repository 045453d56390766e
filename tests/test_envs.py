"""The reinforcement-learning environments (gulbara.envs): step actions, PettingZoo, Gymnasium,
the OpenSpiel-shaped adapter.

The mask tests check the step-level action mask against an independent
brute force: every sequence of single legal steps that the stage accepts as
a play (``StageEnds.find``, with the larger-die rule of RULES §3.5 applied on
top), over many positions, all 21 rolls, and chain and remainder stages met
in seeded games.
"""

import doctest
import importlib
import random
import subprocess
import sys
import warnings

import numpy as np
import pytest

import gulbara
from gulbara import Game, GreedyBot, RandomBot, Rules, stage_ends
from gulbara.encoding.features import STAGE_DICE, STAGE_SIZE, STATE_FEATURES, encode_board, encode_game
from gulbara.envs import (N_ACTIONS, PASS_ACTION, IllegalActionError, StepGame, StepStage,
                          action_to_string, check_action, decode_action, encode_step, observe)
from gulbara.errors import GameStateError, IllegalPlayError

from conftest import same_package_environment
from positions import mixed_positions

ROLLS = gulbara.ROLLS


def stage_dice(roll):
    a, b = roll
    return [a, b] if a != b else [a] * 4


# ---------------------------------------------------------------------------
# The brute force
# ---------------------------------------------------------------------------


def brute_force_plays(ends):
    """Every legal play of a stage as a tuple of steps, in every order it can be taken."""
    seat, dice = ends.seat, list(ends.dice)
    start = ends._raw.start()
    plays = []

    def walk(position, steps, left):
        if steps and ends._index_of_steps(steps) >= 0:      # the stage accepts it as a play
            plays.append(tuple(steps))
        if position.borne_off(seat) == 15 or not left:
            return
        for die in sorted(set(left)):
            for frm in range(1, 25):
                try:
                    after = position.apply_steps(seat, [(frm, die)])
                except IllegalPlayError:
                    continue
                rest = list(left)
                rest.remove(die)
                walk(after, steps + [(frm, die)], rest)

    walk(start, [], dice)
    if len(dice) == 2 and dice[0] != dice[1] and ends.playable_dice == 1:
        larger = [p for p in plays if p[0][1] == dice[0]]     # RULES §3.5
        if larger:
            plays = larger
    return set(plays)


def check_stage(ends):
    """(a) every masked step extends to a legal play, (b) the masked paths reach exactly the
    stage's ends, (c) no step of a legal play is ever unmasked. Returns the nodes visited."""
    plays = brute_force_plays(ends)
    codes = set(ends.codes())
    root = StepStage(ends)
    if ends.playable_dice == 0:                                 # RULES §3.6
        assert not plays
        assert root.legal_actions() == [PASS_ACTION]
        assert root.action_mask().tolist() == [0] * PASS_ACTION + [1]
        assert root.push(PASS_ACTION) == ends[0] and ends[0].is_empty()
        return 1
    following = {}
    for play in plays:
        for i in range(len(play)):
            following.setdefault(play[:i], set()).add(play[i])
    # The mask depends on the steps taken only through the position and the dice left (and,
    # for the larger-die rule, on whether a step was taken), so each such state is walked once.
    reached = set()
    stack = [root]
    seen = {(root.position, root.dice_left, 0)}
    nodes = 0
    while stack:
        stage = stack.pop()
        nodes += 1
        legal = set(stage.legal_steps())
        expected = following.get(stage.steps, set())
        assert legal == expected, (
            f"{ends!r} {ends._raw.start().code()} after {stage.steps}: "
            f"masked but no legal play {sorted(legal - expected)}, "
            f"legal but unmasked {sorted(expected - legal)}")
        assert legal, f"{ends!r} after {stage.steps}: a dead end"
        mask = stage.action_mask()
        assert np.flatnonzero(mask).tolist() == stage.legal_actions()
        assert mask[PASS_ACTION] == 0
        for step in legal:
            child = stage.copy()
            play = child.push(encode_step(*step))
            if play is None:
                key = (child.position, child.dice_left, len(child.steps))
                if key not in seen:
                    seen.add(key)
                    stack.append(child)
                continue
            assert child.steps in plays
            assert play.code == child.position.code() and play.steps in plays
            reached.add(play.code)
    assert reached == codes, (f"{ends!r}: missing ends {sorted(codes - reached)}, "
                              f"extra {sorted(reached - codes)}")
    return nodes


def seeded_stages(rules, seeds, kinds):
    """(code, seat, dice) of the chain and remainder stages met in seeded games."""
    found = []
    for seed in seeds:
        game = Game(rules, seed=seed)
        bots = (RandomBot(seed), GreedyBot())
        while not game.is_over():
            decision = game.decision
            kind = ("remainder" if decision.is_remainder else
                    "chain" if decision.is_chain else "plain")
            if kind in kinds:
                found.append((game.code(), decision.seat, list(decision.dice), kind))
            game.play(bots[decision.seat].choose(game))
    return found


# ---------------------------------------------------------------------------
# Actions
# ---------------------------------------------------------------------------


def test_action_codes_round_trip():
    seen = set()
    for frm in range(1, 25):
        for die in range(1, 7):
            action = encode_step(frm, die)
            assert action == (frm - 1) * 6 + (die - 1)
            assert decode_action(action) == (frm, die)
            seen.add(action)
    assert seen == set(range(144))
    assert decode_action(PASS_ACTION) is None and PASS_ACTION == 144 == N_ACTIONS - 1
    assert action_to_string(encode_step(13, 6)) == "13/7"
    assert action_to_string(encode_step(2, 6)) == "2/off"
    assert action_to_string(PASS_ACTION) == "pass"


@pytest.mark.parametrize("bad", [-1, 145, 1000, 1.0, "3", None, True, np.bool_(False), [3],
                                 np.float32(2.0)])
def test_bad_action_values(bad):
    with pytest.raises(IllegalActionError) as info:
        check_action(bad)
    assert isinstance(info.value, ValueError) and isinstance(info.value, IllegalPlayError)


def test_numpy_ints_are_actions():
    assert check_action(np.int32(7)) == 7 and check_action(np.array(144)) == 144
    with pytest.raises(IllegalActionError):
        encode_step(25, 1)


def test_start_opening_rolls_exhaustive():
    for roll in ROLLS:
        for seat in (0, 1):
            check_stage(stage_ends(gulbara.START_CODE, seat, stage_dice(roll)))


def test_mask_many_positions_all_rolls():
    stages = 0
    for code, seat in mixed_positions(2026, 40):
        for roll in ROLLS:
            check_stage(stage_ends(code, seat, stage_dice(roll)))
            stages += 1
    assert stages == 40 * 21


def test_mask_chain_and_remainder_stages():
    rules = Rules(exempt_rolls=0)
    found = seeded_stages(rules, range(3), {"chain", "remainder"})
    # more games until remainders of every size (1..4 dice in a stage) were met
    seed = 3
    while {len(d) for _, _, d, k in found if k == "remainder"} != {1, 2, 3, 4} and seed < 80:
        have = {len(d) for _, _, d, k in found if k == "remainder"}
        found += [stage for stage in seeded_stages(rules, [seed], {"remainder"})
                  if len(stage[2]) not in have]
        seed += 1
    kinds = {kind for *_, kind in found}
    assert kinds == {"chain", "remainder"}
    sizes = {len(dice) for _, _, dice, kind in found if kind == "remainder"}
    assert sizes == {1, 2, 3, 4}, "a remainder stage size not met"
    for code, seat, dice, _ in found:
        check_stage(stage_ends(code, seat, dice))


@pytest.mark.slow
def test_mask_sweep_slow():
    for code, seat in mixed_positions(7, 150):
        for roll in ROLLS:
            for who in (seat, 1 - seat):
                check_stage(stage_ends(code, who, stage_dice(roll)))
    for code, seat, dice, _ in seeded_stages(Rules(exempt_rolls=0), range(40),
                                             {"chain", "remainder"}):
        check_stage(stage_ends(code, seat, dice))


def _code(points, off_white, off_black):
    tokens = ",".join("" if n == 0 else str(n) for n in points)
    return f"G:{tokens}|0,0|{off_white},{off_black}"


def test_larger_die_rule():
    # RULES §3.5: White's one checker on 10 and Black on White's 3: 10/4 and 10/9 are open,
    # but the second die always lands on 3, so one die is played, and it must be the 6.
    points = [0] * 24
    points[9] = 1          # White on 10
    points[2] = -1         # Black on White's 3
    code = _code(points, 14, 14)
    ends = stage_ends(code, 0, [6, 1])
    assert ends.playable_dice == 1
    stage = StepStage(ends)
    assert stage.legal_steps() == ((10, 6),)
    with pytest.raises(IllegalActionError):
        stage.push(encode_step(10, 1))
    assert stage.steps == ()
    check_stage(ends)


def test_smaller_die_when_larger_cannot_move():
    # RULES §3.5: the 6 is blocked (Black on 4), and after 10/9 so is 9/3: the 1 alone is played.
    points = [0] * 24
    points[9] = 1          # White on 10
    points[3] = -1         # Black on White's 4
    points[2] = -1         # Black on White's 3
    code = _code(points, 14, 13)
    ends = stage_ends(code, 0, [6, 1])
    assert ends.playable_dice == 1
    assert StepStage(ends).legal_steps() == ((10, 1),)
    check_stage(ends)


def test_game_ending_step_completes_the_stage():
    # RULES §3.3: the last checker borne off with the first die ends the play.
    points = [0] * 24
    points[1] = 1          # White's last checker on 2
    points[20] = -3
    code = _code(points, 14, 12)
    for dice in ([6, 5], [3, 3, 3, 3]):
        ends = stage_ends(code, 0, dice)
        stage = StepStage(ends)
        play = stage.push(stage.legal_actions()[0])
        assert play is not None and play.ends_game
        assert stage.is_complete() and stage.legal_actions() == []
        check_stage(ends)


def test_pass_stage_and_wrong_actions():
    points = [0] * 24
    points[23] = 1         # White's one checker on 24, 14 borne off
    points[17] = -1        # Black holds 18 and 19: 6 and 5 are blocked
    points[18] = -1
    code = _code(points, 14, 13)
    ends = stage_ends(code, 0, [6, 5])
    stage = StepStage(ends)
    assert stage.is_pass() and stage.legal_actions() == [PASS_ACTION]
    with pytest.raises(IllegalActionError, match="PASS_ACTION"):
        stage.push(encode_step(24, 6))
    assert stage.push(PASS_ACTION).is_empty()
    with pytest.raises(IllegalActionError, match="complete"):
        stage.push(PASS_ACTION)
    opening = StepStage(stage_ends(gulbara.START_CODE, 0, [6, 4]))
    with pytest.raises(IllegalActionError, match="legal: 141"):
        opening.push(PASS_ACTION)


def test_unmasked_actions_raise_and_change_nothing():
    game = Game(seed=11)
    driver = StepGame(game)
    for _ in range(40):
        stage = driver.stage
        before = (stage.steps, stage.position, game.state_code())
        legal = set(driver.legal_actions())
        for action in range(N_ACTIONS):
            if action not in legal:
                with pytest.raises(IllegalActionError):
                    driver.apply(action)
                assert (driver.stage.steps, driver.stage.position, game.state_code()) == before
        driver.apply(min(legal))


# ---------------------------------------------------------------------------
# The step driver and observations
# ---------------------------------------------------------------------------


def play_steps(driver, rng):
    """Play the current decision's whole stage with random legal steps; return the play."""
    while True:
        play = driver.apply(rng.choice(driver.legal_actions()))
        if play is not None:
            return play


def test_driver_games_follow_the_game():
    rules = Rules(exempt_rolls=0)
    rng = random.Random(5)
    seen = set()
    for seed in range(6):
        driver = StepGame(Game(rules, seed=seed))
        mirror = Game(rules, seed=seed)
        while not driver.game.is_over():
            decision = driver.game.decision
            assert driver.to_act == decision.seat
            ends = driver.game.legal_plays()
            seen.add("remainder" if decision.is_remainder else
                     "chain" if decision.is_chain else "plain")
            play = play_steps(driver, rng)
            assert play in list(ends)
            mirror.play(play)
            assert mirror.state_code() == driver.game.state_code()
        assert driver.to_act is None and driver.legal_actions() == []
        assert not driver.action_mask().any()
        with pytest.raises(GameStateError):
            driver.apply(0)
    assert seen == {"plain", "chain", "remainder"}


def test_driver_play_stage():
    driver = StepGame(Game(seed=24))
    assert str(driver.play_stage("24/14")) == "24/14" and driver.to_act == 1
    driver.apply(driver.legal_actions()[0])
    with pytest.raises(GameStateError, match="step"):
        driver.play_stage(driver.game.legal_plays()[0])
    assert len(driver.stage.steps) == 1


def test_observation_mid_stage():
    driver = StepGame(Game(seed=24))                 # White: 6-4
    start = observe(driver, 0)
    assert np.array_equal(start, encode_game(driver.game, seat=0))
    driver.apply(encode_step(24, 6))
    x = observe(driver, 0)
    assert x.dtype == np.float32 and x.shape == (STATE_FEATURES,)
    assert np.array_equal(x[:196], encode_board(driver.stage.position, 0))
    assert x[STAGE_DICE].tolist() == [0, 0, 0, 0.25, 0, 0] and x[STAGE_SIZE] == 0.25
    assert np.array_equal(x[196 + 7:], start[196 + 7:])
    y = observe(driver, 1)
    assert np.array_equal(y[:196], encode_board(driver.stage.position, 1))


# ---------------------------------------------------------------------------
# PettingZoo
# ---------------------------------------------------------------------------


def test_pettingzoo_api_test():
    from pettingzoo.test import api_test
    from gulbara.envs.pettingzoo import env
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")            # naming and Dict-space advice
        api_test(env(), num_cycles=1000)


def test_pettingzoo_seed_test():
    from pettingzoo.test import seed_test
    from gulbara.envs.pettingzoo import env
    seed_test(env, num_cycles=200)


def test_pettingzoo_render_test(capsys):
    from pettingzoo.test import render_test
    from gulbara.envs.pettingzoo import env
    render_test(env)
    assert "to move:" in capsys.readouterr().out          # "human" prints the board


def test_pettingzoo_render():
    from gulbara.envs.pettingzoo import env
    e = env(render_mode="ansi")
    e.reset(seed=24)
    text = e.render()
    assert "15X" in text and "to move: O (White)" in text and "opening roll: 6-4" in text
    e.step(143)
    assert "steps taken: 24/18; dice left: 4" in e.render()
    e.close()


def test_pettingzoo_games_agents_rewards():
    from gulbara.envs.pettingzoo import AGENTS, raw_env
    e = raw_env(rules=Rules(exempt_rolls=0))
    rng = random.Random(3)
    seen_remainder = False
    for seed in range(4):
        e.reset(seed=seed)
        game = e.game
        assert game.seed == seed
        while True:
            agent = e.agent_selection
            obs, reward, terminated, truncated, info = e.last()
            if terminated:
                break
            decision = e.game.decision
            assert agent == AGENTS[decision.seat]
            seen_remainder |= decision.is_remainder
            assert e.observation_space(agent).contains(obs)
            other = e.observe(AGENTS[1 - AGENTS.index(agent)])
            assert not other["action_mask"].any()
            assert e.observation_space(agent).contains(other)
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        result = e.game.result()
        white, black = result.score
        assert e._cumulative_rewards == {"white": white - black, "black": black - white}
        assert all(e.terminations.values())
        for agent in list(e.agents):
            assert e.agent_selection in e.agents
            e.step(None)
        assert e.agents == []
    assert seen_remainder


def test_pettingzoo_illegal_action_changes_nothing():
    from gulbara.envs.pettingzoo import env
    e = env(illegal_action="raise")
    e.reset(seed=24)
    before = e.observe("white")
    for bad in (0, 144, 145, -3, 1.5, "143", None):
        with pytest.raises(ValueError):
            e.step(bad)
        assert e.agent_selection == "white"
        after = e.observe("white")
        assert np.array_equal(after["observation"], before["observation"])
        assert np.array_equal(after["action_mask"], before["action_mask"])
    e.step(np.int64(143))
    assert e.agent_selection == "white"


def test_pettingzoo_draw_rewards_zero():
    from gulbara.envs.pettingzoo import raw_env
    e = raw_env()
    e.reset(seed=1)
    points = [0] * 24
    points[23] = 1
    points[17] = points[18] = -1
    state = _code(points, 14, 13) + " next=play:W stage=6-5 roll=6-5 rolls=5,5 stuck=99"
    e._driver = StepGame(Game.from_state_code(state))   # White cannot move: the 100th roll
    e.step(PASS_ACTION)
    assert e.game.result().winner is None                 # RULES §7.2
    assert all(e.terminations.values()) and e._cumulative_rewards == {"white": 0, "black": 0}


# ---------------------------------------------------------------------------
# Gymnasium
# ---------------------------------------------------------------------------


def test_gymnasium_check_env():
    import gymnasium
    from gymnasium.utils.env_checker import check_env
    import gulbara.envs.gymnasium  # noqa: F401  registers GulBara-v0
    env = gymnasium.make("GulBara-v0")                   # as constructed: illegal actions lose
    check_env(env.unwrapped)
    check_env(env)
    env.close()


def test_gymnasium_make_default():
    import gymnasium
    import gulbara.envs.gymnasium as genv
    env = gymnasium.make("GulBara-v0")
    assert isinstance(env.unwrapped, genv.GulBaraEnv)
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs) and info["action_mask"].dtype == np.int8


@pytest.mark.parametrize("opponent", ["random", "greedy", GreedyBot(), RandomBot(seed=2)])
@pytest.mark.parametrize("seat", [0, 1])
def test_gymnasium_episodes(opponent, seat):
    from gulbara.envs.gymnasium import GulBaraEnv
    env = GulBaraEnv(opponent=opponent, seat=seat, rules=Rules(exempt_rolls=0))
    rng = np.random.default_rng(seat)
    obs, info = env.reset(seed=7)
    steps = 0
    while True:
        assert env.game.decision.seat == seat and env.observation_space.contains(obs)
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(action)
        steps += 1
        assert not truncated
        if terminated:
            break
        assert reward == 0.0
    score = env.game.result().score
    assert reward == score[seat] - score[1 - seat] and reward in (-2.0, -1.0, 0.0, 1.0, 2.0)
    assert np.flatnonzero(info["action_mask"]).tolist() == [PASS_ACTION] and "result" in info
    with pytest.raises(ValueError, match="reset"):
        env.step(0)


def test_gymnasium_reset_is_seeded():
    from gulbara.envs.gymnasium import GulBaraEnv
    a, b = GulBaraEnv(), GulBaraEnv()
    for env in (a, b):
        env.reset(seed=123)
    for _ in range(30):
        mask = a._driver.action_mask()
        action = int(np.flatnonzero(mask)[0])
        oa, ra, ta, _, ia = a.step(action)
        ob, rb, tb, _, ib = b.step(action)
        assert np.array_equal(oa, ob) and ra == rb and ta == tb
        assert np.array_equal(ia["action_mask"], ib["action_mask"])
        if ta:
            break


def test_gymnasium_illegal_actions():
    from gulbara.envs.gymnasium import ILLEGAL_ACTION_REWARD, GulBaraEnv
    env = GulBaraEnv(opponent="greedy", illegal_action="raise")
    obs, info = env.reset(seed=24)
    with pytest.raises(IllegalActionError):
        env.step(0)
    with pytest.raises(IllegalActionError):
        env.step("x")
    obs2, reward, terminated, _, info2 = env.step(143)          # the env is unchanged
    assert not terminated
    lose = GulBaraEnv()                                         # the default: -1, the end
    lose.reset(seed=24)
    obs, reward, terminated, truncated, info = lose.step(0)
    assert (reward, terminated, truncated, info["illegal_action"]) == (
        ILLEGAL_ACTION_REWARD, True, False, True) and ILLEGAL_ACTION_REWARD == -1.0
    assert np.flatnonzero(info["action_mask"]).tolist() == [PASS_ACTION]
    with pytest.raises(ValueError):
        GulBaraEnv(opponent="nobody")
    with pytest.raises(ValueError):
        GulBaraEnv(seat=2)
    with pytest.raises(TypeError):
        GulBaraEnv(opponent=3)


def test_gymnasium_render():
    import gymnasium
    import gulbara.envs.gymnasium  # noqa: F401
    env = gymnasium.make("GulBara-v0", render_mode="ansi")
    env.reset(seed=24)
    assert "opening roll: 6-4" in env.render()


# ---------------------------------------------------------------------------
# The OpenSpiel-shaped adapter
# ---------------------------------------------------------------------------


def test_openspiel_chance_nodes():
    from gulbara.envs.openspiel import CHANCE_PLAYER_ID, GulBaraGame
    state = GulBaraGame().new_initial_state()
    assert state.current_player() == CHANCE_PLAYER_ID and state.is_chance_node()
    opening = state.chance_outcomes()
    assert len(opening) == 30 and abs(sum(p for _, p in opening) - 1) < 1e-12
    assert all(a // 6 != a % 6 for a, _ in opening)           # no tie (RULES §6)
    state.apply_action(3 * 6 + 5)                              # White 4, Black 6: Black starts
    assert state.current_player() == 1 and state.game.decision.dice == (6, 4)
    assert state.game.decision.is_opening
    while state.current_player() == 1:
        state.apply_action(state.legal_actions()[0])
    rolls = state.chance_outcomes()
    assert len(rolls) == 21 and abs(sum(p for _, p in rolls) - 1) < 1e-12
    for action, p in rolls:
        high, low = action // 6 + 1, action % 6 + 1
        assert high >= low and p == pytest.approx((1 if high == low else 2) / 36)
    assert state.legal_actions() == [a for a, _ in rolls]
    with pytest.raises(IllegalActionError):
        state.apply_action(1 * 6 + 3)                          # 2-4: not how a roll is named
    state.apply_action(5 * 6 + 5)                              # White rolls 6-6
    assert state.game.decision.dice == (6, 6, 6, 6)


def test_openspiel_starter_rerolls_opening():
    from gulbara.envs.openspiel import CHANCE_PLAYER_ID, GulBaraGame
    state = GulBaraGame(Rules(opening="starter_rerolls")).new_initial_state()
    state.apply_action(5 * 6 + 0)                              # White 6, Black 1: White rolls
    assert state.current_player() == CHANCE_PLAYER_ID and len(state.chance_outcomes()) == 21


def test_openspiel_random_playouts():
    from gulbara.envs.openspiel import (CHANCE_PLAYER_ID, TERMINAL_PLAYER_ID, GulBaraGame)
    rng = random.Random(9)
    game = GulBaraGame(Rules(exempt_rolls=0))
    assert game.num_distinct_actions() == 145 and game.num_players() == 2
    for _ in range(12):
        state = game.new_initial_state()
        while not state.is_terminal():
            player = state.current_player()
            assert player in (0, 1, CHANCE_PLAYER_ID)
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes())
                action = rng.choices(actions, probs)[0]
            else:
                legal = state.legal_actions()
                mask = state.legal_actions_mask()
                assert legal == [a for a, m in enumerate(mask) if m] and len(mask) == 145
                assert legal == np.flatnonzero(state._driver.action_mask()).tolist()
                assert state.legal_actions(1 - player) == []
                obs = state.observation_tensor(player)
                assert len(obs) == STATE_FEATURES == game.observation_tensor_size()
                action = rng.choice(legal)
            state.apply_action(action)
            assert state.returns() == [0.0, 0.0] or state.is_terminal()
        assert state.current_player() == TERMINAL_PLAYER_ID and state.legal_actions() == []
        returns = state.returns()
        assert sum(returns) == 0 and abs(returns[0]) in (0, 1, 2)
        result = state.game.result()
        if result.winner is None:
            assert returns == [0.0, 0.0]
        else:
            assert returns[result.winner] == result.points
        assert str(state).endswith(result.describe())


def test_openspiel_draw_returns_zero():
    from gulbara.envs.openspiel import TERMINAL_PLAYER_ID, GulBaraGame, GulBaraState
    points = [0] * 24
    points[23] = 1
    points[17] = points[18] = -1
    code = _code(points, 14, 13) + " next=roll:W rolls=5,5 stuck=99"
    state = GulBaraState(GulBaraGame(), StepGame(Game.from_state_code(code)))
    state.apply_action(5 * 6 + 4)                              # 6-5: blocked
    assert state.legal_actions() == [PASS_ACTION]
    state.apply_action(PASS_ACTION)                            # the 100th roll in a row (RULES §7.2)
    assert state.current_player() == TERMINAL_PLAYER_ID and state.returns() == [0.0, 0.0]


def test_openspiel_clone_is_independent():
    from gulbara.envs.openspiel import GulBaraGame
    state = GulBaraGame().new_initial_state()
    state.apply_action(5 * 6 + 3)
    copy = state.clone()
    state.apply_action(143)
    assert copy.legal_actions() == [141, 143] and state.legal_actions() == [105, 141]
    assert copy.history() == [33] and state.history() == [33, 143]
    assert copy.child(141).legal_actions() == [119, 143]
    assert copy.legal_actions() == [141, 143]


def test_openspiel_bad_actions_change_nothing():
    from gulbara.envs.openspiel import GulBaraGame
    state = GulBaraGame().new_initial_state()
    for bad in (0, 7, 14, 36, 145, -1, 2.0, True):               # ties, out of range, wrong types
        with pytest.raises(ValueError):
            state.apply_action(bad)
        assert state.is_chance_node() and state.history() == []
    state.apply_action(5 * 6 + 3)
    with pytest.raises(IllegalActionError):
        state.apply_action(0)
    assert state.legal_actions() == [141, 143] and state.history() == [33]


def test_regression_calls_before_reset_and_unknown_names_are_clear_errors():
    """render(), step() and observe() before reset(), or an unknown agent, raised AttributeError
    or a bare ValueError; a chance action of the wrong type reached divmod."""
    from gulbara.envs.gymnasium import GulBaraEnv
    from gulbara.envs.openspiel import GulBaraGame
    from gulbara.envs.pettingzoo import raw_env
    with pytest.raises(gulbara.GulBaraError, match="reset"):
        GulBaraEnv(render_mode="ansi").render()
    e = raw_env(render_mode="ansi")
    for call in (lambda: e.step(0), lambda: e.observe("white"), e.render):
        with pytest.raises(gulbara.GulBaraError, match="reset"):
            call()
    e.reset(seed=3)
    with pytest.raises(gulbara.GulBaraError, match="'white', 'black'"):
        e.observe("red")
    with pytest.raises(gulbara.GulBaraError, match="seed"):
        e.reset(seed=2**64)
    state = GulBaraGame().new_initial_state()
    for bad in ("x", -1, 200, True):
        with pytest.raises(IllegalActionError):
            state.action_to_string(bad)
    assert state.action_to_string(5 * 6 + 3) == "opening W6 B4"


# ---------------------------------------------------------------------------
# Packaging and docs
# ---------------------------------------------------------------------------


def test_import_gulbara_does_not_import_envs(tmp_path):
    code = ("import sys, gulbara; "
            "print(any(m.startswith(('gulbara.envs', 'pettingzoo', 'gymnasium')) "
            "for m in sys.modules))")
    # outside the source tree, importing the package these tests import
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=tmp_path, env=same_package_environment())
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("name", [
    "gulbara.envs", "gulbara.envs._actions", "gulbara.envs._driver", "gulbara.envs._observe",
    "gulbara.envs._render", "gulbara.envs.pettingzoo", "gulbara.envs.gymnasium",
    "gulbara.envs.openspiel"])
def test_envs_docstrings(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0


def test_pettingzoo_illegal_action_loses_by_default():
    from pettingzoo.test import api_test
    from gulbara.envs.pettingzoo import env
    e = env()
    e.reset(seed=24)
    e.step(0)                                          # not a legal step of 6-4
    assert all(e.terminations.values())
    assert e._cumulative_rewards == {"white": -1, "black": 0}
    assert e.infos["white"]["illegal_action"] is True
    assert not e.observe("white")["action_mask"].any()
    for _ in list(e.agents):
        e.step(None)
    assert e.agents == []
    api_test(env(), num_cycles=200)


def test_gymnasium_terminal_mask_under_autoreset():
    """The sampling idiom on a vector env: a finished sub-env's mask still has an action."""
    import gymnasium
    import gulbara.envs.gymnasium  # noqa: F401
    envs = gymnasium.make_vec("GulBara-v0", num_envs=3, vectorization_mode="sync")
    rng = np.random.default_rng(0)
    obs, info = envs.reset(seed=5)
    finished = 0
    for _ in range(400):
        actions = [int(rng.choice(np.flatnonzero(mask))) for mask in info["action_mask"]]
        obs, reward, terminated, truncated, info = envs.step(actions)
        finished += int(terminated.sum())
        for i in np.flatnonzero(terminated):
            assert reward[i] in (-2.0, -1.0, 0.0, 1.0, 2.0)
    assert finished >= 3
    envs.close()
