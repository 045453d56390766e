"""Check what a gulbara wheel holds against this clone:

    python .ci/check_wheel.py WHEEL [WHEEL ...]

Each wheel must hold every module of the package (``.py``), a compiled build of every ``.pyx``
with its ``.pyi`` stub, ``py.typed``, the data the code loads (gulbara/data's networks, decision
set, peer vectors and their licence), on x86-64 the LZCNT build of every module of
``gulbara.cpu.LZCNT_MODULES``, and nothing else: no Cython sources or generated C, no tests,
no training intermediates. Prints one line per wheel; exits non-zero naming what is wrong.
"""

import ast
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "gulbara"
DATA = ("*.npz", "*.jsonl", "LICENSE-*.txt")


def cpu_constant(name):
    tree = ast.parse((PACKAGE / "cpu" / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == name:
            return ast.literal_eval(node.value)
    raise SystemExit(f"check_wheel: no {name} in gulbara/cpu/__init__.py")


def expected_files():
    """The package files the wheel must hold, beside the compiled ones (relative paths)."""
    want = {p.relative_to(ROOT).as_posix() for p in PACKAGE.rglob("*.py")
            if "__pycache__" not in p.parts}
    want |= {p.relative_to(ROOT).as_posix() for p in PACKAGE.rglob("*.pyi")}
    want |= {p.relative_to(ROOT).as_posix() for pattern in DATA
             for p in (PACKAGE / "data").glob(pattern)}
    want.add("gulbara/py.typed")
    return want


def check(wheel):
    names = [n for n in zipfile.ZipFile(wheel).namelist() if not n.endswith("/")]
    package = [n for n in names if not n.split("/")[0].endswith(".dist-info")]
    problems = []
    tag = cpu_constant("LZCNT_TAG") + "."
    variants = [n for n in package if tag in n.rsplit("/", 1)[-1]]
    compiled = [n for n in package if n.endswith((".so", ".pyd")) and n not in variants]
    libraries = [n for n in package if n.startswith("gulbara.libs/")]
    plain = set(package) - set(compiled) - set(variants) - set(libraries)
    want = expected_files()
    problems += [f"missing {n}" for n in sorted(want - plain)]
    problems += [f"not loaded by gulbara: {n}" for n in sorted(plain - want)]
    for pyx in sorted(PACKAGE.rglob("*.pyx")):
        module = pyx.relative_to(ROOT).with_suffix("").as_posix()
        if not any(n.startswith(module + ".") for n in compiled):
            problems.append(f"no compiled build of {module}.pyx")
    x86 = any(tag in Path(wheel).name for tag in ("x86_64", "amd64"))
    if x86 and not Path(wheel).name.endswith("win_amd64.whl"):
        for module in cpu_constant("LZCNT_MODULES"):
            path = module.replace(".", "/")
            if not any(n.startswith(path + tag) for n in variants):
                problems.append(f"no LZCNT build of {module}")
    elif variants:
        problems.append(f"LZCNT builds in a wheel for another CPU: {variants}")
    if problems:
        raise SystemExit(f"check_wheel: {Path(wheel).name}:\n  " + "\n  ".join(problems))
    print(f"check_wheel: {Path(wheel).name}: {len(plain)} files, {len(compiled)} compiled "
          f"modules, {len(variants)} LZCNT builds, {len(libraries)} bundled libraries, "
          f"{Path(wheel).stat().st_size / 1e6:.1f} MB")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    for path in sys.argv[1:]:
        check(path)
