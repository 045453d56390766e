"""The value network: the model and its files (``model``); natively its inputs (``_inputs``),
the network and its forward pass (``_net``, ``_forward``), the choice of a stage's end
(``_choose``), the searches (``_search``) and the games (``_play``); and training (``train``,
``_train``)."""
from gulbara.net.model import *  # noqa: F401,F403
from gulbara.net.model import __all__
