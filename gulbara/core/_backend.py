"""Choose the generator behind the Python API.

The compiled core (``gulbara.core._movegen``) is the default (whole chains follow the same
switch in :mod:`gulbara.chains.enumeration`). Setting the
environment variable ``GULBARA_BACKEND=reference`` before ``gulbara`` is
imported switches the whole package onto the naive pure-Python reference
(``gulbara.core._reference``), which implements the same contract
(``docs/dev/backend.md``).
"""

import os

BACKEND_NAME = os.environ.get("GULBARA_BACKEND", "core").strip().lower() or "core"

# (the compiled module first: mypy checks the callers against its stubs; the reference has
# the same API, docs/dev/backend.md)
if BACKEND_NAME in ("core", "cython", "native"):
    from gulbara.core import _movegen as backend
    BACKEND_NAME = "core"
elif BACKEND_NAME in ("reference", "ref", "python", "pure"):
    from gulbara.core import _reference as backend  # type: ignore[no-redef]
    BACKEND_NAME = "reference"
else:
    raise ImportError(
        f"GULBARA_BACKEND must be 'core' or 'reference', got {os.environ['GULBARA_BACKEND']!r}")

Position = backend.Position
START_CODE = backend.START_CODE
raw_stage_ends = backend.stage_ends

__all__ = ["BACKEND_NAME", "backend", "Position", "START_CODE",
           "raw_stage_ends", "as_position"]


def as_position(value):
    """The backend ``Position`` of a position code (RULES §9.1), a ``Position``, or
    anything that holds one (a ``Board``'s or ``Game``'s ``position``) or writes one
    (a ``code()`` method). ``TypeError`` for anything else."""
    if isinstance(value, Position):
        return value
    if isinstance(value, str):
        return Position.from_code(value)
    held = getattr(value, "position", None)
    if isinstance(held, Position):
        return held
    code = getattr(value, "code", None)
    if callable(code):
        return Position.from_code(code())
    raise TypeError("expected a position code, a Position, a Board or a Game, "
                    f"not {type(value).__name__}")
