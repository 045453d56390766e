"""The README quickstart and every docstring example, run against the installed package."""

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import gulbara
import gulbara.cli

README = Path(__file__).resolve().parents[1] / "README.md"
MODULES = sorted(
    name for package in (gulbara, gulbara.cli)
    for _, name, _ in pkgutil.iter_modules(package.__path__, package.__name__ + ".")
    if name not in ("gulbara.__main__",))


def test_readme_quickstart():
    result = doctest.testfile(str(README), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 10
    assert result.failed == 0


@pytest.mark.parametrize("name", ["gulbara"] + MODULES)
def test_module_docstrings(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
