"""The message for importing gulbara from a source tree whose extensions are not built.

Running Python in a clone's root puts its ``gulbara/`` directory ahead of the
installed package, and that directory holds the Cython sources but no compiled
modules. :func:`unbuilt_error` turns the confusing circular-import error into
one that says so and what to do.
"""

import os

__all__ = ["unbuilt_error", "is_unbuilt"]

# a sample of the compiled modules, one or more per subpackage (setup.py lists them all)
_NATIVE = ("core/_movegen", "core/_batch", "game/_state", "game/_perft", "encoding/_encode",
           "net/_play", "net/_inputs", "net/_choose", "net/_search",
           "eval/_greedy", "chains/_keysets", "chains/_chains", "net/_net", "selfplay/_selfplay",
           "rollouts/_rollout",
           "envs/_vector", "cpu/_cpuid")
_SUFFIXES = (".so", ".pyd")


def is_unbuilt(package_dir: str) -> bool:
    """Whether ``package_dir`` has the ``.pyx`` sources and not the compiled modules."""
    if not os.path.exists(os.path.join(package_dir, "core", "_movegen.pyx")):
        return False
    built = set()
    for folder in {os.path.dirname(module) for module in _NATIVE}:
        try:
            names = os.listdir(os.path.join(package_dir, folder))
        except OSError:
            return True
        built |= {f"{folder}/{name.split('.', 1)[0]}" for name in names if name.endswith(_SUFFIXES)}
    return not all(module in built for module in _NATIVE)


def unbuilt_error(package_dir: str, error: ImportError) -> ImportError:
    """An ``ImportError`` saying the source tree is not built, or ``error`` itself."""
    if not is_unbuilt(package_dir):
        return error
    tree = os.path.dirname(os.path.abspath(package_dir))
    return ImportError(
        f"gulbara is being imported from its source tree ({tree}), whose compiled "
        f"extensions are not built, not from the installed package. Either build them in "
        f"place: `pip install -e .` in {tree} (or `python setup.py build_ext --inplace`), "
        f"or run Python from outside the source tree to use the installed gulbara.")
