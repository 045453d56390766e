"""Smoke-test the gulbara installed in this Python (a wheel, in a fresh environment):

    python .ci/smoke.py [PROJECT]

PROJECT is the clone whose tests to run (by default this script's). Checks that gulbara is
imported from the installed package, not from PROJECT's source tree, prints its version, file,
import time and CPU paths (``gulbara.cpu_paths()``), then runs the README's examples and a few
tests against it with pytest: the build, the CPU paths (perft, whole chains, a batch of stages,
the shipped network's values and self-play, the same on every path) and the peer vectors. Needs
pytest. cibuildwheel runs it on every wheel (pyproject.toml), .ci/wheels on the wheels of the
Pythons installed here.
"""

import os
import platform
import sys
import time

TESTS = [
    "tests/test_docs.py::test_readme_quickstart",
    "tests/test_build.py",
    "tests/test_cpu_paths.py",
    "tests/test_vectors.py",
]


def main(argv):
    project = os.path.abspath(argv[0] if argv else os.path.join(os.path.dirname(__file__),
                                                                os.pardir))
    start = time.perf_counter()
    import gulbara
    took = time.perf_counter() - start
    where = os.path.dirname(os.path.abspath(gulbara.__file__))
    if where.startswith(os.path.join(project, "")):
        raise SystemExit(f"smoke: gulbara was imported from the source tree ({where}), not the "
                         f"installed package")
    print(f"smoke: Python {platform.python_version()} ({platform.machine()}), gulbara "
          f"{gulbara.__version__} from {where}, imported in {took:.2f} s, CPU paths "
          f"{gulbara.cpu_paths()}", flush=True)
    import pytest
    return pytest.main(["-q", "-p", "no:cacheprovider", "--rootdir", project]
                       + [os.path.join(project, test) for test in TESTS])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
