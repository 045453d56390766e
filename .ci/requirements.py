"""Print the requirements of pyproject.toml's extras, one a line, for pip to install before
gulbara itself (a wheel built apart):

    python .ci/requirements.py [--base] EXTRA [EXTRA ...] > requirements.txt

``--base`` adds the runtime dependencies. Python 3.11+ (tomllib).
"""

import sys
import tomllib
from pathlib import Path


def main(argv):
    project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml")
                            .read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    names = [name for name in argv if name != "--base"]
    unknown = [name for name in names if name not in extras]
    if unknown:
        raise SystemExit(f"requirements.py: no extra {unknown[0]!r} in pyproject.toml "
                         f"(the extras are {', '.join(extras)})")
    wanted = list(project["dependencies"]) if "--base" in argv else []
    for name in names:
        wanted += [req for req in extras[name] if req not in wanted]
    print("\n".join(wanted))


if __name__ == "__main__":
    main(sys.argv[1:])
