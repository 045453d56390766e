"""Many games at once: native self-play and its Python replay (``games``), plain rollouts of a
state's statistics, lockstep games for a batched evaluator, and the arena (rollouts with luck
subtraction: ``gulbara.rollouts``)."""
from gulbara.selfplay.games import *  # noqa: F401,F403
from gulbara.selfplay.games import __all__
