"""Build gulbara's Cython extensions.

Set ``GULBARA_DEBUG=1`` for a checked build (bounds checks, wrap-around and
division checks on, no optimisation); ``GULBARA_NATIVE=1`` adds
``-march=native``.

On x86-64 Linux with GCC or Clang, the build uses the LZCNT instruction when
the building machine has it (``GULBARA_LZCNT=auto``, the default): the move
generator finds a mask's highest point with it, and the whole-chain
enumeration runs about 12% faster. An extension built that way refuses to
import on a CPU without LZCNT (it would silently miscount there).
``GULBARA_LZCNT=0`` builds without it, ``GULBARA_LZCNT=1`` with it.
"""

import os
import platform
import sys

from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("GULBARA_DEBUG") == "1"
NATIVE = os.environ.get("GULBARA_NATIVE") == "1"

directives = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "cdivision": not DEBUG,
    "initializedcheck": DEBUG,
    "embedsignature": True,
}


def build_cpu_has_lzcnt():
    """Whether this x86-64 Linux machine has LZCNT (the "abm" flag of /proc/cpuinfo)."""
    if not sys.platform.startswith("linux") or platform.machine() not in ("x86_64", "AMD64"):
        return False
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("flags"):
                    return "abm" in line.split()
    except OSError:
        pass
    return False


LZCNT = os.environ.get("GULBARA_LZCNT", "auto")
if LZCNT not in ("auto", "0", "1"):
    raise SystemExit(f"GULBARA_LZCNT must be auto, 0 or 1, got {LZCNT!r}")
USE_LZCNT = LZCNT == "1" or (LZCNT == "auto" and build_cpu_has_lzcnt())

# -ffp-contract=off: the network's arithmetic is fused where it says so (gulbara/_net_math.h)
# and nowhere else, whatever the target CPU, so every build gives the same bytes.
compile_args = (["-O0", "-g"] if DEBUG else ["-O3"]) + ["-ffp-contract=off"]
if NATIVE:
    compile_args.append("-march=native")
if USE_LZCNT:
    compile_args += ["-mlzcnt", "-DGULBARA_WITH_LZCNT=1"]

# Whole chains share each stage's work between POSIX threads: a module that cimports
# gulbara/chains/_threads.pxd (or keeps a lock, as the buffer pool of _memory) needs them.
thread_args = [] if sys.platform.startswith("win") else ["-pthread"]

# Every compiled module: (dotted name, needs threads). Each .pyx sits beside its Python
# front end in its layer's subpackage.
MODULES = [
    ("gulbara.core._movegen", False),
    ("gulbara.core._batch", False),
    ("gulbara.game._state", False),
    ("gulbara.game._perft", False),
    ("gulbara.encoding._encode", False),
    ("gulbara.eval._greedy", False),
    ("gulbara.eval._bearoff", False),
    ("gulbara.chains._memory", True),
    ("gulbara.chains._keysets", False),
    ("gulbara.chains._key_sort", True),
    ("gulbara.chains._buckets", False),
    ("gulbara.chains._chain_dd", True),
    ("gulbara.chains._chain_dd_out", True),
    ("gulbara.chains._chain_steps", False),
    ("gulbara.chains._chain_engine", True),
    ("gulbara.chains._chains", True),
    ("gulbara.net._inputs", False),
    ("gulbara.net._net", False),
    ("gulbara.net._choose", False),
    ("gulbara.net._search", False),
    ("gulbara.net._play", False),
    ("gulbara.net._train", False),
    ("gulbara.selfplay._selfplay", False),
    ("gulbara.selfplay._lockstep", False),
    ("gulbara.envs._vector", False),
    ("gulbara.rollouts._rollout", False),
]


def extension(name, threads):
    path = name.replace(".", "/")
    folder = os.path.dirname(path)
    headers = [os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".h")]
    return Extension(name, [path + ".pyx"], depends=headers,
                     extra_compile_args=compile_args + (thread_args if threads else []),
                     extra_link_args=thread_args if threads else [])


extensions = [extension(name, threads) for name, threads in MODULES]

setup(
    ext_modules=cythonize(extensions, compiler_directives=directives, annotate=False),
    # The C compiler on every core (threads; ``-j N`` on the command line still overrides it).
    options={"build_ext": {"parallel": os.cpu_count() or 1}},
)
