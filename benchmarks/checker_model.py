"""A slow model of a per-checker enumeration of whole chains, measured on real games.

Within an escalating chain the opponent never moves and a side's own checkers never block it
(RULES §2.2), so while no step can bear off (RULES §2.3) a checker's path depends only on the dice
it is given, in stage order (RULES §4.3), and a complete chain's end is a multiset of per-checker
paths using exactly four dice of every number. This script enumerates those ends checker by
checker: a layer holds the distinct partial multisets of ends of the checkers placed so far, each
with the set of dice-use vectors (one digit 0..4 per number, held as a bitset) that reach it and
that the remaining checkers can still complete to four of every number.

It counts, for every chain of `gulbara.tools.suites.REAL_GAME_CHAINS` in the outcome range asked for
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
from gulbara.tools import suites
from composition import checker_paths, composable, mover_points
from gulbara.chains.enumeration import STOP_COMPLETE


def mover_counts(code, seat):
    """The mover's checkers per own point (index 1..24) and the opponent's points, in the
    mover's numbering (RULES §1.3)."""
    counts, held = mover_points(code, seat)
    return [0, *counts], set(held)


def checker_options(start, numbers, blocked):
    """{pips moved: [dice-use vectors]} of one checker's paths that never bear off
    (composition.checker_paths, its packed vectors as tuples)."""
    options = {}
    for used, end in checker_paths(start, frozenset(blocked), numbers):
        options.setdefault(start - end, []).append(
            tuple((used >> (4 * stage)) & 15 for stage in range(len(numbers))))
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


def pip_candidates(counts, blocked, numbers):
    """The same enumeration with every dice-use vector merged away: a layer holds the
    partial multisets of ends alone, kept while the remaining checkers could still move
    the rest of the chain's pips. Its last layer is a superset of the complete outcomes
    (a multiset whose checkers' pips cannot be split into four dice of every number is
    in it too). Returns (the last layer, pairs written over every layer)."""
    checkers = [x for x in range(24, 0, -1) for _ in range(counts[x])]
    moves = {x: [pips for pips, _ in checker_options(x, numbers, blocked)]
             for x in set(checkers)}
    total = 4 * sum(numbers)
    most_after = [0] * (len(checkers) + 1)
    for i in range(len(checkers) - 1, -1, -1):
        most_after[i] = most_after[i + 1] + max(moves[checkers[i]])
    layer = {(0, sum(n << (4 * (x - 1)) for x, n in enumerate(counts[1:], 1)))}
    written = 0
    for i, start in enumerate(checkers):
        following = set()
        for used, key in layer:
            for pips in moves[start]:
                if used + pips <= total and total - used - pips <= most_after[i + 1]:
                    following.add((used + pips, key - (1 << (4 * (start - 1)))
                                   + (1 << (4 * (start - pips - 1)))))
                    written += 1
        layer = following
    return {key for _, key in layer}, written


def print_header(columns):
    """A Markdown table's head: chain, outcomes, complete, then ``columns``."""
    columns = ["chain", "outcomes", "complete", *columns]
    print("| " + " | ".join(columns) + " |")
    print("|---|" + "---:|" * (len(columns) - 1))


def chains_in_range(args):
    """(chain, counts, blocked, numbers) for the real-game chains of args.min..args.max
    outcomes; counts is None for a chain whose mover could bear off within it."""
    for chain in suites.REAL_GAME_CHAINS:
        if args.min <= chain.outcomes <= args.max:
            counts, blocked = mover_counts(chain.code, chain.seat)
            yield (chain, counts if composable(counts[1:], chain.first) else None, blocked,
                   list(range(chain.first, 7)))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--min", type=int, default=1000, help="fewest outcomes of a chain")
    parser.add_argument("--max", type=int, default=70000, help="most outcomes of a chain")
    parser.add_argument("--pips", action="store_true",
                        help="merge the dice-use vectors away (pip_candidates), against chain_ends")
    args = parser.parse_args(argv)
    if args.pips:
        return pips_table(args)
    print_header(["largest layer", "pairs read", "additions checked", "pairs written",
                  "written per outcome", "chain_ends, 1 thread"])
    failures = 0
    for chain, counts, blocked, numbers in chains_in_range(args):
        if counts is None:
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


def complete_keys(chain):
    """The complete outcomes of ``chain_ends`` on one thread, as packed mover keys, and the
    seconds it took."""
    began = time.perf_counter()
    exact = gulbara.chain_ends(chain.code, chain.seat, chain.first, threads=1)
    seconds = time.perf_counter() - began
    sign = 1 if chain.seat == 0 else -1
    boards = np.clip(sign * exact.boards[exact.stop == STOP_COMPLETE], 0, None)
    if chain.seat == 1:          # own point p is White's (p + 11) % 24 + 1 (RULES §1.3)
        boards = boards[:, [(p + 11) % 24 for p in range(1, 25)]]
    return {sum(int(n) << (4 * q) for q, n in enumerate(row)) for row in boards}, seconds


def pips_table(args):
    """The --pips table: pip_candidates against chain_ends' complete outcomes."""
    print_header(["candidates", "candidates not complete", "pairs written",
                  "written per outcome", "chain_ends, 1 thread"])
    failures = 0
    for chain, counts, blocked, numbers in chains_in_range(args):
        if counts is None:
            continue
        candidates, written = pip_candidates(counts, blocked, numbers)
        ends, seconds = complete_keys(chain)
        failures += not ends <= candidates
        print(f"| game {chain.seed} ply {chain.ply} ({chain.first}-{chain.first}) | "
              f"{chain.outcomes:,} | {len(ends):,} | {len(candidates):,} | "
              f"{len(candidates - ends):,}{'' if ends <= candidates else ' MISSING'} | "
              f"{written:,} | {written // chain.outcomes:,} | {seconds * 1e3:,.0f} ms |",
              flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
