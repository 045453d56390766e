"""The value network: the model and its files (``model``), native inference and network
search (``_net``), and training (``train``, ``_train``)."""
from gulbara.net.model import *  # noqa: F401,F403
from gulbara.net.model import __all__
