"""Big outcome buffers kept for reuse (gulbara.chains.enumeration.buffer_pool): the same
outcomes with or without it, its limit kept, safe on several Python threads."""

import hashlib
import os
import threading

import numpy as np
import pytest

import gulbara
from gulbara.chains.enumeration import buffer_pool, release_buffers
from gulbara.errors import GulBaraError
from gulbara.tools.suites import REAL_GAME_CHAINS

BIG = REAL_GAME_CHAINS[9]          # 728,121 outcomes: 11.6 MB of outcomes, pooled
BIGGER = REAL_GAME_CHAINS[42]      # 1,180,975 outcomes


@pytest.fixture(autouse=True)
def default_limit():
    limit = buffer_pool()["max_bytes"]
    yield
    buffer_pool(limit)


def digest(chain) -> str:
    h = hashlib.sha256()
    for array in (chain.boards, chain.borne_off, chain.stop, chain.stop_number, chain.played):
        h.update(np.ascontiguousarray(array).tobytes())
    return h.hexdigest()


def enumerate_chain(entry, threads=1):
    chain = gulbara.chain_ends(entry.code, entry.seat, entry.first, threads=threads)
    assert len(chain) == entry.outcomes
    return digest(chain)


def test_a_big_chain_reuses_its_buffers_and_ends_alike():
    buffer_pool(0)                                   # nothing kept: fresh memory each time
    fresh = enumerate_chain(BIG, threads=2)
    assert buffer_pool()["kept"] == 0
    buffer_pool(512 << 20)
    first = enumerate_chain(BIG, threads=2)
    kept = buffer_pool()
    assert kept["kept"] >= 1 and 0 < kept["kept_bytes"] <= kept["max_bytes"]
    reused = kept["reused"]
    again = enumerate_chain(BIG, threads=2)          # written over kept buffers
    assert buffer_pool()["reused"] > reused
    one_thread = enumerate_chain(BIG, threads=1)
    assert fresh == first == again == one_thread


def test_the_limit_bounds_what_is_kept():
    buffer_pool(8 << 20)                             # less than one outcome buffer
    enumerate_chain(BIG, threads=2)
    pool = buffer_pool()
    assert pool["max_bytes"] == 8 << 20 and pool["kept_bytes"] <= 8 << 20
    buffer_pool(24 << 20)
    enumerate_chain(BIG, threads=2)
    enumerate_chain(BIGGER, threads=2)
    assert buffer_pool()["kept_bytes"] <= 24 << 20
    assert buffer_pool()["kept"] <= 16


def test_release_buffers_frees_what_is_kept():
    enumerate_chain(BIG)
    kept = buffer_pool()["kept_bytes"]
    assert kept > 0
    assert release_buffers() == kept
    assert buffer_pool()["kept"] == 0 and buffer_pool()["kept_bytes"] == 0
    assert release_buffers() == 0


def test_results_alive_keep_their_buffers():
    # a ChainEnds holds its outcome buffer until it is freed: two alive at once
    # are two buffers, and both read back their own outcomes
    first = gulbara.chain_ends(BIG.code, BIG.seat, BIG.first, threads=1)
    second = gulbara.chain_ends(BIGGER.code, BIGGER.seat, BIGGER.first, threads=1)
    assert buffer_pool()["live"] >= 2
    assert digest(first) == enumerate_chain(BIG)
    assert digest(second) == enumerate_chain(BIGGER)
    del first, second
    assert buffer_pool()["live"] == 0


def test_python_threads_share_the_pool_safely():
    expected = {entry.outcomes: enumerate_chain(entry) for entry in (BIG, BIGGER)}
    seen, errors = [], []

    def work(entry):
        try:
            for _ in range(3):
                seen.append((entry.outcomes, enumerate_chain(entry, threads=1)))
        except Exception as error:                  # (reported below)
            errors.append(error)

    workers = [threading.Thread(target=work, args=(entry,)) for entry in (BIG, BIGGER, BIG)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert not errors
    assert len(seen) == 9
    assert all(expected[outcomes] == got for outcomes, got in seen)


@pytest.mark.parametrize("bad, error", [("1", TypeError), (1.5, TypeError), (True, TypeError),
                                        (-1, GulBaraError), (1 << 63, GulBaraError)])
def test_bad_limits_are_refused_and_change_nothing(bad, error):
    before = buffer_pool()["max_bytes"]
    with pytest.raises(error, match="max_bytes"):
        buffer_pool(bad)
    assert buffer_pool()["max_bytes"] == before


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork is POSIX")
def test_a_forked_process_enumerates_with_the_kept_buffers():
    expected = enumerate_chain(BIG)                  # buffers kept in the parent
    assert buffer_pool()["kept"] >= 1
    pid = os.fork()
    if pid == 0:                                     # the child: the same outcomes, twice
        ok = False
        try:
            ok = enumerate_chain(BIG, threads=2) == expected == enumerate_chain(BIG)
        finally:
            os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    assert enumerate_chain(BIG) == expected
