"""The one registry of bots: every bot name gulbara accepts, and how to build each.

A row (:class:`BotEntry`) is a bot's name, how to build its Python object, and the native policy
that plays the same moves in self-play, if there is one. Every list of names is derived from
:data:`REGISTRY`: the command line's choices, :data:`BOTS`, the native arena's bots
(:data:`NATIVE_BOTS`), the vector environment's opponents. A path to a trained ``.npz``
network is a bot wherever a name is (a :class:`gulbara.bots.netbot.NetBot` on that file,
labelled by it).

>>> make_bot("greedy").name
'greedy'
>>> sorted(NATIVE_BOTS)
['first', 'greedy', 'net', 'random']
>>> make_bot("nobody")
Traceback (most recent call last):
...
gulbara.errors.GulBaraError: unknown bot 'nobody' (choose from expectimax1, expectimax2, first, greedy, net, net2, random, or a path to an .npz network)
"""

import functools
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Dict, Optional, Sequence, Tuple, Union

from gulbara.bots.simple import Bot, ExpectimaxBot, FirstBot, GreedyBot, RandomBot
from gulbara.errors import GameStateError, GulBaraError
from gulbara.game.driver import current_game

if TYPE_CHECKING:
    from gulbara.net._net import Network

__all__ = ["BotEntry", "REGISTRY", "BOTS", "NATIVE_BOTS", "make_bot", "bot_label",
           "is_network_path", "native_policy", "play_out"]


def _net_bot(name: str, net=None, **options) -> Bot:
    from gulbara.bots import netbot              # the network bots, loaded on first use
    return {"net": netbot.NetBot, "net2": netbot.Net2Bot}[name](net, **options)


@dataclass(frozen=True)
class BotEntry:
    """One bot: its ``name``, ``build`` (a fresh bot; ``build(seed=s)`` when ``seeded``),
    ``native`` (the native policy of :mod:`gulbara.selfplay` that plays the same moves, or
    ``None``) and a one-line ``summary``."""

    name: str
    build: Callable[..., Bot]
    native: Optional[str] = None
    seeded: bool = False
    summary: str = ""


#: Every bot, by name.
REGISTRY: Dict[str, BotEntry] = {entry.name: entry for entry in (
    BotEntry("random", RandomBot, native="random", seeded=True,
             summary="a uniformly random end of the stage"),
    BotEntry("first", FirstBot, native="first",
             summary="the first end in canonical order (RULES §3.8)"),
    BotEntry("greedy", GreedyBot, native="greedy",
             summary="the end with the best greedy score (gulbara.eval.greedy)"),
    BotEntry("expectimax1", functools.partial(ExpectimaxBot, depth=1),
             summary="expectimax one decision deep on the hand-made evaluator"),
    BotEntry("expectimax2", functools.partial(ExpectimaxBot, depth=2, budget_nodes=200_000),
             summary="expectimax two decisions deep, 200,000 nodes a decision"),
    BotEntry("net", functools.partial(_net_bot, "net"), native="net",
             summary="the value network, 1-ply, chains valued whole (docs/user/bots.md)"),
    BotEntry("net2", functools.partial(_net_bot, "net2"),
             summary="the value network, two decisions deep"),
)}

#: The bots by name, each value a constructor taking no arguments (derived from REGISTRY).
BOTS: Dict[str, Callable[..., Bot]] = {name: entry.build for name, entry in REGISTRY.items()}

#: The bots with a native policy: they play in native self-play and the native arena.
NATIVE_BOTS: Tuple[str, ...] = tuple(name for name, entry in REGISTRY.items() if entry.native)


def is_network_path(spec) -> bool:
    """Whether ``spec`` names a network file (a path ending in ``.npz``) rather than a bot."""
    return isinstance(spec, (str, os.PathLike)) and os.fspath(spec).endswith(".npz")


def bot_label(spec: Union[str, "os.PathLike[str]"]) -> str:
    """How a bot name or a network path is shown: the name, or the file's name."""
    return os.path.basename(os.fspath(spec)) if is_network_path(spec) else str(spec)


def native_policy(spec: Union[str, "os.PathLike[str]"], rules=None, *,
                  player: str = "native play") -> Tuple[str, Optional["Network"]]:
    """How the native game loop plays the bot ``spec``: its native policy's name and the
    compiled network the policy reads (``None`` unless it is ``"net"``). A network file plays
    the ``"net"`` policy with its own weights. ``GulBaraError`` for a bot with no native policy
    (``player`` names what refused it).

    >>> native_policy("greedy")
    ('greedy', None)
    """
    from gulbara.net.model import default_net, load     # the weights, loaded on first use
    if is_network_path(spec):
        return "net", load(os.fspath(spec), rules).native
    if not isinstance(spec, str):
        raise TypeError(f"a bot name is a str (or an .npz path), not {type(spec).__name__}")
    entry = REGISTRY.get(spec)
    if entry is None or entry.native is None:
        raise GulBaraError(f"{player} plays {', '.join(NATIVE_BOTS)} or an .npz network, "
                           f"not {spec!r}")
    return entry.native, (default_net(rules).native if entry.native == "net" else None)


def make_bot(spec: Union[str, "os.PathLike[str]"], seed: Optional[int] = None) -> Bot:
    """A fresh bot from its name in :data:`REGISTRY` (``random`` seeded with ``seed``), or a
    :class:`~gulbara.bots.netbot.NetBot` on a network file (a path ending in ``.npz``).
    ``GulBaraError`` for an unknown name or a file that is not a network."""
    if is_network_path(spec):
        return _net_bot("net", os.fspath(spec))
    if not isinstance(spec, str):
        raise TypeError(f"a bot name is a str (or an .npz path), not {type(spec).__name__}")
    entry = REGISTRY.get(spec)
    if entry is None:
        raise GulBaraError(f"unknown bot {spec!r} (choose from {', '.join(sorted(REGISTRY))}, "
                           f"or a path to an .npz network)")
    return entry.build(seed=seed) if entry.seeded else entry.build()


def play_out(game, white: Union[Bot, str], black: Union[Bot, str],
             max_plies: Optional[int] = None):
    """Play ``game`` (a :class:`Game` or a :class:`Match` with ``auto_roll``) to its end.

    ``white`` and ``black`` choose the plays of their seats: bots, names of
    :data:`REGISTRY` (``"greedy"``) or network paths. Returns ``game.result()``.
    ``max_plies`` stops early (``None`` at the end if the game is not over).

    >>> from gulbara.game import Game
    >>> game = Game(seed=5)
    >>> result = play_out(game, GreedyBot(), RandomBot(seed=1))
    >>> game.is_over(), result.winner in (0, 1, None)
    (True, True)
    """
    current_game(game)
    if isinstance(white, (str, os.PathLike)):
        white = make_bot(white)
    if isinstance(black, (str, os.PathLike)):
        black = make_bot(black, 1)
    for seat, bot in (("white", white), ("black", black)):
        if not callable(getattr(bot, "choose", None)):
            raise TypeError(f"{seat} must be a bot (with choose(game)) or a name in BOTS, "
                            f"not {type(bot).__name__}")
    bots: Sequence[Bot] = (white, black)
    plies = 0
    while not game.is_over():
        if max_plies is not None and plies >= max_plies:
            break
        decision = game.decision
        if decision is None:
            raise GameStateError("play_out needs a game that rolls by itself (auto_roll=True)")
        # a copy: a bot's choose may not touch the game it plays in (one rewrote its
        # opponent's plays and won 172-28 against greedy)
        game.play(bots[decision.seat].choose(game.copy()))
        plies += 1
    return game.result()
