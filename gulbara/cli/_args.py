"""What every ``gulbara`` subcommand reads the same way: rules, seats, positions, states, extras.

* ``--rules``: the grammar of :meth:`gulbara.Rules.from_text` (``default``, a
  preset, options ``name=value``, or a preset followed by options).
* seats: ``white``/``black`` or ``0``/``1`` (:func:`gulbara.game.state_codes.seat_index`).
* positions: a position code (RULES §9.1) or ``start``.
* states (``--state``, with ``--seat`` and ``--rolls`` for a plain position):
  :func:`gulbara.game.state_codes.state_code`.
* ``--timeout``: the seconds another engine has for each answer
  (:class:`gulbara.tools.protocol.EngineProcess`; ``verify`` and ``bench --engine``).
* optional extras (:func:`require_extra`), output files (:func:`check_output_path`)
  and plot files (:func:`check_plot_path`) are checked before any work starts.
"""

import argparse
import importlib
import os
from typing import Optional, Tuple

from gulbara.errors import GulBaraError
from gulbara.rules import Rules, rules_help
from gulbara.game.state_codes import position_code, seat_index, state_code

__all__ = [ "seat_type", "position_type", "rolls_type",
           "add_rules_argument", "add_state_arguments", "state_from_args",
           "add_timeout_argument", "require_extra", "EXTRAS", "check_output_path",
           "check_plot_path", "refuse_unused", "checked_seconds", "TIMEOUT", "MAX_SECONDS"]

def _argparse_type(func, what: str):
    def convert(text: str):
        try:
            return func(text)
        except (GulBaraError, TypeError) as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    convert.__name__ = what
    return convert


#: ``type=`` for a seat option: ``white``/``black`` or ``0``/``1``.
seat_type = _argparse_type(seat_index, "seat")
#: ``type=`` for a position option: a code or ``start``.
position_type = _argparse_type(position_code, "position")


def _rolls(text: str) -> Tuple[int, int]:
    parts = text.replace(" ", "").split(",")
    try:
        rolls = tuple(int(p) for p in parts)
    except ValueError:
        rolls = ()
    if len(rolls) != 2 or min(rolls) < 0:
        raise argparse.ArgumentTypeError(f"--rolls is WHITE,BLACK (rolls made, >= 0), "
                                         f"got {text!r}")
    return rolls


rolls_type = _rolls


def add_rules_argument(parser: argparse.ArgumentParser, what: str = "the game's rules") -> None:
    """``--rules``, the same in every subcommand."""
    parser.add_argument("--rules", default="default", metavar="RULES",
                        help=f"{what}: {rules_help()} (default: default)")


def add_state_arguments(parser: argparse.ArgumentParser, default: str) -> None:
    """``--state`` with ``--seat`` and ``--rolls`` for a plain position code."""
    parser.add_argument("--state", metavar="CODE",
                        help="a game state code (docs/user/state-codes.md), or a position code "
                             f"(or 'start') with --seat; default: {default}")
    parser.add_argument("--seat", type=seat_type, default=None, metavar="SIDE",
                        help="with a position code as --state: the side to roll, white/black "
                             "or 0/1")
    parser.add_argument("--rolls", type=rolls_type, default=None, metavar="W,B",
                        help="with a position code as --state: the rolls each side has made "
                             "(default: past the exempt rolls, so doubles escalate)")


#: ``--timeout``'s default: the seconds an engine has for each answer.
TIMEOUT = 10.0
#: The longest wait a seconds option takes (a week): more is a typo, and ``inf`` is no wait.
MAX_SECONDS = 7 * 24 * 3600.0


def add_timeout_argument(parser: argparse.ArgumentParser, when: str = "") -> None:
    """``--timeout``: the seconds an engine has for each answer (the first 20 s more); it
    stays ``None`` when not given (:func:`refuse_unused`), :data:`TIMEOUT` then."""
    parser.add_argument("--timeout", type=float, default=None,
                        help=f"{when}seconds to wait for each answer of the engine (default "
                             f"{TIMEOUT:g}; the first 20 s more, for its start-up)")


def checked_seconds(value: float, option: str) -> float:
    """``value`` (the seconds given by ``option``) if it is a number of seconds above 0 and at
    most :data:`MAX_SECONDS`, else :class:`GulBaraError` naming the option (``inf`` and
    ``nan`` too: they once reached the engine harness and ended in a traceback)."""
    if not 0 < value <= MAX_SECONDS:
        raise GulBaraError(f"{option} must be a number of seconds above 0 and at most "
                           f"{MAX_SECONDS:,.0f} (a week), got {value!r}")
    return float(value)


def refuse_unused(args, mode: str, *options: str) -> None:
    """Raise :class:`GulBaraError` if one of ``options`` (``"--max-rolls"``, ...), which
    ``mode`` does not use, was given (its value not ``None``, ``False`` or empty): a run never
    ignores an option in silence."""
    for option in options:
        value = getattr(args, option.lstrip("-").replace("-", "_"), None)
        if value not in (None, False, [], ""):
            raise GulBaraError(f"{mode} does not take {option}")


def state_from_args(args, rules: Rules) -> Optional[str]:
    """The state code of ``--state``/``--seat``/``--rolls``, or ``None`` without ``--state``."""
    if args.state is None:
        if args.seat is not None or args.rolls is not None:
            raise GulBaraError("--seat and --rolls go with --state (a position code)")
        return None
    return state_code(args.state, args.seat, rules=rules, rolls=args.rolls)


#: Optional extras: module -> (extra, what it is for).
EXTRAS = {
    "matplotlib": "plot",
    "cairosvg": "pictures",
    "ray": "ray",
    "gymnasium": "rl",
    "pettingzoo": "rl",
}


def require_extra(module: str, what: str) -> None:
    """Raise ``ImportError`` naming the extra to install when ``module`` is missing.

    Called before any work starts, so a long run never fails at its end.
    """
    try:
        importlib.import_module(module)
    except ImportError:
        extra = EXTRAS.get(module, module)
        raise ImportError(f"{what} needs {module}: pip install \"gulbara[{extra}]\"") from None


def check_output_path(path: str, option: str) -> None:
    """Raise :class:`GulBaraError` if the file ``path`` (given by ``option``) could not be
    written: a directory, a folder that does not exist or is not writable, a read-only file.

    Called before any work starts, so a long run never fails at its end (the file
    itself is neither created nor changed here).
    """
    if os.path.isdir(path):
        raise GulBaraError(f"{option} {path!r} is a directory, not a file")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise GulBaraError(f"{option} {path!r}: there is no directory {folder!r}")
    if os.path.exists(path):
        if not os.access(path, os.W_OK):
            raise GulBaraError(f"{option} {path!r}: the file is not writable")
    elif not os.access(folder, os.W_OK | os.X_OK):
        raise GulBaraError(f"{option} {path!r}: the directory {folder!r} is not writable")


def check_plot_path(path: str, option: str = "--plot") -> None:
    """Check an image file to draw a plot into before any work starts: matplotlib
    installed (:func:`require_extra`), a format it writes (by the suffix), a
    writable path (:func:`check_output_path`)."""
    require_extra("matplotlib", option)
    from gulbara.plotting import check_plot_format
    check_plot_format(path, option)
    check_output_path(path, option)
