"""The native vector env (gulbara.envs._vector, gulbara.envs.vector) against the Python step driver."""

import shutil

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

import gulbara  # noqa: E402
from gulbara import Game, Rules  # noqa: E402
from gulbara.envs._vector import VecGames, greedy_score_native  # noqa: E402
from gulbara.eval.greedy import greedy_score  # noqa: E402
from gulbara.envs import PASS_ACTION, StepGame  # noqa: E402
from gulbara.envs._observe import observe  # noqa: E402
from gulbara.envs.vector import NATIVE_OPPONENTS, GulBaraVectorEnv  # noqa: E402
from gulbara.bots import GreedyBot, bot_label  # noqa: E402
from gulbara.game.rng import Rng  # noqa: E402
from gulbara.net.model import DEFAULT_NET_PATH, default_net  # noqa: E402
import gulbara.envs.gymnasium  # noqa: E402,F401  registers GulBara-v0

from flaky_bots import FlakyBot  # noqa: E402

RULES = [Rules(), Rules(exempt_rolls=0), Rules(exempt_rolls=0, remainder="lost"),
         Rules(exempt_rolls=0, unstarted_chain="to_opponent"),
         Rules(exempt_counting="game_wide", opening="starter_rerolls")]


def _compare_games(rules, seeds):
    """Every stage of seeded random games: the native mask and observation equal the step
    driver's after every step, and the stage ends at the same step."""
    native = [VecGames(1, rules, seat, "random") for seat in (0, 1)]
    rng = np.random.default_rng(len(seeds))
    stages = steps = 0
    for seed in seeds:
        game = Game(rules, seed=seed)
        while not game.is_over():
            seat = game.decision.seat
            v = native[seat]
            v.load(0, game)
            driver = StepGame(game)
            taken = 0
            while True:
                mask = driver.action_mask()
                assert np.array_equal(v.slot_mask(0), mask), (game.state_code(), taken)
                assert np.array_equal(v.slot_observation(0), observe(driver, seat)), \
                    (game.state_code(), taken)
                action = int(rng.choice(np.flatnonzero(mask)))
                _, _, illegal = v.slot_step(0, action)
                assert not illegal
                play = driver.apply(action)
                taken += 1
                steps += 1
                if play is not None:
                    break
                assert v.slot_taken(0) == taken
            stages += 1
    return stages, steps


@pytest.mark.parametrize("rules", RULES, ids=["default", "chains", "remainder-lost",
                                              "unstarted-to-opponent", "game-wide"])
def test_native_mask_and_observation_match_the_step_driver(rules):
    stages, steps = _compare_games(rules, range(6))
    assert stages > 200 and steps > stages


@pytest.mark.slow
def test_native_mask_many_games():
    for rules in RULES:
        _compare_games(rules, range(100, 160))


def test_native_terminal_observation_and_illegal_action():
    game = Game(seed=3)
    gulbara.bots.play_out(game, "random", "random")
    v = VecGames(1, Rules(), 0, "random")
    v.load(0, game)
    assert np.array_equal(v.slot_observation(0), observe(StepGame(game), 0))
    assert np.flatnonzero(v.slot_mask(0)).tolist() == [PASS_ACTION]
    fresh = VecGames(1, Rules(), 0, "random")
    fresh.load(0, Game(seed=24))                    # White to play 6-4: 141, 143 legal
    assert fresh.slot_step(0, 0) == (-1.0, True, True)
    assert fresh.slot_step(0, 999)[2]


def test_regression_slot_index_out_of_range_raises():
    """The slot_* entry points read slot ``i`` unchecked (a read past the slots): now each
    raises IndexError for a slot that does not exist, and the slots are unchanged."""
    v = VecGames(2, Rules(), 0, "random")
    v.load(1, Game(seed=24))
    before = v.slot_arrays(1)
    for bad in (2, -1, 1000):
        for call in (lambda: v.slot_mask(bad), lambda: v.slot_observation(bad),
                     lambda: v.slot_arrays(bad), lambda: v.slot_step(bad, 0),
                     lambda: v.slot_taken(bad), lambda: v.slot_game(bad),
                     lambda: v.load(bad, Game(seed=24))):
            with pytest.raises(IndexError, match=f"slot {bad} out of range for 2 slots"):
                call()
    after = v.slot_arrays(1)
    assert all(np.array_equal(a, b) for a, b in zip(before, after))


def test_native_greedy_score_is_the_python_one():
    game = Game(seed=9)
    checked = 0
    while not game.is_over():
        for play in game.legal_plays()[:10]:
            pos = gulbara.Position.from_code(play.code)
            for seat in (0, 1):
                assert greedy_score_native(pos, seat) == greedy_score(pos, seat)
                checked += 1
        game.play(gulbara.RandomBot(seed=checked).choose(game))
    assert checked > 500


def _run(envs, steps, seed):
    rng = np.random.default_rng(seed)
    obs, infos = envs.reset(seed=seed)
    rewards, episodes = [], 0
    ended = np.zeros(envs.num_envs, dtype=bool)
    for _ in range(steps):
        mask = infos["action_mask"]
        actions = (rng.random(mask.shape) * mask).argmax(axis=1)
        obs, reward, terminated, truncated, infos = envs.step(actions)
        assert not infos["illegal_action"].any() and not truncated.any()
        assert np.all(reward[ended] == 0) and not terminated[ended].any()   # autoreset steps
        rewards.extend(reward[terminated].tolist())
        episodes += int(terminated.sum())
        assert np.all(reward[~terminated] == 0)
        ended = terminated
        assert envs.observation_space.contains(obs)
    return episodes, rewards


def test_vector_env_episodes_rewards_and_autoreset():
    envs = gymnasium.make_vec("GulBara-v0", num_envs=16, vectorization_mode="vector_entry_point")
    assert isinstance(envs, GulBaraVectorEnv)
    episodes, rewards = _run(envs, 1500, 4)
    assert episodes > 50 and set(rewards) <= {-2.0, -1.0, 0.0, 1.0, 2.0}
    again = gymnasium.make_vec("GulBara-v0", num_envs=16, vectorization_mode="vector_entry_point")
    assert _run(again, 1500, 4) == (episodes, rewards)            # seeded


def test_vector_env_greedy_opponent_beats_random_play():
    random_opp = GulBaraVectorEnv(num_envs=64, opponent="random")
    greedy_opp = GulBaraVectorEnv(num_envs=64, opponent="greedy", seat=1)
    _, even = _run(random_opp, 1500, 1)
    _, losing = _run(greedy_opp, 1500, 1)
    assert len(even) > 200 and len(losing) > 200
    assert abs(np.mean(even)) < 0.3                 # random against random: about even
    assert np.mean(losing) < -0.8                    # random against greedy: -1.24 in the arena


def test_vector_env_illegal_action_ends_the_episode():
    envs = GulBaraVectorEnv(num_envs=2)
    obs, infos = envs.reset(seed=0)
    bad = np.array([int(np.flatnonzero(infos["action_mask"][0] == 0)[0]),
                    int(np.flatnonzero(infos["action_mask"][1])[0])])
    obs, reward, terminated, truncated, infos = envs.step(bad)
    assert reward[0] == -1.0 and terminated[0] and infos["illegal_action"][0]
    assert np.flatnonzero(infos["action_mask"][0]).tolist() == [PASS_ACTION]
    obs, reward, terminated, truncated, infos = envs.step(np.array([PASS_ACTION, 0]))
    assert reward[0] == 0.0 and not terminated[0]  # a new game there


def _replay_episode(rules, seed, game_index, seat, opponent, actions):
    """Game ``game_index`` of the run seeded ``seed`` through the Python ``Game``: the dice of
    stream 0, the opponent's plays by its Python twin (``random`` draws from stream 1), the
    agent's stages by ``actions`` through the step driver, each step's mask checked against
    the native one recorded with it. The game, over."""
    dice, draws = Rng(seed, game_index, 0), Rng(seed, game_index, 1)
    network = default_net(rules)

    def twin(game):                                  # the index the native policy chooses
        ends = game.legal_plays()
        if opponent == "random":
            return draws.below(len(ends))
        if opponent == "greedy":
            return ends.index(GreedyBot().choose(game))
        if opponent == "net" and len(ends) > 1:
            values = list(network.stage_values_python(game))
            return max(range(len(ends)), key=lambda i: (values[i], -i))
        return 0

    game = Game(rules, auto_roll=False)
    taken = iter(actions)
    while not game.is_over():
        if game.is_opening():
            game.roll_opening(dice.die() + 1, dice.die() + 1)
        elif game.is_chance():
            game.roll(dice.die() + 1, dice.die() + 1)
        elif game.decision.seat != seat:
            game.play(game.legal_plays()[twin(game)])
        else:
            driver = StepGame(game)
            while True:
                action, native_mask = next(taken)
                assert np.array_equal(driver.action_mask(), native_mask)
                if driver.apply(action) is not None:
                    break
    assert next(taken, None) is None
    return game


@pytest.mark.parametrize("opponent,seat", [("random", 0), ("greedy", 1), ("first", 0),
                                           ("net", 1)])
def test_regression_vector_env_episodes_are_native_self_play_games(opponent, seat):
    """The vector env stepped its games with a loop of its own, its dice and random opponent
    from a generator of its own: now sub-env i's k-th episode is game i + k * n of the run
    seeded by reset, played by the one native game loop, and replays through Game."""
    rules = Rules(exempt_rolls=0)
    n, seed = 3, 17
    v = VecGames(n, rules, seat, opponent, default_net().native if opponent == "net" else None)
    obs = np.zeros((n, 220), dtype=np.float32)
    mask = np.zeros((n, 145), dtype=np.int8)
    v.reset(seed, obs, mask)
    rng = np.random.default_rng(5)
    for episode in range(2):
        for i in range(n):
            assert v.slot_game(i) == i + episode * n
            actions, reward, ended = [], 0.0, False
            while not ended:
                native_mask = v.slot_mask(i)
                action = int(rng.choice(np.flatnonzero(native_mask)))
                actions.append((action, native_mask))
                reward, ended, illegal = v.slot_step(i, action)
                assert not illegal
            game = _replay_episode(rules, seed, i + episode * n, seat, opponent, actions)
            result = game.result()
            assert reward == (0.0 if result.winner is None else
                              result.points if result.winner == seat else -result.points)
        # the step after the last one starts every slot's next game of the run
        v.step(np.zeros(n, dtype=np.int64), obs, mask, np.zeros(n), np.zeros(n, np.uint8),
               np.zeros(n, np.uint8))


def test_vector_env_plays_any_native_bot_or_network_file(tmp_path):
    path = tmp_path / "mine.npz"
    shutil.copy(DEFAULT_NET_PATH, path)
    for opponent in NATIVE_OPPONENTS + (str(path),):
        envs = GulBaraVectorEnv(num_envs=2, opponent=opponent)
        assert envs.opponent == bot_label(opponent)
        episodes, rewards = _run(envs, 200, 1)
        assert episodes >= 1 and set(rewards) <= {-2.0, -1.0, 0.0, 1.0, 2.0}


def test_vector_env_bad_arguments():
    with pytest.raises(ValueError, match="native vector env plays random, first, greedy, net"):
        GulBaraVectorEnv(num_envs=2, opponent="expectimax1")
    with pytest.raises(TypeError, match="bot name"):
        GulBaraVectorEnv(num_envs=2, opponent=GreedyBot())
    with pytest.raises(ValueError, match="net"):
        VecGames(2, Rules(), 0, "net")             # the net policy needs its network
    with pytest.raises(ValueError, match="num_envs"):
        GulBaraVectorEnv(num_envs=0)
    envs = GulBaraVectorEnv(num_envs=2)
    with pytest.raises(ValueError, match="reset"):
        envs.step(np.zeros(2, dtype=np.int64))
    envs.reset(seed=1)
    with pytest.raises(ValueError, match="2 integers"):
        envs.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="2 integers"):
        envs.step(np.zeros(2, dtype=np.float64))


# ---------------------------------------------------------------------------
# The afterstate mode (gulbara.envs.afterstates)
# ---------------------------------------------------------------------------


def test_afterstate_env_check_env_and_make():
    from gymnasium.utils.env_checker import check_env
    from gulbara.envs.afterstates import GulBaraEndsEnv
    env = gymnasium.make("GulBara-v0", action_mode="ends", max_ends=256)
    assert isinstance(env.unwrapped, GulBaraEndsEnv)
    check_env(env.unwrapped)
    assert isinstance(gymnasium.make("GulBara-v0").unwrapped, gulbara.envs.gymnasium.GulBaraEnv)
    with pytest.raises(ValueError, match="action_mode"):
        gymnasium.make("GulBara-v0", action_mode="chains")
    with pytest.raises(ValueError, match="action_mode='steps'"):
        gymnasium.make_vec("GulBara-v0", num_envs=2, vectorization_mode="vector_entry_point",
                           action_mode="ends")


@pytest.mark.parametrize("seat", [0, 1])
def test_afterstate_env_features_are_the_ends(seat):
    from gulbara.encoding.features import encode_afterstates
    from gulbara.envs.afterstates import GulBaraEndsEnv
    env = GulBaraEndsEnv(opponent="greedy", seat=seat, rules=Rules(exempt_rolls=0))
    obs, info = env.reset(seed=11)
    rng = np.random.default_rng(seat)
    decisions = 0
    while True:
        ends = env.game.legal_plays()
        assert env.game.decision.seat == seat and info["n_ends"] == len(ends)
        assert np.array_equal(obs["ends"][:len(ends)], encode_afterstates(ends))
        assert not obs["ends"][len(ends):].any()
        assert np.flatnonzero(obs["action_mask"]).tolist() == list(range(len(ends)))
        choice = int(rng.integers(len(ends)))
        before = len(env.game.plays)
        obs, reward, terminated, truncated, info = env.step(choice)
        assert env.game.plays[before][1] == ends[choice]   # that end, its canonical steps
        decisions += 1
        if terminated:
            break
        assert reward == 0.0
    score = env.game.result().score
    assert reward == score[seat] - score[1 - seat] and decisions > 10
    assert np.flatnonzero(info["action_mask"]).tolist() == [0]


def test_afterstate_env_illegal_actions_and_cut():
    from gulbara.envs.afterstates import GulBaraEndsEnv
    from gulbara.envs import IllegalActionError
    env = GulBaraEndsEnv()
    env.reset(seed=24)                                     # 6-4: two ends
    obs, reward, terminated, _, info = env.step(2)
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True)
    strict = GulBaraEndsEnv(illegal_action="raise")
    strict.reset(seed=24)
    for bad in (2, -1, 1.0, True, "0"):
        with pytest.raises(IllegalActionError):
            strict.step(bad)
    strict.step(np.int64(0))
    small = GulBaraEndsEnv(max_ends=1)
    obs, info = small.reset(seed=24)
    assert info["ends_cut"] and info["n_ends"] == 2 and obs["ends"].shape == (1, 196)
    with pytest.raises(ValueError, match="max_ends"):
        GulBaraEndsEnv(max_ends=0)


@pytest.mark.parametrize("name", ["gulbara.envs.vector", "gulbara.envs.afterstates"])
def test_module_docstrings(name):
    import doctest
    import importlib
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted >= 5 and result.failed == 0


def test_afterstate_env_whole_chains():
    from gulbara.envs.afterstates import GulBaraEndsEnv
    env = GulBaraEndsEnv(opponent="random", rules=Rules(exempt_rolls=0), chains=True,
                         max_ends=2000)
    rng = np.random.default_rng(5)
    whole = 0
    for seed in range(8):
        obs, info = env.reset(seed=seed)
        while True:
            if info["chain"]:
                decision = env.game.decision
                chain = gulbara.chain_ends(env.game.position, decision.seat, decision.dice[0],
                                           env.game.rules)
                assert info["n_ends"] == len(chain) <= 2000
                assert np.array_equal(obs["ends"][:len(chain)], gulbara.encoding.features.encode_boards(
                    chain.boards, decision.seat, borne_off=chain.borne_off))
                choice = int(rng.integers(len(chain)))
                before = len(env.game.plays)
                obs, reward, terminated, _, info = env.step(choice)
                stages = env.game.plays[before:before + len(chain.steps(choice))]
                assert [d.seat for d, _ in stages] == [decision.seat] * len(stages)
                assert [p.steps for _, p in stages] == list(chain.steps(choice))
                assert stages[-1][1].code == chain[choice].code     # the chosen outcome
                whole += 1
            else:
                obs, reward, terminated, _, info = env.step(
                    int(rng.integers(info["n_ends"])))
            if terminated:
                break
    assert whole >= 10


def test_regression_vector_env_refuses_seeds_out_of_range():
    """reset(seed=2**64) gave the games of seed 0, and seed=True those of seed 1."""
    envs = GulBaraVectorEnv(num_envs=2)
    first, _ = envs.reset(seed=5)
    for seed in (2**64, -1, 2**65 + 7):
        with pytest.raises(gulbara.GulBaraError, match="seed"):
            envs.reset(seed=seed)
    for seed in (True, 1.5, "x"):
        with pytest.raises(TypeError, match="seed"):
            envs.reset(seed=seed)
    again, _ = envs.reset(seed=np.uint64(5))
    assert np.array_equal(first, again)


def test_regression_afterstate_env_is_restored_when_the_opponent_fails():
    """An opponent's error left the afterstate env past the agent's play, every step illegal."""
    from gulbara.envs.afterstates import GulBaraEndsEnv

    bot = FlakyBot(fail=False)
    env = GulBaraEndsEnv(opponent=bot)
    obs, info = env.reset(seed=24)
    before = env.game.state_code()
    bot.fail = True
    with pytest.raises(RuntimeError, match="the bot broke"):
        env.step(0)
    assert env.game.state_code() == before
    bot.fail = False
    obs, reward, terminated, truncated, info = env.step(0)
    assert env.game.plays[0][1].steps == ((24, 6), (24, 4))


def _played(env, actions_per_step):
    out = []
    for actions in actions_per_step:
        obs, rewards, terminated, _, infos = env.step(actions)
        out.append((obs.copy(), rewards.copy(), terminated.copy()))
    return out


def _legal_actions(env, infos, pick):
    return np.array([int(np.flatnonzero(m)[pick % max(1, len(np.flatnonzero(m)))])
                     for m in infos["action_mask"]])


def test_regression_the_vector_env_copies_independently():
    """The native vector env could not be deep-copied or pickled (a raw Cython TypeError), and
    copy.copy shared the original's native games."""
    import copy
    import pickle
    env = GulBaraVectorEnv(num_envs=3, opponent="greedy")
    twin = GulBaraVectorEnv(num_envs=3, opponent="greedy")
    _, infos = env.reset(seed=5)
    twin.reset(seed=5)
    for k in range(6):                              # a few steps in
        actions = _legal_actions(env, infos, k)
        _, _, _, _, infos = env.step(actions)
        twin.step(actions)
    for copier in (copy.copy, copy.deepcopy):
        other = copier(env)
        # the copy goes on exactly as the original would ...
        mask = env._mask.copy()
        steps = [np.array([int(np.flatnonzero(m)[0]) for m in mask])]
        assert all(np.array_equal(a, b) for x, y in zip(_played(other, steps),
                                                        _played(twin, steps))
                   for a, b in zip(x, y))
        # ... and the original is not moved by it
        env.step(steps[0])
        assert np.array_equal(env._obs, twin._obs) and np.array_equal(env._mask, twin._mask)
    with pytest.raises(TypeError, match="cannot be pickled .*copy.deepcopy"):
        pickle.dumps(env)
