"""TD(lambda) self-play training of a gb1 value network (``gulbara train``).

Games are played in batches of ``batch`` fixed slots by one frozen network:
game ``b * batch + k`` of a run is slot ``k`` of batch ``b``, its dice seeded
from ``(seed, b * batch + k)``; each slot's update goes to its own row and the
rows are summed in slot order before the weights change. So the weights depend
only on the arguments, never on the number of workers or on timing. The step
size per after-state is ``max(alpha_min, alpha * 0.5 ** (games / halflife))``
with ``games`` the games played before the batch: it does not depend on the
total either, so the first ``n`` games of a long run (``n`` a multiple of
``batch``) give the weights of a run of ``n`` games.

Every ``checkpoint`` games the network plays ``eval_pairs`` pairs of games
against ``greedy`` (each pair on the same dice with the seats swapped); the
best one so far is written to ``out`` and the latest, with everything needed
to go on, to ``out``'s ``.last.npz`` twin (``resume=True`` picks it up).

>>> result = train(40, seed=1, hidden=8, checkpoint=40, eval_pairs=10, progress=None)
>>> result.games, len(result.history)
(40, 1)
"""

import json
import math
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import List, Optional, TextIO, cast

import numpy as np

from gulbara.net import _inputs, _net, _play

from gulbara.net import _train
from gulbara.conventions import mean_interval, wilson_interval
from gulbara.errors import GulBaraError, checked_int
from gulbara.files import replaced_atomically
from gulbara.game.driver import Game
from gulbara.net.model import MAX_HIDDEN, ValueNet, InvalidNetworkError
from gulbara.rules import DEFAULT_RULES, Rules, checked_rules

__all__ = ["train", "TrainResult", "Checkpoint", "evaluate", "last_path", "plot_history",
           "training_arguments", "rules_text", "TRAIN_DEFAULTS", "LATER_ARGUMENTS", "DEFAULT_EVAL_PAIRS"]

#: The training arguments that fix the weights, with their defaults.
TRAIN_DEFAULTS = dict(hidden=64, batch=20, alpha=0.002, alpha_min=0.0001, halflife=500_000,
                      lam=0.7, init_scale=0.1, target="td")
#: What each after-state is moved toward: ``td``, TD(lam) along the game; ``deeper``, the
#: network's own value one decision deeper (every roll of a state waiting for one);
#: ``teacher``, another network's outputs on it (``teacher=``: distillation).
TARGETS = ("td", "deeper", "teacher")
#: The most memory a batch's updates may take: ``batch x parameters x 8`` bytes (one float64 row
#: of updates per slot; 109 KB a slot at the default 64 hidden units).
MAX_BATCH_BYTES = 1 << 30
#: Dice seed of the checkpoint evaluations (the same games at every checkpoint).
EVAL_SEED = 20_260_000
#: Duplicate pairs per checkpoint evaluation: 10,000 games, a Wilson interval of about +-0.009,
#: so that the best checkpoint is picked on its strength more than on the dice (docs/user/bots.md).
DEFAULT_EVAL_PAIRS = 5000


@dataclass(frozen=True)
class Checkpoint:
    """One evaluation of the network against greedy, ``pairs`` duplicate pairs."""

    games: int
    win_rate: float
    low: float
    high: float
    points_per_game: float
    sha256: str


@dataclass
class TrainResult:
    """What :func:`train` did: the final and best networks and the learning curve."""

    net: ValueNet
    best: ValueNet
    games: int
    seconds: float
    history: List[Checkpoint] = field(default_factory=list)


def evaluate(net: ValueNet, pairs: int, seed: int = EVAL_SEED, opponent: str = "greedy",
             workers: int = 1, rules: Optional[Rules] = None) -> dict:
    """``net`` against a native policy over ``pairs`` duplicate pairs under ``rules``
    (default RULES §1-7): win rate (draws count half) with its Wilson interval, and
    points per game with its interval."""
    rows = _match(net, opponent, pairs, seed, workers, checked_rules(rules, DEFAULT_RULES))
    a_points = _a_points(rows)
    wins = int((a_points > 0).sum())
    draws = int((a_points == 0).sum())
    n = len(rows)
    low, high = wilson_interval(wins + draws // 2, n)
    pair_points = a_points.reshape(-1, 2).sum(axis=1) / 2.0
    ppg, plo, phi = mean_interval(pair_points.tolist())
    return {"games": n, "win_rate": (wins + 0.5 * draws) / n, "low": low, "high": high,
            "points_per_game": ppg, "points_low": plo, "points_high": phi}


def _a_points(rows: np.ndarray) -> np.ndarray:
    """Player A's points per game of a match's rows (A's seat, winner, points, ...)."""
    sign = np.where(rows[:, 1] == rows[:, 0], 1, np.where(rows[:, 1] < 0, 0, -1))
    return sign * rows[:, 2]


def _match(net: ValueNet, opponent: str, pairs: int, seed: int, workers: int,
           rules: Rules) -> np.ndarray:
    n = 2 * pairs
    chunks = _split(n, workers, even=True)
    game = Game(auto_roll=False, rules=rules)

    def part(bounds):
        lo, hi = bounds
        rows, _ = _play.play_match("net", opponent, game, seed, lo // 2, hi - lo, True,
                                   network_a=net.native)
        return rows

    if len(chunks) == 1:
        return part(chunks[0])
    with ThreadPoolExecutor(len(chunks)) as pool:
        return np.concatenate(list(pool.map(part, chunks)))


def _split(n: int, workers: int, even: bool = False) -> List[tuple]:
    step = max(1, math.ceil(n / max(1, workers)))
    if even:
        step += step % 2
    return [(lo, min(n, lo + step)) for lo in range(0, n, step)]


def last_path(out: str) -> str:
    """The file of the latest state of a run writing its best network to ``out``."""
    root = out[:-4] if out.endswith(".npz") else out
    return root + ".last.npz"


def rules_text(rules: Rules) -> str:
    """How a network's metadata records the rules it was trained under (JSON, keys sorted).

    >>> Rules.from_dict(json.loads(rules_text(Rules(escalation=False)))).escalation
    False
    """
    return json.dumps(rules.to_dict(), sort_keys=True)


#: Training arguments added after networks were first saved, with what a file
#: that does not record one was trained with.
LATER_ARGUMENTS = dict(target="td", rules=rules_text(DEFAULT_RULES))


def training_arguments(meta: dict) -> dict:
    """The training arguments a network's metadata records (:data:`TRAIN_DEFAULTS`'
    keys, the seed and, for a run from a network, ``init_sha256``), with
    :data:`LATER_ARGUMENTS` for a file older than them.

    >>> args = training_arguments({"lam": 0.9, "seed": 1, "games": 10})
    >>> args["lam"], args["seed"], args["target"], args["rules"] == rules_text(DEFAULT_RULES)
    (0.9, 1, 'td', True)
    """
    keys = set(TRAIN_DEFAULTS) | {"seed", "init_sha256", "teacher_sha256", "rules"}
    return dict(LATER_ARGUMENTS, **{k: v for k, v in meta.items() if k in keys})


def _alpha(games: int, a: dict) -> float:
    return max(a["alpha_min"], a["alpha"] * 0.5 ** (games / a["halflife"]))


def _history_meta(history: List[Checkpoint]) -> dict:
    return {
        "history_games": np.array([c.games for c in history], dtype=np.int64),
        "history_win_rate": np.array([c.win_rate for c in history]),
        "history_low": np.array([c.low for c in history]),
        "history_high": np.array([c.high for c in history]),
        "history_points": np.array([c.points_per_game for c in history]),
        "history_sha256": np.array([c.sha256 for c in history], dtype="U64"),
    }


def _history_from(meta: dict) -> List[Checkpoint]:
    if "history_games" not in meta:
        return []
    cols = [np.atleast_1d(meta[k]) for k in ("history_games", "history_win_rate", "history_low",
                                             "history_high", "history_points", "history_sha256")]
    return [Checkpoint(int(g), float(w), float(lo), float(hi), float(p), str(s))
            for g, w, lo, hi, p, s in zip(*cols)]


def train(games: int, seed: int = 0, out: Optional[str] = None, *, workers: int = 1,
          checkpoint: int = 100_000, eval_pairs: int = DEFAULT_EVAL_PAIRS, resume: bool = False,
          progress: Optional[TextIO] = sys.stderr, init: Optional[ValueNet] = None,
          teacher: Optional[ValueNet] = None, rules: Optional[Rules] = None,
          **args) -> TrainResult:
    """Train a network by ``games`` games of TD(lambda) self-play (module docstring).

    ``args`` override :data:`TRAIN_DEFAULTS`. ``out`` (an ``.npz`` path) gets the
    best checkpoint, its ``.last.npz`` twin the latest; ``resume`` continues the
    run from that twin (the same arguments are required). ``teacher`` (with
    ``target="teacher"``) is the network whose outputs the after-states are moved
    toward, for example :meth:`ValueNet.average` of several runs' networks.
    ``rules`` (default RULES §1-7) are the rules of the training games and of the
    checkpoint games; the files record them (``meta["rules"]``, :func:`rules_text`).
    """
    games = checked_int(games, "games", 1)
    seed = checked_int(seed, "seed", 0, 2**64 - 1, bounds="0 .. 2**64 - 1")
    workers = checked_int(workers, "workers", 1)
    eval_pairs = checked_int(eval_pairs, "eval_pairs", 1)
    rules = checked_rules(rules, DEFAULT_RULES)
    unknown = set(args) - set(TRAIN_DEFAULTS)
    if unknown:
        raise TypeError(f"unknown training arguments: {', '.join(sorted(unknown))}")
    a = dict(TRAIN_DEFAULTS, **args)
    a["hidden"] = checked_int(a["hidden"], "hidden", 1, MAX_HIDDEN)
    scale = a["init_scale"]
    if isinstance(scale, bool) or not isinstance(scale, (int, float, np.integer, np.floating)):
        raise TypeError(f"init_scale must be a number, not {type(scale).__name__}")
    if not (math.isfinite(scale) and scale >= 0):
        raise GulBaraError(f"init_scale must be a finite number >= 0, got {scale!r}")
    a["batch"] = checked_int(a["batch"], "batch", 1)
    updates = a["batch"] * _net.parameter_count(a["hidden"]) * 8
    if updates > MAX_BATCH_BYTES:                   # (it once ended in a raw MemoryError)
        raise GulBaraError(f"batch {a['batch']:,} would hold {updates:,} bytes of updates "
                           f"(batch x {_net.parameter_count(a['hidden']):,} parameters x 8 "
                           f"bytes); at most {MAX_BATCH_BYTES:,}")
    checkpoint = checked_int(checkpoint, "checkpoint", 1)
    if checkpoint % a["batch"]:
        raise GulBaraError(f"checkpoint ({checkpoint}) must be a multiple of batch ({a['batch']})")
    if a["target"] not in TARGETS:
        raise GulBaraError(f"target must be one of {', '.join(TARGETS)}, got {a['target']!r}")
    if not 0.0 <= a["lam"] <= 1.0:
        raise GulBaraError(f"lam must be in [0, 1], got {a['lam']}")
    if not (a["alpha"] > 0 and a["alpha_min"] > 0 and a["halflife"] > 0):
        raise GulBaraError("alpha, alpha_min and halflife must be positive")
    if (a["target"] == "teacher") != (teacher is not None):
        raise GulBaraError("a teacher network goes with target='teacher', and only with it")
    identity = dict(a, seed=seed, rules=rules_text(rules))
    if teacher is not None:
        if not isinstance(teacher, ValueNet):
            raise TypeError(f"teacher is a ValueNet, not {type(teacher).__name__}")
        identity["teacher_sha256"] = teacher.sha256()
    if init is not None:
        if not isinstance(init, ValueNet):
            raise TypeError(f"init is a ValueNet, not {type(init).__name__}")
        identity["init_sha256"] = init.sha256()
    done, history, best, best_rate = 0, [], None, -1.0
    if resume:
        if out is None:
            raise GulBaraError("resume needs out (the run's best-network path)")
        if not os.path.exists(last_path(out)):
            # a run stopped before its first checkpoint leaves nothing to resume
            raise GulBaraError(f"nothing to resume: {last_path(out)} does not exist (a run "
                               "writes it at each checkpoint); start again without --resume")
        state = ValueNet.load(last_path(out))
        if "init_sha256" in state.meta:
            identity.setdefault("init_sha256", str(state.meta["init_sha256"]))
        recorded = training_arguments(state.meta)
        for key, value in identity.items():
            if key not in recorded or recorded[key] != value:
                raise GulBaraError(f"cannot resume: the run was trained with {key}="
                                   f"{recorded.get(key)!r}, not {value!r}")
        net, done, history = state, int(cast(int, state.meta["games"])), _history_from(state.meta)
        if os.path.exists(out):
            best = ValueNet.load(out)
            best_rate = max((c.win_rate for c in history), default=-1.0)
    else:
        net = init if init is not None else ValueNet.random(a["hidden"], seed, a["init_scale"])
        if net.hidden != a["hidden"]:
            raise InvalidNetworkError(f"init has {net.hidden} hidden units, not {a['hidden']}")
    params = net.params.astype(np.float32)
    milestones = {}
    started = time.perf_counter()
    last_print = 0.0
    err_sum, states = 0.0, 0
    done_at_start = done
    batch = a["batch"]
    pool = ThreadPoolExecutor(workers) if workers > 1 else None
    taught = teacher.native if teacher is not None else None

    def save(which: ValueNet, path: str, extra: dict) -> None:
        which.save(path, **identity, layout_name=_inputs.LAYOUT, **_history_meta(history), **extra)

    try:
        while done < games:
            b = done // batch
            slots = min(batch, games - done)
            frozen = _net.Network(params, a["hidden"])
            delta = np.zeros((batch, params.size), dtype=np.float64)
            alpha = _alpha(done, a)
            parts = [list(range(lo, hi)) for lo, hi in _split(slots, workers)]

            def run_part(slot_list, frozen=frozen, delta=delta, alpha=alpha, b=b):
                return _train.train_slots(frozen, rules, seed, b, batch, slot_list, delta,
                                        alpha, a["lam"], deeper=a["target"] == "deeper",
                                        teacher=taught)

            part_stats = list(pool.map(run_part, parts)) if pool else [run_part(parts[0])]
            stats = np.concatenate(part_stats)
            params = (params.astype(np.float64) + delta.sum(axis=0)).astype(np.float32)
            if not np.isfinite(params).all():
                raise GulBaraError(f"the weights diverged at batch {b} (lower alpha)")
            done += slots
            err_sum += stats[:, 4].sum() / 1e6
            states += int(stats[:, 0].sum())
            if done in (100, 1000, 10_000) and done % batch == 0:
                milestones[f"sha256_at_{done}"] = ValueNet.from_params(params, a["hidden"]).sha256()
            now = time.perf_counter()
            if progress is not None and (now - last_print > 2.0 or done == games):
                last_print = now
                _report(progress, done, games, done - done_at_start, now - started,
                        err_sum / max(states, 1), alpha)
                err_sum, states = 0.0, 0
            if done % checkpoint == 0 or done == games:
                current = ValueNet.from_params(params, a["hidden"])
                ev = evaluate(current, eval_pairs, workers=workers, rules=rules)
                history.append(Checkpoint(done, ev["win_rate"], ev["low"], ev["high"],
                                          ev["points_per_game"], current.sha256()))
                if ev["win_rate"] > best_rate:
                    best, best_rate = current, ev["win_rate"]
                if progress is not None:
                    mark = " (best)" if best is current else ""
                    print(f"\ncheckpoint {done:,} games: {ev['win_rate']:.3f} "
                          f"[{ev['low']:.3f}, {ev['high']:.3f}] against greedy, "
                          f"{ev['points_per_game']:+.3f} points/game over {ev['games']} games"
                          f"{mark}", file=progress, flush=True)
                if out is not None:
                    extra = dict(milestones, games=done, eval_pairs=eval_pairs, checkpoint=checkpoint)
                    save(current, last_path(out), extra)
                    if best is current:
                        save(best, out, extra)
    finally:
        if pool is not None:
            pool.shutdown()
    final = ValueNet.from_params(params, a["hidden"], dict(identity, games=done, **milestones))
    return TrainResult(final, best if best is not None else final, done,
                       time.perf_counter() - started, history)


def _report(stream: TextIO, done: int, total: int, new: int, seconds: float, err: float,
            alpha: float) -> None:
    rate = new / seconds if seconds > 0 else 0.0
    eta = (total - done) / rate if rate > 0 else 0.0
    end = "\r" if stream.isatty() else "\n"
    stream.write(f"games {done:,}/{total:,} ({100 * done / total:.1f}%)  {rate:,.0f} games/s  "
                 f"TD error {err:.4f}  alpha {alpha:.5f}  eta {eta / 60:.1f} min{end}")
    stream.flush()


def plot_history(history: List[Checkpoint], path: str) -> None:
    """Draw the learning curve (win rate against greedy by games) to ``path``."""
    from gulbara.plotting import pyplot
    plt = pyplot()
    g = [c.games for c in history]
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(g, [c.win_rate for c in history], marker="o", label="win rate against greedy")
    ax.fill_between(g, [c.low for c in history], [c.high for c in history], alpha=0.25,
                    label="95% interval")
    ax.axhline(0.5, color="grey", lw=0.8)
    ax.set_xlabel("training games")
    ax.set_ylabel("win rate")
    ax.legend()
    fig.tight_layout()
    with replaced_atomically(path, "wb") as f:
        fig.savefig(f, format=os.path.splitext(path)[1][1:].lower() or None)
    plt.close(fig)
