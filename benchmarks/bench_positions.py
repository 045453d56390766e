"""The stage suite: see :mod:`gulbara.tools.suites`."""

from gulbara.tools.suites import *  # noqa: F401,F403
from gulbara.tools.suites import __all__  # noqa: F401
