"""Luck subtraction is unbiased: a 1,296-game rollout with it against a 50,000-game plain one.

On decisions sampled from the net policy's games (``gulbara.rollouts.benchmark.sample``, a third
of them chain or remainder stages), each state is rolled out by the net policy twice, with the
same seed: 1,296 games with luck subtracted (the full rule, or ``--luck``) and 50,000 games without. The two
agree when their difference is within the joint 99% interval (2.576 times the combined standard
error); the table prints each, and the count of agreements.

    python benchmarks/rollout_unbiased.py [--positions 10] [--vr-games 1296]
                                          [--plain-games 50000] [--workers 2]
                                          [--luck full|fast|pips|model]
"""

import argparse
import math
import time

import gulbara
from gulbara.rollouts import LUCK_RULES, benchmark, rollout


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=10)
    parser.add_argument("--vr-games", type=int, default=1296)
    parser.add_argument("--plain-games", type=int, default=50_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--luck", choices=tuple(LUCK_RULES), default="full")
    args = parser.parse_args()
    agree = 0
    print(f"{'decision':<16} {'kind':<9} {'VR equity':>18} {'plain equity':>18} {'z':>6}")
    for d in benchmark.sample(args.positions, seed=args.seed):
        game = gulbara.Game.from_state_code(d["state"])
        began = time.perf_counter()
        vr = rollout(game, args.vr_games, seed=1, luck=args.luck, workers=args.workers).equity
        plain = rollout(game, args.plain_games, seed=2, vr=False, workers=args.workers).equity
        z = (vr.value - plain.value) / math.hypot(vr.se, plain.se)
        agree += abs(z) <= 2.576
        print(f"{d['id']:<16} {d['kind']:<9} {vr.value:+.4f} +-{1.96 * vr.se:.4f} "
              f"{plain.value:+.4f} +-{1.96 * plain.se:.4f} {z:+6.2f}  "
              f"({time.perf_counter() - began:.0f} s)", flush=True)
    print(f"{agree} of {args.positions} agree within the joint 99% interval")


if __name__ == "__main__":
    main()
