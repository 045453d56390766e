"""Feature encoders: board rows, afterstates and games as numpy arrays, native and numpy twins."""
from gulbara.encoding.features import *  # noqa: F401,F403
from gulbara.encoding.features import __all__
