"""Build gulbara's Cython extensions.

Set ``GULBARA_DEBUG=1`` for a checked build (bounds checks, wrap-around and
division checks on, compiled ``-Og``: optimised only as far as debugging allows);
``GULBARA_NATIVE=1`` adds ``-march=native`` (a build for the building machine's CPU only).

Every other build runs on any CPU of its architecture and picks its code paths
at import (``gulbara.cpu``, docs/dev/building.md): on x86-64 with GCC or Clang,
the modules of ``gulbara.cpu.LZCNT_MODULES`` (the move generator, whole chains,
perft: the loops that find a mask's highest point) are compiled a second time
with ``-mlzcnt`` into the module's file with ``.lzcnt`` after its name, which
``import gulbara`` loads instead on a CPU with LZCNT (the whole-chain enumeration runs
about 12% faster with it). ``GULBARA_LZCNT=0`` leaves these builds out,
``GULBARA_LZCNT=1`` stops the build where it cannot make them; ``auto``, the
default, makes them where it can.
"""

import ast
import os
import sys
import sysconfig

from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
try:
    from setuptools.modified import newer_group
except ImportError:                      # setuptools < 69
    from setuptools.dep_util import newer_group

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


LZCNT = os.environ.get("GULBARA_LZCNT", "auto")
if LZCNT not in ("auto", "0", "1"):
    raise SystemExit(f"GULBARA_LZCNT must be auto, 0 or 1, got {LZCNT!r}")


def cpu_constants():
    """LZCNT_MODULES and LZCNT_TAG of gulbara/cpu/__init__.py (their one home), read
    without importing gulbara."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gulbara", "cpu",
                        "__init__.py")
    with open(path, encoding="utf-8") as source:
        tree = ast.parse(source.read())
    found = {node.targets[0].id: ast.literal_eval(node.value) for node in tree.body
             if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
             and node.targets[0].id in ("LZCNT_MODULES", "LZCNT_TAG")}
    return found["LZCNT_MODULES"], found["LZCNT_TAG"]


LZCNT_MODULES, LZCNT_TAG = cpu_constants()


def lzcnt_file(path):
    """The LZCNT build's file of the module built at ``path`` (gulbara.cpu.lzcnt_file)."""
    folder, name = os.path.split(path)
    stem, dot, rest = name.partition(".")
    return os.path.join(folder, stem + LZCNT_TAG + dot + rest)

LZCNT_ARGS = ["-mlzcnt"]

# -ffp-contract=off: the network's arithmetic is fused where it says so (gulbara/_net_math.h)
# and nowhere else, whatever the target CPU, so every build gives the same bytes.
# -g0 in the optimised build: no debug information (Python's own flags ask for it), which made
# up four fifths of each compiled file; it does not change the machine code.
compile_args = (["-Og", "-g"] if DEBUG else ["-O3", "-g0"]) + ["-ffp-contract=off"]
if NATIVE:
    compile_args.append("-march=native")

# Whole chains share each stage's work between POSIX threads: a module that cimports
# gulbara/chains/_threads.pxd (or keeps a lock, as the buffer pool of _memory) needs them.
thread_args = [] if sys.platform.startswith("win") else ["-pthread"]

# Every compiled module: (dotted name, needs threads). Each .pyx sits beside its Python
# front end in its layer's subpackage.
MODULES = [
    ("gulbara.cpu._cpuid", False),
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
    return Extension(name, [path + ".pyx"], depends=headers, include_dirs=[folder],
                     extra_compile_args=compile_args + (thread_args if threads else []),
                     extra_link_args=thread_args if threads else [])


class BuildExt(build_ext):
    """build_ext that also makes the LZCNT builds (this file's docstring) and removes stale
    ones: a module's LZCNT build left from an earlier build would be loaded in its place."""

    def run(self):
        # Cython runs here, when the extensions are built (an sdist takes the .pyx files), on
        # every core where processes fork. The checked build's C, made with other directives,
        # goes to a folder of its own: Cython remakes C only when its sources change, so the
        # two kinds of C could otherwise be taken one for the other.
        fork = sys.platform.startswith("linux") and sys.version_info < (3, 14)
        made = cythonize(
            self.extensions, compiler_directives=directives, annotate=False, force=self.force,
            nthreads=(os.cpu_count() or 1) if fork else 0,
            build_dir=os.path.join("build", "cython-debug") if DEBUG else None)
        # (the extensions keep what finalize_options gave them; only their sources change)
        made = {ext.name: ext for ext in made}
        for ext in self.extensions:
            ext.sources = made[ext.name].sources
        super().run()

    def lzcnt_builds(self):
        """Whether to make the LZCNT builds: an x86-64 target, a GCC-like compiler, and
        neither a checked nor a -march=native build."""
        can = (sysconfig.get_platform().endswith(("x86_64", "amd64"))
               and self.compiler.compiler_type == "unix")
        if LZCNT == "1" and not can:
            raise SystemExit("GULBARA_LZCNT=1: the LZCNT builds need an x86-64 target and GCC "
                             f"or Clang (target {sysconfig.get_platform()}, compiler "
                             f"{self.compiler.compiler_type})")
        return can and LZCNT != "0" and not DEBUG and not NATIVE

    def wants_lzcnt(self, ext):
        return ext.name in LZCNT_MODULES and self.lzcnt_builds()

    def build_extension(self, ext):
        super().build_extension(ext)
        variant = lzcnt_file(self.get_ext_fullpath(ext.name))
        if not self.wants_lzcnt(ext):
            if os.path.exists(variant):
                os.remove(variant)
            return
        sources = list(ext.sources)
        if not (self.force or newer_group(sources + list(ext.depends), variant)):
            return
        # the same C as the portable build, compiled apart (its own objects) with LZCNT
        objects = self.compiler.compile(
            sources, output_dir=os.path.join(self.build_temp, "lzcnt"),
            macros=ext.define_macros, include_dirs=ext.include_dirs, debug=self.debug,
            extra_postargs=list(ext.extra_compile_args or []) + LZCNT_ARGS, depends=ext.depends)
        self.compiler.link_shared_object(
            objects + list(ext.extra_objects or []), variant,
            libraries=self.get_libraries(ext), library_dirs=ext.library_dirs,
            runtime_library_dirs=ext.runtime_library_dirs,
            extra_postargs=ext.extra_link_args, export_symbols=self.get_export_symbols(ext),
            debug=self.debug, build_temp=self.build_temp,
            target_lang=self.compiler.detect_language(sources))

    def copy_extensions_to_source(self):
        super().copy_extensions_to_source()
        build_py = self.get_finalized_command("build_py")
        for ext in self.extensions:
            inplace_file, regular_file = self._get_inplace_equivalent(build_py, ext)
            if self.wants_lzcnt(ext) and os.path.exists(lzcnt_file(regular_file)):
                self.copy_file(lzcnt_file(regular_file), lzcnt_file(inplace_file),
                               level=self.verbose)
            elif os.path.exists(lzcnt_file(inplace_file)):
                os.remove(lzcnt_file(inplace_file))

    def get_outputs(self):
        outputs = super().get_outputs()
        if self.inplace:
            return outputs
        return sorted(outputs + [lzcnt_file(self.get_ext_fullpath(ext.name))
                                 for ext in self.extensions if self.wants_lzcnt(ext)])

    def get_output_mapping(self):
        mapping = super().get_output_mapping()
        if self.inplace:
            build_py = self.get_finalized_command("build_py")
            for ext in self.extensions:
                if self.wants_lzcnt(ext):
                    inplace_file, regular_file = self._get_inplace_equivalent(build_py, ext)
                    mapping[lzcnt_file(regular_file)] = lzcnt_file(inplace_file)
        return dict(sorted(mapping.items()))


extensions = [extension(name, threads) for name, threads in MODULES]

setup(
    ext_modules=extensions,
    cmdclass={"build_ext": BuildExt},
    # The C compiler on every core (threads; ``-j N`` on the command line still overrides it).
    options={"build_ext": {"parallel": os.cpu_count() or 1}},
)
