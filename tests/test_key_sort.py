"""The sort of the chains' keys by hash against slow Python twins (through test hooks)."""

import numpy as np
import pytest

from gulbara.chains import _key_sort
from hashing import key_hash


def _keys(n, seed, part_bits=0):
    rng = np.random.default_rng(seed)
    keys = []
    while len(keys) < n:
        a = int(rng.integers(0, 1 << 63)) * 2 + int(rng.integers(0, 2))
        b = int(rng.integers(0, 1 << 32))
        if part_bits and key_hash(a, b) >> (64 - part_bits) != 5:
            continue                      # every key of one part, as sort_part is given
        keys.append((a, b))
    return keys


@pytest.mark.parametrize("n, part_bits", [(0, 0), (1, 0), (2, 0), (31, 0), (33, 0), (1000, 0),
                                          (5000, 6), (70_000, 0)])
def test_sort_part_orders_by_hash_then_key(n, part_bits):
    keys = _keys(n, n + part_bits, part_bits)
    if n > 3:
        keys[3] = keys[1]                 # an equal pair: equal hashes, kept side by side
    got, hashes = _key_sort._py_sort_part(np.array(keys, dtype=np.uint64).reshape(-1, 2),
                                          part_bits)
    want = sorted(keys, key=lambda k: (key_hash(*k), k[1], k[0]))
    assert [tuple(int(v) for v in row) for row in got] == want
    assert [int(h) for h in hashes] == [key_hash(*k) for k in want]


def test_sort_part_of_a_million_keys():
    # 2**20 keys: the counting sort on the top bits, then one within every bucket
    rng = np.random.default_rng(3)
    keys = np.stack([rng.integers(0, 1 << 63, 1 << 20, dtype=np.uint64) * np.uint64(2),
                     rng.integers(0, 1 << 32, 1 << 20, dtype=np.uint64)], axis=1)
    got, hashes = _key_sort._py_sort_part(keys)
    assert np.array_equal(hashes, key_hash(got[:, 0], got[:, 1]))
    _assert_sorted_by_hash(keys, got)


def _assert_sorted_by_hash(keys, got):
    """``got`` holds the rows of ``keys``, ordered by hash, then k1, then k0."""
    hashes = key_hash(got[:, 0], got[:, 1])
    order = np.lexsort((got[:, 0], got[:, 1], hashes))
    assert np.array_equal(order, np.arange(len(got)))
    assert np.array_equal(np.sort(keys.view("V16").ravel()), np.sort(got.view("V16").ravel()))


@pytest.mark.parametrize("n, threads", [(0, 1), (1, 2), (5000, 1), (5000, 3), (1_200_000, 1),
                                        (1_200_000, 2)])
def test_sort_dense_orders_by_hash_then_key_on_any_threads(n, threads):
    # Below 2**20 keys on one thread: sort_part alone; else part by part (the top
    # hash bits), each part by sort_part, the parts shared between the threads.
    rng = np.random.default_rng(n + threads)
    keys = np.stack([rng.integers(0, 1 << 63, n, dtype=np.uint64) * np.uint64(2),
                     rng.integers(0, 1 << 32, n, dtype=np.uint64)], axis=1)
    if n > 3:
        keys[3] = keys[1]                 # an equal pair stays
    _assert_sorted_by_hash(keys, _key_sort._py_sort_dense(keys, threads))
