"""Rollouts with luck subtraction, quasi-random dice, truncation, candidates and stop rules.

:func:`rollout` plays games on from a state (or after each candidate play of a decision, all
on the same dice) natively (``_rollout.pyx``) and estimates the equity, in cubeless points, of
the side to act at the start, with a 95% interval. By default each game's result has the luck
of its dice subtracted (``vr``), the first two rolls are quasi-random (``quasi``), and the net
policy plays both sides; docs/user/rollouts.md has the method, why the estimate is unbiased,
and what it costs.

A :class:`Rollout` carries sufficient statistics (:mod:`gulbara.rollouts.tally`), so runs over
disjoint game ranges :func:`merge` into exactly the run of their union, a saved run
(:meth:`Rollout.save`) goes on with ``resume=``, and threads, processes or a Ray cluster give
the same numbers.

>>> import gulbara
>>> result = rollout(gulbara.Game(seed=24), 72, candidates=2, seed=1)
>>> sorted(c.play for c in result.candidates)          # net's two best plays, best first
['24/14', '24/18 24/20']
>>> result.games
72
>>> low, high = result.equity.low, result.equity.high
>>> low < result.equity.value < high
True
"""

import json
import math
import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from gulbara.bots.registry import REGISTRY, bot_label, is_network_path, make_bot, native_policy
from gulbara.errors import GulBaraError, checked_int, checked_positive
from gulbara.eval.bearoff import bearoff_table
from gulbara.files import replaced_atomically
from gulbara.game.driver import Game
from gulbara.net.model import default_net
from gulbara.rollouts import _rollout
from gulbara.rollouts.tally import Interval, PairTally, Tally
from gulbara.rules import Rules

__all__ = ["rollout", "merge", "load", "Rollout", "Candidate", "Settings", "DEFAULT_POLICY",
           "BLOCK_GAMES", "QUANTITIES", "LUCK_RULES"]

#: The policy of both sides unless one is given: the strongest native one.
DEFAULT_POLICY = "net"
#: Games a worker plays at a time (a multiple of 36, so quasi-random blocks stay whole).
BLOCK_GAMES = 144
#: How a roll's luck is found (docs/user/rollouts.md): "full", each of the 36 rolls valued by
#: its roller at one ply, by where its whole turn leads with every stage played as the native
#: net policy plays it (an escalating double's chain to its end, a remainder by its receiver),
#: a bear-off exactly by the database; "fast", the same values but the six chains played out
#: only when a double is drawn (the luck of drawing a double at all is valued by the network's
#: value of each chain before it is played), about a third of the time for a somewhat wider
#: interval; "pips", the doubles as in "fast" and of the non-doubles only the rolls of the drawn
#: roll's pip total played out, besides 1-2, 3-4 and 5-6 (the luck of the pip total valued
#: by the line through those three); "model", nothing played out: each roll valued by a function
#: fitted to the "full" rule's values (:mod:`gulbara.rollouts.luckmodel`) of what the network
#: sees before the roll, the cheapest, narrower than a plain rollout at equal CPU time. Each
#: maps to ``_rollout.rollout_block``'s ``luck_rule``.
LUCK_RULES = dict(_rollout.LUCK_RULES)
#: What each game gives, for the side rolled out: its points (the network's equity when
#: stopped), its dice's luck, the estimate (points - luck with ``vr``, else points), its chances
#: of winning, losing, winning and losing with a mars, and a draw.
QUANTITIES = ("points", "luck", "estimate", "win", "lose", "win_mars", "lose_mars", "draw")
_FORMAT = "gulbara-rollout-2"


@dataclass(frozen=True)
class Settings:
    """What fixes a rollout's games: two runs merge only when these are equal."""

    state: str                            # the state code rolled out (a decision, with plays)
    plays: Tuple[str, ...]                # the candidates' notation; () for the state itself
    side: int                             # the side rolled out: 0 White, 1 Black
    policy: Tuple[str, str]               # White's and Black's policy (a name or an .npz path)
    network: str                          # the luck and truncation network's sha256
    seed: int
    vr: bool
    luck: str                             # how a roll is valued for its luck: LUCK_RULES
    quasi: bool
    truncate: int                         # rolls before a game is scored by the network; 0 none
    rules: str                            # the rules, as JSON of Rules.to_dict()


@dataclass
class Candidate:
    """One candidate (or the state itself): its games, tally, and whether it was dropped."""

    play: Optional[str]
    tally: Tally = field(default_factory=Tally)
    ranges: List[Tuple[int, int]] = field(default_factory=list)
    dropped: bool = False

    @property
    def games(self) -> int:
        return self.tally.games

    @property
    def equity(self) -> Interval:
        """The equity for the side rolled out: mean, standard error, 95% interval."""
        return self.tally.interval("estimate")


@dataclass
class Rollout:
    """A rollout's result: its settings, one :class:`Candidate` each, the pairs' differences."""

    settings: Settings
    candidates_in_order: List[Candidate]            # the settings' order
    pairs: Dict[Tuple[int, int], PairTally] = field(default_factory=dict)
    seconds: float = 0.0

    # -- what it says -----------------------------------------------------------------

    @property
    def candidates(self) -> List[Candidate]:
        """Best first (by equity; the settings' order on a tie)."""
        order = sorted(range(len(self.candidates_in_order)),
                       key=lambda i: (-self.candidates_in_order[i].equity.value, i))
        return [self.candidates_in_order[i] for i in order]

    @property
    def best(self) -> Candidate:
        return self.candidates[0]

    @property
    def games(self) -> int:
        """Games played from the best candidate (the state itself without candidates)."""
        return self.best.games

    @property
    def equity(self) -> Interval:
        """The equity of the state (its best candidate's) for the side to act at the start."""
        return self.best.equity

    def difference(self, play: Optional[str]) -> Interval:
        """``play``'s equity minus the best candidate's, from their paired games (0 for the
        best itself)."""
        index = self._index(play)
        best = self.candidates_in_order.index(self.best)
        if index == best:
            return Interval(0.0, 0.0)
        pair = self.pairs.get((min(index, best), max(index, best)))
        if pair is None or pair.games == 0:
            return Interval(math.nan, math.inf)
        d = pair.interval()
        return d if index < best else Interval(-d.value, d.se)

    def chances(self) -> Dict[str, Interval]:
        """Per seat (``white_win``, ``white_mars``, ``black_win``, ``black_mars``): the best
        candidate's chances of winning, and of winning with a mars, with intervals."""
        t = self.best.tally
        mine = {"win": t.interval("win"), "mars": t.interval("win_mars")}
        theirs = {"win": t.interval("lose"), "mars": t.interval("lose_mars")}
        side = ("white", "black")[self.settings.side]
        other = ("white", "black")[1 - self.settings.side]
        out = {f"{side}_{k}": v for k, v in mine.items()}
        out.update({f"{other}_{k}": v for k, v in theirs.items()})
        return {k: out[k] for k in ("white_win", "white_mars", "black_win", "black_mars")}

    def _index(self, play: Optional[str]) -> int:
        for i, c in enumerate(self.candidates_in_order):
            if c.play == play:
                return i
        raise GulBaraError(f"{play!r} is not a candidate of this rollout")

    def table(self) -> str:
        """The candidates, best first: equity, interval, games, difference to the best."""
        head = f"{'play':<28} {'equity':>7}  {'95% interval':<18} {'games':>6}  to the best"
        lines = [head]
        for c in self.candidates:
            e = c.equity
            row = (f"{c.play or '(the state)':<28} {e.value:+7.3f}  [{e.low:+.3f}, {e.high:+.3f}]"
                   f" {c.games:>6}")
            if c is not self.best:
                d = self.difference(c.play)
                row += f"  {d.value:+.3f} [{d.low:+.3f}, {d.high:+.3f}]"
                if c.dropped:
                    row += "  dropped"
            lines.append(row)
        return "\n".join(lines)

    def summary(self) -> dict:
        """The JSON summary (``gulbara rollout --json``): games, seconds, the equity of the
        side to act at the start with its interval, per-seat chances, and the candidates."""
        e = self.equity
        out: Dict[str, Any] = {"games": self.games, "seconds": round(self.seconds, 3),
               "side": ("white", "black")[self.settings.side],
               "equity": e.value, "equity_low": e.low, "equity_high": e.high,
               "equity_se": e.se}
        for name, v in self.chances().items():
            out.update({name: v.value, f"{name}_low": v.low, f"{name}_high": v.high})
        rows = []
        for c in self.candidates:
            ce, d = c.equity, self.difference(c.play)
            rows.append({
                "play": c.play, "equity": ce.value, "equity_low": ce.low,
                "equity_high": ce.high, "games": c.games, "difference": d.value,
                "difference_low": d.low, "difference_high": d.high, "dropped": c.dropped})
        out["candidates"] = rows
        out["settings"] = _settings_json(self.settings)
        return out

    # -- files ------------------------------------------------------------------------

    def to_json(self) -> dict:
        """Everything, the sufficient statistics included (:func:`load` reads it back)."""
        return {"format": _FORMAT, "settings": _settings_json(self.settings),
                "seconds": self.seconds,
                "candidates": [{"play": c.play, "tally": c.tally.to_json(),
                                "ranges": [list(r) for r in c.ranges], "dropped": c.dropped}
                               for c in self.candidates_in_order],
                "pairs": [[i, j, p.to_json()] for (i, j), p in sorted(self.pairs.items())],
                "summary": self.summary()}

    def save(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Write :meth:`to_json` to ``path`` (atomically: a temporary file, then renamed)."""
        with replaced_atomically(path) as f:
            json.dump(self.to_json(), f, indent=1)
            f.write("\n")


def _settings_json(s: Settings) -> dict:
    return {"state": s.state, "plays": list(s.plays), "side": s.side, "policy": list(s.policy),
            "network": s.network, "seed": s.seed, "vr": s.vr, "luck": s.luck, "quasi": s.quasi,
            "truncate": s.truncate, "rules": s.rules}


def load(path_or_data: Union[str, "os.PathLike[str]", dict]) -> Rollout:
    """A :class:`Rollout` saved by :meth:`Rollout.save` (a path) or its :meth:`Rollout.to_json`."""
    if isinstance(path_or_data, dict):
        data = path_or_data
    else:
        try:
            with open(os.fspath(path_or_data), encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, ValueError) as exc:
            raise GulBaraError(f"cannot read a rollout from {path_or_data!r}: {exc}") from None
    try:
        if data.get("format") != _FORMAT:
            raise GulBaraError(f"not a gulbara rollout file (format {data.get('format')!r})")
        s = data["settings"]
        settings = Settings(str(s["state"]), tuple(str(p) for p in s["plays"]), int(s["side"]),
                            (str(s["policy"][0]), str(s["policy"][1])), str(s["network"]),
                            int(s["seed"]), bool(s["vr"]), str(s["luck"]), bool(s["quasi"]),
                            int(s["truncate"]), str(s["rules"]))
        candidates = [Candidate(c["play"], Tally.from_json(c["tally"]),
                                [(int(a), int(b)) for a, b in c["ranges"]], bool(c["dropped"]))
                      for c in data["candidates"]]
        pairs = {(int(i), int(j)): PairTally.from_json(p) for i, j, p in data["pairs"]}
        return Rollout(settings, candidates, pairs, float(data.get("seconds", 0.0)))
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        raise GulBaraError(f"not a gulbara rollout: {exc!r}") from None


def merge(*runs: Rollout) -> Rollout:
    """The rollout of the union of ``runs``: runs of one rollout (equal settings) over disjoint
    game ranges. Exact: the result does not depend on how the games were split.

    >>> import gulbara
    >>> game = gulbara.Game(seed=24)
    >>> a = rollout(game, 36, policy="greedy", seed=3)
    >>> b = rollout(game, 36, policy="greedy", seed=3, first=36)
    >>> merge(a, b).equity == rollout(game, 72, policy="greedy", seed=3).equity
    True
    """
    if not runs:
        raise GulBaraError("merge needs at least one rollout")
    for run in runs:
        if not isinstance(run, Rollout):
            raise TypeError(f"merge takes Rollout objects, not {type(run).__name__}")
    first = runs[0]
    for run in runs[1:]:
        if run.settings != first.settings:
            raise GulBaraError("only runs of one rollout merge: their settings differ")
    candidates = []
    for k, c in enumerate(first.candidates_in_order):
        ranges = sorted(r for run in runs for r in run.candidates_in_order[k].ranges)
        for (a, n), (b, _) in zip(ranges, ranges[1:]):
            if a + n > b:
                raise GulBaraError(f"the runs overlap at game {b}: merge disjoint runs only")
        tally = Tally()
        for run in runs:
            tally = tally + run.candidates_in_order[k].tally
        candidates.append(Candidate(c.play, tally, _joined(ranges),
                                    any(run.candidates_in_order[k].dropped for run in runs)))
    pairs: Dict[Tuple[int, int], PairTally] = {}
    for run in runs:
        for key, p in run.pairs.items():
            pairs[key] = pairs.get(key, PairTally()) + p
    return Rollout(first.settings, candidates, pairs, sum(run.seconds for run in runs))


def _joined(ranges: List[Tuple[int, int]]) -> List[Tuple[int, int]]:
    out: List[Tuple[int, int]] = []
    for a, n in sorted(ranges):
        if out and out[-1][0] + out[-1][1] == a:
            out[-1] = (out[-1][0], out[-1][1] + n)
        else:
            out.append((a, n))
    return out


# ---------------------------------------------------------------------------
# Playing
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class _Job:
    """What a worker needs to play a block (picklable, for Ray)."""

    settings: Settings
    starts: Tuple[str, ...]               # each live candidate's start state code
    indices: Tuple[int, ...]              # their indices among the candidates


def _policy_pair(policy) -> Tuple[str, str]:
    if isinstance(policy, (tuple, list)):
        if len(policy) != 2:
            raise GulBaraError(f"a policy pair is (White's, Black's), got {len(policy)} items")
        pair = (policy[0], policy[1])
    else:
        pair = (policy, policy)
    out = []
    for p in pair:
        if isinstance(p, os.PathLike):
            p = os.fspath(p)
        native_policy(p, player="a rollout")                 # refused here if not native
        out.append(os.path.abspath(p) if is_network_path(p) else p)
    return out[0], out[1]


def _luck_model(rules: Rules):
    """The "model" rule's shipped function for ``rules``' network (imported here, so that
    ``python -m gulbara.rollouts.luckmodel`` runs the module once)."""
    from gulbara.rollouts.luckmodel import luck_model
    return luck_model(rules)


def _play_block(job: _Job, first: int, count: int):
    """Candidate tallies and pair tallies of games ``first .. first + count - 1``."""
    s = job.settings
    rules = Rules.from_dict(json.loads(s.rules))
    starts = [Game.from_state_code(code, rules) for code in job.starts]
    natives = [native_policy(p, rules, player="a rollout") for p in s.policy]
    scorer = default_net(rules)
    race = bearoff_table()
    model = _luck_model(rules) if s.vr and s.luck == "model" else None
    out = _rollout.rollout_block(starts, s.side, [n for n, _ in natives],
                                 [net for _, net in natives], scorer.native, s.vr, s.seed,
                                 first, count, s.truncate, s.quasi, LUCK_RULES[s.luck],
                                 race.dist, race.first_dist,
                                 None if model is None else model.packed(),
                                 0 if model is None else model.units)
    estimate = out["points"] - out["luck"] if s.vr else out["points"]
    lose = 1.0 - out["win"] - out["draw"]
    tallies = []
    for k in range(len(starts)):
        tallies.append(Tally.of({
            "points": out["points"][k], "luck": out["luck"][k], "estimate": estimate[k],
            "win": out["win"][k], "lose": lose[k], "win_mars": out["win_mars"][k],
            "lose_mars": out["lose_mars"][k], "draw": out["draw"][k].astype(np.float64)}))
    pairs = {}
    for a in range(len(starts)):
        for b in range(a + 1, len(starts)):
            pairs[(job.indices[a], job.indices[b])] = PairTally.of(estimate[a], estimate[b])
    return tallies, pairs


def rollout(position: Union[Game, str], games: int = 1296, *,
            policy=DEFAULT_POLICY, candidates: Union[None, int, Sequence] = None,
            vr: bool = True, luck: str = "full", quasi: bool = True, truncate: int = 0,
            seed: int = 0,
            first: int = 0, workers: int = 1, backend: str = "local",
            target_se: Optional[float] = None, drop: Optional[float] = 3.0,
            rules: Optional[Rules] = None, seat: Union[int, str, None] = None,
            ranker: str = "net", resume: Optional[Rollout] = None,
            progress: Optional[Callable[["Rollout"], None]] = None) -> Rollout:
    """Roll ``position`` out for ``games`` games (module docstring).

    ``position`` is a :class:`~gulbara.Game` or a state code (a plain position code with
    ``seat``, the side to roll). ``candidates`` (at a decision): a number ``K``, the best ``K``
    plays by ``ranker``'s :meth:`rank` (chain and remainder stages by their whole-turn
    outcomes), or a list of plays (``Play`` objects or notation); all on the same dice.
    ``luck``: how a roll is valued for its luck (:data:`LUCK_RULES`).
    ``truncate``: score a game by the network after that many rolls (exactly by the bear-off
    database when both sides bear off). ``target_se``: stop once the best candidate's
    equity and each live difference to it have a standard error at most this (after at least
    one block of :data:`BLOCK_GAMES`); ``drop``: drop a candidate once its difference to the
    best is more than ``drop`` standard errors below 0 (after 144 games; None never drops).
    ``first`` is the first game's index, ``resume`` a saved run to go on with.
    """
    start, plays, side = _start(position, rules, seat, candidates, ranker)
    rules = start.rules
    games = checked_int(games, "games", 1)
    seed = checked_int(seed, "seed", 0, 2**64 - 1, bounds="0 .. 2**64 - 1")
    first = checked_int(first, "first", 0, 2**63 - 1)
    truncate = checked_int(truncate, "truncate", 0, 100_000)
    workers = checked_int(workers, "workers", 1, 1024)
    if luck not in LUCK_RULES:
        raise GulBaraError(f"luck is one of {', '.join(LUCK_RULES)}, got {luck!r}")
    if vr and luck == "model":
        _luck_model(rules)                        # refused here if none ships for the network
    if backend not in ("local", "ray"):
        raise GulBaraError(f"backend is 'local' or 'ray', got {backend!r}")
    if target_se is not None:
        target_se = checked_positive(target_se, "target_se", "number of points")
    if drop is not None:
        drop = checked_positive(drop, "drop", "number of standard errors")
    settings = Settings(start.state_code(), tuple(plays), side, _policy_pair(policy),
                        default_net(rules).sha256(), seed, bool(vr), luck, bool(quasi), truncate,
                        json.dumps(rules.to_dict(), sort_keys=True))
    starts = _candidate_starts(start, plays)
    if resume is not None:
        if not isinstance(resume, Rollout):
            raise TypeError(f"resume takes a Rollout, not {type(resume).__name__}")
        if resume.settings != settings:
            raise GulBaraError("the saved rollout has other settings: cannot resume it")
        result = resume
        first = max((a + n for c in result.candidates_in_order for a, n in c.ranges),
                    default=first)
    else:
        result = Rollout(settings, [Candidate(p or None) for p in (plays or [""])])
    began = time.perf_counter()
    runner = _Runner(workers, backend)
    try:
        while result.games < games:
            live = [i for i, c in enumerate(result.candidates_in_order) if not c.dropped]
            block = min(games - result.games, BLOCK_GAMES * max(1, runner.width))
            job = _Job(settings, tuple(starts[i] for i in live), tuple(live))
            part = runner.play(job, first, block)
            for i, tally in zip(live, part[0]):
                c = result.candidates_in_order[i]
                c.tally = c.tally + tally
                c.ranges = _joined(c.ranges + [(first, block)])
            for key, p in part[1].items():
                result.pairs[key] = result.pairs.get(key, PairTally()) + p
            first += block
            result.seconds += time.perf_counter() - began
            began = time.perf_counter()
            if progress is not None:
                progress(result)
            if _stop(result, target_se, drop):
                break
    finally:
        runner.close()
    return result


def _stop(result: Rollout, target_se: Optional[float], drop: Optional[float]) -> bool:
    """Drop the clearly worse candidates; whether the target standard error is reached."""
    best = result.best
    if drop is not None:
        for c in result.candidates_in_order:
            if c is best or c.dropped or c.games < BLOCK_GAMES:
                continue
            d = result.difference(c.play)
            if d.se > 0 and d.value + drop * d.se < 0:
                c.dropped = True
    if target_se is None:
        return False
    if best.equity.se > target_se:
        return False
    return all(result.difference(c.play).se <= target_se
               for c in result.candidates_in_order if c is not best and not c.dropped)


class _Runner:
    """Plays blocks on ``workers`` threads (the native games release the GIL) or on Ray."""

    def __init__(self, workers: int, backend: str) -> None:
        self.backend = backend
        self.width = workers
        self.pool = ThreadPoolExecutor(workers) if backend == "local" and workers > 1 else None
        if backend == "ray":
            try:
                import ray
            except ImportError as exc:
                raise GulBaraError("backend='ray' needs Ray: pip install 'gulbara[ray]'") \
                    from exc
            if not ray.is_initialized():
                ray.init(ignore_reinit_error=True, log_to_driver=False)
            self.remote = ray.remote(_play_block)
            self.width = max(1, int(ray.cluster_resources().get("CPU", 1)))

    def play(self, job: _Job, first: int, count: int):
        parts = _split(first, count, self.width)
        if self.backend == "ray":
            import ray
            results = ray.get([self.remote.remote(job, a, n) for a, n in parts])
        elif self.pool is not None:
            results = list(self.pool.map(lambda part: _play_block(job, *part), parts))
        else:
            results = [_play_block(job, a, n) for a, n in parts]
        tallies = [Tally() for _ in job.indices]
        pairs: Dict[Tuple[int, int], PairTally] = {}
        for part_tallies, part_pairs in results:
            tallies = [t + p for t, p in zip(tallies, part_tallies)]
            for key, p in part_pairs.items():
                pairs[key] = pairs.get(key, PairTally()) + p
        return tallies, pairs

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)


def _split(first: int, count: int, parts: int) -> List[Tuple[int, int]]:
    """``count`` games from ``first`` in at most ``parts`` runs of whole 36s where possible."""
    size = max(36, -(-count // parts))
    size += (-size) % 36
    return [(a, min(size, first + count - a)) for a in range(first, first + count, size)]


def _start(position, rules, seat, candidates, ranker) -> Tuple[Game, List[str], int]:
    if isinstance(position, str):
        from gulbara.game.state_codes import state_code
        game = Game.from_state_code(state_code(position, seat, rules=rules), rules)
    elif isinstance(position, Game):
        if rules is not None and rules != position.rules:
            raise GulBaraError("give the rules through the game: they differ")
        if seat is not None:
            raise GulBaraError("seat goes with a position code, not a Game")
        game = position.copy(auto_roll=False)
    else:
        raise TypeError(f"rollout needs a gulbara.Game or a state code, "
                        f"not {type(position).__name__}")
    if game.is_over():
        raise GulBaraError("the game is over: nothing to roll out")
    side = game.to_move if game.to_move is not None else 0
    if candidates is None:
        return game, [], side
    if not game.is_decision():
        raise GulBaraError("candidates need a decision (a stage to play)")
    legal = game.legal_plays()
    if isinstance(candidates, bool):
        raise TypeError("candidates is a number or a list of plays, not a bool")
    if isinstance(candidates, int):
        k = checked_int(candidates, "candidates", 1, 64)
        if not (isinstance(ranker, str) and (ranker in REGISTRY or is_network_path(ranker))):
            raise GulBaraError(f"unknown ranker {ranker!r} (choose from "
                               f"{', '.join(sorted(REGISTRY))} or an .npz network)")
        bot = make_bot(ranker)
        rank = getattr(bot, "rank", None)
        if rank is None:
            raise GulBaraError(f"{bot_label(ranker)} cannot rank plays: use net or net2")
        chosen = [play for play, _ in rank(game)[:k]]
    elif isinstance(candidates, str):
        raise TypeError("candidates is a number or a list of plays, not one play")
    else:
        chosen = []
        for play in candidates:
            found = legal.find(play)
            if found is None:
                raise GulBaraError(f"{play} is not a legal play of this decision")
            chosen.append(found)
        if not chosen:
            raise GulBaraError("no candidate plays")
    names = [str(p) for p in chosen]
    if len(set(names)) != len(names):
        raise GulBaraError("a candidate is given twice")
    decision = game.decision
    assert decision is not None                      # checked above
    return game, names, decision.seat


def _candidate_starts(start: Game, plays: Sequence[str]) -> List[str]:
    if not plays:
        return [start.state_code()]
    codes = []
    for play in plays:
        after = start.copy(auto_roll=False)
        after.play(after.legal_plays().parse(play))
        codes.append(after.state_code())
    return codes

