"""Rollouts players can trust: luck subtraction, quasi-random dice, truncation, candidates on
common dice with stop rules, and results that merge and resume exactly (``rollout``,
``merge``, ``load``; the sums behind them in ``tally``)."""
from gulbara.rollouts.rollout import *  # noqa: F401,F403
from gulbara.rollouts.rollout import __all__
