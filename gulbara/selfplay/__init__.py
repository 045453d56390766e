"""Many games at once: native self-play and its Python replay (``games``), rollouts,
lockstep games for a batched evaluator, and the arena."""
from gulbara.selfplay.games import *  # noqa: F401,F403
from gulbara.selfplay.games import __all__
