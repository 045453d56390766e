"""The code paths chosen at import (gulbara.cpu): the LZCNT builds, the network's arithmetic
levels, GULBARA_DISABLE_CPU_FEATURES, and the same results on every path."""

import json
import os
import shutil
import subprocess
import sys

import pytest

import gulbara
from gulbara import cpu
from gulbara.core import _movegen
from gulbara.errors import GulBaraError
from gulbara.net import _net
from conftest import same_package_environment

# What a child process computes on the paths its environment leaves on: perft, whole chains,
# a batch of stages, the shipped network's values and native self-play with the net bot. It
# prints its cpu_paths() and a digest of each result.
CHILD = r"""
import hashlib, json
import numpy as np
import gulbara
from gulbara.core.batch import arrays_from_requests
from gulbara.net.model import default_net
from gulbara.selfplay import play_games
from gulbara.tools.suites import MID_GAME_11

def digest(data):
    return hashlib.sha256(data if isinstance(data, bytes) else repr(data).encode()).hexdigest()

out = {"paths": gulbara.cpu_paths()}
out["perft"] = digest([gulbara.perft(gulbara.Game.new_perft_root(), 4), gulbara.perft(gulbara.Game(seed=7), 3)])
out["chains"] = digest([sorted(o.code for o in gulbara.chain_ends(e.code, e.seat, 3))
                        for e in MID_GAME_11[:4]])
batch = gulbara.stage_ends_batch(*arrays_from_requests(
    [(e.code, e.seat, (5, 2)) for e in MID_GAME_11] + [(gulbara.START_CODE, 0, (6, 6, 6, 6))]))
out["batch"] = digest(batch.counts.tobytes() + batch.end_boards.tobytes())
game = gulbara.Game(seed=4)
values = []
while not game.is_over() and len(values) < 40:
    values.append(default_net().stage_values(game).tobytes())
    game.play(game.legal_plays()[0])
out["net"] = digest(b"".join(values))
games = play_games(6, "net", seed=11)
out["selfplay"] = digest(games.rows.tobytes() + games.chain_histogram.tobytes())
print(json.dumps(out))
"""


def run_child(disabled, cwd):
    env = same_package_environment()
    env.pop(cpu.DISABLE_VARIABLE, None)
    if disabled is not None:
        env[cpu.DISABLE_VARIABLE] = disabled
    done = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True,
                          text=True, timeout=300, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def every_path_on(tmp_path_factory):
    return run_child(None, tmp_path_factory.mktemp("paths"))


@pytest.mark.parametrize("disabled", ["lzcnt", "avx512f", "avx2", "sse2", "lzcnt,sse2"])
def test_each_cpu_feature_off_gives_the_same_results(every_path_on, disabled, tmp_path):
    got = run_child(disabled, tmp_path)
    off = set(disabled.split(","))
    assert got["paths"]["disabled"] == sorted(off)
    if "lzcnt" in off:
        assert got["paths"]["lzcnt"] is False
    else:
        assert got["paths"]["lzcnt"] == every_path_on["paths"]["lzcnt"]
    cap = cpu.network_level_cap(frozenset(off))
    level = cpu.NETWORK_LEVELS.index(got["paths"]["network"])
    assert level == min(cap, cpu.NETWORK_LEVELS.index(every_path_on["paths"]["network"]))
    for key in ("perft", "chains", "batch", "net", "selfplay"):
        assert got[key] == every_path_on[key], key


def test_cpu_paths_report_the_builds_in_use():
    paths = gulbara.cpu_paths()
    assert paths["lzcnt"] is _movegen.BUILT_WITH_LZCNT
    assert paths["network"] == cpu.NETWORK_LEVELS[_net.simd_level_in_use()]
    assert paths["disabled"] == tuple(sorted(cpu.DISABLED))
    loaded = cpu.lzcnt_loaded()
    for name in cpu.LZCNT_MODULES:
        module = sys.modules[name]
        assert (cpu.LZCNT_TAG + "." in os.path.basename(module.__file__)) == (name in loaded)
        if cpu.lzcnt_wanted() and os.path.isfile(cpu.lzcnt_file(_portable_file(module))):
            assert name in loaded


def _portable_file(module):
    return module.__file__.replace(cpu.LZCNT_TAG + ".", ".", 1)


def test_reading_the_network_level_leaves_it():
    best = _net.SIMD_LEVEL
    try:
        assert _net.simd_level(0) == 0
        assert gulbara.cpu_paths()["network"] == "c"
        assert _net.simd_level_in_use() == 0
    finally:
        assert _net.simd_level(-1) == best
    assert gulbara.cpu_paths()["network"] == cpu.NETWORK_LEVELS[best]


def test_the_disabled_features_are_parsed_and_checked():
    assert cpu.disabled_features("") == frozenset()
    assert cpu.disabled_features(" LZCNT,avx2  sse2") == {"lzcnt", "avx2", "sse2"}
    with pytest.raises(GulBaraError, match="GULBARA_DISABLE_CPU_FEATURES: unknown CPU "
                                           "feature 'avx3'; the features are lzcnt, avx512f"):
        cpu.disabled_features("lzcnt avx3")
    assert [cpu.network_level_cap(frozenset(names)) for names in
            ((), ("avx512f",), ("avx2",), ("sse2",), ("sse2", "avx512f"), ("lzcnt",))] \
        == [3, 2, 1, 0, 0, 3]


def test_an_unknown_cpu_feature_stops_the_import_with_its_name(tmp_path):
    env = dict(same_package_environment(), **{cpu.DISABLE_VARIABLE: "lzcnt,avx3"})
    done = subprocess.run([sys.executable, "-c", "import gulbara"], env=env,
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode != 0
    assert "GulBaraError: GULBARA_DISABLE_CPU_FEATURES: unknown CPU feature 'avx3'" \
        in done.stderr


def test_the_finder_gives_the_lzcnt_build_only_where_its_file_is(tmp_path):
    module = sys.modules["gulbara.game._perft"]
    portable = _portable_file(module)
    shutil.copy(portable, tmp_path / os.path.basename(portable))
    finder = cpu._LzcntFinder()
    before = cpu.lzcnt_loaded()
    assert finder.find_spec("gulbara.game._perft", [str(tmp_path)]) is None
    assert finder.find_spec("gulbara.game.perft", None) is None          # not an LZCNT module
    variant = cpu.lzcnt_file(str(tmp_path / os.path.basename(portable)))
    open(variant, "wb").close()
    spec = finder.find_spec("gulbara.game._perft", [str(tmp_path)])
    assert spec.origin == variant and os.path.basename(variant).startswith("_perft.lzcnt.")
    assert spec.name == "gulbara.game._perft"
    cpu._loaded[:] = before

