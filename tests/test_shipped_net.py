"""The network shipped in the package: its hash, its provenance, and the command reproducing it.

The shipped file is the best checkpoint of ``gulbara train --games G --seed 1
--out gb1.npz --eval-pairs 1000`` (the README gives G and the run). Its metadata records the
SHA-256 of the run's weights after 100, 1,000 and 10,000 games and at every
checkpoint; retraining the first 1,000 games here must give those bytes (the
weights depend only on the arguments), and the slow test retrains the first
checkpoint (100,000 games).
"""

import hashlib

import pytest

from gulbara.net import DEFAULT_NET_PATH, ValueNet, default_net
from gulbara.train import TRAIN_DEFAULTS, train, training_arguments

#: SHA-256 of gulbara/data/gb1.npz (the file) and of its float32 weights.
FILE_SHA256 = "b465dff04f87f0fb7fa739c35583047d4ca2d9b379c24032c381f385d946ab8b"
WEIGHTS_SHA256 = "81ea27148d5e0ff976627cd4a412360665bf5a6ff781984e9bca722696c30ebb"


def test_the_file_is_pinned():
    with open(DEFAULT_NET_PATH, "rb") as f:
        assert hashlib.sha256(f.read()).hexdigest() == FILE_SHA256
    assert default_net().sha256() == WEIGHTS_SHA256


def test_loaded_once():
    assert default_net() is default_net()


def test_it_records_its_training_run():
    meta = default_net().meta
    recorded = training_arguments(meta)
    for key, value in TRAIN_DEFAULTS.items():
        assert recorded[key] == value, key
    assert recorded["seed"] == 1 and meta["layout_name"] == "gb1"
    # its checkpoints were picked on 1,000 pairs, the README's --eval-pairs 1000
    assert int(meta["eval_pairs"]) == 1000 and int(meta["checkpoint"]) == 100_000
    history = list(meta["history_sha256"])
    assert default_net().sha256() in history       # the best checkpoint is one of them
    assert len(history) == len(meta["history_games"]) >= 1


def test_the_command_reproduces_its_first_1000_games():
    result = train(1000, seed=1, checkpoint=1000, eval_pairs=1, progress=None)
    meta = default_net().meta
    assert result.net.sha256() == meta["sha256_at_1000"]
    short = train(100, seed=1, checkpoint=100, eval_pairs=1, progress=None)
    assert short.net.sha256() == meta["sha256_at_100"]


@pytest.mark.slow
def test_the_command_reproduces_the_first_checkpoint():
    meta = default_net().meta
    first = int(meta["history_games"][0])
    result = train(first, seed=1, checkpoint=first, eval_pairs=1, progress=None)
    assert result.net.sha256() == str(meta["history_sha256"][0])
