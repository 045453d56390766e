"""Self-play and rollouts at scale: the native game loop, statistics, workers.

:func:`play_games` plays whole games natively (``_selfplay.pyx``, the GIL
released) under any :class:`~gulbara.Rules`, with a built-in policy per seat
(``"random"``, ``"first"``, ``"greedy"``) or a caller's evaluator, and returns
one row of counters per game (:data:`COLUMNS`) with the statistics computed
from them. :func:`rollout` does the same from any state of a
:class:`~gulbara.Game` (mid-chain and pending remainders included) and returns
win probabilities, mars rates, equity and game length with 95% intervals.

Game ``i`` of a run seeded ``seed`` depends on ``(seed, i)`` only, so a run
gives the same numbers however many workers play it, on local processes
(``backend="local"``) or on a Ray cluster (``backend="ray"``).
:func:`replay` plays game ``i`` again through the Python :class:`~gulbara.Game`
driver with the same dice and choices, for a full record of it.

>>> result = play_games(200, "greedy", seed=7, workers=1)
>>> result.games, len(result.rows) == 200
(200, True)
>>> game = replay(7, 3, "greedy")
>>> game.is_over(), int(result.column("decisions")[3]) == len(game.plays)
(True, True)
"""

import math
import os
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union, cast

import numpy as np

from gulbara.conventions import OPENING_ROLLS, Z95, wilson_interval
from gulbara.errors import GulBaraError, InvalidPolicyError, checked_int, checked_scores
from gulbara.game.driver import Game
from gulbara.game.rng import Rng
from gulbara.net._play import NATIVE_POLICIES
from gulbara.rules import Rules, checked_rules
from gulbara.selfplay._selfplay import EVALUATOR
from gulbara.workers import run_processes

__all__ = [
    "COLUMNS", "POLICIES", "DEFAULT_POLICY", "POLICY_CHOICES", "Rng", "Estimate", "SelfPlayResult", "RolloutResult",
    "play_games", "rollout", "replay", "opening_table", "InvalidPolicyError",
]

#: The per-game counters, in the order of the columns of :attr:`SelfPlayResult.rows`.
COLUMNS = (
    "winner",          # 0 White, 1 Black, -1 a draw (stuck rule) or unfinished
    "points",          # 0, 1, or 2 for a mars (RULES §7.1)
    "rolls",           # rolls made in the run by either side (RULES §4.5)
    "rolls_white",
    "rolls_black",
    "starter",         # who won the opening (RULES §6); -1 when started past it
    "decisions",       # stages played (passes included)
    "doubles",         # doubles rolled
    "chains",          # escalating doubles: chains begun (RULES §4.2)
    "chain_stages",    # chain stages played in full (RULES §4.4)
    "stalls",          # chains stopped on a stage not played in full
    "unstarted",       # of them: the first stage moved nothing (RULES §5.2)
    "remainders",      # remainders handed to the opponent (RULES §5.1-5.2)
    "remainder_dice",  # dice those remainders carried
    "stuck",           # 1: a draw by the stuck rule (RULES §7.2)
    "unfinished",      # 1: stopped at max_rolls
    "chain_win",       # 1: the winning stage was a chain or remainder stage
    "moves",           # stages that moved a checker
)

#: The built-in policies by name: the native policies but the network's, which is named
#: ``"net"`` or by a network's ``.npz`` path. A callable is an evaluator (see :func:`play_games`).
POLICIES = tuple(name for name in NATIVE_POLICIES if name != "net")

#: The policy of every game, rollout and table here unless one is given: the strongest native
#: one, the shipped network (docs/user/bots.md).
DEFAULT_POLICY = "net"

#: Every valid policy, as messages and help texts name them.
POLICY_CHOICES = f"{', '.join(NATIVE_POLICIES)}, a network's .npz path or a callable evaluator"

#: Games per task: work is split by game index in blocks of this size, never by timing.
CHUNK_GAMES = 2000
#: The most games one call plays (its rows alone take 72 bytes a game).
MAX_GAMES = 10**9

_MASK64 = (1 << 64) - 1

Policy = Union[str, Callable[[np.ndarray], np.ndarray]]


def _check_seed(seed) -> int:
    return checked_int(seed, "seed", 0, _MASK64, bounds="0 .. 2**64 - 1")


def _check_count(n, what: str, minimum: int = 1) -> int:
    return checked_int(n, what, minimum)


#: The most rolls a game may be given before it is stopped unfinished (``max_rolls``).
MAX_ROLLS = 1_000_000


def _check_max_rolls(max_rolls) -> int:
    return checked_int(max_rolls, "max_rolls", 1, MAX_ROLLS,
                       bounds=f"at least 1 and at most {MAX_ROLLS:,}")


# ---------------------------------------------------------------------------
# Policies
# ---------------------------------------------------------------------------


def _policy_pair(policy) -> Tuple[Tuple[str, str], Optional[Callable], Tuple[str, str]]:
    """(the native policy of White and Black, the evaluator or None, the names given)."""
    if isinstance(policy, (tuple, list)):
        if len(policy) != 2:
            raise InvalidPolicyError(
                f"a policy pair is (White's, Black's), got {len(policy)} items")
        pair = tuple(policy)
    else:
        pair = (policy, policy)
    natives, names, evaluator = [], [], None
    for item in pair:
        if isinstance(item, os.PathLike):
            item = os.fspath(item)
        if isinstance(item, str) and item not in POLICIES and _is_net_policy(item):
            natives.append("net")                   # gulbara.net.model: "net" or an .npz path
            names.append(item)
        elif isinstance(item, str):
            if item not in POLICIES:
                raise InvalidPolicyError(f"unknown policy {item!r}: use one of {POLICY_CHOICES}")
            natives.append(item)
            names.append(item)
        elif callable(item):
            if evaluator is not None and item is not evaluator:
                raise InvalidPolicyError("one evaluator per run: give the same callable "
                                         "for both seats, or a built-in policy for one")
            evaluator = item
            natives.append(EVALUATOR)
            names.append(getattr(item, "__name__", "evaluator"))
        else:
            raise InvalidPolicyError(f"a policy is one of {POLICY_CHOICES}, got {item!r}")
    return (natives[0], natives[1]), evaluator, (names[0], names[1])


def _is_net_policy(name: str) -> bool:
    return name == "net" or name.endswith(".npz")


def _net_specs(natives, names) -> Tuple[Optional[str], Optional[str]]:
    """Each seat's network ("net" or an absolute .npz path), None for other policies."""
    return cast(Tuple[Optional[str], Optional[str]],
                tuple(name if name == "net" else os.path.abspath(name) if native == "net"
                      else None for native, name in zip(natives, names)))


def _networks(specs, rules: Rules):
    from gulbara.net.model import load
    return tuple(load(spec, rules).native if spec is not None else None for spec in specs)


class _PythonPolicy:
    """The Python twin of a native policy, for :func:`replay`."""

    def __init__(self, name: str, evaluator: Optional[Callable]) -> None:
        self.name = name
        self.evaluator = evaluator

    def choose_index(self, game: Game, rng: Rng) -> int:
        ends = game.legal_plays()
        if self.name == "random":
            return rng.below(len(ends))
        if len(ends) == 1 or self.name == "first":
            return 0
        if _is_net_policy(self.name):
            from gulbara.net.model import load
            scores = list(load(self.name, game.rules).stage_values_python(game))
        elif self.name == "greedy":
            from gulbara.bots.simple import GreedyBot
            bot = GreedyBot()
            scores = [bot.score(ends.seat, play) for play in ends]
        else:
            from gulbara.encoding.features import encode_afterstates
            assert self.evaluator is not None           # a callable policy
            scores = list(checked_scores(self.evaluator(encode_afterstates(ends)), len(ends)))
        return max(range(len(scores)), key=lambda i: (scores[i], -i))


# ---------------------------------------------------------------------------
# Estimates
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Estimate:
    """A value with its 95% confidence interval ``[low, high]``.

    Proportions use the Wilson score interval, means the normal approximation
    ``mean +- 1.96 sd / sqrt(n)``.

    >>> Estimate.proportion(50, 100)
    Estimate(value=0.5, low=0.4038..., high=0.5961...)
    """

    value: float
    low: float
    high: float

    @classmethod
    def proportion(cls, hits: int, n: int) -> "Estimate":
        if n <= 0:
            return cls(math.nan, math.nan, math.nan)
        return cls(hits / n, *wilson_interval(hits, n))

    @classmethod
    def mean(cls, values: np.ndarray) -> "Estimate":
        n = len(values)
        if n == 0:
            return cls(math.nan, math.nan, math.nan)
        values = np.asarray(values, dtype=np.float64)
        m = float(values.mean())
        half = Z95 * float(values.std(ddof=1)) / math.sqrt(n) if n > 1 else math.inf
        return cls(m, m - half, m + half)

    @classmethod
    def ratio(cls, numerator: np.ndarray, denominator: np.ndarray) -> "Estimate":
        """A ratio of sums over games (e.g. dice per remainder), delta-method interval."""
        x = np.asarray(numerator, dtype=np.float64)
        y = np.asarray(denominator, dtype=np.float64)
        n, total = len(x), float(y.sum())
        if total == 0:
            return cls(math.nan, math.nan, math.nan)
        r = float(x.sum()) / total
        if n < 2:
            return cls(r, -math.inf, math.inf)
        residual = x - r * y
        half = Z95 * math.sqrt(float((residual ** 2).sum()) * n / (n - 1)) / total
        return cls(r, r - half, r + half)

    def __float__(self) -> float:
        return self.value

    def __repr__(self) -> str:
        return f"Estimate(value={self.value!r}, low={self.low!r}, high={self.high!r})"

    def __format__(self, spec: str) -> str:
        spec = spec or ".4f"
        return f"{self.value:{spec}} [{self.low:{spec}}, {self.high:{spec}}]"

    def as_dict(self, name: str) -> Dict[str, float]:
        return {name: self.value, f"{name}_low": self.low, f"{name}_high": self.high}


# ---------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------


class SelfPlayResult:
    """The games of one run: :attr:`rows` (one row of :data:`COLUMNS` per game, in
    game order), the histogram of chain lengths, and the statistics computed from them."""

    def __init__(self, rows: np.ndarray, chain_histogram: np.ndarray, *, seconds: float,
                 policy: Tuple[str, str], seed: int, rules: Rules, start: str) -> None:
        self.rows = rows
        self.chain_histogram = chain_histogram
        self.seconds = seconds
        self.policy = policy
        self.seed = seed
        self.rules = rules
        self.start = start
        self.workers = 1           # the processes (or Ray CPUs) that played the games
        self.backend = "local"

    @property
    def games(self) -> int:
        return len(self.rows)

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else math.inf

    def column(self, name: str) -> np.ndarray:
        """One counter for every game (a view)."""
        try:
            return self.rows[:, COLUMNS.index(name)]
        except ValueError:
            raise KeyError(f"no column {name!r}; the columns are {', '.join(COLUMNS)}") from None

    # -- statistics -----------------------------------------------------------

    @property
    def decided(self) -> int:
        """Games with a winner."""
        return int((self.column("winner") >= 0).sum())

    @property
    def draws(self) -> int:
        """Games drawn by the stuck rule (RULES §7.2)."""
        return int(self.column("stuck").sum())

    @property
    def unfinished(self) -> int:
        return int(self.column("unfinished").sum())

    @property
    def first_player_win_rate(self) -> Estimate:
        """How often the player who won the opening (RULES §6) wins (games that had one)."""
        starter = self.column("starter")
        had = starter >= 0
        return Estimate.proportion(int((self.column("winner")[had] == starter[had]).sum()),
                                   int(had.sum()))

    @property
    def white_win_rate(self) -> Estimate:
        return Estimate.proportion(int((self.column("winner") == 0).sum()), self.games)

    @property
    def mars_rate(self) -> Estimate:
        """Mars (RULES §7.1) among decided games."""
        return Estimate.proportion(int((self.column("points") == 2).sum()), self.decided)

    @property
    def mean_rolls(self) -> Estimate:
        return Estimate.mean(self.column("rolls"))

    @property
    def median_rolls(self) -> float:
        return float(np.median(self.column("rolls")))

    @property
    def mean_points(self) -> Estimate:
        return Estimate.mean(self.column("points"))

    @property
    def escalation_rate(self) -> Estimate:
        """Escalating doubles (chains) per double rolled (RULES §4.2)."""
        return Estimate.ratio(self.column("chains"), self.column("doubles"))

    @property
    def chains_per_game(self) -> Estimate:
        return Estimate.mean(self.column("chains"))

    @property
    def mean_chain_length(self) -> Estimate:
        """Stages played in full per chain (0..6)."""
        return Estimate.ratio(self.column("chain_stages"), self.column("chains"))

    @property
    def stall_rate(self) -> Estimate:
        """Chains that stop on a stage not played in full, per chain (RULES §4.4)."""
        return Estimate.ratio(self.column("stalls"), self.column("chains"))

    @property
    def remainder_rate(self) -> Estimate:
        """Remainders handed to the opponent, per chain (RULES §5.1-5.2)."""
        return Estimate.ratio(self.column("remainders"), self.column("chains"))

    @property
    def remainder_dice(self) -> Estimate:
        """Dice a passed remainder carries, on average."""
        return Estimate.ratio(self.column("remainder_dice"), self.column("remainders"))

    def as_dict(self) -> Dict[str, object]:
        """Everything as plain JSON-able values (the CLI's ``--json``)."""
        out: Dict[str, object] = {
            "games": self.games,
            "seconds": round(self.seconds, 6),
            "games_per_second": round(self.games_per_second, 1),
            "policy": self.policy[0] if self.policy[0] == self.policy[1] else list(self.policy),
            "seed": self.seed,
            "rules": self.rules.to_dict(),
            "start": self.start,
            "workers": self.workers,
            "backend": self.backend,
            "draws": self.draws,
            "unfinished": self.unfinished,
            "median_rolls": self.median_rolls,
            "chain_length_histogram": [int(v) for v in self.chain_histogram[:7]],
        }
        for name in ("first_player_win_rate", "white_win_rate", "mars_rate", "mean_rolls",
                     "mean_points", "escalation_rate", "chains_per_game", "mean_chain_length",
                     "stall_rate", "remainder_rate", "remainder_dice"):
            out.update(_finite(getattr(self, name).as_dict(name)))
        return out

    def table(self) -> str:
        """The statistics as a text table with 95% intervals."""
        rows = [
            ("games", f"{self.games:,}"),
            ("policy", " vs ".join(self.policy)),
            ("first player's win rate", f"{self.first_player_win_rate:.4f}"),
            ("White's win rate", f"{self.white_win_rate:.4f}"),
            ("mars rate (of decided games)", f"{self.mars_rate:.4f}"),
            ("mean points per game", f"{self.mean_points:.4f}"),
            ("mean rolls per game", f"{self.mean_rolls:.2f}"),
            ("median rolls per game", f"{self.median_rolls:g}"),
            ("doubles that escalate", f"{self.escalation_rate:.4f}"),
            ("chains per game", f"{self.chains_per_game:.3f}"),
            ("mean chain length (stages in full)", f"{self.mean_chain_length:.3f}"),
            ("chains that stall", f"{self.stall_rate:.4f}"),
            ("remainders passed per chain", f"{self.remainder_rate:.4f}"),
            ("dice per passed remainder", f"{self.remainder_dice:.3f}"),
            ("drawn (stuck rule)", f"{self.draws:,}"),
            ("unfinished (max_rolls)", f"{self.unfinished:,}"),
            ("seconds", f"{self.seconds:.2f}"),
            ("games per second", f"{self.games_per_second:,.0f}"),
        ]
        rows = [(name, value) for name, value in rows if "nan" not in value]  # does not apply
        width = max(len(name) for name, _ in rows)
        return "\n".join(f"{name:<{width}}  {value}" for name, value in rows)

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(games={self.games}, policy={self.policy!r}, "
                f"seed={self.seed}, start={self.start!r})")


def _finite(d: Dict[str, float]) -> Dict[str, Optional[float]]:
    return {k: (None if isinstance(v, float) and not math.isfinite(v) else v)
            for k, v in d.items()}


class RolloutResult(SelfPlayResult):
    """The games of a rollout from one state, with per-seat estimates.

    :attr:`win_probability`, :attr:`mars_probability` and :attr:`equity`
    (expected points: plus the points a seat wins, minus those it loses) are
    pairs ``(White's, Black's)`` of :class:`Estimate`.
    """

    @property
    def win_probability(self) -> Tuple[Estimate, Estimate]:
        winner = self.column("winner")
        return cast(Tuple[Estimate, Estimate],
                    tuple(Estimate.proportion(int((winner == seat).sum()), self.games)
                          for seat in (0, 1)))

    @property
    def mars_probability(self) -> Tuple[Estimate, Estimate]:
        winner, points = self.column("winner"), self.column("points")
        return cast(Tuple[Estimate, Estimate],
                    tuple(Estimate.proportion(int(((winner == seat) & (points == 2)).sum()),
                                              self.games) for seat in (0, 1)))

    @property
    def equity(self) -> Tuple[Estimate, Estimate]:
        winner, points = self.column("winner"), self.column("points").astype(np.int64)
        white = np.where(winner == 0, points, np.where(winner == 1, -points, 0))
        return Estimate.mean(white), Estimate.mean(-white)

    def as_dict(self) -> Dict[str, object]:
        out = super().as_dict()
        for seat, colour in enumerate(("white", "black")):
            out.update(_finite(self.win_probability[seat].as_dict(f"{colour}_win_probability")))
            out.update(_finite(self.mars_probability[seat].as_dict(f"{colour}_mars_probability")))
            out.update(_finite(self.equity[seat].as_dict(f"{colour}_equity")))
        return out

    def table(self) -> str:
        lines = [super().table()]
        for seat, colour in enumerate(("White", "Black")):
            lines.append(f"{colour}: win {self.win_probability[seat]:.4f}, "
                         f"mars {self.mars_probability[seat]:.4f}, "
                         f"equity {self.equity[seat]:+.4f}")
        return "\n".join(lines)


# ---------------------------------------------------------------------------
# Running: chunks by game index, on this process, local processes or Ray
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Job:
    state: str                 # the start, as Game.state_code() writes it
    rules: Rules
    seed: int
    policies: Tuple[str, str]
    evaluator: Optional[Callable]
    max_rolls: int
    nets: Tuple[Optional[str], Optional[str]] = (None, None)


def _run_chunk(job: _Job, first: int, count: int) -> Tuple[np.ndarray, np.ndarray]:
    from gulbara.selfplay import _selfplay
    game = Game.from_state_code(job.state, job.rules)
    rows, hist, _ = _selfplay.play_games(game, job.seed, first, count, job.policies,
                                         job.evaluator, job.max_rolls,
                                         networks=_networks(job.nets, job.rules))
    return rows, hist


def _run_processes(job: _Job, chunks: List[Tuple[int, int]], workers: int,
                   finished: Callable[[int, Tuple[np.ndarray, np.ndarray]], None]) -> None:
    """Play ``chunks`` on ``workers`` processes of this call's own (chunk ``i`` by worker
    ``i % workers``), passing each result to ``finished`` as it comes.

    Each call starts its own processes and hands them its job when they start
    (forked, nothing pickled, so an evaluator may be any callable), so calls
    from several threads never see each other's games. On any exception here
    (Ctrl-C included) or a worker's, every worker is stopped before it passes on
    (:func:`gulbara.workers.run_processes`).
    """
    run_processes(_run_chunk, [(job, first, count) for first, count in chunks], workers,
                  finished, what="self-play worker")


def _chunks(n: int) -> List[Tuple[int, int]]:
    return [(first, min(CHUNK_GAMES, n - first)) for first in range(0, n, CHUNK_GAMES)]


def _run(job: _Job, n: int, workers: int, backend: str,
         progress: Optional[Callable[[int, int], None]]) -> Tuple[np.ndarray, np.ndarray]:
    chunks = _chunks(n)
    results: List[Any] = [None] * len(chunks)   # each chunk's (rows, histogram) once played
    done = 0

    def finished(i: int, result) -> None:
        nonlocal done
        results[i] = result
        done += chunks[i][1]
        if progress is not None:
            progress(done, n)

    if backend == "ray":
        import ray
        if not ray.is_initialized():
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
        remote = ray.remote(_run_chunk)
        job_ref = ray.put(job)
        refs = {remote.remote(job_ref, first, count): i for i, (first, count) in enumerate(chunks)}
        pending = list(refs)
        try:
            while pending:
                ready, pending = ray.wait(pending, num_returns=1)
                for ref in ready:
                    finished(refs[ref], ray.get(ref))
        except BaseException:                       # Ctrl-C or a failed task: cancel the rest
            for ref in pending:
                ray.cancel(ref, force=True)
            raise
    elif workers == 1 or len(chunks) == 1:
        for i, (first, count) in enumerate(chunks):
            finished(i, _run_chunk(job, first, count))
    else:
        _run_processes(job, chunks, workers, finished)
    rows = np.concatenate([r[0] for r in results]) if results else np.zeros((0, len(COLUMNS)),
                                                                           np.int32)
    hist = np.sum([r[1] for r in results], axis=0)
    return rows, hist


def _check_backend(backend: str, workers) -> Tuple[str, int]:
    if backend not in ("local", "ray"):
        raise GulBaraError(f"backend must be 'local' or 'ray', got {backend!r}")
    if workers is None:
        workers = os.cpu_count() or 1
    workers = checked_int(workers, "workers", 1, 4096)
    if backend == "ray":
        try:
            import ray  # noqa: F401
        except ImportError:
            raise ImportError('backend="ray" needs Ray: pip install "gulbara[ray]"') from None
    return backend, workers


def play_games(n: int, policy: Union[Policy, Sequence[Policy]] = DEFAULT_POLICY, *,
               seed: int = 0,
               rules: Optional[Rules] = None, start: Optional[Game] = None,
               workers: Optional[int] = None, backend: str = "local",
               max_rolls: int = 10_000,
               progress: Optional[Callable[[int, int], None]] = None,
               result_class=SelfPlayResult) -> SelfPlayResult:
    """Play ``n`` games natively and return their counters and statistics.

    ``policy``: ``"random"`` (a uniformly random distinct end), ``"first"``
    (the first end in canonical order, RULES §3.8), ``"greedy"`` (the highest
    :func:`gulbara.eval.greedy.greedy_score`, the first on a tie), ``"net"`` (the network
    shipped for the rules, :func:`gulbara.net.model.default_net`) or the
    path of an ``.npz`` file (the best end by a gb1 value network,
    :mod:`gulbara.net.model`, natively), or a callable
    ``evaluate(features) -> scores``: ``features`` is a float32 array
    ``N x 196`` (the board block of ``docs/user/encoding.md``) of the stage's ``N``
    ends seen by the side that moves, called once per decision with the GIL
    held; the end with the highest score is played (the first on a tie). Each
    call gets a new array of its own (kept arrays are never overwritten); the
    scores must be ``N`` finite real numbers (``GulBaraError`` otherwise; an
    exception the evaluator raises passes through, from a worker process too,
    as itself or, when it cannot be pickled, as a ``RuntimeError`` naming its
    type and message). A pair ``(White's, Black's)`` gives each seat its own.

    ``start`` is a :class:`~gulbara.Game` to play from (its rules are used;
    default: a new game under ``rules``). ``workers`` processes (default: all
    cores) or ``backend="ray"`` (``pip install "gulbara[ray]"``; uses the
    running Ray instance, or starts a local one). ``max_rolls`` stops a game
    (counted ``unfinished``) after that many rolls. ``progress(done, n)`` is
    called as blocks of games finish.

    Each call has its own worker processes, so calls from several threads at
    once each play their own games. Ctrl-C stops the call within a game or
    two: the worker processes are stopped and ``KeyboardInterrupt`` raised.
    """
    n = checked_int(n, "n", 1, MAX_GAMES, bounds=f"at least 1 and at most {MAX_GAMES:,}")
    seed = _check_seed(seed)
    max_rolls = _check_max_rolls(max_rolls)
    backend, workers = _check_backend(backend, workers)
    natives, evaluator, names = _policy_pair(policy)
    if start is None:
        start = Game(checked_rules(rules), auto_roll=False)
    elif not isinstance(start, Game):
        raise TypeError(f"start must be a gulbara.Game, not {type(start).__name__}")
    elif rules is not None and rules != start.rules:
        raise GulBaraError("give the rules through the start game: they differ")
    job = _Job(start.state_code(), start.rules, seed, natives, evaluator, max_rolls,
               _net_specs(natives, names))
    began = time.perf_counter()
    rows, hist = _run(job, n, workers, backend, progress)
    seconds = time.perf_counter() - began
    result = result_class(rows, hist, seconds=seconds, policy=names, seed=seed,
                          rules=start.rules, start=job.state)
    result.workers = 1 if backend == "local" and (workers == 1 or n <= CHUNK_GAMES) else workers
    result.backend = backend
    return result


def rollout(game_or_code: Union[Game, str], n: int,
            policy: Union[Policy, Sequence[Policy]] = DEFAULT_POLICY, *, seed: int = 0,
            rules: Optional[Rules] = None, workers: Optional[int] = None,
            backend: str = "local", max_rolls: int = 10_000,
            progress: Optional[Callable[[int, int], None]] = None,
            seat: Union[int, str, None] = None,
            rolls: Optional[Sequence[int]] = None) -> RolloutResult:
    """Play ``n`` games on from a state and estimate its value.

    ``game_or_code`` is a :class:`~gulbara.Game` (left unchanged) or a state
    code (:meth:`gulbara.Game.state_code`, read under ``rules``), or a plain
    position code (or ``"start"``) with ``seat``, the side to roll, and
    optionally ``rolls`` (:func:`gulbara.game.state_codes.state_code`). Any state
    works: the opening, a side to roll, a stage decision inside a chain or a
    remainder. The result has per-seat win probabilities, mars
    probabilities and equity with 95% intervals, and the mean game length in
    rolls (from the state on). The same ``seed`` gives the same numbers for
    any ``workers`` and backend. An evaluator policy is called as in
    :func:`play_games`: a fresh ``N x 196`` float32 array per decision.

    >>> from gulbara import Game
    >>> game = Game(auto_roll=False)
    >>> game.roll_opening(6, 1)
    0
    >>> result = rollout(game, 400, "greedy", seed=1, workers=1)
    >>> white, black = result.win_probability
    >>> 0.0 < white.value < 1.0 and abs(white.value + black.value - 1) < 1e-9
    True
    """
    if isinstance(game_or_code, str):
        from gulbara.game.state_codes import state_code
        start = Game.from_state_code(state_code(game_or_code, seat, rules=rules, rolls=rolls),
                                     rules)
    elif isinstance(game_or_code, Game):
        if rules is not None and rules != game_or_code.rules:
            raise GulBaraError("give the rules through the game: they differ")
        if seat is not None or rolls is not None:
            raise GulBaraError("seat and rolls go with a position code, not a Game")
        start = game_or_code
    else:
        raise TypeError(f"rollout needs a gulbara.Game or a state code, "
                        f"not {type(game_or_code).__name__}")
    return cast(RolloutResult,
                play_games(n, policy, seed=seed, start=start, workers=workers, backend=backend,
                           max_rolls=max_rolls, progress=progress, result_class=RolloutResult))


def replay(seed: int, index: int, policy: Union[Policy, Sequence[Policy]] = DEFAULT_POLICY, *,
           rules: Optional[Rules] = None, start: Optional[Game] = None,
           max_rolls: int = 10_000, trace: Optional[list] = None) -> Game:
    """Game ``index`` of a :func:`play_games` run seeded ``seed``, played again
    through the Python :class:`~gulbara.Game` driver with the same dice and the
    same choices: a full record (plays, draws, result) of a native game.

    This is also how the native loop is tested: both must agree move for move.
    ``trace``, a list, receives ``(number of ends, index chosen)`` per decision.

    >>> trace = []
    >>> game = replay(1, 0, "first", trace=trace)
    >>> len(trace) == len(game.plays) and all(i == 0 for _, i in trace)
    True
    """
    seed = _check_seed(seed)
    index = checked_int(index, "index", 0, _MASK64, bounds="0 .. 2**64 - 1")
    max_rolls = _check_max_rolls(max_rolls)
    natives, evaluator, names = _policy_pair(policy)
    if start is None:
        game = Game(checked_rules(rules), auto_roll=False)
    elif not isinstance(start, Game):
        raise TypeError(f"start must be a gulbara.Game, not {type(start).__name__}")
    elif rules is not None and rules != start.rules:
        raise GulBaraError("give the rules through the start game: they differ")
    else:
        game = start.copy(auto_roll=False)
    if trace is not None and not isinstance(trace, list):
        raise TypeError(f"trace must be a list, not {type(trace).__name__}")
    dice = Rng(seed, index, 0)
    rng = Rng(seed, index, 1)
    policies = [_PythonPolicy(name if native != EVALUATOR else EVALUATOR, evaluator)
                for name, native in zip(names, natives)]
    first_rolls = game.game_rolls
    while not game.is_over():
        if game.is_opening():
            game.roll_opening(dice.die() + 1, dice.die() + 1)
        elif game.is_chance():
            if game.game_rolls - first_rolls >= max_rolls:
                break
            game.roll(dice.die() + 1, dice.die() + 1)
        else:
            decision = game.decision
            assert decision is not None                 # neither over nor a chance node
            i = policies[decision.seat].choose_index(game, rng)
            ends = game.legal_plays()
            if trace is not None:
                trace.append((len(ends), i))
            game.play(ends[i])
    return game


def opening_table(games_per_roll: int,
                  policy: Union[Policy, Sequence[Policy]] = DEFAULT_POLICY, *,
                  seed: int = 0, rules: Optional[Rules] = None, workers: Optional[int] = None,
                  backend: str = "local", progress: Optional[Callable[[int, int], None]] = None
                  ) -> List[Tuple[Tuple[int, int], RolloutResult]]:
    """The starter's results for each of the 15 opening rolls (RULES §6).

    For roll ``a-b`` the game starts with White having won the opening with
    ``a`` against ``b`` and playing the pair as its first roll; each roll is
    rolled out ``games_per_roll`` times with the same ``seed`` (common random
    numbers: the rolls are compared on the same later dice). Returns
    ``[((a, b), RolloutResult), ...]``; the starter is White, so its win rate
    is ``result.win_probability[0]``.
    """
    games_per_roll = checked_int(games_per_roll, "games_per_roll", 1, MAX_GAMES // 15)
    table = []
    total = games_per_roll * len(OPENING_ROLLS)
    for i, (a, b) in enumerate(OPENING_ROLLS):
        game = Game(rules, auto_roll=False)
        game.roll_opening(a, b)
        done = i * games_per_roll
        step = None if progress is None else (lambda d, n, done=done: progress(done + d, total))
        table.append(((a, b), rollout(game, games_per_roll, policy, seed=seed, workers=workers,
                                      backend=backend, progress=step)))
    return table
