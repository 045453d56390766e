"""The README's performance table, generated from one results file.

``python benchmarks/readme_table.py --run`` times the headline measurements (``gulbara bench
--json``, each row's counts checked before it is timed) and writes them, with the machine, the
date and the commit, to ``docs/dev/bench-results.json``; then, as without ``--run``, it writes
the table between the README's ``bench-table`` markers. ``--check`` only says whether the README
shows what the results file holds (tests/test_docs.py runs it), so no number of the table can
disagree with the results it came from.
"""

import argparse
import datetime
import json
import platform
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "dev" / "bench-results.json"
README = ROOT / "README.md"
START, END = "<!-- bench-table: start -->", "<!-- bench-table: end -->"


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def run(rounds: int) -> dict:
    """Time the headline measurements; the results with where and when they were made."""
    from gulbara.tools.bench import run_benchmarks
    result = run_benchmarks(rounds)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip()
    result.update(date=datetime.date.today().isoformat(), cpu=cpu_name(), commit=commit)
    return result


def render(result: dict) -> str:
    """The README's block: one line on the run, then the table of ``gulbara bench``."""
    from gulbara.tools.bench import format_table
    table = format_table(result).split("\n", 2)[2]           # the table without its header line
    return (f"{START}\nOne run of `python benchmarks/readme_table.py --run` on {result['date']}: "
            f"{result['cpu']}, {result['cpus']} cores, Python {result['python']}, medians of "
            f"{result['rounds']} rounds (the commit is in `docs/dev/bench-results.json`).\n\n"
            f"{table}\n{END}")


def readme_with(block: str, text: str) -> str:
    head, rest = text.split(START, 1)
    return head + block + rest.split(END, 1)[1]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", action="store_true", help="time the measurements first")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if the README's table is not the results file's")
    args = parser.parse_args(argv)
    if args.run:
        RESULTS.write_text(json.dumps(run(args.rounds), indent=1) + "\n")
    block = render(json.loads(RESULTS.read_text()))
    text = README.read_text()
    if args.check:
        shown = START + text.split(START, 1)[1].split(END, 1)[0] + END
        if shown != block:
            print("README.md's performance table is not docs/dev/bench-results.json's: run "
                  "python benchmarks/readme_table.py", file=sys.stderr)
            return 1
        return 0
    README.write_text(readme_with(block, text))
    return 0


if __name__ == "__main__":
    sys.exit(main())
