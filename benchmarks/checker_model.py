"""A slow model of a per-checker enumeration of whole chains, measured on real games.

Within an escalating chain the opponent never moves and a side's own checkers never block it
(RULES §2.2), so while no step can bear off (RULES §2.3) a checker's path depends only on the dice
it is given, in stage order (RULES §4.3), and a complete chain's end is a multiset of per-checker
paths using exactly four dice of every number. This script enumerates those ends checker by
checker: a layer holds the distinct partial multisets of ends of the checkers placed so far, each
with the set of dice-use vectors (one digit 0..4 per number, held as a bitset) that reach it and
that the remaining checkers can still complete to four of every number.

It counts, for every chain of `gulbara.suites.REAL_GAME_CHAINS` in the outcome range asked for
whose mover cannot bear off within the chain (more pips to bring home than the chain can move),
the complete outcomes (checked against `chain_ends`), the largest layer, and the work a native
version would do: (partial multiset, dice-use vector) pairs read, additions of a checker's
dice-use vectors to them checked, and pairs written to the next layer; beside it, the time of
the stage-by-stage `chain_ends` on one thread.

    python benchmarks/checker_model.py --min 1000 --max 70000

It is a model for deciding on a design, in pure Python (slow): it is not a generator.
"""

import argparse
import sys
import time

import numpy as np

import gulbara
from gulbara import suites
from gulbara.chains import STOP_COMPLETE


def mover_counts(code, seat):
    """The mover's checkers per own point (index 1..24) and the opponent's points, in the
    mover's numbering (RULES §1.3)."""
    points = gulbara.Position.from_code(code).points()
    counts = [0] * 25
    blocked = set()
    for white_point, value in enumerate(points, 1):
        own = white_point if seat == 0 else (white_point + 11) % 24 + 1
        mine = value > 0 if seat == 0 else value < 0
        if mine:
            counts[own] += abs(value)
        elif value:
            blocked.add(own)
    return counts, blocked


def checker_options(start, numbers, blocked):
    """{pips moved: [dice-use vectors]} of one checker's paths that never bear off."""
    options = {}

    def walk(stage, point, use):
        if stage == len(numbers):
            options.setdefault(start - point, []).append(tuple(use))
            return
        here = point
        for k in range(5):
            if k:
                here -= numbers[stage]
                if here < 1 or here in blocked:
                    break
            use.append(k)
            walk(stage + 1, here, use)
            use.pop()

    walk(0, start, [])
    return sorted(options.items())


class UseSpace:
    """Dice-use vectors as bit indices (base 5, one digit per number) and their shifts."""

    def __init__(self, n_numbers):
        self.n = n_numbers
        self.size = 5 ** n_numbers
        index = np.arange(self.size)
        self.digits = np.stack([(index // 5 ** s) % 5 for s in range(n_numbers)])
        self._masks = {}

    def offset(self, use):
        return sum(k * 5 ** s for s, k in enumerate(use))

    def mask(self, use):
        """The vectors that ``use`` can be added to without a digit passing 4, as an int."""
        found = self._masks.get(use)
        if found is None:
            ok = np.all(self.digits <= 4 - np.array(use)[:, None], axis=0)
            found = int.from_bytes(np.packbits(ok, bitorder="little").tobytes(), "little")
            self._masks[use] = found
        return found

    def add(self, bits, use):
        return (bits & self.mask(use)) << self.offset(use)

    def complement(self, bits):
        """Bit r set when bit (all fours - r) of ``bits`` is."""
        text = format(bits, f"0{self.size}b")     # bit size-1 first
        return int(text[::-1], 2)


def complete_outcomes(counts, blocked, numbers):
    """The complete outcomes (as packed mover keys) and the model's work counters."""
    space = UseSpace(len(numbers))
    checkers = [x for x in range(24, 0, -1) for _ in range(counts[x])]
    options = {x: checker_options(x, numbers, blocked) for x in set(checkers)}
    # What the checkers from i on can absorb, and so what a partial vector may be.
    absorb = [0] * len(checkers) + [1]
    for i in range(len(checkers) - 1, -1, -1):
        bits = 0
        for _, uses in options[checkers[i]]:
            for use in uses:
                bits |= space.add(absorb[i + 1], use)
        absorb[i] = bits
    completable = [space.complement(bits) for bits in absorb]
    layer = {0: 1}
    largest, pairs, checks, inserts = 1, 0, 0, 0
    for i, start in enumerate(checkers):
        following = {}
        n_uses = sum(len(uses) for _, uses in options[start])
        for key, bits in layer.items():
            held = bin(bits).count("1")
            pairs += held
            checks += held * n_uses
            for pips, uses in options[start]:
                reached = 0
                for use in uses:
                    reached |= space.add(bits, use)
                reached &= completable[i + 1]
                if reached:
                    inserts += bin(reached).count("1")
                    end = key + (1 << (4 * (start - pips - 1)))
                    following[end] = following.get(end, 0) | reached
        layer = following
        largest = max(largest, len(layer))
    full = space.size - 1
    ends = {key for key, bits in layer.items() if bits >> full & 1}
    return ends, {"largest_layer": largest, "pairs": pairs, "checks": checks,
                  "inserts": inserts}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--min", type=int, default=1000, help="fewest outcomes of a chain")
    parser.add_argument("--max", type=int, default=70000, help="most outcomes of a chain")
    args = parser.parse_args(argv)
    print("| chain | outcomes | complete | largest layer | pairs read | additions checked | "
          "pairs written | written per outcome | chain_ends, 1 thread |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    failures = 0
    for chain in suites.REAL_GAME_CHAINS:
        if not args.min <= chain.outcomes <= args.max:
            continue
        counts, blocked = mover_counts(chain.code, chain.seat)
        numbers = list(range(chain.first, 7))
        to_home = sum((x - 6) * counts[x] for x in range(7, 25))
        if to_home <= 4 * sum(numbers) - numbers[0]:
            print(f"| game {chain.seed} ply {chain.ply} | {chain.outcomes:,} | "
                  f"(could bear off: not modelled) | | | | | | |")
            continue
        ends, counters = complete_outcomes(counts, blocked, numbers)
        began = time.perf_counter()
        exact = gulbara.chain_ends(chain.code, chain.seat, chain.first, threads=1)
        seconds = time.perf_counter() - began
        complete = int(np.count_nonzero(exact.stop == STOP_COMPLETE))
        failures += complete != len(ends)
        print(f"| game {chain.seed} ply {chain.ply} ({chain.first}-{chain.first}) | "
              f"{chain.outcomes:,} | {len(ends):,}{'' if complete == len(ends) else ' WRONG'} | "
              f"{counters['largest_layer']:,} | {counters['pairs']:,} | {counters['checks']:,} | "
              f"{counters['inserts']:,} | {counters['inserts'] // chain.outcomes:,} | "
              f"{seconds * 1e3:,.0f} ms |", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
