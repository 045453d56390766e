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

# Whole chains share each stage's work between POSIX threads.
thread_args = [] if sys.platform.startswith("win") else ["-pthread"]

extensions = [
    Extension("gulbara._movegen", ["gulbara/_movegen.pyx"], extra_compile_args=compile_args),
    Extension("gulbara._tables", ["gulbara/_tables.pyx"],
              extra_compile_args=compile_args + thread_args, extra_link_args=thread_args),
    Extension("gulbara._buckets", ["gulbara/_buckets.pyx"], extra_compile_args=compile_args),
    Extension("gulbara._chain_dd", ["gulbara/_chain_dd.pyx"], extra_compile_args=compile_args),
    Extension("gulbara._chain_dd_out", ["gulbara/_chain_dd_out.pyx"],
              extra_compile_args=compile_args),
    Extension("gulbara._chain_steps", ["gulbara/_chain_steps.pyx"], extra_compile_args=compile_args),
    Extension("gulbara._chain_engine", ["gulbara/_chain_engine.pyx"],
              extra_compile_args=compile_args + thread_args, extra_link_args=thread_args),
    Extension("gulbara._chains", ["gulbara/_chains.pyx"],
              extra_compile_args=compile_args + thread_args, extra_link_args=thread_args),
    Extension("gulbara._batch", ["gulbara/_batch.pyx"], extra_compile_args=compile_args),
    Extension("gulbara._perft", ["gulbara/_perft.pyx"], extra_compile_args=compile_args),
    Extension("gulbara._state", ["gulbara/_state.pyx"], extra_compile_args=compile_args),
    Extension("gulbara._encode", ["gulbara/_encode.pyx"], extra_compile_args=compile_args),
    Extension("gulbara._selfplay", ["gulbara/_selfplay.pyx"], extra_compile_args=compile_args),
    Extension("gulbara._vector", ["gulbara/_vector.pyx"], extra_compile_args=compile_args),
    Extension("gulbara._net", ["gulbara/_net.pyx"], depends=["gulbara/_net_math.h"],
              extra_compile_args=compile_args),
    Extension("gulbara._train", ["gulbara/_train.pyx"], extra_compile_args=compile_args),
    Extension("gulbara._lockstep", ["gulbara/_lockstep.pyx"], extra_compile_args=compile_args),
    Extension("gulbara._bearoff", ["gulbara/_bearoff.pyx"], extra_compile_args=compile_args),
]

setup(
    ext_modules=cythonize(extensions, compiler_directives=directives, annotate=False),
)
