"""The networks shipped in the package: their hashes, their provenance, and the commands
reproducing them.

Each shipped file is the best checkpoint of ``gulbara train --games G --seed 1
--out FILE --eval-pairs 1000`` (``--rules plain-doubles`` for the network of the rules without
escalation; the README gives G and the runs). Its metadata records the SHA-256 of the run's
weights after 100, 1,000 and 10,000 games and at every checkpoint; retraining the first
1,000 games here must give those bytes (the weights depend only on the arguments), and the
slow test retrains the first checkpoint (100,000 games). The net bots' network
(:func:`gulbara.net.bot_net`) is the average of four of them, the other three runs of
``gulbara train --games 1000000 --seed S --lam 0.9 --out FILE`` (S = 1, 2, 3), pinned and
reproduced the same way.
"""

import hashlib

import pytest

from gulbara.net import (BOT_MEMBER_PATHS, DEFAULT_NET_PATH, PLAIN_DOUBLES_NET_PATH, ValueNet,
                         bot_net, default_net)
from gulbara.rules import DEFAULT_RULES, Rules
from gulbara.train import TRAIN_DEFAULTS, rules_text, train, training_arguments

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


#: The members of the net bots' network after gb1: file, seed, the SHA-256 of the file and
#: of its float32 weights.
MEMBERS = [
    pytest.param(BOT_MEMBER_PATHS[0], 1,
                 "2d77921393533f1e1085efd312ded9aac06173c40f22f7c9c355570db7660951",
                 "033d1cacdb5ab70c33272f0dd1294b4d219ee20cf6eefda901a3737f33f51939", id="lam09-s1"),
    pytest.param(BOT_MEMBER_PATHS[1], 2,
                 "6825e346b46caa94510d552872e7347f59d517f9abefb20d3e2781edc5baeb4e",
                 "dc8b0fdb4281244ee2440432e6c67e752b953f07d0cf3d8a72dc51ef8da45258", id="lam09-s2"),
    pytest.param(BOT_MEMBER_PATHS[2], 3,
                 "31434f364ebdb7d6376ce1195bada5b7d8a002b33fd220865c01cff3e4dc34dc",
                 "5d536027d52e667809ee742b131006a5a522dc498c9512c3e1b20353df250c53", id="lam09-s3"),
]
#: The SHA-256 of the net bots' network's weights (the average, 256 hidden units).
BOT_NET_SHA256 = "464acb47f8a717c8ee6261a9213dd489533f98f39c904685d40f8cddf73d6de0"


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
    # its checkpoints were picked on 1,000 pairs, the README's --eval-pairs 1000
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


# -- the net bots' network: the average of gb1 and three --lam 0.9 runs ------------------

@pytest.mark.parametrize("path, seed, file_sha256, weights_sha256", MEMBERS)
def test_each_member_is_pinned(path, seed, file_sha256, weights_sha256):
    with open(path, "rb") as f:
        assert hashlib.sha256(f.read()).hexdigest() == file_sha256
    assert ValueNet.load(path).sha256() == weights_sha256


def test_the_bots_network_is_the_average_of_its_members_in_order():
    assert BOT_MEMBER_PATHS[-1] == DEFAULT_NET_PATH and len(BOT_MEMBER_PATHS) == 4
    members = [ValueNet.load(path) for path in BOT_MEMBER_PATHS]
    net = bot_net()
    assert net.sha256() == BOT_NET_SHA256 and net.hidden == 4 * 64
    assert net.sha256() == ValueNet.average(members).sha256()
    assert net.meta["averaged_sha256"] == ",".join(m.sha256() for m in members)
    assert bot_net() is net is bot_net(DEFAULT_RULES)


@pytest.mark.parametrize("path, seed, file_sha256, weights_sha256", MEMBERS)
def test_each_member_records_its_training_run(path, seed, file_sha256, weights_sha256):
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


@pytest.mark.parametrize("path, seed, file_sha256, weights_sha256", MEMBERS)
def test_each_members_command_reproduces_its_first_1000_games(path, seed, file_sha256,
                                                            weights_sha256):
    meta = ValueNet.load(path).meta
    result = train(1000, seed=seed, checkpoint=1000, eval_pairs=1, progress=None, lam=0.9)
    assert result.net.sha256() == meta["sha256_at_1000"]


@pytest.mark.slow
@pytest.mark.parametrize("path, seed, file_sha256, weights_sha256", MEMBERS)
def test_each_members_command_reproduces_its_first_checkpoint(path, seed, file_sha256,
                                                              weights_sha256):
    meta = ValueNet.load(path).meta
    result = train(100_000, seed=seed, checkpoint=100_000, eval_pairs=1, progress=None, lam=0.9)
    assert result.net.sha256() == str(meta["history_sha256"][0])
