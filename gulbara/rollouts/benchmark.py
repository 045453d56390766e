"""A rolled-out benchmark of Gul Bara decisions, and a bot's error rate on it.

A **decision set** is a JSON-lines file, one decision a line: its state code, what kind of stage
it is (``plain``, ``chain``, ``remainder``), its phase (``opening``: the game's first four rolls;
``bearoff``: both sides home; else ``middle``), and its best candidate plays by ``net2`` rolled
out on common dice with luck subtraction (:func:`gulbara.rollouts.rollout`): each one's equity
and its difference to the best with their standard errors, the games it played and whether it
was dropped.

* :func:`sample` draws decisions (with two legal plays or more) from games of the native ``net``
  policy against itself, each game on the dice of a seeded run, in the proportion play meets
  them: openings, contact, races and bear-offs (:func:`game_phase`), and about a third of them
  stages of escalating chains or remainders; it tops a set up in that proportion.
* :func:`build` rolls each sampled decision out and appends it to the set, skipping those the
  file has: it is resumable, and pieces built apart (other seeds, other machines) concatenate.
* :func:`score` is a bot's **error rate**: the mean equity it loses per decision against the
  rollout-best play, in millipoints, with a 95% interval over the decisions (and by kind and
  by :func:`game_phase`). A choice that is not among the rolled-out candidates is charged the
  largest loss of the candidates (``net2`` ranked it below all of them), and counted. The
  **noise floor** is what a player that always chose the truly best candidate would be
  charged, given the rollouts' own error (by simulation from each candidate's equity and
  standard error). :meth:`Score.against` compares two bots
  decision by decision (a paired interval, far tighter than the two error rates' own).

>>> import gulbara
>>> line = {"id": "d0", "state": gulbara.Game(seed=24).state_code(), "kind": "plain",
...         "phase": "opening", "candidates": [
...             {"play": "24/18 24/20", "equity": 0.05, "se": 0.01, "difference": 0.0,
...              "difference_se": 0.0, "games": 1296, "dropped": False},
...             {"play": "24/14", "equity": 0.02, "se": 0.01, "difference": -0.03,
...              "difference_se": 0.01, "games": 1296, "dropped": False}]}
>>> result = score("first", [line])
>>> result.decisions, round(result.error_rate, 1)       # "first" plays 24/18 24/20 here
(1, 0.0)
"""

import json
import math
import os
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np

from gulbara.bots.registry import bot_label, make_bot
from gulbara.conventions import mean_interval
from gulbara.errors import GulBaraError, checked_int
from gulbara.eval.bearoff import is_bearoff, is_race
from gulbara.game.driver import Game
from gulbara.game.rng import Rng
from gulbara.net.model import default_net
from gulbara.rollouts.rollout import rollout

__all__ = ["sample", "build", "load_set", "score", "game_phase", "Score", "DEFAULT_SET", "KINDS",
           "PHASES", "GAME_PHASES", "PER_GAME"]

#: The decision set shipped with gulbara (its commands: docs/user/rollouts.md).
DEFAULT_SET = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "decisions.jsonl")
KINDS = ("plain", "chain", "remainder")
PHASES = ("opening", "middle", "bearoff")
#: A decision's phase as error rates are broken down (:func:`game_phase`).
GAME_PHASES = ("opening", "contact", "race", "bearoff")
PER_GAME = ("uniform", "first")
#: The most a decision can lose, in millipoints: a cubeless equity is within +-2 points.
MOST_LOST = 4000.0


def _kind(game: Game) -> str:
    d = game.decision
    assert d is not None
    return "remainder" if d.is_remainder else "chain" if d.is_chain else "plain"


def _phase(game: Game) -> str:
    if game.game_rolls <= 4:
        return "opening"
    return "bearoff" if is_bearoff(game.position) else "middle"


def game_phase(decision: dict) -> str:
    """A decision's phase among :data:`GAME_PHASES`, from its state: ``opening`` or
    ``bearoff`` as its line's phase, the middle game split into ``race`` where no checker can
    block the other side's any more (:func:`gulbara.eval.bearoff.is_race`) and ``contact``.

    >>> import gulbara
    >>> game_phase({"state": gulbara.Game(seed=24).state_code()})
    'opening'
    """
    return _game_phase(Game.from_state_code(decision["state"]))


def _game_phase(game: Game) -> str:
    phase = _phase(game)
    if phase != "middle":
        return phase
    return "race" if is_race(game.position) else "contact"


def _stratum(decision: dict) -> Tuple[str, str]:
    """A decision's stratum in :func:`sample`: plain or not, and its :func:`game_phase`."""
    return ("plain" if decision["kind"] == "plain" else "chain", game_phase(decision))


def _net_game_decisions(seed: int, game_index: int, network) -> Iterator[Tuple[Game, int]]:
    """Game ``game_index`` of the run seeded ``seed``, the ``net`` policy on both sides: each
    decision with two plays or more, as the game and the decision's index, before it is played."""
    dice = Rng(seed, game_index, 0)
    game = Game(auto_roll=False)
    decision = 0
    while not game.is_over() and game.game_rolls < 10_000:
        if game.is_opening():
            game.roll_opening(dice.die() + 1, dice.die() + 1)
            continue
        if game.is_chance():
            game.roll(dice.die() + 1, dice.die() + 1)
            continue
        plays = game.legal_plays()
        if len(plays) > 1:
            yield game, decision
        values = network.stage_values(game) if len(plays) > 1 else [0.0]
        game.play(plays[int(np.argmax(values))])
        decision += 1


def _described(game: Game, seed: int, game_index: int, decision: int) -> dict:
    return {"id": f"s{seed}g{game_index}d{decision}", "state": game.state_code(),
            "kind": _kind(game), "phase": _phase(game)}


def sample(n: int, seed: int = 0, *, per_game: str = "uniform", have: Iterable[dict] = (),
           chain_share: float = 1 / 3) -> List[dict]:
    """Decisions from games of the native ``net`` policy against itself (game ``i`` on the
    dice of game ``i`` of the run seeded ``seed``), in the order play meets them: of each
    game's decisions with two plays or more, one in eight is picked at random (the run's
    stream 2), and at most three a game are kept. Each: ``id``, ``state``, ``kind``, ``phase``.

    * ``per_game="uniform"`` keeps three of a game's picks drawn uniformly (stream 3), so each
      decision play meets is equally likely to be sampled: openings, contact, races and
      bear-offs come in the proportion play meets them, and so do chain stages (about a third).
      ``have`` (decisions already in a set, from other seeds) stand in for the first picks of
      their stratum (plain or not, and :func:`game_phase`), and ``n`` is the size of the set
      they top up.
    * ``per_game="first"`` keeps a game's first three picks, ``chain_share`` of ``n`` chain or
      remainder stages and the rest plain ones (this under-samples late decisions: no
      bear-offs; the first piece of the shipped set was sampled so).
    """
    n = checked_int(n, "n", 1)
    if per_game not in PER_GAME:
        raise GulBaraError(f"per_game must be one of {', '.join(PER_GAME)}, not {per_game!r}")
    network = default_net()
    if per_game == "first":
        return _sample_first(n, seed, chain_share, network)
    prefix = f"s{seed}g"
    credit = Counter(_stratum(d) for d in have if not str(d["id"]).startswith(prefix))
    want = n - sum(credit.values())
    out: List[dict] = []
    game_index = 0
    while len(out) < want:
        pick, choose = Rng(seed, game_index, 2), Rng(seed, game_index, 3)
        picked = [_described(game, seed, game_index, decision)
                  for game, decision in _net_game_decisions(seed, game_index, network)
                  if pick.below(8) == 0]
        order = list(range(len(picked)))
        for i in range(min(3, len(order))):             # three of them, uniformly
            j = i + choose.below(len(order) - i)
            order[i], order[j] = order[j], order[i]
        for item in [picked[i] for i in sorted(order[:3])]:     # in the order play met them
            stratum = _stratum(item)
            if credit[stratum] > 0:                     # one of ``have`` stands in for it
                credit[stratum] -= 1
            elif len(out) < want:
                out.append(item)
        game_index += 1
    return out


def _sample_first(n: int, seed: int, chain_share: float, network) -> List[dict]:
    want_chains = int(round(n * chain_share))
    want_plain = n - want_chains
    chains: List[dict] = []
    plain: List[dict] = []
    game_index = 0
    while len(chains) < want_chains or len(plain) < want_plain:
        pick = Rng(seed, game_index, 2)
        kept = 0
        for game, decision in _net_game_decisions(seed, game_index, network):
            if pick.below(8) == 0 and kept < 3:
                kind = _kind(game)
                bucket, want = (plain, want_plain) if kind == "plain" else (chains, want_chains)
                if len(bucket) < want:
                    kept += 1
                    item = _described(game, seed, game_index, decision)
                    item["_order"] = len(plain) + len(chains)
                    bucket.append(item)
        game_index += 1
    out = sorted(plain + chains, key=lambda d: d["_order"])    # in the order play met them
    for d in out:
        del d["_order"]
    return out


def load_set(path_or_lines: Union[str, "os.PathLike[str]", Iterable] = DEFAULT_SET
             ) -> List[dict]:
    """A decision set: the lines of a JSON-lines file, or the decisions themselves."""
    if isinstance(path_or_lines, (str, os.PathLike)):
        try:
            with open(os.fspath(path_or_lines), encoding="utf-8") as f:
                lines = [json.loads(line) for line in f if line.strip()]
        except (OSError, ValueError) as exc:
            raise GulBaraError(f"cannot read a decision set from {path_or_lines!r}: {exc}") \
                from None
    else:
        lines = list(path_or_lines)
    for line in lines:
        if not isinstance(line, dict) or not {"id", "state", "candidates"} <= set(line):
            raise GulBaraError("a decision needs an id, a state and its rolled-out candidates")
    return lines


def build(path: Union[str, "os.PathLike[str]"], decisions: Sequence[dict], *,
          candidates: int = 3, ranker: str = "net2", games: int = 5184,
          target_se: float = 0.005, luck: str = "full", seed: int = 0, workers: int = 1,
          progress: Optional[Callable[[int, int, dict], None]] = None) -> int:
    """Roll out each of ``decisions`` (from :func:`sample`) not yet in the file ``path`` and
    append it: its best ``candidates`` plays by ``ranker``, on common dice, until the best
    one's equity and each live difference to it have a standard error at most ``target_se``
    (about 0.01 equity at 95%) or ``games`` games, a candidate dropped once clearly worse.
    Returns the number of decisions added (resumable: run it again to go on)."""
    path = os.fspath(path)
    if os.path.exists(path):
        with open(path, "rb+") as f:                 # a line cut by a kill: dropped, redone
            data = f.read()
            if data and not data.endswith(b"\n"):
                f.truncate(data.rfind(b"\n") + 1)
    done = {line["id"] for line in load_set(path)} if os.path.exists(path) else set()
    added = 0
    for k, item in enumerate(decisions):
        if item["id"] in done:
            continue
        game = Game.from_state_code(item["state"])
        result = rollout(game, games, candidates=candidates, ranker=ranker, luck=luck,
                         target_se=target_se, seed=seed, workers=workers)
        line = dict(item)
        line["candidates"] = [
            {"play": c.play, "equity": c.equity.value, "se": c.equity.se,
             "difference": result.difference(c.play).value,
             "difference_se": result.difference(c.play).se, "games": c.games,
             "dropped": c.dropped} for c in result.candidates]
        line["settings"] = {"candidates": candidates, "ranker": ranker, "games": games,
                            "target_se": target_se, "luck": luck, "seed": seed,
                            "policy": "net", "vr": True, "quasi": True}
        with open(path, "a", encoding="utf-8") as f:     # one whole line a decision
            f.write(json.dumps(line) + "\n")
            f.flush()
        added += 1
        if progress is not None:
            progress(k + 1, len(decisions), line)
    return added


@dataclass(frozen=True)
class Score:
    """A bot's error rate on a decision set (millipoints per decision)."""

    bot: str
    decisions: int
    error_rate: float
    low: float
    high: float
    outside: int                    # choices not among the rolled-out candidates
    noise_floor: float
    by_kind: Dict[str, float]
    losses: Tuple[float, ...] = ()          # millipoints lost on each decision, in set order
    ids: Tuple[str, ...] = ()               # the decisions' ids, in set order
    by_phase: Dict[str, float] = field(default_factory=dict)      # by game_phase

    def against(self, other: "Score") -> Tuple[float, float, float]:
        """This bot's error rate minus ``other``'s on the same set, decision by decision: the
        mean difference and its 95% interval (paired, so far tighter than the two intervals).

        >>> a = Score("a", 3, 2.0, 0, 4, 0, 0.0, {}, (1.0, 2.0, 3.0), ("x", "y", "z"))
        >>> b = Score("b", 3, 1.0, 0, 2, 0, 0.0, {}, (0.0, 1.0, 2.0), ("x", "y", "z"))
        >>> a.against(b)
        (1.0, 1.0, 1.0)
        """
        for s in (self, other):
            if not s.ids or len(s.losses) != len(s.ids):
                raise GulBaraError(f"the score of {s.bot} has no loss for each of its decisions")
        if self.ids != other.ids:
            raise GulBaraError("scores compare only on the same decision set")
        d = np.array(self.losses) - np.array(other.losses)
        return mean_interval(d.tolist(), bounds=(-MOST_LOST, MOST_LOST))

    def as_dict(self) -> dict:
        return {"bot": self.bot, "decisions": self.decisions, "error_rate": self.error_rate,
                "error_rate_low": self.low, "error_rate_high": self.high,
                "outside": self.outside, "noise_floor": self.noise_floor,
                "by_kind": dict(self.by_kind), "by_phase": dict(self.by_phase)}


def _noise_floor(lines: Sequence[dict], draws: int = 200, seed: int = 0) -> float:
    """What choosing the truly best candidate would be charged, in millipoints a decision, if
    the true equities were the rolled-out ones and each rollout erred by its standard error."""
    rng = np.random.default_rng(seed)
    total = 0.0
    for line in lines:
        eq = np.array([c["equity"] for c in line["candidates"]])
        se = np.array([c["se"] if math.isfinite(c["se"]) else 0.0 for c in line["candidates"]])
        true_best = int(np.argmax(eq))
        measured = eq[None, :] + se[None, :] * rng.standard_normal((draws, eq.size))
        best = measured.max(axis=1)
        total += float(np.mean(best - measured[:, true_best]))
    return 1000.0 * total / max(len(lines), 1)


def score(bot, decisions: Union[str, "os.PathLike[str]", Iterable] = DEFAULT_SET) -> Score:
    """``bot``'s error rate on a decision set (module docstring): a registered bot's name, an
    ``.npz`` network, or a bot object (its ``choose(game)``)."""
    lines = load_set(decisions)
    if not lines:
        raise GulBaraError("the decision set is empty")
    player = make_bot(bot, seed=0) if isinstance(bot, (str, os.PathLike)) else bot
    if not callable(getattr(player, "choose", None)):
        raise TypeError(f"a bot has choose(game), not {type(player).__name__}")
    losses: List[float] = []
    kinds: Dict[str, List[float]] = {}
    phases: Dict[str, List[float]] = {}
    outside = 0
    for line in lines:
        game = Game.from_state_code(line["state"])
        phase = _game_phase(game)                   # before a bot's choose() sees the game
        chosen = str(player.choose(game))
        by_play = {c["play"]: -c["difference"] for c in line["candidates"]}
        if chosen in by_play:
            loss = by_play[chosen]
        else:
            outside += 1
            loss = max(by_play.values())
        loss = max(loss, 0.0)
        losses.append(loss)
        kinds.setdefault(line.get("kind", "plain"), []).append(loss)
        phases.setdefault(phase, []).append(loss)
    x = 1000.0 * np.array(losses)
    mean, low, high = mean_interval(x.tolist(), bounds=(0.0, MOST_LOST))
    name = bot_label(bot) if isinstance(bot, (str, os.PathLike)) else getattr(player, "name",
                                                                                "bot")
    return Score(name, len(lines), mean, low, high, outside,
                 _noise_floor(lines), {k: 1000.0 * float(np.mean(v)) for k, v in kinds.items()},
                 tuple(float(v) for v in x), tuple(str(line["id"]) for line in lines),
                 {p: 1000.0 * float(np.mean(phases[p])) for p in GAME_PHASES if p in phases})
