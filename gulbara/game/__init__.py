"""The turn structure: the game state, the native state and dice, perft, records (RULES §4-7).

``gulbara.game.Game`` is the Python game driver (``driver``); ``_state`` and ``_rng`` its native
twins; ``state_codes`` the state code of RULES §9.2; ``record`` game records; ``perft`` the
node counts of whole turns. Imports only ``gulbara.core`` and the foundation.
"""
from gulbara.game.driver import *  # noqa: F401,F403  (the driver is the package's face)
from gulbara.game.driver import __all__
