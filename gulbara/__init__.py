"""gulbara: a fast, exact legal-move generator for Gul Bara (rosespring backgammon).

>>> import gulbara
>>> ends = gulbara.stage_ends(gulbara.START_CODE, gulbara.WHITE, [6, 5])
>>> [str(play) for play in ends]
['24/18 24/19', '24/13']
"""

try:
    # first: the compiled modules' builds for this CPU (gulbara.cpu), before any is loaded
    from gulbara import cpu as _cpu
    _cpu.install()
    from gulbara.core._backend import BACKEND_NAME, START_CODE, Position
except ImportError as _error:  # the source tree, unbuilt: say so (gulbara/_unbuilt.py)
    from gulbara._unbuilt import unbuilt_error
    raise unbuilt_error(__path__[0], _error) from None
from gulbara.core.batch import BatchEnds, stage_ends_batch
from gulbara.conventions import ROLLS
from gulbara.core.board import Board
from gulbara.chains.enumeration import (ChainEnds, ChainOutcome, chain_best, chain_count, chain_ends,
                            chain_ends_iter, remainder_ends, remainder_ends_iter)
from gulbara.errors import (GameStateError, GulBaraError, IllegalPlayError,
                            InvalidDiceError, InvalidNotationError,
                            InvalidPositionError, InvalidRulesError,
                            InvalidSeatError, RecordError,
                            EnumerationLimitError, InvalidPolicyError, OutputBufferError)
from gulbara.game.driver import Decision, DiceStream, Game, GameResult, Match, MatchResult
from gulbara.core.play import (BLACK, WHITE, Play, StageEnds, format_steps,
                          parse_notation, stage_ends)
from gulbara.rules import DEFAULT_RULES, PRESETS, Rules
from gulbara.game.record import read_record, write_record
from gulbara.bots.simple import GreedyBot, RandomBot
from gulbara.game.perft import divide, perft
from gulbara import encoding

__version__ = "0.1.0"

#: Subpackages and modules that ``import gulbara`` does not load, loaded on first use as
#: attributes (``gulbara.net.default_net()``, ``gulbara.selfplay.rollout(...)``; PEP 562), so
#: that importing the core stays light.
LAZY_MODULES = ("envs", "net", "pictures", "plotting", "selfplay", "tools")


def cpu_paths():
    """The code paths the running CPU takes, chosen at import (docs/dev/building.md): a dict
    with ``"lzcnt"``, whether the compiled move generator (and with it whole chains and perft)
    runs its LZCNT build; ``"network"``, the network's arithmetic, ``"avx512f"``, ``"avx2"``
    (with FMA), ``"sse2"`` or ``"c"``; ``"disabled"``, the features the environment variable
    ``GULBARA_DISABLE_CPU_FEATURES`` turns off, sorted. Every path gives the same results.

    >>> paths = gulbara.cpu_paths()
    >>> sorted(paths)
    ['disabled', 'lzcnt', 'network']
    >>> paths["network"] in ("avx512f", "avx2", "sse2", "c"), type(paths["lzcnt"])
    (True, <class 'bool'>)
    """
    from gulbara.core import _movegen
    from gulbara.net import _net
    return {"lzcnt": _movegen.BUILT_WITH_LZCNT, "network": _cpu.NETWORK_LEVELS[_net.simd_level_in_use()],
            "disabled": tuple(sorted(_cpu.DISABLED))}


def __getattr__(name):
    if name in LAZY_MODULES:
        import importlib
        return importlib.import_module(f"gulbara.{name}")
    raise AttributeError(f"module 'gulbara' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(LAZY_MODULES))


__all__ = [
    "BACKEND_NAME", "START_CODE", "WHITE", "BLACK", "ROLLS",
    "Board", "Play", "Position", "StageEnds", "Rules", "DEFAULT_RULES", "PRESETS",
    "stage_ends", "format_steps", "parse_notation",
    "stage_ends_batch", "BatchEnds",
    "chain_ends", "remainder_ends", "chain_ends_iter", "remainder_ends_iter", "chain_count",
    "chain_best",
    "ChainEnds", "ChainOutcome", "EnumerationLimitError",
    "Game", "Match", "Decision", "GameResult", "MatchResult", "DiceStream",
    "read_record", "write_record", "RandomBot", "GreedyBot", "perft", "divide",
    "GulBaraError", "InvalidPositionError", "InvalidSeatError", "InvalidDiceError",
    "InvalidNotationError", "IllegalPlayError", "InvalidRulesError",
    "GameStateError", "RecordError", "InvalidPolicyError", "OutputBufferError", "encoding",
    "cpu_paths",
]
