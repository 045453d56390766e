"""Benchmark set-up: ``from bench_positions import SUITE`` and a header naming what is measured.

The benchmarks are outside the default test paths; run them by name:
``python3 -m pytest benchmarks/`` (timed) or ``pytest benchmarks --benchmark-disable``
(each benchmark body once, as a test).
"""

import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))
# the test oracles the benchmarks share with the tests (tests/composition.py)
if str(HERE.parent / "tests") not in sys.path:
    sys.path.insert(1, str(HERE.parent / "tests"))
if importlib.util.find_spec("gulbara") is None:
    # Not installed: use the checkout (built with ``setup.py build_ext --inplace``).
    sys.path.insert(1, str(HERE.parent))


def pytest_report_header(config):
    import gulbara
    return (f"gulbara {gulbara.__version__} from {Path(gulbara.__file__).parent}, "
            f"public API backend: {gulbara.BACKEND_NAME}")
