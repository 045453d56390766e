"""The networks shipped in the package: their hashes, their provenance, and the commands
reproducing them.

Each shipped file is the best checkpoint of ``gulbara train --games G --seed 1
--out FILE --eval-pairs 1000`` (``--rules plain-doubles`` for the network of the rules without
escalation; the README gives G and the runs). Its metadata records the SHA-256 of the run's
weights after 100, 1,000 and 10,000 games and at every checkpoint; retraining the first
1,000 games here must give those bytes (the weights depend only on the arguments), and the
slow test retrains the first checkpoint (100,000 games).
"""

import hashlib

import pytest

from gulbara.net import DEFAULT_NET_PATH, PLAIN_DOUBLES_NET_PATH, ValueNet, default_net
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
