"""The README quickstart and every docstring example, run against the installed package."""

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import gulbara

README = Path(__file__).resolve().parents[1] / "README.md"
# every module of every subpackage, compiled ones included (the envs' doctests run in
# tests/test_envs.py and tests/test_vector_env.py, with their extras)
MODULES = sorted(
    name for _, name, _ in pkgutil.walk_packages(gulbara.__path__, "gulbara.")
    if name != "gulbara.__main__" and not name.startswith("gulbara.envs."))


def test_readme_quickstart():
    result = doctest.testfile(str(README), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 10
    assert result.failed == 0


@pytest.mark.parametrize("name", ["gulbara"] + MODULES)
def test_module_docstrings(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS,
                             extraglobs={"gulbara": gulbara})
    assert result.failed == 0


DOC_PAGES = sorted((README.parent / "docs").rglob("*.md"))


@pytest.mark.parametrize("page", DOC_PAGES, ids=lambda p: str(p.relative_to(README.parent)))
def test_documentation_page_examples(page):
    result = doctest.testfile(str(page), module_relative=False, optionflags=doctest.ELLIPSIS,
                              globs={"gulbara": gulbara})
    assert result.failed == 0


def test_the_readme_performance_table_is_the_results_file():
    """Every number of the README's performance table comes from docs/dev/bench-results.json."""
    import subprocess
    import sys
    script = README.parent / "benchmarks" / "readme_table.py"
    done = subprocess.run([sys.executable, str(script), "--check"], capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
