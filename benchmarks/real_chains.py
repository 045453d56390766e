"""Time the real-game chain suite on one thread and on two, side by side.

    python3 benchmarks/real_chains.py [--stage-by-stage]

Every chain of ``gulbara.tools.suites.REAL_GAME_CHAINS`` is enumerated once untimed
and then timed with ``threads=1`` and ``threads=2`` (the runs of a chain back
to back, so the machine's load touches both alike), each count checked. The
untimed run leaves buffers of the chain's size kept for reuse
(``gulbara.chains.enumeration.buffer_pool``), so both timed runs find the same memory
rather than the first paying for fresh pages and the second not. Prints a line per
chain (outcomes, seconds on 1 and 2 threads), then for each the summary of
``gulbara.tools.bench.chain_time_summary`` (mean, median and worst ms, ns per outcome
over the chains of more than 10,000 outcomes), the speed-up over those, and
how many chains took more than 2 s. ``--stage-by-stage`` turns the decision
diagrams off (every chain enumerated stage by stage, as before them).
"""

import json
import sys

from gulbara.chains import ChainPlan
from gulbara.tools.bench import chain_time_summary, time_chain_decisions
from gulbara.tools.suites import REAL_GAME_CHAINS


def main():
    plan = ChainPlan(diagrams="--stage-by-stage" not in sys.argv[1:])
    seconds = {1: [], 2: []}
    for entry in REAL_GAME_CHAINS:
        time_chain_decisions([entry], 2, plan)                                 # untimed
        for threads in (1, 2):
            seconds[threads] += time_chain_decisions([entry], threads, plan)   # count checked
        print(entry.outcomes, [round(seconds[t][-1], 3) for t in (1, 2)], flush=True)
    for threads in (1, 2):
        print(threads, json.dumps(chain_time_summary(REAL_GAME_CHAINS, seconds[threads])))
    big = [i for i, entry in enumerate(REAL_GAME_CHAINS) if entry.outcomes > 10_000]
    print("speed-up over the big ones",
          sum(seconds[1][i] for i in big) / sum(seconds[2][i] for i in big))
    print("over 2 s:", sum(s > 2 for s in seconds[1]), sum(s > 2 for s in seconds[2]))


if __name__ == "__main__":
    main()
