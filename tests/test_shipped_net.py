"""The networks shipped in the package: their hashes, their provenance, and the commands
reproducing them.

Each shipped file is the best checkpoint of ``gulbara train --games G --seed 1
--out FILE --eval-pairs 1000`` (``--rules plain-doubles`` for the network of the rules without
escalation; docs/user/network.md gives G and the runs). Its metadata records the SHA-256 of the run's
weights after 100, 1,000 and 10,000 games and at every checkpoint; retraining the first
1,000 games here must give those bytes (the weights depend only on the arguments), and the
slow test retrains the first checkpoint (100,000 games). The net bots' network
(:func:`gulbara.net.model.bot_net`) is the average of four networks, each trained in three runs
from ``gb1.npz`` or from one of three runs of ``gulbara train --games 1000000 --seed S --lam
0.9 --out FILE`` (S = 1, 2, 3): 2,000,000 more games (``--init``), then 600,000 at a small
step. Every file of those runs is pinned, and the first 1,000 games of each run are
retrained from the file it started from.

These are provenance checks, not rules: they carry the ``provenance`` marker, which the default
run deselects and CI runs in a step of its own (``pytest -m provenance``). After training a new
shipped network, print the values to pin with ``python tests/test_shipped_net.py``.
"""

import hashlib
import os

import pytest

from gulbara.net.model import (BOT_MEMBER_PATHS, DEFAULT_NET_PATH, PLAIN_DOUBLES_NET_PATH, ValueNet,
                         bot_net, default_net)
from gulbara.rules import DEFAULT_RULES, Rules
from gulbara.net.train import TRAIN_DEFAULTS, rules_text, train, training_arguments

pytestmark = pytest.mark.provenance


#: The files the training runs started from, which the package does not ship.
RUNS_FOLDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "networks")


def data_path(name):
    """A shipped network (the package's data folder) or a run's start (tests/data/networks)."""
    shipped = os.path.join(os.path.dirname(DEFAULT_NET_PATH), name)
    return shipped if os.path.exists(shipped) else os.path.join(RUNS_FOLDER, name)


def assert_pinned(path, file_sha256, weights_sha256):
    """The file at ``path`` hashes to ``file_sha256``, its float32 weights to ``weights_sha256``."""
    with open(path, "rb") as f:
        assert hashlib.sha256(f.read()).hexdigest() == file_sha256
    assert ValueNet.load(path).sha256() == weights_sha256


#: Each shipped network: its file, the rules it was trained under, the SHA-256 of the
#: file and of its float32 weights.
SHIPPED = [
    pytest.param(DEFAULT_NET_PATH, DEFAULT_RULES,
                 "b465dff04f87f0fb7fa739c35583047d4ca2d9b379c24032c381f385d946ab8b",
                 "81ea27148d5e0ff976627cd4a412360665bf5a6ff781984e9bca722696c30ebb",
                 id="gb1"),
    pytest.param(PLAIN_DOUBLES_NET_PATH, Rules.preset("plain-doubles"),
                 "4e13f09006df2048c479008ab4ead3eae1b03174ca243a2cd27fd89b78f0f2bf",
                 "7323d91ecee21da0de6e23896599b1c3e263a556ecf12e7a3c9bbb272d693703",
                 id="gb1-plain-doubles"),
]


#: The first runs of the net bots' networks after gb1: file, seed, the SHA-256 of the file
#: and of its float32 weights.
FIRST_RUNS = [
    pytest.param(data_path("gb1-lam09-s1.npz"), 1,
                 "2d77921393533f1e1085efd312ded9aac06173c40f22f7c9c355570db7660951",
                 "033d1cacdb5ab70c33272f0dd1294b4d219ee20cf6eefda901a3737f33f51939", id="lam09-s1"),
    pytest.param(data_path("gb1-lam09-s2.npz"), 2,
                 "6825e346b46caa94510d552872e7347f59d517f9abefb20d3e2781edc5baeb4e",
                 "dc8b0fdb4281244ee2440432e6c67e752b953f07d0cf3d8a72dc51ef8da45258", id="lam09-s2"),
    pytest.param(data_path("gb1-lam09-s3.npz"), 3,
                 "31434f364ebdb7d6376ce1195bada5b7d8a002b33fd220865c01cff3e4dc34dc",
                 "5d536027d52e667809ee742b131006a5a522dc498c9512c3e1b20353df250c53", id="lam09-s3"),
]

#: The runs from a network (``--init``): the file, the file it started from, the run's seed,
#: step size arguments, checkpoint interval, and the SHA-256 of the file and of its weights.
LONG = dict(lam=0.9, alpha=0.0005, halflife=500_000, alpha_min=0.0001)
FINE = dict(lam=0.9, alpha=0.0001, halflife=150_000, alpha_min=0.00001)
LATER_RUNS = [
    pytest.param("gb1-lam09-s1-long.npz", "gb1-lam09-s1.npz", 11, LONG, 200_000,
                 "dfe8a5ed3cc545307a61004d91ef4c9b1dac3b0a410cc4bee9dd9131185ac8ad",
                 "6498fd8ad8e30f310d081ed21e4fd49a8719184219f37f69ab29c94ff24ffdc4",
                 id="s1-long"),
    pytest.param("gb1-lam09-s2-long.npz", "gb1-lam09-s2.npz", 12, LONG, 200_000,
                 "d6732c43b61f801877afe452def609753278c155f49e61171fb0364b6419153f",
                 "5d7a7335cdef9e657aa235dee584534ef03bd0b5ab30211c5e0d4270b349e276",
                 id="s2-long"),
    pytest.param("gb1-lam09-s3-long.npz", "gb1-lam09-s3.npz", 13, LONG, 200_000,
                 "80ac97acfc28cf0b770fdde7ce9282eafd61cd787860353ab41e83d07a16b0c6",
                 "18ddd4b785ac55e1846ea41055741da5e44391ce411b578a6ace32348a51d62e",
                 id="s3-long"),
    pytest.param("gb1-long.npz", "gb1.npz", 14, LONG, 200_000,
                 "3fe67d03afe4080222e187ffb676644e3c1b2c25258d95db98228a89dc679b6a",
                 "bcd6bc2ee725a048b16e06fae2d91fa11b6d15f2a32892142ca300d492abf18d",
                 id="gb1-long"),
    pytest.param("gb1-lam09-s1-long-fine.npz", "gb1-lam09-s1-long.npz", 21, FINE, 100_000,
                 "8f372308eae81381974ae828aeb3717b3a2d846764b9bcf719c1c5e8857cef99",
                 "c2bf578e6c84fa306773d8b3707cf2b4441016a5b0f781e8b917753d0973be8b",
                 id="s1-fine"),
    pytest.param("gb1-lam09-s2-long-fine.npz", "gb1-lam09-s2-long.npz", 22, FINE, 100_000,
                 "80d1f43b53bb31bfcbc4e6c144186e785a914e2fa66d1ee4637e3b776f0ccd78",
                 "e5e8e2dad457f753f26035e77ece81916199af93abe63d3283466b1f92102ae4",
                 id="s2-fine"),
    pytest.param("gb1-lam09-s3-long-fine.npz", "gb1-lam09-s3-long.npz", 23, FINE, 100_000,
                 "f93cd09fa941ae74c8d3cce355a1f5df707b1bbafbe36ec89f380350c36fc3d8",
                 "3bf595f492d8080c2f981c4dd48bdd59f1bf8183d92e8d22e441c1f594b3ab94",
                 id="s3-fine"),
    pytest.param("gb1-long-fine.npz", "gb1-long.npz", 24, FINE, 100_000,
                 "7c66309b98ecb8c5a37867426b5a28cb6bb3a099044df4dc02ca7f872f074276",
                 "566e58f7b80934f6e4dc455f200ac87c36dc37475925575adbba128507587693",
                 id="gb1-fine"),
]
#: The SHA-256 of the net bots' network's weights (the average, 256 hidden units).
BOT_NET_SHA256 = "836e378d9c3496bdcd74f775e05478abb66943a2a24b922fc79993cac2e71cd1"


@pytest.mark.parametrize("path, rules, file_sha256, weights_sha256", SHIPPED)
def test_the_file_is_pinned(path, rules, file_sha256, weights_sha256):
    with open(path, "rb") as f:
        assert hashlib.sha256(f.read()).hexdigest() == file_sha256
    assert default_net(rules).sha256() == weights_sha256


def test_loaded_once():
    assert default_net() is default_net()


@pytest.mark.parametrize("path, rules, file_sha256, weights_sha256", SHIPPED)
def test_it_records_its_training_run(path, rules, file_sha256, weights_sha256):
    meta = default_net(rules).meta
    recorded = training_arguments(meta)
    for key, value in TRAIN_DEFAULTS.items():
        assert recorded[key] == value, key
    assert recorded["rules"] == rules_text(rules)
    assert recorded["seed"] == 1 and meta["layout_name"] == "gb1"
    # its checkpoints were picked on 1,000 pairs, docs/user/network.md's --eval-pairs 1000
    assert int(meta["eval_pairs"]) == 1000 and int(meta["checkpoint"]) == 100_000
    history = list(meta["history_sha256"])
    assert default_net(rules).sha256() in history       # the best checkpoint is one of them
    assert len(history) == len(meta["history_games"]) >= 1


@pytest.mark.parametrize("path, rules, file_sha256, weights_sha256", SHIPPED)
def test_the_command_reproduces_its_first_1000_games(path, rules, file_sha256, weights_sha256):
    result = train(1000, seed=1, checkpoint=1000, eval_pairs=1, progress=None, rules=rules)
    meta = default_net(rules).meta
    assert result.net.sha256() == meta["sha256_at_1000"]
    short = train(100, seed=1, checkpoint=100, eval_pairs=1, progress=None, rules=rules)
    assert short.net.sha256() == meta["sha256_at_100"]


@pytest.mark.slow
@pytest.mark.parametrize("path, rules, file_sha256, weights_sha256", SHIPPED)
def test_the_command_reproduces_the_first_checkpoint(path, rules, file_sha256, weights_sha256):
    meta = default_net(rules).meta
    first = int(meta["history_games"][0])
    result = train(first, seed=1, checkpoint=first, eval_pairs=1, progress=None, rules=rules)
    assert result.net.sha256() == str(meta["history_sha256"][0])


# -- the net bots' network: four networks, each from three runs --------------------------

@pytest.mark.parametrize("path, seed, file_sha256, weights_sha256", FIRST_RUNS)
def test_each_first_run_is_pinned(path, seed, file_sha256, weights_sha256):
    assert_pinned(path, file_sha256, weights_sha256)


@pytest.mark.parametrize("path, seed, file_sha256, weights_sha256", FIRST_RUNS)
def test_each_first_run_records_its_training_run(path, seed, file_sha256, weights_sha256):
    meta = ValueNet.load(path).meta
    recorded = training_arguments(meta)
    for key, value in dict(TRAIN_DEFAULTS, lam=0.9).items():
        assert recorded[key] == value, key
    assert recorded["rules"] == rules_text(DEFAULT_RULES)
    assert recorded["seed"] == seed and meta["layout_name"] == "gb1"
    # the default --eval-pairs (5,000) and --checkpoint (100,000); best of 1,000,000 games
    assert int(meta["eval_pairs"]) == 5000 and int(meta["checkpoint"]) == 100_000
    assert [int(g) for g in meta["history_games"]][:3] == [100_000, 200_000, 300_000]
    assert ValueNet.load(path).sha256() in list(meta["history_sha256"])
    assert 100_000 <= int(meta["games"]) <= 1_000_000


@pytest.mark.parametrize("path, seed, file_sha256, weights_sha256", FIRST_RUNS)
def test_each_first_runs_command_reproduces_its_first_1000_games(path, seed, file_sha256,
                                                                 weights_sha256):
    meta = ValueNet.load(path).meta
    result = train(1000, seed=seed, checkpoint=1000, eval_pairs=1, progress=None, lam=0.9)
    assert result.net.sha256() == meta["sha256_at_1000"]


@pytest.mark.slow
@pytest.mark.parametrize("path, seed, file_sha256, weights_sha256", FIRST_RUNS)
def test_each_first_runs_command_reproduces_its_first_checkpoint(path, seed, file_sha256,
                                                                 weights_sha256):
    meta = ValueNet.load(path).meta
    result = train(100_000, seed=seed, checkpoint=100_000, eval_pairs=1, progress=None, lam=0.9)
    assert result.net.sha256() == str(meta["history_sha256"][0])


@pytest.mark.parametrize("name, start, seed, steps, checkpoint, file_sha256, weights_sha256",
                         LATER_RUNS)
def test_each_later_run_is_pinned_and_records_its_start(name, start, seed, steps, checkpoint,
                                                       file_sha256, weights_sha256):
    assert_pinned(data_path(name), file_sha256, weights_sha256)
    net = ValueNet.load(data_path(name))
    recorded = training_arguments(net.meta)
    for key, value in dict(TRAIN_DEFAULTS, **steps).items():
        assert recorded[key] == value, key
    assert recorded["seed"] == seed and recorded["rules"] == rules_text(DEFAULT_RULES)
    assert recorded["init_sha256"] == ValueNet.load(data_path(start)).sha256()
    assert int(net.meta["eval_pairs"]) == 5000 and int(net.meta["checkpoint"]) == checkpoint
    assert net.sha256() in list(net.meta["history_sha256"])


@pytest.mark.parametrize("name, start, seed, steps, checkpoint, file_sha256, weights_sha256",
                         LATER_RUNS)
def test_each_later_runs_command_reproduces_its_first_1000_games(name, start, seed, steps,
                                                                checkpoint, file_sha256,
                                                                weights_sha256):
    meta = ValueNet.load(data_path(name)).meta
    result = train(1000, seed=seed, checkpoint=1000, eval_pairs=1, progress=None,
                   init=ValueNet.load(data_path(start)), **steps)
    assert result.net.sha256() == meta["sha256_at_1000"]


def test_the_bots_network_is_the_average_of_the_fine_runs_in_order():
    assert [os.path.basename(path) for path in BOT_MEMBER_PATHS] == [
        "gb1-lam09-s1-long-fine.npz", "gb1-lam09-s2-long-fine.npz",
        "gb1-lam09-s3-long-fine.npz", "gb1-long-fine.npz"]
    members = [ValueNet.load(path) for path in BOT_MEMBER_PATHS]
    net = bot_net()
    assert net.sha256() == BOT_NET_SHA256 and net.hidden == 4 * 64
    assert net.sha256() == ValueNet.average(members).sha256()
    assert net.meta["averaged_sha256"] == ",".join(m.sha256() for m in members)
    assert bot_net() is net is bot_net(DEFAULT_RULES)


if __name__ == "__main__":         # the values to pin: file and weights hashes of every network
    import glob
    for folder in (os.path.dirname(DEFAULT_NET_PATH), RUNS_FOLDER):
        for path in sorted(glob.glob(os.path.join(folder, "*.npz"))):
            with open(path, "rb") as f:
                digest = hashlib.sha256(f.read()).hexdigest()
            print(os.path.basename(path), digest, ValueNet.load(path).sha256())
    print("bot_net", bot_net().sha256())
