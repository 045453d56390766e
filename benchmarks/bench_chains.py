"""The chain suite: see :mod:`gulbara.suites`."""

from gulbara.suites import ChainEntry, MID_GAME_11  # noqa: F401
