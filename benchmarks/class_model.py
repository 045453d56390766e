"""A slow model of three ways to expand one bucket of a chain stage, counting their work.

While no step can bear off, a step of die d keeps its checker on the same class of points
modulo d (RULES §2.1), and a side's own checkers never block it (RULES §2.2): a position's
ends in a stage of four d's are, for every way to share the four steps among the classes, the
product of each class's ends with its share. `chain_ends` puts the positions of a big stage in
buckets (the same count of checkers in every class) and expands each bucket a step at a time,
merging equal positions after every step. This script takes the largest buckets of one stage of
a real-game chain and counts, for each bucket, the ends made by

* **whole**: each position expanded on its own (its ends are distinct);
* **steps**: the step-at-a-time expansion of `chain_ends` (sources in non-increasing order;
  every child made is a probe of a table);
* **one class factored**: the positions grouped by their points outside one class, each group's
  ends made once per (its class ends, the group's other classes' ends) pair; the best class;
* **class by class**: a layer per class, holding (the ends of the classes done, the steps they
  used, the points of the classes to come), merged after every class; the best of three orders.

It also counts the bucket's distinct ends, and `--check` compares the ends of the largest bucket
of at most 200 positions with `remainder_ends` of each of its positions.

    python benchmarks/class_model.py --chain 7:37 --before 2,3,4 --die 5 --buckets 2

``--chain SEED:PLY`` names a chain of `gulbara.tools.suites.REAL_GAME_CHAINS`; ``--before`` the stages
played before the one modelled. It is a model for deciding on a design, in pure Python (slow).
"""

import argparse
import itertools
import sys
import time
from collections import defaultdict

import numpy as np

import gulbara
from gulbara.tools import suites
from gulbara.chains.enumeration import STOP_COMPLETE
from gulbara.conventions import OTHER_POINT

N_DICE = 4


class Stage:
    """The positions of one stage of four ``die``'s that no step can bear off, by bucket."""

    def __init__(self, code, seat, before, die):
        frontier = gulbara.remainder_ends(code, seat, [[n] * N_DICE for n in before])
        boards = frontier.boards[frontier.stop == STOP_COMPLETE].astype(np.int64)
        own = np.arange(1, 25) if seat == 0 else np.array(OTHER_POINT)
        sign = 1 if seat == 0 else -1
        mover = sign * boards[:, own - 1]                   # column p - 1: own point p
        self.blocked = frozenset(int(p) for p in np.nonzero(mover[0] < 0)[0] + 1)
        mover = np.where(mover > 0, mover, 0)
        self.counts = mover[mover[:, 6:].sum(axis=1) >= N_DICE]   # no step can bear off
        self.die = die
        self.lines = [sorted((p for p in range(1, 25) if p % die == c), reverse=True)
                      for c in range(die)]
        classes = np.stack([self.counts[:, [p - 1 for p in line]].sum(axis=1)
                            for line in self.lines], axis=1)
        _, self.bucket_of, self.bucket_sizes = np.unique(classes, axis=0, return_inverse=True,
                                                         return_counts=True)
        self.bucket_of = self.bucket_of.ravel()
        self._ends = {}

    def class_ends(self, c, sub, k):
        """The ends of class ``c``'s checkers ``sub`` (counts along its line, highest point
        first) after ``k`` steps of the die."""
        key = (c, sub, k)
        found = self._ends.get(key)
        if found is None:
            if k == 0:
                found = frozenset([sub])
            else:
                line, made = self.lines[c], set()
                for prev in self.class_ends(c, sub, k - 1):
                    for i in range(len(prev) - 1):
                        if prev[i] and line[i + 1] not in self.blocked:
                            step = list(prev)
                            step[i] -= 1
                            step[i + 1] += 1
                            made.add(tuple(step))
                found = frozenset(made)
            self._ends[key] = found
        return found

    def bucket(self, rank):
        """The positions of the ``rank``-th largest bucket, each as its classes' counts."""
        which = np.argsort(-self.bucket_sizes, kind="stable")[rank]
        rows = self.counts[self.bucket_of == which]
        return [tuple(tuple(int(v) for v in row[[p - 1 for p in line]]) for line in self.lines)
                for row in rows]

    def shares(self):
        return [k for k in itertools.product(range(N_DICE + 1), repeat=self.die)
                if sum(k) == N_DICE]

    def position_ends(self, pos):
        """The distinct ends of one position (a set of class tuples)."""
        ends = set()
        for k in self.shares():
            ends.update(itertools.product(*(self.class_ends(c, pos[c], k[c])
                                            for c in range(self.die))))
        return ends

    def plays_all(self, pos):
        return any(all(self.class_ends(c, pos[c], k[c]) for c in range(self.die))
                   for k in self.shares())


def flat(pos, lines):
    """A position as 24 counts by own point (index p - 1)."""
    counts = [0] * 24
    for line, sub in zip(lines, pos):
        for p, n in zip(line, sub):
            counts[p - 1] = n
    return tuple(counts)


def step_work(stage, bucket):
    """Children made by the step-at-a-time expansion (sources in non-increasing order)."""
    d, made = stage.die, 0
    layer = {flat(pos, stage.lines): 24 for pos in bucket}
    for _ in range(N_DICE):
        following = {}
        for counts, top in layer.items():
            for p in range(min(top, 24), d, -1):
                if counts[p - 1] and (p - d) not in stage.blocked:
                    child = list(counts)
                    child[p - 1] -= 1
                    child[p - d - 1] += 1
                    child = tuple(child)
                    made += 1
                    if following.get(child, 0) < p:
                        following[child] = p
        layer = following
    return made, len(layer)


def factored_work(stage, bucket, c_star):
    """Ends made with the positions grouped by their classes other than ``c_star``."""
    groups = defaultdict(set)
    others = [c for c in range(stage.die) if c != c_star]
    for pos in bucket:
        groups[tuple(pos[c] for c in others)].add(pos[c_star])
    made = 0
    for rest, subs in groups.items():
        for k in stage.shares():
            union = set()
            for sub in subs:
                union |= stage.class_ends(c_star, sub, k[c_star])
            n = len(union)
            for j, c in enumerate(others):
                if not n:
                    break
                n *= len(stage.class_ends(c, rest[j], k[c]))
            made += n
    return made, len(groups)


def class_by_class_work(stage, bucket, order):
    """Entries made by a layer per class (``order``), and the layers' sizes."""
    layer = {(0, pos) for pos in bucket}
    made, sizes = 0, [len(layer)]
    for depth, c in enumerate(order):
        following, last = set(), depth == len(order) - 1
        for used, pos in layer:
            for k in ([N_DICE - used] if last else range(N_DICE + 1 - used)):
                for end in stage.class_ends(c, pos[c], k):
                    made += 1
                    following.add((used + k, pos[:c] + (end,) + pos[c + 1:]))
        layer = following
        sizes.append(len(layer))
    return made, sizes


def model_bucket(stage, rank):
    bucket = [pos for pos in stage.bucket(rank) if stage.plays_all(pos)]
    started = time.perf_counter()
    distinct, whole = set(), 0
    for pos in bucket:
        ends = stage.position_ends(pos)
        whole += len(ends)
        distinct |= ends
    steps, layer_ends = step_work(stage, bucket)
    assert layer_ends == len(distinct), (layer_ends, len(distinct))
    factored = min(factored_work(stage, bucket, c) + (c,) for c in range(stage.die))
    variety = sorted(range(stage.die), key=lambda c: -len({pos[c] for pos in bucket}))
    orders = [tuple(range(stage.die)), tuple(variety), tuple(reversed(variety))]
    by_class = min(class_by_class_work(stage, bucket, order) + (order,) for order in orders)
    n = len(distinct)
    print(f"bucket {rank}: {len(bucket):,} positions, {n:,} distinct ends | each position whole "
          f"{whole:,} ({whole / n:.1f} per end) | steps {steps:,} "
          f"({steps / n:.1f} per end) | one class factored {factored[0]:,} "
          f"({factored[0] / n:.1f}; class {factored[2]}, {factored[1]:,} groups) | "
          f"class by class {by_class[0]:,} "
          f"({by_class[0] / n:.1f}; order {by_class[2]}, layers "
          f"{', '.join(f'{s:,}' for s in by_class[1])}) | {time.perf_counter() - started:.0f} s",
          flush=True)
    return len(bucket), n, steps, factored[0], by_class[0]


def check_bucket(stage, code, seat, most=200):
    """The model's ends of the largest bucket of at most ``most`` positions against
    remainder_ends of each of its positions: (positions, equal, ends)."""
    sizes = np.sort(stage.bucket_sizes)[::-1]
    rank = int(np.argmax(sizes <= most)) if (sizes <= most).any() else len(sizes) - 1
    bucket = [pos for pos in stage.bucket(rank) if stage.plays_all(pos)]
    model = set()
    for pos in bucket:
        model |= {flat(end, stage.lines) for end in stage.position_ends(pos)}
    engine = set()
    sign = 1 if seat == 0 else -1
    for pos in bucket:
        counts = flat(pos, stage.lines)
        ends = gulbara.remainder_ends(_code(counts, stage.blocked, code, seat), seat,
                                      [[stage.die] * N_DICE])
        own = np.arange(1, 25) if seat == 0 else np.array(OTHER_POINT)
        for board in ends.boards:
            engine.add(tuple(int(max(0, sign * v)) for v in board[own - 1]))
    return len(bucket), model == engine, len(model)


def _code(counts, blocked, code, seat):
    """A state code with the mover's checkers ``counts`` and the opponent as in ``code``."""
    from gulbara.core._backend import Position
    points = list(Position.from_code(code).points())
    sign = 1 if seat == 0 else -1
    for own in range(1, 25):
        absolute = own if seat == 0 else OTHER_POINT[own - 1]
        if own not in blocked:
            points[absolute - 1] = sign * counts[own - 1]
    body = ",".join(str(v) if v else "" for v in points)
    return f"G:{body}|0,0|0,0"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chain", default="7:37", help="SEED:PLY of REAL_GAME_CHAINS")
    parser.add_argument("--before", default="2,3,4", help="the stages played before")
    parser.add_argument("--die", type=int, default=5, help="the modelled stage's number")
    parser.add_argument("--buckets", type=int, default=2, help="the largest buckets to model")
    parser.add_argument("--check", action="store_true",
                        help="check the smallest bucket's ends against remainder_ends")
    args = parser.parse_args(argv)
    seed, ply = (int(v) for v in args.chain.split(":"))
    chain = next(c for c in suites.REAL_GAME_CHAINS if (c.seed, c.ply) == (seed, ply))
    before = [int(v) for v in args.before.split(",")] if args.before else []
    stage = Stage(chain.code, chain.seat, before, args.die)
    print(f"{chain.code} seat {chain.seat}: the {args.die}-{args.die} stage after "
          f"{before}: {len(stage.counts):,} positions that cannot bear off, "
          f"{len(stage.bucket_sizes):,} buckets, largest {sorted(stage.bucket_sizes)[-1]:,}")
    if args.check:
        n, same, ends = check_bucket(stage, chain.code, chain.seat)
        print(f"checked bucket: {n} positions, {ends} ends, equal to remainder_ends: {same}")
        if not same:
            return 1
    totals = np.zeros(5, dtype=np.int64)
    for rank in range(args.buckets):
        totals += model_bucket(stage, rank)
    positions, ends, steps, factored, by_class = totals
    print(f"total: {positions:,} positions, {ends:,} ends; per end: steps {steps / ends:.1f}, "
          f"one class factored {factored / ends:.1f}, class by class {by_class / ends:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
