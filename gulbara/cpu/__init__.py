"""The code paths the running CPU takes, chosen when gulbara is imported, not when it is built.

One build of gulbara runs on every CPU of its architecture (docs/dev/building.md):

* **LZCNT builds.** On x86-64, the compiled modules whose hot loops find a mask's highest point
  (:data:`LZCNT_MODULES`: the move generator, whole chains, perft) are built twice, portably and
  with ``-mlzcnt``; the second build's file is the first's with :data:`LZCNT_TAG` after the
  module's name (:func:`lzcnt_file`).
  ``import gulbara`` puts a finder on ``sys.meta_path`` that loads a module's LZCNT build
  in its place when the CPU has LZCNT. Both builds are compiled from the same C.
* **The network's arithmetic** picks AVX-512F, AVX2 and FMA, SSE2 or plain C at import
  (``gulbara.net._net.simd_level``), capped by :func:`network_level_cap`.

Every path gives the same results, bit for bit. The environment variable
``GULBARA_DISABLE_CPU_FEATURES`` (:data:`DISABLE_VARIABLE`), read at import, turns features
off, named as in :data:`FEATURES` and separated by commas or spaces: ``lzcnt`` loads the
portable builds, ``avx512f``, ``avx2`` and ``sse2`` cap the network's level below each. Tests
use it to check that each path gives the results of the others. ``gulbara.cpu_paths()``
reports the paths in use.

>>> sorted(disabled_features("AVX2, lzcnt"))
['avx2', 'lzcnt']
>>> network_level_cap(frozenset({"avx2"}))
1
"""

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from typing import FrozenSet, List, Optional

from gulbara.cpu import _cpuid
from gulbara.errors import GulBaraError

__all__ = ["DISABLE_VARIABLE", "FEATURES", "LZCNT_MODULES", "LZCNT_TAG", "NETWORK_LEVELS",
           "disabled_features", "network_level_cap", "lzcnt_file", "lzcnt_wanted", "lzcnt_loaded",
           "install"]

#: The environment variable that turns CPU features off (read once, at import).
DISABLE_VARIABLE = "GULBARA_DISABLE_CPU_FEATURES"
#: The features it names: LZCNT (the compiled modules' LZCNT builds) and the network's levels.
FEATURES = ("lzcnt", "avx512f", "avx2", "sse2")
#: The network's arithmetic levels by number (``gulbara.net._net.simd_level``): 0 plain C,
#: 1 SSE2, 2 AVX2 with FMA, 3 AVX-512F.
NETWORK_LEVELS = ("c", "sse2", "avx2", "avx512f")
#: The compiled modules built a second time with LZCNT on x86-64 (setup.py builds what this
#: names).
LZCNT_MODULES = ("gulbara.core._movegen", "gulbara.chains._chain_engine", "gulbara.game._perft")
#: A module's LZCNT build is its compiled file with this after the module's name (setup.py
#: names it so): a name no import finds, and which tools still take for a compiled module's.
LZCNT_TAG = ".lzcnt"


def lzcnt_file(path: str) -> str:
    """The file of the LZCNT build of the compiled module at ``path``.

    >>> lzcnt_file("gulbara/core/_movegen.cpython-311-x86_64-linux-gnu.so")
    'gulbara/core/_movegen.lzcnt.cpython-311-x86_64-linux-gnu.so'
    """
    folder, name = os.path.split(path)
    stem, dot, rest = name.partition(".")
    return os.path.join(folder, stem + LZCNT_TAG + dot + rest)


def disabled_features(value: Optional[str] = None) -> FrozenSet[str]:
    """The features ``value`` (by default the environment's :data:`DISABLE_VARIABLE`) turns
    off: names of :data:`FEATURES`, any case, separated by commas or spaces. An unknown name
    raises :class:`~gulbara.errors.GulBaraError` naming it."""
    if value is None:
        value = os.environ.get(DISABLE_VARIABLE, "")
    names = frozenset(name.lower() for name in value.replace(",", " ").split())
    unknown = sorted(names - set(FEATURES))
    if unknown:
        raise GulBaraError(f"{DISABLE_VARIABLE}: unknown CPU feature {unknown[0]!r}; "
                           f"the features are {', '.join(FEATURES)}")
    return names


#: The features turned off in this process.
DISABLED = disabled_features()


def network_level_cap(disabled: FrozenSet[str] = DISABLED) -> int:
    """The highest arithmetic level the network may use with the features ``disabled``: below
    the lowest level turned off (3 when none is)."""
    for level in range(1, len(NETWORK_LEVELS)):
        if NETWORK_LEVELS[level] in disabled:
            return level - 1
    return len(NETWORK_LEVELS) - 1


def lzcnt_wanted(disabled: FrozenSet[str] = DISABLED) -> bool:
    """Whether the LZCNT builds are to be loaded: the CPU has LZCNT and ``lzcnt`` is not in
    ``disabled``."""
    return "lzcnt" not in disabled and _cpuid.has_lzcnt()


#: The modules loaded from their LZCNT build in this process, in the order loaded.
_loaded: List[str] = []


def lzcnt_loaded() -> tuple:
    """The modules loaded from their LZCNT build so far, in the order loaded."""
    return tuple(_loaded)


class _LzcntFinder(importlib.abc.MetaPathFinder):
    """Finds a module of :data:`LZCNT_MODULES` where the usual finders would, and gives its
    LZCNT build instead when that file is there (an install without them, as an editable one
    or a build with ``GULBARA_LZCNT=0``, loads the portable build)."""

    def find_spec(self, fullname, path, target=None):
        if fullname not in LZCNT_MODULES:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or not isinstance(spec.loader, importlib.machinery.ExtensionFileLoader):
            return None
        variant = lzcnt_file(spec.origin)
        if not os.path.isfile(variant):
            return None
        _loaded.append(fullname)
        loader = importlib.machinery.ExtensionFileLoader(fullname, variant)
        return importlib.util.spec_from_file_location(fullname, variant, loader=loader)


_FINDER = _LzcntFinder()


def install() -> None:
    """Put the finder of the LZCNT builds first on ``sys.meta_path`` when they are wanted
    (:func:`lzcnt_wanted`); ``import gulbara`` calls it before loading any compiled module."""
    if lzcnt_wanted() and _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
