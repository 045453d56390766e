"""The layers of pyproject.toml's import-linter contract, checked on the Cython ``cimport``s too.

``lint-imports`` (run in CI) checks the Python imports, those inside functions included; it
does not read ``.pyx`` and ``.pxd`` files, so this test checks that every ``cimport`` of a
gulbara module goes to the same layer or one below it (docs/dev/architecture.md).
"""

import re
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:                                    # pragma: no cover (Python 3.9, 3.10)
    tomllib = None

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "gulbara"
CIMPORT = re.compile(r"^\s*(?:from\s+(gulbara(?:\.\w+)+)\s+cimport|cimport\s+(gulbara(?:\.\w+)+))",
                     re.M)


def layers():
    """The contract's layers, lowest first, each a set of module names."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    if tomllib is not None:
        config = tomllib.loads(text)["tool"]["importlinter"]["contracts"][0]["layers"]
    else:
        block = text[text.index("layers = ["):]
        config = re.findall(r'^\s*"([^"]+)",', block[:block.index("]")], re.M)
    return [{name.strip() for name in layer.split("|")} for layer in reversed(config)]


def layer_of(module: str, order) -> int:
    for rank, names in enumerate(order):
        if any(module == name or module.startswith(name + ".") for name in names):
            return rank
    raise AssertionError(f"{module} is in no layer of the contract")


def test_every_subpackage_is_in_a_layer():
    order = layers()
    for path in PACKAGE.iterdir():
        if path.is_dir() and (path / "__init__.py").exists():
            layer_of(f"gulbara.{path.name}", order)


def test_cimports_follow_the_layers():
    order = layers()
    wrong = []
    for path in sorted(PACKAGE.rglob("*.p[yx][xd]")):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        own = layer_of(module, order)
        for match in CIMPORT.finditer(path.read_text(encoding="utf-8")):
            target = match.group(1) or match.group(2)
            if layer_of(target, order) > own:
                wrong.append(f"{module} cimports {target}")
    assert not wrong, "cimports that run up the layers:\n" + "\n".join(wrong)
    assert sum(1 for _ in PACKAGE.rglob("*.pyx")) >= 18


def test_the_contract_names_the_layers_in_order():
    names = [sorted(layer) for layer in layers()]
    assert names[0] == ["gulbara.workers"] and names[1] == ["gulbara.errors", "gulbara.files"]
    assert names[-1] == ["gulbara.cli"]
    assert [n[0] for n in names].index("gulbara.core") < [n[0] for n in names].index("gulbara.game")
