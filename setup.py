"""Build gulbara's Cython extensions.

Set ``GULBARA_DEBUG=1`` for a checked build (bounds checks, wrap-around and
division checks on, no optimisation); ``GULBARA_NATIVE=1`` adds
``-march=native``.
"""

import os

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

compile_args = ["-O0", "-g"] if DEBUG else ["-O3"]
if NATIVE:
    compile_args.append("-march=native")

extensions = [
    Extension("gulbara._movegen", ["gulbara/_movegen.pyx"], extra_compile_args=compile_args),
    Extension("gulbara._batch", ["gulbara/_batch.pyx"], extra_compile_args=compile_args),
    Extension("gulbara._perft", ["gulbara/_perft.pyx"], extra_compile_args=compile_args),
    Extension("gulbara._state", ["gulbara/_state.pyx"], extra_compile_args=compile_args),
    Extension("gulbara._encode", ["gulbara/_encode.pyx"], extra_compile_args=compile_args),
    Extension("gulbara._selfplay", ["gulbara/_selfplay.pyx"], extra_compile_args=compile_args),
]

setup(
    ext_modules=cythonize(extensions, compiler_directives=directives, annotate=False),
)
