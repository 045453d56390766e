"""How fast each long call stops on Ctrl-C: SIGINT 0.3 s into every call of
``tests/test_reliability.py``'s ``LONG_CALLS``, the milliseconds from the signal to the
``KeyboardInterrupt``, over a few runs.

    python benchmarks/interrupt_latency.py [RUNS]
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import test_reliability  # noqa: E402


def main(runs: int = 3) -> None:
    for name in sorted(test_reliability.LONG_CALLS):
        times = [1000 * test_reliability.interrupt(test_reliability.LONG_CALLS[name]())
                 for _ in range(runs)]
        print(f"{name:<22} {min(times):7.1f} .. {max(times):7.1f} ms  "
              f"({', '.join(f'{t:.1f}' for t in times)})")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
