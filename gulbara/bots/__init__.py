"""Bots: the ``Bot`` protocol and the simple bots (``simple``), search (``search``), the network's
bots (``netbot``, loaded on first use), and the one registry of bot names (``registry``)."""
from gulbara.bots.simple import Bot, ExpectimaxBot, FirstBot, GreedyBot, RandomBot
from gulbara.bots.registry import (BOTS, NATIVE_BOTS, REGISTRY, BotEntry, bot_label,
                                   is_network_path, make_bot, native_policy, play_out)

__all__ = ["Bot", "RandomBot", "FirstBot", "GreedyBot", "ExpectimaxBot", "BotEntry", "REGISTRY",
           "BOTS", "NATIVE_BOTS", "make_bot", "bot_label", "is_network_path", "native_policy", "play_out"]
