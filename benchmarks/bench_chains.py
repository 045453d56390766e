"""The chain suite: see :mod:`gulbara.tools.suites`."""

from gulbara.tools.suites import ChainEntry, MID_GAME_11  # noqa: F401
