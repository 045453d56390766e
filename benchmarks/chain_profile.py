"""Where the work of a whole chain goes: the ends each stage generates against the distinct ones.

    python3 benchmarks/chain_profile.py [NAME ...] [--first N]

For each chain of ``gulbara.tools.suites.MID_GAME_11`` (or the NAMEs given), from
number ``--first`` (1 by default), the chain is expanded stage by stage
(RULES §4.3-4.4), independently of :func:`gulbara.chain_ends`: every distinct
position of a stage's frontier is expanded by :func:`gulbara.stage_ends_batch`
and the ends are de-duplicated with numpy. A row per stage gives:

* ``frontier``: the distinct positions that start the stage;
* ``stalled``: those that cannot play all its dice (the chain stops there;
  their ends are outcomes, usually one each: when no step can bear off,
  playing as many dice as possible uses every step the checkers have);
* ``generated``: the ends of the others (each distinct within its position);
* ``distinct``: the distinct ones among them, the next stage's frontier
  (game-ending plays left out);
* ``generated / distinct``: how often each position is reached.

An enumeration that expands one position at a time (as ``chain_ends`` does)
makes every generated end and merges it into a table, so the generated column
is its work. The last line checks the count of chains played in full against
``chain_ends`` (its ``complete`` outcomes).
"""

import argparse

import numpy as np

import gulbara
from gulbara.core.batch import boards_from_codes, stage_ends_batch
from gulbara.chains.enumeration import STOP_COMPLETE
from gulbara.tools.suites import MID_GAME_11
from gulbara.tools.timing import time_call

N_DICE = 4


def distinct_rows(boards, borne_off):
    """The distinct rows of (boards, borne_off), as two arrays."""
    rows = np.ascontiguousarray(np.concatenate([boards, borne_off.view(np.int8)], axis=1))
    unique = np.unique(rows.view(np.dtype((np.void, rows.shape[1])))).view(np.int8)
    unique = unique.reshape(-1, rows.shape[1])
    return unique[:, :24].copy(), unique[:, 24:].view(np.uint8).copy()


def profile_chain(code, seat, first):
    """One row (a dict) per stage of the chain from ``first``, and the number
    of chains played in full."""
    boards, borne_off = boards_from_codes([code])
    rows = []
    complete = 0
    for number in range(first, 7):
        n = len(boards)
        if n == 0:
            break
        dice = np.zeros((n, 4), dtype=np.uint8)
        dice[:, :N_DICE] = number
        seats = np.full(n, seat, dtype=np.uint8)
        out = stage_ends_batch(boards, borne_off, seats, dice, steps=False)
        full = out.playable_dice == N_DICE
        owner = np.repeat(np.arange(n), out.counts)
        keep = full[owner] & ~out.end_game
        boards, borne_off = distinct_rows(out.end_boards[keep], out.end_borne_off[keep])
        rows.append({"stage": f"{number}-{number}", "frontier": n,
                     "stalled": int(n - full.sum()),
                     "generated": int(out.counts[full].sum()), "distinct": len(boards)})
        if number == 6:
            complete = len(boards)
    return rows, complete


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", metavar="NAME")
    parser.add_argument("--first", type=int, default=1, choices=range(1, 7))
    args = parser.parse_args(argv)
    entries = [e for e in MID_GAME_11 if not args.names or e.name in args.names]
    unknown = set(args.names) - {e.name for e in entries}
    if unknown:
        parser.error(f"no chain named {', '.join(sorted(unknown))} in MID_GAME_11")
    columns = ("frontier", "stalled", "generated", "distinct")
    print("| position | stage | " + " | ".join(columns) + " | generated / distinct |")
    print("|---|---|" + "---:|" * (len(columns) + 1))
    totals = dict.fromkeys(columns, 0)
    for entry in entries:
        timing = time_call(lambda: profile_chain(entry.code, entry.seat, args.first))
        (rows, complete), seconds = timing.result, timing.best
        for row in rows:
            ratio = row["generated"] / row["distinct"] if row["distinct"] else 0.0
            print(f"| {entry.name} | {row['stage']} | "
                  + " | ".join(f"{row[c]:,}" for c in columns) + f" | {ratio:.1f} |")
            for column in columns:
                totals[column] += row[column]
        chain = gulbara.chain_ends(entry.code, entry.seat, args.first)
        expected = int((chain.stop == STOP_COMPLETE).sum())
        if complete != expected:
            raise SystemExit(f"{entry.name}: {complete} chains played in full here, "
                             f"chain_ends has {expected}")
        print(f"| {entry.name} | played in full | | | | {complete:,} "
              f"| (as chain_ends; {seconds:.1f} s here) |")
    ratio = totals["generated"] / max(1, totals["distinct"])
    print("| all | | " + " | ".join(f"{totals[c]:,}" for c in columns) + f" | {ratio:.1f} |")
    return totals


if __name__ == "__main__":
    main()
