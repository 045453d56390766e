"""The "model" luck rule's function: fitted to games of the net policy, saved and shipped.

The rule (docs/user/rollouts.md, "The luck rules") values the luck of a roll ``r`` as
``h(r) - mean(h)`` over the 36 rolls, where ``h`` is a small fitted function of features of
the state waiting for the roll: the network's hidden activations of it, how far the roller's
checkers could go with each die past the opponent's points, and, when doubles escalate, the
network's value of each double's chain begun and not played. Nothing is played out, so the
rule costs a few network passes a roll. ``h`` is fitted here to each roll's luck as the "full"
rule values it (every turn played out), on the rolls of games the net policy plays from the
opening. Any ``h`` leaves the estimate unbiased (it is fixed before the roll); a better one
removes more of the variance.

A function is tied to the network whose features it reads (its sha256). The package ships one
for each shipped network, made by::

    gulbara luck gulbara/data/gb1-luck.npz --games 12000 --seed 0 --epochs 40 --workers 2
    gulbara luck gulbara/data/gb1-plain-doubles-luck.npz --rules plain-doubles --games 4000 --seed 0 --epochs 40 --workers 2

(the same samples whatever ``--workers``; the fit itself may differ in the last bits between
machines, as numpy's sums do).

>>> model = fit_luck_model(games=3, seed=1, epochs=1)
>>> model.linear.shape, model.units   # (escalating or not, 1 + 64 + 18 + 6 features, 21 rolls)
((2, 89, 21), 32)
>>> model.network == default_net().sha256()
True
"""

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from typing import Dict, Optional

import numpy as np

from gulbara.errors import GulBaraError, checked_int
from gulbara.eval.bearoff import bearoff_table
from gulbara.files import replaced_atomically
from gulbara.game.driver import Game
from gulbara.net.model import default_net, shipped_net_path
from gulbara.rollouts import _rollout
from gulbara.rules import Rules

__all__ = ["LuckModel", "fit_luck_model", "luck_samples", "luck_model", "ROLLS_21",
           "ROLL_WEIGHTS"]

#: Games a thread plays at a time in :func:`luck_samples` (a fraction of a second).
SAMPLE_BLOCK = 16
#: The 21 distinct rolls a-b (a <= b) in the order of the coefficients' last axis.
ROLLS_21 = tuple((a, b) for a in range(1, 7) for b in range(a, 7))
#: How many of the 36 rolls each of :data:`ROLLS_21` stands for (1 for a double, else 2).
ROLL_WEIGHTS = np.array([1.0 if a == b else 2.0 for a, b in ROLLS_21])


@dataclass(frozen=True)
class LuckModel:
    """The "model" rule's ``h``: for a roll at which doubles escalate (block 1) or not
    (block 0), from the ``F`` features ``f`` (1, the hidden activations, the 18 reach counts,
    the six unplayed chains' values), the 21 values ``f @ linear[b] + softsign(f @
    first[b]) @ second[b]``, a column per roll of :data:`ROLLS_21` (float32 arrays ``2 x F x
    21``, ``2 x F x units`` and ``2 x units x 21``; ``units`` may be 0). ``network`` is the sha256
    of the network whose features they read; ``games``, ``seed`` and ``epochs`` say how they
    were fitted."""
    linear: np.ndarray
    first: np.ndarray
    second: np.ndarray
    network: str
    games: int
    seed: int
    epochs: int

    @property
    def units(self) -> int:
        """The hidden units of the fitted correction (0: a linear ``h``)."""
        return int(self.first.shape[2])

    def values(self, features: np.ndarray, block: int) -> np.ndarray:
        """``h`` of each row of ``features`` (``N x F``), float64: the numpy twin."""
        f = np.asarray(features, dtype=np.float64)
        out = f @ self.linear[block].astype(np.float64)
        if self.units:
            out += softsign(f @ self.first[block].astype(np.float64)) @ \
                self.second[block].astype(np.float64)
        return out

    def packed(self) -> np.ndarray:
        """The arrays as the native rule reads them (float32, ``2 x ...``): per block, each
        feature's row of ``first``, zeros to a multiple of 16, its row of ``linear``, zeros
        to 32 values; then each unit's row of ``second``, zeros to 32 (whole SIMD blocks)."""
        n, units = self.linear.shape[1], self.units
        offset = -(-units // 16) * 16
        layer1 = np.zeros((2, n, offset + 32), dtype=np.float32)
        layer1[:, :, :units] = self.first
        layer1[:, :, offset:offset + len(ROLLS_21)] = self.linear
        layer2 = np.zeros((2, units, 32), dtype=np.float32)
        layer2[:, :, :len(ROLLS_21)] = self.second
        return np.ascontiguousarray(np.concatenate([layer1.reshape(2, -1),
                                                    layer2.reshape(2, -1)], axis=1))

    def save(self, path: str) -> None:
        """Write the arrays and their provenance to ``path`` (``.npz``)."""
        with replaced_atomically(path, "wb") as f:
            np.savez(f, linear=self.linear, first=self.first, second=self.second,
                     network=self.network, games=self.games, seed=self.seed,
                     epochs=self.epochs)

    @classmethod
    def load(cls, path: str) -> "LuckModel":
        """A model saved by :meth:`save`; ``GulBaraError`` for a file that is not one."""
        try:
            with np.load(path, allow_pickle=False) as data:
                linear, first, second = (np.ascontiguousarray(data[k], dtype=np.float32)
                                         for k in ("linear", "first", "second"))
                model = cls(linear, first, second, str(data["network"]), int(data["games"]),
                            int(data["seed"]), int(data["epochs"]))
        except (OSError, KeyError, ValueError) as exc:
            raise GulBaraError(f"{path} is not a luck model: {exc}") from exc
        n, units = model.linear.shape[1], model.first.shape[2] if model.first.ndim == 3 else -1
        if (model.linear.shape != (2, n, len(ROLLS_21)) or model.first.shape != (2, n, units)
                or model.second.shape != (2, units, len(ROLLS_21))
                or not all(np.all(np.isfinite(a)) for a in (model.linear, model.first,
                                                             model.second))):
            raise GulBaraError(f"{path} is not a luck model: arrays of shapes "
                               f"{model.linear.shape}, {model.first.shape}, "
                               f"{model.second.shape}")
        return model


def softsign(z: np.ndarray) -> np.ndarray:
    """The units' activation, ``z / (1 + |z|)``.

    >>> softsign(np.array([-3.0, 0.0, 1.0])).tolist()
    [-0.75, 0.0, 0.5]
    """
    return z / (1.0 + np.abs(z))


def luck_samples(games: int, seed: int = 0, *, first: int = 0, rules: Optional[Rules] = None,
                 workers: int = 1) -> Dict[str, np.ndarray]:
    """The rows the coefficients are fitted to: the rolls of games ``first .. first + games
    - 1`` of the net policy from the opening under ``rules`` (seeded ``seed``), each with
    its features and the value of each of the 21 rolls (``_rollout.luck_samples``), on
    ``workers`` threads (the same rows whatever their number). Memory: about 0.9 KB a roll,
    some 45 KB a game (12,000 games: about 0.5 GB, and as much again while fitting)."""
    games = checked_int(games, "games", 1)
    workers = checked_int(workers, "workers", 1, 1024)
    network = default_net(rules)
    start = Game(rules, auto_roll=False)
    race = bearoff_table()
    parts = [(first + a, min(SAMPLE_BLOCK, games - a)) for a in range(0, games, SAMPLE_BLOCK)]

    def part(bounds):
        return _rollout.luck_samples(start, ("net", "net"), (network.native,) * 2,
                                     network.native, seed, bounds[0], bounds[1],
                                     race.dist, race.first_dist)

    pool = ThreadPoolExecutor(workers)
    try:                                  # blocks of games, so that a stop is prompt
        pieces = list(pool.map(part, parts))
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return {key: np.concatenate([p[key] for p in pieces]) for key in pieces[0]}


def fit_luck_model(games: int = 12000, seed: int = 0, *, rules: Optional[Rules] = None,
                   units: int = 32, epochs: int = 40, workers: int = 1) -> LuckModel:
    """``h`` for the network of ``rules`` (:func:`gulbara.net.default_net`), fitted to each
    roll's luck by the "full" rule, ``V(r) - mean(V)``, on the rows of :func:`luck_samples`:
    per block, the least-squares linear part first, then the linear part and ``units`` softsign
    units together by ``epochs`` passes of Adam over batches of 512 rows (the features
    standardized while fitting, the scaling folded into the arrays after), the loss the
    squared error of ``h - mean(h)`` averaged over the 36 rolls. Seeded by ``seed``."""
    units = checked_int(units, "units", 0, _rollout.MAX_MODEL_UNITS)
    epochs = checked_int(epochs, "epochs", 0, 10_000)
    rows = luck_samples(games, seed, rules=rules, workers=workers)
    n = rows["features"].shape[1]
    rng = np.random.default_rng(seed)
    arrays = [np.zeros((2, n, len(ROLLS_21))), np.zeros((2, n, units)),
              np.zeros((2, units, len(ROLLS_21)))]
    for b in (0, 1):
        used = n if b == 1 else n - 6            # the unplayed chains (last): escalating only
        chosen = rows["block"] == b
        if chosen.any():
            fitted = _fit_block(rows["features"][chosen][:, :used],
                                rows["values"][chosen], units, epochs, rng)
            for array, part in zip(arrays, fitted):
                array[b, :used] = part
    linear, first, second = (a.astype(np.float32) for a in arrays)
    return LuckModel(linear, first, second, default_net(rules).sha256(), games, seed, epochs)


def _fit_block(features, values, units, epochs, rng, batch=512, rate=1e-3):
    """(linear, first, second) of one block, fitted as :func:`fit_luck_model` says."""
    weights = ROLL_WEIGHTS / 36.0
    luck = values - (values @ weights)[:, None]
    mean = features.mean(axis=0)
    scale = features.std(axis=0)
    mean[0], scale[0] = 0.0, 1.0                 # the constant feature
    scale[scale < 1e-6] = 1.0
    x = (features - mean) / scale
    linear = np.linalg.solve(x.T @ x + 1e-3 * np.eye(x.shape[1]), x.T @ luck)
    first = rng.normal(0.0, 1.0 / np.sqrt(x.shape[1]), (x.shape[1], units))
    second = np.zeros((units, len(ROLLS_21)))
    params = [linear, first, second]
    moments = [np.zeros_like(p) for p in params]
    squares = [np.zeros_like(p) for p in params]
    order = np.arange(len(x))
    step = 0
    for _ in range(epochs if units else 0):
        rng.shuffle(order)
        for begin in range(0, len(order), batch):
            rows = order[begin:begin + batch]
            xb = x[rows]
            z = xb @ params[1]
            t = softsign(z)
            h = xb @ params[0] + t @ params[2]
            err = h - (h @ weights)[:, None] - luck[rows]
            g = 2.0 * err * weights / len(rows)          # d loss / d (h - mean h)
            g -= g.sum(axis=1)[:, None] * weights        # through the mean (weights sum 1)
            grads = [xb.T @ g, xb.T @ ((g @ params[2].T) / (1.0 + np.abs(z)) ** 2), t.T @ g]
            step += 1
            for p, gr, m, v in zip(params, grads, moments, squares):
                m *= 0.9
                m += 0.1 * gr
                v *= 0.999
                v += 0.001 * gr * gr
                p -= rate * (m / (1 - 0.9 ** step)) / (np.sqrt(v / (1 - 0.999 ** step)) + 1e-8)
    # the standardization folded in: x = (f - mean) / scale, the constant feature absorbing
    # the shift
    out = []
    for p in (params[0], params[1]):
        q = p / scale[:, None]
        q[0] -= (mean[1:, None] / scale[1:, None] * p[1:]).sum(axis=0)
        out.append(q)
    return out[0], out[1], params[2]


def shipped_luck_path(rules: Optional[Rules] = None) -> str:
    """The file of the coefficients shipped for the network of ``rules`` (beside it,
    ``-luck`` added to its name; it may not exist)."""
    base, ext = os.path.splitext(shipped_net_path(rules))
    return base + "-luck" + ext


def luck_model(rules: Optional[Rules] = None) -> LuckModel:
    """The coefficients shipped for the network of ``rules`` (:func:`shipped_luck_path`),
    each file loaded once; ``GulBaraError`` when none ships for it or they were fitted to
    another network.

    >>> luck_model().network == default_net().sha256()
    True
    """
    path = shipped_luck_path(rules)
    if not os.path.exists(path):
        raise GulBaraError(f"no luck model ships for {os.path.basename(shipped_net_path(rules))}"
                           f": use another luck rule, or fit one with `gulbara luck`")
    model = _load_cached(path, os.stat(path).st_mtime_ns)
    if model.network != default_net(rules).sha256():
        raise GulBaraError(f"{path} was fitted to another network than "
                           f"{os.path.basename(shipped_net_path(rules))}")
    return model


@lru_cache(maxsize=4)
def _load_cached(path: str, mtime: int) -> LuckModel:
    return LuckModel.load(path)
