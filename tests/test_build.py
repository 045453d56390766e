"""How the compiled core was built (setup.py, gulbara.cpu): LZCNT, and the import guard of a build with it."""

import platform
import sys

import pytest

from gulbara.core import _movegen


def cpu_flags():
    with open("/proc/cpuinfo") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    return set()


def test_lzcnt_flag_is_a_bool():
    assert isinstance(_movegen.BUILT_WITH_LZCNT, bool)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/cpuinfo")
def test_a_build_with_lzcnt_runs_only_where_the_cpu_has_it():
    # The module imported, so its guard found LZCNT (the "abm" flag) when it was built with it.
    if _movegen.BUILT_WITH_LZCNT:
        assert "abm" in cpu_flags()



@pytest.mark.skipif(not sys.platform.startswith("linux") or platform.machine() != "x86_64",
                    reason="reads /proc/cpuinfo of an x86-64 CPU")
def test_the_cpu_is_asked_for_lzcnt_as_proc_cpuinfo_says():
    from gulbara.cpu import _cpuid
    assert _cpuid.ASKS_X86
    assert _cpuid.has_lzcnt() == ("abm" in cpu_flags())


def test_regression_a_lone_surrogate_in_a_docstring_stopped_python_3_13_compiling():
    """CPython 3.13.0 cannot compile a module whose docstring holds a lone surrogate (it
    encodes docstrings to UTF-8 to dedent them): gulbara.tools.engine's ``"\\ud800"`` did,
    and ``gulbara ends`` failed to start there. No string of the package's source holds one."""
    import ast
    from pathlib import Path
    package = Path(__file__).resolve().parents[1] / "gulbara"
    bad = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                try:
                    node.value.encode("utf-8")
                except UnicodeEncodeError:
                    bad.append(f"{path.relative_to(package.parent)}:{node.lineno}")
    assert not bad, bad
