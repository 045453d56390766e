"""The net bots: chain and remainder stages valued by their whole-turn outcomes (hand-built states)."""

import numpy as np
import pytest

import gulbara
from gulbara.bots import BOTS, GreedyBot, play_out
from gulbara.net.model import ValueNet
from gulbara.bots.netbot import Net2Bot, NetBot

# White to play an escalating 2-2 (then 3s, 4s, 5s, 6s): 72 pips against 80 of chain, so
# some whole-chain outcomes bear off all fifteen (a mars: Black has none off).
CHAIN = ("G:2,2,2,,,,,,,,,-15,,,,,,,,3,,,,|0,0|6,0 next=chain:W stage=2-2-2-2 index=0 "
         "roll=2-2 rolls=5,5 stuck=0")
# The same chain with White's last three checkers on its 11: every one can be borne off.
CHAIN_MARS = ("G:2,2,2,,,,,,,,3,-15,,,,,,,,,,,,|0,0|6,0 next=chain:W stage=2-2-2-2 index=0 "
              "roll=2-2 rolls=5,5 stuck=0")
# Black to play White's remainder 4-4, then 5x4 and 6x4, before its own roll.
REMAINDER = ("G:2,2,2,,,,,,,,,-15,,,,,,,,,,,,9|0,0|0,0 next=remainder:B stage=4-4 index=0 "
             "then=5x4,6x4 roll=3-3 roller=W rolls=5,5 stuck=0")


@pytest.fixture(scope="module")
def net():
    return ValueNet.random(hidden=16, seed=9, scale=0.5)


def _letter(seat):
    return "WB"[seat]


def python_turn_value(net, game, play):
    """The whole-turn rule through the Python Game, chain_ends/remainder_ends and numpy."""
    mover = game.decision.seat
    after = game.copy(auto_roll=False)
    after.play(play)
    d = after.decision
    if d is None or d.seat != mover or d.is_remainder != game.decision.is_remainder:
        return net.after_value(after, mover)
    if d.is_remainder:
        stages = [list(d.dice)] + [[n] * c for n, c in d.following]
        outcomes = gulbara.remainder_ends(after.code(), mover, stages)
    else:
        outcomes = gulbara.chain_ends(after.code(), mover, d.dice[0], after.rules)
    return max(python_outcome_value(net, o, mover, after.rolls_made, d.is_remainder, d.roll)
               for o in outcomes)


def python_outcome_value(net, o, mover, rolls_made, after_remainder, roll):
    """One whole-turn outcome's value for ``mover`` (RULES §5.4, §7.1) through a state
    code, the Python Game and numpy: the twin of ``ValueNet.outcome_values``."""
    rolls = "rolls={},{} stuck=0".format(*rolls_made)
    if o.ends_game:
        theirs = gulbara.Position.from_code(o.code).borne_off(1 - mover)
        return 2.0 if theirs == 0 else 1.0
    if o.remainder:
        numbers = sorted(set(o.remainder))
        first = numbers[0]
        stage = "-".join([str(first)] * o.remainder.count(first))
        then = ",".join(f"{n}x{o.remainder.count(n)}" for n in numbers[1:])
        words = [f"next=remainder:{_letter(1 - mover)}", f"stage={stage}", "index=0"]
        if then:
            words.append(f"then={then}")
        words += [f"roll={roll[0]}-{roll[1]}", f"roller={_letter(mover)}"]
    else:
        nxt = 1 - mover if not after_remainder else mover
        words = [f"next=roll:{_letter(nxt)}"]
    state = gulbara.Game.from_state_code(" ".join([o.code] + words + [rolls]))
    return net.after_value(state, mover)


@pytest.mark.parametrize("code", [CHAIN, CHAIN_MARS, REMAINDER],
                         ids=["chain", "chain-mars", "remainder"])
def test_whole_turn_values_equal_python_rule(net, code):
    game = gulbara.Game.from_state_code(code)
    bot = NetBot(net)
    ranked = bot.rank(game)
    assert len(ranked) == len(game.legal_plays()) > 1
    for play, value in ranked:
        assert value == pytest.approx(python_turn_value(net, game, play), abs=1e-5)
    assert [v for _, v in ranked] == sorted((v for _, v in ranked), reverse=True)


@pytest.mark.parametrize("code", [CHAIN, CHAIN_MARS, REMAINDER],
                         ids=["chain", "chain-mars", "remainder"])
def test_outcome_values_equal_the_python_rule(net, code):
    # ValueNet.outcome_values (public: chain_best's net_scores) outcome by outcome
    game = gulbara.Game.from_state_code(code)
    d = game.decision
    if d.is_remainder:
        stages = [list(d.dice)] + [[n] * c for n, c in d.following]
        outcomes = gulbara.remainder_ends(game.code(), d.seat, stages)
    else:
        outcomes = gulbara.chain_ends(game.code(), d.seat, d.dice[0], game.rules)
    values = net.outcome_values(outcomes, game.rolls_made, game.rules)
    assert values.shape == (len(outcomes),) and len(outcomes) >= 1
    for i in range(0, len(outcomes), max(1, len(outcomes) // 60)):
        twin = python_outcome_value(net, outcomes[i], d.seat, game.rolls_made, d.is_remainder,
                                    d.roll)
        assert values[i] == pytest.approx(twin, abs=1e-5)
    if code == CHAIN_MARS:
        assert values.max() == 2.0                       # bears off all fifteen: a mars


def test_chain_best_under_the_network_is_the_top_of_the_full_result(net):
    from gulbara.net.model import net_scores
    code, seat, first, rolls = gulbara.START_CODE, 0, 4, (4, 3)
    values = net.outcome_values(gulbara.chain_ends(code, seat, first), rolls)
    best = gulbara.chain_best(code, seat, first, k=7, evaluate=net_scores(net, rolls=rolls),
                              chunk=300)
    order = np.argsort(-values.astype(np.float64), kind="stable")[:7]
    assert [b.score for b in best] == [float(values[i]) for i in order]
    chain = gulbara.chain_ends(code, seat, first)
    assert [b.outcome for b in best] == [chain[int(i)] for i in order]


def test_outcome_values_bad_input(net):
    chain = gulbara.chain_ends(gulbara.START_CODE, 0, 5)
    with pytest.raises(TypeError, match="ChainEnds"):
        net.outcome_values("G:", (4, 4))
    with pytest.raises(TypeError, match="rolls"):
        net.outcome_values(chain, (4,))
    with pytest.raises(gulbara.GulBaraError, match="rolls"):
        net.outcome_values(chain, (-1, 4))
    with pytest.raises(TypeError, match="rules"):
        net.outcome_values(chain, (4, 4), rules="default")
    from gulbara.net.model import net_scores
    with pytest.raises(TypeError, match="rolls"):
        net_scores(net, rolls=4)


def test_chain_that_can_bear_off_everything_is_played_to_the_mars(net):
    game = gulbara.Game.from_state_code(CHAIN_MARS)
    bot = NetBot(net)
    best_play, best_value = bot.rank(game)[0]
    assert best_value == 2.0                  # exact, whatever the random network says
    # played out by the bot, the chain ends the game with a mars
    while not game.is_over():
        game.play(bot.choose(game))
    assert game.result().winner == 0 and game.result().points == 2


def test_the_chain_plan_follows_the_best_outcome(net):
    game = gulbara.Game.from_state_code(CHAIN_MARS)
    bot = NetBot(net)
    first = bot.choose(game)
    assert first.code == bot.rank(game)[0][0].code or bot.rank(game)[0][1] == 2.0
    game.play(first)
    while game.is_decision() and game.decision.seat == 0:
        game.play(bot.choose(game))
    assert game.is_over() and game.result().points == 2


def test_remainder_receiver_rolls_next_after_it(net):
    # after the remainder's last stage the same player rolls (RULES §5.4): its value is its own
    game = gulbara.Game.from_state_code(
        "G:2,2,2,,,,,,,,,-15,,,,,,,,,,,,9|0,0|0,0 next=remainder:B stage=6-6 index=0 "
        "roll=3-3 roller=W rolls=5,5 stuck=0")
    bot = NetBot(net)
    for play, value in bot.rank(game):
        after = game.copy(auto_roll=False)
        after.play(play)
        assert after.to_move == 1 and after.is_chance()
        assert value == pytest.approx(net.after_value(after, 1), abs=1e-5)


def test_over_budget_falls_back_to_stage_by_stage(net):
    game = gulbara.Game.from_state_code(CHAIN)
    bot = NetBot(net, chain_budget=1)
    values = [v for _, v in sorted(((p.code, v) for p, v in bot.rank(game)))]
    expected = []
    for play in game.legal_plays():
        after = game.copy(auto_roll=False)
        after.play(play)
        while after.is_decision() and after.decision.seat == 0:
            after.play(after.legal_plays()[int(np.argmax(net.stage_values(after)))])
        expected.append((play.code, net.after_value(after, 0)))
    assert values == pytest.approx([v for _, v in sorted(expected)], abs=1e-5)
    assert bot.choose(game) in list(game.legal_plays())


def _smallest_budget(code, seat, first):
    """The smallest max_ends (within 1%) that lets the chain through on one thread."""
    low, high = 1, 2_000_000
    while high - low > max(16, low // 100):
        middle = (low + high) // 2
        try:
            gulbara.chain_ends(code, seat, first, max_ends=middle, threads=1)
            high = middle
        except gulbara.EnumerationLimitError:
            low = middle + 1
    return high


def test_regression_chain_budget_does_not_depend_on_the_cores(net, monkeypatch):
    # NetBot enumerated chains on the default thread count (every core); threads
    # hold some positions twice until they are merged, so at a budget a chain fits
    # on one thread, more threads refused it and the bot fell back to its
    # stage-by-stage play: its moves depended on the machine.
    from gulbara.chains import enumeration as chains
    from gulbara.tools.suites import REAL_GAME_CHAINS
    # a 2-2 chain met in play (1,013 outcomes) whose positions threads hold twice
    entry = next(c for c in REAL_GAME_CHAINS if (c.seed, c.ply) == (4, 20))
    code = (f"{entry.code} next=chain:{_letter(entry.seat)} stage=2-2-2-2 index=0 "
            f"roll=2-2 rolls=5,5 stuck=0")
    budget = _smallest_budget(entry.code, entry.seat, entry.first)
    with pytest.raises(gulbara.EnumerationLimitError):      # what the bot used to meet
        gulbara.chain_ends(entry.code, entry.seat, entry.first, max_ends=budget, threads=3)
    monkeypatch.setattr(chains, "default_threads", lambda: 3)
    bot = NetBot(net, chain_budget=budget)

    def no_fallback(game):
        raise AssertionError("the chain fits the budget: no stage-by-stage fallback")

    monkeypatch.setattr(bot, "_stage_by_stage", no_fallback)
    game = gulbara.Game.from_state_code(code)
    assert bot.choose(game) in list(game.legal_plays())


def test_net2_searches_the_opponents_rolls(net):
    game = gulbara.Game(seed=11)
    bot = Net2Bot(net, top=3)
    values = bot.stage_values(game)
    one = net.stage_values(game)
    assert values.shape == one.shape
    assert int((values > one - 4.0 + 1e-6).sum() + (np.isclose(values, one - 4.0)).sum()) == len(one)
    # a searched end's value: the average over 36 rolls of the opponent's best answer
    i = int(np.argmax(values))
    after = game.copy(auto_roll=False)
    after.play(game.legal_plays()[i])
    mover = game.decision.seat
    total = 0.0
    for a in range(1, 7):
        for b in range(1, 7):
            reply = after.copy(auto_roll=False)
            reply.roll(a, b)
            # the opponent's best answer by the network, then valued for the mover
            answer = max(reply.legal_plays(),
                         key=lambda p: net.after_value(_played(reply, p), 1 - mover))
            total += net.after_value(_played(reply, answer), mover)
    assert values[i] == pytest.approx(total / 36, abs=1e-4)


def _played(game, play):
    g = game.copy(auto_roll=False)
    g.play(play)
    return g


def test_bots_play_whole_games(net):
    for name in ("net", "net2"):
        bot = BOTS[name](net=net)
        game = gulbara.Game(seed=2)
        result = play_out(game, bot, GreedyBot())
        assert game.is_over() and result is not None


def test_the_environments_play_against_the_net():
    pytest.importorskip("gymnasium")
    from gulbara.envs.gymnasium import GulBaraEnv
    env = GulBaraEnv(opponent="net")
    obs, info = env.reset(seed=24)
    rng = np.random.default_rng(1)
    done = False
    while not done:
        legal = np.nonzero(info["action_mask"])[0]
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
        done = terminated or truncated
    assert reward in (-2.0, -1.0, 1.0, 2.0, 0.0)


def test_the_bots_network_is_the_default(net):
    from gulbara.net.model import bot_net, default_net
    for Bot in (NetBot, Net2Bot):
        assert Bot().net is bot_net() and Bot("net").net is bot_net()
        assert Bot().net is not default_net()       # the native policy's: one of the four


def test_regression_bot_options_are_checked_when_the_bot_is_made(net):
    """chain_budget and top were taken by int() and refused (or overflowed) at the first choice."""
    for budget in (0, -1, 10**30):
        with pytest.raises(gulbara.GulBaraError, match="chain_budget"):
            NetBot(net, chain_budget=budget)
    for budget in (2.9, True, "x"):
        with pytest.raises(TypeError, match="chain_budget"):
            NetBot(net, chain_budget=budget)
    for top in (0, -3, 2**40):
        with pytest.raises(gulbara.GulBaraError, match="top"):
            Net2Bot(net, top=top)
    with pytest.raises(TypeError):
        NetBot(net).choose(gulbara.Board())


def test_default_chain_budget_is_the_documented_one(net):
    """docs/user/bots.md, "The chain budget": 20,000 positions, so at most about 2.6 MB of
    tables a whole-turn enumeration, for both net bots."""
    from gulbara.chains.enumeration import BYTES_PER_END
    from gulbara.bots.netbot import DEFAULT_CHAIN_BUDGET
    assert DEFAULT_CHAIN_BUDGET == 20_000
    assert NetBot(net).chain_budget == Net2Bot(net).chain_budget == DEFAULT_CHAIN_BUDGET
    assert DEFAULT_CHAIN_BUDGET * BYTES_PER_END <= 2_600_000


def _chain_and_remainder_decisions(count, seeds):
    """Chain and remainder stages with many ends, met in seeded greedy games."""
    from gulbara.bots.simple import GreedyBot
    found = []
    for seed in seeds:
        game, bot = gulbara.Game(seed=seed), GreedyBot()
        while not game.is_over() and len(found) < count:
            d = game.decision
            if (d.is_chain or d.is_remainder) and len(game.legal_plays()) >= 20:
                found.append(game.copy(auto_roll=False))
            game.play(bot.choose(game))
    return found


def test_stage_by_stage_values_of_real_chains_against_the_python_twin(net):
    # the native continuation remembers the later stages it has played (ends whose
    # continuations meet share the rest of the turn); the twin plays every one out
    from gulbara.net import _search
    decisions = _chain_and_remainder_decisions(10, range(40))
    assert len(decisions) == 10
    for game in decisions:
        mover = game.decision.seat
        expected = []
        for play in game.legal_plays():
            after = game.copy(auto_roll=False)
            after.play(play)
            while after.is_decision() and after.decision.seat == mover:
                after.play(after.legal_plays()[int(np.argmax(net.stage_values(after)))])
            expected.append(net.after_value(after, mover))
        got = _search.continuation_values(net.native, game)
        assert got == pytest.approx(expected, abs=1e-5), game.code()


def test_regression_a_chain_plan_is_never_applied_to_another_game():
    """NetBot kept the plan of a chain's next stages keyed by the turn and the stage alone:
    asked next about another game at the same stage of the same roll (as a benchmark asks one
    bot about many decisions), it played the plan's steps there and raised "step (20, 6) is
    illegal". The plan now also names the position it starts from."""
    a = gulbara.Game.from_state_code("G:,,-1,-2,-1,-1,-2,-1,-1,1,1,-6,,,1,2,1,1,1,3,,,,4|0,0|0,0 "
                             "next=chain:W stage=5-5-5-5 index=3 roll=2-2 rolls=7,7 stuck=0")
    b = gulbara.Game.from_state_code("G:,,1,1,-1,-1,-1,-1,-1,-2,,-8,,1,,,1,1,,,1,1,1,7|0,0|0,0 "
                             "next=chain:W stage=6-6-6-6 index=4 roll=2-2 rolls=7,7 stuck=0")
    bot = NetBot()
    first = bot.choose(a)
    assert bot._plan is not None                  # a plan for a's next stage was made
    assert bot.choose(b) == NetBot().choose(b)    # b is played as a fresh bot plays it
    after = a.copy(auto_roll=False)
    after.play(first)
    bot.choose(a)
    assert bot.choose(after) == NetBot().choose(after)   # and a's own plan still serves
