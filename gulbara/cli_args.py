"""What every ``gulbara`` subcommand reads the same way: rules, seats, positions, states, extras.

* ``--rules``: ``default``, a preset (:data:`gulbara.PRESETS`), options
  ``name=value`` separated by commas or spaces, or a preset followed by options
  (``plain-doubles,mars=off``); an unknown name is answered with the valid ones.
* seats: ``white``/``black`` or ``0``/``1`` (:func:`gulbara.state_codes.seat_index`).
* positions: a position code (RULES §9.1) or ``start``.
* states (``--state``, with ``--seat`` and ``--rolls`` for a plain position):
  :func:`gulbara.state_codes.state_code`.
* optional extras (:func:`require_extra`) are checked before any work starts.

>>> parse_rules("bulgarian") == parse_rules("default")
True
>>> parse_rules("plain-doubles,mars=off")
Rules(escalation=False, exempt_rolls=3, exempt_counting='per_player', remainder='to_opponent', unstarted_chain='lost', opening='starter_plays_opening_pair', mars=False, stuck_limit=100, match_target=3)
>>> parse_rules("remainder=later")
Traceback (most recent call last):
...
gulbara.errors.InvalidRulesError: --rules: remainder must be one of to_opponent, lost; got 'later'
"""

import argparse
import importlib
from dataclasses import fields
from typing import Any, Dict, Optional, Tuple

from gulbara.errors import GulBaraError, InvalidRulesError
from gulbara.rules import DEFAULT_RULES, PRESETS, Rules
from gulbara.state_codes import position_code, seat_index, state_code

__all__ = ["parse_rules", "rules_help", "seat_type", "position_type", "rolls_type",
           "add_rules_argument", "add_state_arguments", "state_from_args", "require_extra",
           "EXTRAS"]

#: Option values by kind, for the error message listing them.
_BOOL_WORDS = {"on": True, "off": False, "true": True, "false": False, "yes": True, "no": False}


def _option_values() -> Dict[str, str]:
    """Each option with the values it takes, as text."""
    from gulbara.rules import CHOICES
    out = {}
    for field in fields(Rules):
        default = getattr(DEFAULT_RULES, field.name)
        if field.name in CHOICES:
            out[field.name] = "|".join(CHOICES[field.name])
        elif isinstance(default, bool):
            out[field.name] = "on|off"
        elif field.name == "stuck_limit":
            out[field.name] = "N|none"
        else:
            out[field.name] = "N"
    return out


def rules_help() -> str:
    """The ``--rules`` grammar in one line, for help texts and errors."""
    options = ", ".join(f"{name}={values}" for name, values in _option_values().items())
    return (f"'default', a preset ({', '.join(sorted(PRESETS))}), options ({options}) separated "
            f"by commas, or a preset then options")


def _option_value(name: str, value: str) -> Any:
    default = getattr(DEFAULT_RULES, name)
    values = _option_values()[name]
    word = value.strip().lower()
    if isinstance(default, bool):
        if word not in _BOOL_WORDS:
            raise InvalidRulesError(f"--rules: {name} must be on or off; got {value!r}")
        return _BOOL_WORDS[word]
    if isinstance(default, int) or default is None:
        if word == "none" and "none" in values:
            return None
        try:
            return int(word)
        except ValueError:
            raise InvalidRulesError(f"--rules: {name} must be {values.replace('|', ' or ')}; "
                                    f"got {value!r}") from None
    if value not in values.split("|"):
        raise InvalidRulesError(f"--rules: {name} must be one of "
                                f"{values.replace('|', ', ')}; got {value!r}")
    return value


def parse_rules(text: str) -> Rules:
    """:class:`Rules` from the ``--rules`` grammar (see the module docstring)."""
    if isinstance(text, Rules):
        return text
    words = [w for w in str(text).replace(",", " ").split() if w]
    base = DEFAULT_RULES
    if words and "=" not in words[0]:
        name = words.pop(0)
        if name != "default" and name not in PRESETS:
            raise InvalidRulesError(f"--rules: unknown preset or option {name!r}; "
                                    f"valid: {rules_help()}")
        base = DEFAULT_RULES if name == "default" else PRESETS[name]
    options = base.to_dict()
    known = _option_values()
    for word in words:
        name, sep, value = word.partition("=")
        if not sep or name not in known:
            raise InvalidRulesError(f"--rules: unknown option {word!r} (a preset comes first); "
                                    f"valid: {rules_help()}")
        options[name] = _option_value(name, value)
    try:
        return Rules(**options)
    except GulBaraError as exc:
        raise InvalidRulesError(f"--rules: {exc}") from None


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
                        help="a game state code (docs/state-codes.md), or a position code "
                             f"(or 'start') with --seat; default: {default}")
    parser.add_argument("--seat", type=seat_type, default=None, metavar="SIDE",
                        help="with a position code as --state: the side to roll, white/black "
                             "or 0/1")
    parser.add_argument("--rolls", type=rolls_type, default=None, metavar="W,B",
                        help="with a position code as --state: the rolls each side has made "
                             "(default: past the exempt rolls, so doubles escalate)")


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
