"""No call from Python can crash the interpreter: every callable of every compiled module, and
every method of their classes, called with junk arguments in a child process, raises or
returns, never segfaults or aborts (it once did: _net.play_match with a policy code that had no
chooser, _perft._py_count_stage, Lockstep.apply before prepare)."""

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import same_package_environment

ROOT = Path(__file__).resolve().parents[1]
MODULES = sorted(".".join(p.relative_to(ROOT).with_suffix("").parts)
                 for p in (ROOT / "gulbara").rglob("*.pyx"))

JUNK_CALLS = Path(__file__).resolve().parent / "junk_calls.py"

# calls that may legitimately run long on junk (a run of 2**70 games is refused, -1 too)
TIMEOUT = 120


@pytest.mark.parametrize("module", MODULES)
def test_junk_arguments_never_crash(module, tmp_path):
    done = subprocess.run([sys.executable, str(JUNK_CALLS), module], capture_output=True,
                          text=True, timeout=TIMEOUT, cwd=tmp_path,
                          env=same_package_environment())
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert done.stdout.startswith("ok")
