"""Sample whole-chain decisions the way real games reach them, for ``gulbara.tools.suites``.

    python3 benchmarks/sample_chains.py [--seeds 0:12] [--count]

Plays seeded greedy-against-greedy games (``gulbara.tools.suites.suite_game(s)``, both sides
``gulbara.GreedyBot``) and lists, in the order they are played, the first
stage of every escalating 1-1, 2-2 and 3-3 (a side's 4th roll or later, RULES
§4.2): the position, the side to play and the first number. ``--count`` also
enumerates each chain (``gulbara.chain_count``) and prints the entries as
``gulbara.tools.suites.ChainDecision`` literals with their outcome counts and the
time taken. ``gulbara.tools.suites.REAL_GAME_CHAINS`` was made by
``python3 benchmarks/sample_chains.py --seeds 0:12 --count``.
"""

import argparse

import gulbara
from gulbara.tools.suites import chain_decisions
from gulbara.tools.timing import time_call


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0:12", help="first:stop (a range of game seeds)")
    parser.add_argument("--count", action="store_true", help="enumerate each chain")
    args = parser.parse_args(argv)
    first, stop = (int(part) for part in args.seeds.split(":"))
    for decision in chain_decisions(range(first, stop)):
        if not args.count:
            print(decision)
            continue
        timing = time_call(lambda: gulbara.chain_count(decision.code, decision.seat,
                                                       decision.first, threads=1))
        outcomes, seconds = timing.result, timing.best
        print(f"    ChainDecision({decision.seed}, {decision.ply}, {decision.code!r}, "
              f"{decision.seat}, {decision.first}, {outcomes}),   # {seconds:.2f} s", flush=True)


if __name__ == "__main__":
    main()
