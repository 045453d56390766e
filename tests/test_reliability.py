"""Regression tests of the twelve faults of the adversarial pass (one test named after each),
and Ctrl-C in every long native call."""

import copy
import multiprocessing
import os
import pickle
import signal
import threading
import time
import tracemalloc

import numpy as np
import pytest

import gulbara
from gulbara import Game, Match
from gulbara.batch import arrays_from_requests, stage_ends_batch
from gulbara.errors import GulBaraError
from gulbara.perft import perft
from gulbara.selfplay import CHUNK_GAMES, play_games

START = gulbara.START_CODE
# White on its 24, 22, ..., 2 and 23, 21, 19: 2,208 ends for 1-1-1-1.
HUGE_STAGE = "G:,1,,1,,1,,1,,1,,1,,1,,1,,1,1,1,1,1,1,1|0,0|0,15"
# 202 ends for 1-1-1-1, about 9 microseconds a row: a batch of them runs long on little memory.
SLOW_ROW = "G:2,2,2,2,2,2,1,1,1,,,,,,,,,,,,,,,|0,0|0,15"


# ---------------------------------------------------------------------------
# 1. Self-play from several threads at once
# ---------------------------------------------------------------------------


def test_fault01_threads_with_worker_pools_play_their_own_games():
    runs = [("random", 1), ("greedy", 2), ("first", 3)]
    n = 2 * CHUNK_GAMES + 1                         # three chunks: two worker processes
    results = [None] * len(runs)

    def run(k):
        policy, seed = runs[k]
        results[k] = play_games(n, policy, seed=seed, workers=2)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(len(runs))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for (policy, seed), result in zip(runs, results):
        alone = play_games(n, policy, seed=seed, workers=1)
        assert result.policy == (policy, policy)
        assert np.array_equal(result.rows, alone.rows), policy


# ---------------------------------------------------------------------------
# 3. The batch's output sized per call
# ---------------------------------------------------------------------------


def test_fault03_batch_output_is_sized_by_its_own_call():
    big = stage_ends_batch(*arrays_from_requests([(HUGE_STAGE, 0, (1, 1, 1, 1))] * 64))
    assert big.n_ends == 64 * 2208
    small = arrays_from_requests([(START, 0, (6, 5))] * 200_000)
    tracemalloc.start()
    try:
        out = stage_ends_batch(*small)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert out.n_ends == 400_000
    held = sum(a.nbytes for a in (out.end_boards, out.end_borne_off, out.end_steps,
                                  out.end_n_steps, out.end_game, out.counts, out.offsets))
    assert peak < 4 * held, (peak, held)
    # and a big batch after it still gets every end
    again = stage_ends_batch(*arrays_from_requests([(HUGE_STAGE, 0, (1, 1, 1, 1))] * 3))
    assert again.n_ends == 3 * 2208


def test_fault03_batch_grows_past_a_small_start():
    requests = [(START, 0, (6, 5))] * 100 + [(HUGE_STAGE, 0, (1, 1, 1, 1))] * 40
    out = stage_ends_batch(*arrays_from_requests(requests))
    assert out.n_ends == 200 + 40 * 2208
    assert out.counts.tolist() == [2] * 100 + [2208] * 40


# ---------------------------------------------------------------------------
# 4. Ctrl-C stops every long call promptly
# ---------------------------------------------------------------------------

def _perft_long():
    perft(Game.new_perft_root(), 5)


def _batch_long():
    stage_ends_batch(*arrays_from_requests([(SLOW_ROW, 0, (1, 1, 1, 1))] * 200_000),
                     steps=False)


def _selfplay_long(workers):
    return lambda: play_games(1_000_000, "greedy", seed=1, workers=workers)


#: Calls that run for many seconds, each to be stopped by SIGINT.
LONG_CALLS = {
    "perft": _perft_long,
    "batch": _batch_long,
    "selfplay-1-worker": _selfplay_long(1),
    "selfplay-2-workers": _selfplay_long(2),
}


def interrupt(call, delay=0.3):
    """Send SIGINT to this process ``delay`` seconds into ``call``; the seconds from the
    signal to the KeyboardInterrupt."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    sent = []

    def fire():
        sent.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(delay, fire)
    try:
        timer.start()
        try:
            call()
        except KeyboardInterrupt:
            return time.perf_counter() - sent[0]
        timer.cancel()
        pytest.fail("the call finished before the signal")
    finally:
        timer.join()
        signal.signal(signal.SIGINT, previous)


@pytest.mark.parametrize("name", sorted(LONG_CALLS))
def test_fault04_ctrl_c_stops_long_calls(name):
    seconds = interrupt(LONG_CALLS[name])
    assert seconds < 1.0, f"{name}: KeyboardInterrupt {seconds:.2f} s after the signal"
    # the process goes on as before
    assert multiprocessing.active_children() == []
    assert perft(Game.new_perft_root(), 2) == 1576
    assert stage_ends_batch(*arrays_from_requests([(START, 0, (6, 5))])).n_ends == 2
    assert play_games(10, "first", seed=1, workers=1).games == 10
