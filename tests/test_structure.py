"""The package's structure (STYLE: one job per module, no private reads across modules)."""

import importlib
import pkgutil
import re
from pathlib import Path

import gulbara
import gulbara.cli

# The source tree beside these tests (the installed wheel holds no Cython sources).
PACKAGE = Path(__file__).resolve().parents[1] / "gulbara"
PY_FILES = sorted(PACKAGE.rglob("*.py"))


SOURCE_FILES = PY_FILES + sorted(p for pattern in ("*.pyx", "*.pxd", "*.h")
                                  for p in PACKAGE.rglob(pattern))


def test_no_module_is_over_1200_lines():
    long = {str(p.relative_to(PACKAGE)): n for p in SOURCE_FILES
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 1200}
    assert not long
    assert any(p.suffix == ".pyx" for p in SOURCE_FILES)


def test_argparse_only_in_the_command_line():
    """Library modules hold no argument parsing: that is gulbara/cli/'s job."""
    users = [str(p.relative_to(PACKAGE)) for p in PY_FILES
             if re.search(r"^\s*import argparse|^\s*from argparse", p.read_text(encoding="utf-8"),
                          re.M) and p.parent.name != "cli"]
    assert not users


def test_no_function_shadows_a_module():
    """``gulbara.X`` is the module ``gulbara.X`` or no attribute at all (regression: the
    function gulbara.perft hid the module gulbara.perft)."""
    for package in (gulbara, gulbara.cli):
        for _, name, _ in pkgutil.iter_modules(package.__path__):
            value = getattr(package, name, None)
            if value is not None:
                assert value is importlib.import_module(f"{package.__name__}.{name}"), name
    assert callable(gulbara.perft) and callable(gulbara.divide)


# The private attributes other modules used to read; each now has a public accessor
# (StageEnds.raw / .start, ChainEnds.position, Game.events / .dice / .dice_start /
# .from_state / .can_undo(), Match.dice / .auto_roll, DiceStream.draw_function).
_PRIVATE = re.compile(r"(?<!self)\.(_raw|_log|_stream_start|_can_undo|"
                      r"_stream|_draw|_from_state|_auto)\b")
_OWNERS = {"play.py", "enumeration.py", "driver.py"}


def test_no_module_reads_those_private_attributes():
    found = [f"{p.relative_to(PACKAGE)}:{i}" for p in PY_FILES if p.name not in _OWNERS
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if _PRIVATE.search(line)]
    assert not found
