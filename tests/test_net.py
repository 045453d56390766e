"""The gb1 value network: native inference against its numpy and Python twins, weights files."""

import random
from fractions import Fraction

import numpy as np
import pytest

import gulbara
from gulbara.net import _inputs, _net
from gulbara.net import _train
from gulbara.net.model import (InvalidNetworkError, N_INPUTS, ValueNet, equity, inputs, load)


def _waiting_states(n_games, seed):
    """Games waiting for a roll, a chain stage or a remainder stage, from random play."""
    rng = random.Random(seed)
    states = []
    for gi in range(n_games):
        game = gulbara.Game(seed=seed * 1000 + gi, auto_roll=False)
        game.roll_opening(*rng.choice([(a, b) for a in range(1, 7) for b in range(1, 7) if a != b]))
        while not game.is_over() and len(states) < 100_000:
            if game.is_chance():
                states.append(game.copy())
                game.roll(rng.randint(1, 6), rng.randint(1, 6))
                continue
            d = game.decision
            if d.is_chain or d.is_remainder:
                states.append(game.copy())
            plays = game.legal_plays()
            game.play(plays[rng.randrange(len(plays))])
    return states


@pytest.fixture(scope="module")
def states():
    return _waiting_states(40, 7)


@pytest.fixture(scope="module")
def net():
    return ValueNet.random(hidden=24, seed=5, scale=0.6)


def test_states_cover_chains_and_remainders(states):
    kinds = {("chain" if g.decision.is_chain else "remainder") if g.is_decision() else "roll"
             for g in states}
    assert kinds == {"roll", "chain", "remainder"}
    assert len(states) > 2000


def test_native_inputs_equal_python_twin(states):
    for game in states:
        assert np.array_equal(_inputs.encode_game(game).astype(np.float64),
                              inputs(game).astype(np.float32).astype(np.float64)), game.state_code()


def test_native_forward_equals_numpy_twin(states, net):
    x = np.array([inputs(g) for g in states])
    native = net.native_forward(x)
    assert native.shape == (len(states), 3) and native.dtype == np.float32
    assert np.abs(native - net.forward(x)).max() < 1e-5


def test_stage_values_equal_python_twin(net):
    rng = random.Random(3)
    compared = 0
    for gi in range(12):
        game = gulbara.Game(seed=gi)
        while not game.is_over():
            native = net.stage_values(game)
            python = net.stage_values_python(game)
            assert native.shape == python.shape
            assert np.abs(native - python).max() < 1e-5, game.state_code()
            compared += len(native)
            plays = game.legal_plays()
            game.play(plays[rng.randrange(len(plays))])
    assert compared > 3000


@pytest.mark.parametrize("options", [
    {"exempt_rolls": 0, "exempt_counting": "game_wide", "unstarted_chain": "to_opponent"},
    {"exempt_rolls": 1, "remainder": "lost", "mars": False},
    {"escalation": False, "stuck_limit": 1},
], ids=["game-wide", "remainder-lost", "stuck-1"])
def test_stage_values_equal_python_twin_under_other_rules(net, options):
    # what follows an end (the next side to act, its pending dice, a draw by the stuck
    # rule, a mars) is found once per number of steps: every rule that shapes it
    rules = gulbara.Rules(**options)
    rng = random.Random(4)
    compared = 0
    for gi in range(4):
        game = gulbara.Game(rules, seed=40 + gi)
        while not game.is_over():
            native = net.stage_values(game)
            assert np.abs(native - net.stage_values_python(game)).max() < 1e-5, game.state_code()
            compared += len(native)
            plays = game.legal_plays()
            game.play(plays[rng.randrange(len(plays))])
    assert compared > 500


def test_winning_play_is_valued_by_the_result(net):
    # White bears off its last checker: a mars (Black has none off), +2 whatever the network says
    game = gulbara.Game.from_state_code(
        "G:1,,,,,,,,,,,-15,,,,,,,,,,,,|0,0|14,0 next=play:W stage=2-1 roll=2-1 rolls=5,5 stuck=0")
    values = net.stage_values(game)
    assert values.tolist() == [2.0] * len(game.legal_plays())
    assert net.stage_values_python(game).tolist() == values.tolist()
    assert equity(np.array([1.0, 1.0, 0.0])) == 2.0
    assert equity(np.array([0.0, 0.0, 1.0])) == -2.0


def test_weights_round_trip(tmp_path, net):
    path = tmp_path / "w.npz"
    net.save(str(path), note="test")
    back = ValueNet.load(str(path))
    assert back.sha256() == net.sha256()
    assert back.meta["note"] == "test"
    with np.load(path) as data:
        assert int(data["format_version"]) == 1 and str(data["layout"]) == "gb1"
        assert data["w1"].shape == (N_INPUTS, 24) and data["w2"].shape == (24, 3)
    assert load(str(path)).sha256() == net.sha256()


def test_bad_weights_files(tmp_path, net):
    bad = tmp_path / "bad.npz"
    arrays = net.arrays
    np.savez(bad, format_version=np.int32(2), layout=np.str_("gb1"), **arrays)
    with pytest.raises(InvalidNetworkError, match="format version 2"):
        ValueNet.load(str(bad))
    np.savez(bad, format_version=np.int32(1), layout=np.str_("other"), **arrays)
    with pytest.raises(InvalidNetworkError, match="layout"):
        ValueNet.load(str(bad))
    np.savez(bad, format_version=np.int32(1), layout=np.str_("gb1"), w1=arrays["w1"])
    with pytest.raises(InvalidNetworkError, match="lacks"):
        ValueNet.load(str(bad))
    with pytest.raises(InvalidNetworkError, match="cannot read"):
        ValueNet.load(str(tmp_path / "missing.npz"))
    with pytest.raises(InvalidNetworkError, match="w1"):
        ValueNet(np.zeros((10, 4)), np.zeros(4), np.zeros((4, 3)), np.zeros(3))
    with pytest.raises(InvalidNetworkError, match="finite"):
        ValueNet(np.full((N_INPUTS, 2), np.nan), np.zeros(2), np.zeros((2, 3)), np.zeros(3))
    with pytest.raises(TypeError):
        load(3)


def test_inputs_reject_states_without_a_value(net):
    game = gulbara.Game(seed=2)                     # the opening's plain stage
    with pytest.raises(InvalidNetworkError):
        inputs(game)
    with pytest.raises(ValueError):
        _inputs.encode_game(game)
    with pytest.raises(InvalidNetworkError):
        net.native_forward(np.zeros((2, 5)))


def _decision_games(n_games, seed):
    """Decisions of random self-play games (plain, chain and remainder stages)."""
    rng = random.Random(seed)
    games = []
    for gi in range(n_games):
        game = gulbara.Game(seed=seed * 100 + gi)
        while not game.is_over():
            games.append(game.copy())
            plays = game.legal_plays()
            game.play(plays[rng.randrange(len(plays))])
    return games


@pytest.mark.parametrize("hidden", [64, 77, 37, 8])
def test_incremental_stage_values_equal_python_twin_at_other_sizes(hidden):
    # 64: the shipped size (64 units at a time with AVX2); 77: 64, 8, then 5 one by one;
    # 37 and 8: the shorter loops
    net = ValueNet.random(hidden=hidden, seed=hidden, scale=0.4)
    compared = 0
    for game in _decision_games(3, 11):
        native = net.stage_values(game)
        assert np.abs(native - net.stage_values_python(game)).max() < 1e-5, game.state_code()
        compared += len(native)
    assert compared > 1000


def test_every_arithmetic_level_gives_the_same_bytes(states):
    """AVX2, SSE2 and plain C do the same IEEE operations lane by lane: equal bytes."""
    games = _decision_games(2, 5)
    kinds = {("chain" if g.decision.is_chain else "remainder" if g.decision.is_remainder
              else "plain") for g in games}
    assert kinds == {"plain", "chain", "remainder"}
    x = np.array([inputs(g) for g in states[:400]], dtype=np.float32)
    best = _net.SIMD_LEVEL
    results = []
    try:
        for level in range(best + 1):
            assert _net.simd_level(level) == level
            for hidden in (64, 77, 37):
                net = ValueNet.random(hidden=hidden, seed=3, scale=0.5)
                values = np.concatenate([net.stage_values(g) for g in games])
                delta = np.zeros((2, _net.parameter_count(hidden)))
                _train.train_slots(net.native, gulbara.DEFAULT_RULES, 9, 0, 2, [0, 1], delta,
                                 0.01, 0.7)
                results.append((level, hidden, values.tobytes(),
                                net.native_forward(x).tobytes(), delta.tobytes()))
    finally:
        assert _net.simd_level(-1) == best
    for level, hidden, *rest in results:
        first = next(r for r in results if r[1] == hidden)
        assert rest == list(first[2:]), (level, hidden)
    assert len(results) == 3 * (best + 1)


def test_every_module_that_runs_the_network_follows_the_arithmetic_level():
    """A module that compiles the forward pass in (cimports ``_forward.pxd``) has its own copy
    of the arithmetic level: each follows ``_net.simd_level``, else it would stay at plain C
    (the same bytes, several times slower, so no other test would notice)."""
    import importlib
    import re
    from pathlib import Path
    folder = Path(__file__).resolve().parents[1] / "gulbara" / "net"
    runners = sorted(f"gulbara.net.{pyx.stem}" for pyx in folder.glob("*.pyx")
                     if pyx.stem != "_net" and re.search(r"^from gulbara\.net\._forward cimport",
                                                         pyx.read_text(encoding="utf-8"), re.M))
    assert {"gulbara.net._choose", "gulbara.net._search", "gulbara.net._train"} <= set(runners)
    for name in runners:
        importlib.import_module(name)
    assert sorted(_net.simd_followers()) == runners


def _rounded_to_float32(exact: Fraction) -> np.float32:
    """``exact`` rounded to the nearest float32, ties to an even last bit."""
    near = np.float32(float(exact))
    candidates = [np.nextafter(near, np.float32(-np.inf)), near,
                  np.nextafter(near, np.float32(np.inf))]
    return min(candidates, key=lambda f: (abs(Fraction(float(f)) - exact),
                                          int(np.array(f).view(np.uint32)) & 1))


def _fma_cases():
    """Random triples; products on a float32 midpoint pushed off it by a term far below
    double precision (there a double sum rounded to nearest, then to float, goes wrong);
    sums in float's subnormal range."""
    rng = np.random.default_rng(5)
    a = (rng.standard_normal(6000) * 4.0 ** rng.integers(-6, 6, 6000)).astype(np.float32)
    b = (rng.standard_normal(6000) * 4.0 ** rng.integers(-6, 6, 6000)).astype(np.float32)
    c = (rng.standard_normal(6000) * 4.0 ** rng.integers(-8, 8, 6000)).astype(np.float32)
    c[::7] = -(a[::7].astype(np.float64) * b[::7]).astype(np.float32)   # near cancellation
    hard_a, hard_b, hard_c = [], [], []
    for k in range(1, 64):
        x = np.float32(1 + k * 2.0 ** -12)            # x * x = 1 + ... + k^2 2^-24: midpoints
        for tiny in (0.0, 2.0 ** -60, -2.0 ** -60, 2.0 ** -40, -2.0 ** -40):
            for sign in (1.0, -1.0):
                hard_a.append(sign * x)
                hard_b.append(x)
                hard_c.append(sign * tiny)
    for k in range(200):                              # sums at and below float's normal range
        x = np.float32((1 + k / 256) * 2.0 ** -64)
        hard_a.append(x)
        hard_b.append(np.float32((1 - k / 512) * 2.0 ** -63 * (-1) ** k))
        hard_c.append(np.float32(k * 2.0 ** -140 * (-1) ** (k // 2)))
    return (np.concatenate([a, np.array(hard_a, np.float32)]),
            np.concatenate([b, np.array(hard_b, np.float32)]),
            np.concatenate([c, np.array(hard_c, np.float32)]))


def test_fused_multiply_add_rounds_once_at_every_level():
    """The network's a * b + c is rounded once at every arithmetic level: the FMA
    instructions and their double-precision form (round to odd) equal exact rounding,
    on the cases where rounding twice does not."""
    a, b, c = _fma_cases()
    exact = np.array([_rounded_to_float32(Fraction(float(x)) * Fraction(float(y))
                                          + Fraction(float(z))) for x, y, z in zip(a, b, c)],
                     dtype=np.float32)
    twice = (a.astype(np.float64) * b + c).astype(np.float32)
    assert (twice.view(np.uint32) != exact.view(np.uint32)).sum() > 50    # the hard cases bite
    best = _net.SIMD_LEVEL
    try:
        for level in range(best + 1):
            assert _net.simd_level(level) == level
            got = _net.fused_multiply_add(a, b, c)
            assert np.array_equal(got.view(np.uint32), exact.view(np.uint32)), level
    finally:
        assert _net.simd_level(-1) == best
    with pytest.raises(ValueError, match="one length"):
        _net.fused_multiply_add(a, b, c[:-1])


def test_sigmoid_is_accurate_and_equal_at_every_level():
    """The network's own sigmoid: within 3e-7 of the exact one (relative), saturating
    cleanly past the exponent's clamp, the same bytes at every arithmetic level."""
    z = np.concatenate([np.linspace(-30, 30, 200_003), [0.0, -0.0, 87.0, -87.0, 88.5, -88.5,
                                                         1e6, -1e6, 1e-30, -1e-30]])
    z = z.astype(np.float32)
    with np.errstate(over="ignore"):
        exact = 1.0 / (1.0 + np.exp(-z.astype(np.float64)))
    best = _net.SIMD_LEVEL
    got = []
    try:
        for level in range(best + 1):
            assert _net.simd_level(level) == level
            got.append(_net.sigmoid(z))
    finally:
        assert _net.simd_level(-1) == best
    for values in got:
        assert values.tobytes() == got[0].tobytes()
    dense = slice(0, 200_003)
    assert np.max(np.abs(got[0][dense] - exact[dense]) / exact[dense]) < 3e-7
    assert np.all(np.diff(got[0][dense]) >= 0)                            # monotone
    assert got[0][-4] == 1.0 and got[0][-3] < 1e-37


def test_deeper_outputs_equal_the_python_twin(states, net):
    """The targets of ``target="deeper"`` training, one decision deeper: every roll of
    a state waiting for one, the best play of a chain or remainder stage."""
    checked = {"roll": 0, "chain": 0, "remainder": 0}
    for game in states[::2][:1500]:
        native = net.deeper_outputs(game)
        twin = net.deeper_outputs_python(game)
        assert native.shape == (3,) and np.abs(native - twin).max() < 1e-5, game.state_code()
        assert ((native >= 0.0) & (native <= 1.0 + 1e-12)).all(), native
        kind = ("chain" if game.decision.is_chain else "remainder") if game.is_decision() else "roll"
        checked[kind] += 1
    assert min(checked.values()) > 20, checked


def test_deeper_outputs_of_a_game_won_by_every_roll():
    """White's last checker on its 1-point comes off on any roll: White wins, and
    Black has borne off none with checkers outside its home, so with a mars (RULES §7.1)."""
    game = gulbara.Game.from_state_code(
        "G:1,,,,,,,,,,,-15,,,,,,,,,,,,|0,0|14,0 next=roll:W rolls=5,5 stuck=0")
    assert np.allclose(ValueNet.random(8, 1).deeper_outputs(game), [1.0, 1.0, 0.0], atol=1e-12)


def test_deeper_outputs_refuse_a_plain_stage():
    game = gulbara.Game(seed=1, auto_roll=False)
    game.roll(6, 5)
    with pytest.raises(ValueError, match="deeper"):
        ValueNet.random(8, 1).deeper_outputs(game)


def test_average_outputs_the_mean_of_the_members_pre_sigmoid_sums(states):
    members = [ValueNet.random(hidden=h, seed=s, scale=0.6) for h, s in ((8, 1), (24, 2), (5, 3))]
    avg = ValueNet.average(members)
    assert avg.hidden == 37
    assert avg.meta["averaged_sha256"] == ",".join(m.sha256() for m in members)
    x = np.array([inputs(g) for g in states[:500]])

    def logit(p):
        p = p.astype(np.float64)
        return np.log(p / (1 - p))

    mean = sum(logit(m.forward(x)) for m in members) / len(members)
    assert np.abs(logit(avg.forward(x)) - mean).max() < 1e-6       # (w2 / 3 in float32)
    assert np.abs(avg.native_forward(x) - avg.forward(x)).max() < 1e-5


def test_average_refuses_bad_members():
    with pytest.raises(InvalidNetworkError, match="at least one"):
        ValueNet.average([])
    with pytest.raises(TypeError, match="ValueNet"):
        ValueNet.average([ValueNet.random(8), "net.npz"])
    with pytest.raises(InvalidNetworkError, match="256"):
        ValueNet.average([ValueNet.random(200), ValueNet.random(64)])


# ---------------------------------------------------------------------------
# Regression tests: bad input refused with a clear error
# ---------------------------------------------------------------------------

_PROXY = '''
import dataclasses, gulbara
from gulbara.net.model import ValueNet
class Proxy:
    def __init__(self, g): self._g = g
    def __getattr__(self, name): return getattr(self._g, name)
    @property
    def decision(self): return dataclasses.replace(self._g.decision, seat=5)
    to_move = 7
net = ValueNet.random(8, 1)
game = gulbara.Game(seed=24)
for call in (net.stage_values, net.deeper_outputs,
             lambda g: net.after_value(g, 0, native=True)):
    try:
        call(Proxy(game))
    except TypeError as error:
        print("TypeError:", error)
'''


def test_regression_native_values_refuse_an_object_that_is_not_a_game(tmp_path):
    """stage_values and deeper_outputs read any game-like object into C unchecked (a crash)."""
    import subprocess
    import sys
    from conftest import same_package_environment
    done = subprocess.run([sys.executable, "-c", _PROXY], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path, env=same_package_environment())
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.count("TypeError: game must be a gulbara.Game, not Proxy") == 3
    net = ValueNet.random(8, 1)
    for bad in (gulbara.Board(), None):
        with pytest.raises(TypeError):
            net.stage_values(bad)
        with pytest.raises(TypeError):
            net.deeper_outputs(bad)
    match = gulbara.Match(seed=24)                        # a match: its current game
    assert np.array_equal(net.stage_values(match), net.stage_values(match.game))


def test_regression_native_values_of_a_game_in_the_wrong_state_are_game_state_errors():
    """stage_values at a chance node raised a bare ValueError, not GameStateError."""
    net = ValueNet.random(8, 1)
    with pytest.raises(gulbara.GameStateError, match="not at a decision"):
        net.stage_values(gulbara.Game(auto_roll=False))
    game = gulbara.Game(seed=1, auto_roll=False)
    game.roll(6, 5)
    with pytest.raises(gulbara.GameStateError, match="deeper"):
        net.deeper_outputs(game)


def _damaged_files(tmp_path):
    """Weights files that are not gb1 networks, each by one flaw."""
    from gulbara.net.model import DEFAULT_NET_PATH, LAYOUT, default_net
    data = open(DEFAULT_NET_PATH, "rb").read()
    arrays = default_net().arrays
    files = {}

    def write(name, content):
        files[name] = tmp_path / f"{name}.npz"
        files[name].write_bytes(content)

    def savez(name, **members):
        files[name] = tmp_path / f"{name}.npz"
        np.savez(files[name], **members)

    write("truncated", data[:len(data) // 2])
    write("empty", b"")
    plain = dict(format_version=np.int32(1), layout=np.str_(LAYOUT), **arrays)
    savez("object_member", **dict(plain, w1=np.array([None], dtype=object)))
    savez("string_weights", **dict(plain, w1=np.full(arrays["w1"].shape, "a")))
    savez("version_array", **dict(plain, format_version=np.array([1, 1])))
    savez("version_text", **dict(plain, format_version=np.str_("one")))
    savez("version_fraction", **dict(plain, format_version=np.float64(1.7)))
    savez("complex_weights", **dict(plain, w1=arrays["w1"] * (1 + 1j)))
    files["plain_npy"] = tmp_path / "plain_npy.npz"
    with open(files["plain_npy"], "wb") as handle:
        np.save(handle, arrays["w1"])
    return files


def test_regression_load_refuses_damaged_files_with_invalid_network_error(tmp_path):
    """Damaged or odd .npz files raised BadZipFile, EOFError, TypeError, ... or loaded."""
    for name, path in _damaged_files(tmp_path).items():
        with pytest.raises(InvalidNetworkError):
            ValueNet.load(str(path))
            pytest.fail(f"{name} was loaded")


def test_regression_hidden_units_are_checked_when_a_network_is_made():
    """ValueNet accepted 0 or more than 256 hidden units and failed only at its first use."""
    with pytest.raises(InvalidNetworkError, match="hidden"):
        ValueNet(np.zeros((N_INPUTS, 300)), np.zeros(300), np.zeros((300, 3)), np.zeros(3))
    with pytest.raises(InvalidNetworkError, match="hidden"):
        ValueNet(np.zeros((N_INPUTS, 0)), np.zeros(0), np.zeros((0, 3)), np.zeros(3))
    for hidden in (0, 300, 2**40):
        with pytest.raises(InvalidNetworkError, match="hidden"):
            ValueNet.from_params(np.zeros(3), hidden)
    with pytest.raises(InvalidNetworkError, match="seed"):
        ValueNet.random(8, seed=-1)
    for scale in (float("nan"), float("inf"), -1.0):
        with pytest.raises(InvalidNetworkError, match="scale"):
            ValueNet.random(8, scale=scale)
    with pytest.raises(InvalidNetworkError, match="real numbers"):
        ValueNet(np.zeros((N_INPUTS, 4)) * 1j, np.zeros(4), np.zeros((4, 3)), np.zeros(3))


def test_regression_outcome_values_bound_the_rolls():
    """outcome_values with a roll count past a C int raised OverflowError."""
    chain = gulbara.chain_ends(gulbara.START_CODE, 0, 5)
    with pytest.raises(gulbara.GulBaraError, match="rolls"):
        ValueNet.random(8, 1).outcome_values(chain, rolls=(2**40, 2))


def test_regression_save_leaves_no_temporary_file(tmp_path):
    """A save that failed at its last step left PATH.tmp behind."""
    target = tmp_path / "a_directory.npz"
    target.mkdir()
    with pytest.raises(OSError):
        ValueNet.random(4).save(str(target))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_directory.npz"]


def test_regression_without_the_mars_the_equity_is_worth_at_most_one_point(net):
    """Under rules without the mars (RULES §8) the network's P(mars) outputs counted in every
    equity, so the bots valued plays up to 2 points where a game is worth 1."""
    from gulbara.bots.netbot import Net2Bot, NetBot
    rules = gulbara.Rules(mars=False)
    rng = random.Random(8)
    differ = compared = 0
    for gi in range(6):
        game = gulbara.Game(rules, seed=60 + gi)
        while not game.is_over():
            values = net.stage_values(game)
            assert np.abs(values).max() <= 1.0
            assert np.abs(values - net.stage_values_python(game)).max() < 1e-5
            with_mars = net.stage_values(gulbara.Game.from_state_code(game.state_code()))
            differ += int(np.abs(values - with_mars).max() > 1e-3)
            compared += len(values)
            plays = game.legal_plays()
            game.play(plays[rng.randrange(len(plays))])
    assert compared > 500 and differ > 10
    game = gulbara.Game(rules, seed=3)
    for bot in (NetBot(net), Net2Bot(net)):
        assert all(abs(v) <= 1.0 for _, v in bot.rank(game))
    chain = gulbara.chain_ends(gulbara.START_CODE, 0, 5, rules)
    assert np.abs(net.outcome_values(chain, rolls=(4, 3))).max() <= 1.0
