"""How much luck subtraction narrows a rollout, and what it costs: one table.

For positions reached in seeded games (the net policy's own play from the opening: an
opening reply, early contact, mid-game, a race), each rolled out from the side to roll with
the net policy for the same games, plainly and with the luck rules of
``gulbara.rollouts.LUCK_RULES``: the per-game standard deviation of the estimate, the CPU seconds
on one thread, and the equal-time ratio (how much narrower the interval is than a plain
rollout's given the same CPU time: sqrt(var_plain * t_plain / (var * t))). Both use the
quasi-random first two rolls, so the plain column already has those rolls' luck balanced.

With ``--rounds R``, each rule is timed R times (the rules in turn) and its median CPU
seconds kept; the games, and so the means and deviations, are the same every time. With
``--sampled N``, the positions are instead the states of N decisions sampled from the net
policy's games (``gulbara.rollouts.benchmark.sample(N, seed=11)``, as
``benchmarks/rollout_unbiased.py``), and a last line gives each rule's smallest and median
equal-time ratio.

    python benchmarks/rollout_precision.py [--games 1296] [--rules full fast pips model]
                                           [--sampled N] [--rounds R] [--json out.json]
"""

import argparse
import json
import math
import statistics
import time

import numpy as np

import gulbara
from gulbara.eval.bearoff import bearoff_table
from gulbara.net.model import default_net
from gulbara.rollouts import LUCK_RULES, _rollout, benchmark
from gulbara.rollouts.luckmodel import luck_model


def positions():
    """(name, a Game at a side to roll) reached by the net policy's play from the opening, on
    the dice of game 0 of a seeded run, after a number of rolls."""
    from gulbara.game.rng import Rng
    out = []
    for name, seed, rolls in (("opening reply", 1, 1), ("early", 2, 6), ("mid-game", 3, 16),
                              ("late", 4, 30)):
        game = gulbara.Game(auto_roll=False)
        net = default_net(game.rules)
        dice = Rng(seed, 0, 0)
        while True:
            if game.is_opening():
                game.roll_opening(dice.die() + 1, dice.die() + 1)
            elif game.is_chance():
                if game.game_rolls >= rolls:
                    break
                game.roll(dice.die() + 1, dice.die() + 1)
            else:
                values = net.stage_values(game)
                game.play(game.legal_plays()[int(np.argmax(values))])
        out.append((name, game))
    return out


def sampled(n):
    """(id, the Game) of each of ``n`` decisions sampled from the net policy's games."""
    return [(d["id"], gulbara.Game.from_state_code(d["state"]))
            for d in benchmark.sample(n, seed=11)]


def measure(start, games, vr, luck):
    net = default_net(start.rules)
    race = bearoff_table()
    model = luck_model(start.rules) if luck == "model" else None
    began = time.process_time()
    out = _rollout.rollout_block([start], start.to_move, ("net", "net"), (net.native,) * 2,
                                 net.native, vr, 1, 0, games, 0, True, LUCK_RULES[luck],
                                 race.dist, race.first_dist,
                                 None if model is None else model.packed(),
                                 0 if model is None else model.units)
    seconds = time.process_time() - began
    estimate = out["points"][0] - (out["luck"][0] if vr else 0.0)
    assert np.all(np.isfinite(estimate)) and estimate.size == games
    return float(estimate.mean()), float(estimate.std(ddof=1)), seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1296)
    parser.add_argument("--json")
    parser.add_argument("--rules", nargs="+", choices=tuple(LUCK_RULES), default=None,
                        help="the luck rules to measure (default: every one)")
    parser.add_argument("--sampled", type=int, default=0,
                        help="roll out the states of this many sampled decisions instead")
    parser.add_argument("--rounds", type=int, default=1,
                        help="time every rule this many times, the rules in turn, and take "
                             "each one's median CPU seconds (default 1)")
    args = parser.parse_args()
    rows = []
    print(f"{'position':<14} {'rule':<6} {'mean':>8} {'sd':>6} {'half-width':>10} "
          f"{'seconds':>8} {'equal-time':>10}")
    rules = ("plain",) + tuple(args.rules or LUCK_RULES)
    for name, start in (sampled(args.sampled) if args.sampled else positions()):
        runs = {rule: [] for rule in rules}
        for _ in range(args.rounds):                 # the rules in turn, round after round
            for rule in rules:
                runs[rule].append(measure(start, args.games, rule != "plain",
                                          "full" if rule == "plain" else rule))
        timed = {rule: (got[0][0], got[0][1], statistics.median(t for _, _, t in got))
                 for rule, got in runs.items()}
        plain = timed["plain"]
        for rule in rules:
            mean, sd, seconds = timed[rule]
            ratio = math.sqrt(plain[1] ** 2 * plain[2] / (sd * sd * seconds))
            half = 1.959964 * sd / math.sqrt(args.games)
            rows.append({"position": name, "state": start.state_code(), "rule": rule,
                         "games": args.games, "mean": mean, "sd": sd, "half_width": half,
                         "seconds": seconds, "equal_time_ratio": ratio})
            print(f"{name:<14} {rule:<6} {mean:+8.4f} {sd:6.3f} {half:10.4f} {seconds:8.2f} "
                  f"{ratio:10.2f}", flush=True)
    for rule in args.rules or LUCK_RULES:
        ratios = sorted(r["equal_time_ratio"] for r in rows if r["rule"] == rule)
        print(f"{rule}: equal-time ratio smallest {ratios[0]:.2f}, median "
              f"{statistics.median(ratios):.2f} over {len(ratios)} positions")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(rows, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
