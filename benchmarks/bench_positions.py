"""The stage suite: see :mod:`gulbara.suites`."""

from gulbara.suites import *  # noqa: F401,F403
from gulbara.suites import __all__  # noqa: F401
