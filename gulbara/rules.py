"""Rule options as data: the frozen :class:`Rules` dataclass (RULES §8).

>>> Rules()
Rules(escalation=True, exempt_rolls=3, exempt_counting='per_player', remainder='to_opponent', unstarted_chain='lost', opening='starter_plays_opening_pair', mars=True, stuck_limit=100, match_target=3)
>>> Rules(remainder="lost").remainder
'lost'
>>> Rules(remainder="later")
Traceback (most recent call last):
...
gulbara.errors.InvalidRulesError: Rules.remainder must be one of 'to_opponent', 'lost'; got 'later'
"""

import re
from dataclasses import asdict, dataclass, fields
from typing import Any, Dict, Mapping, Optional, overload

from gulbara.errors import InvalidRulesError, checked_int, shown

__all__ = ["Rules", "DEFAULT_RULES", "PRESETS", "rules_help", "checked_rules", "rules_from_options"]

_CHOICES = {
    "exempt_counting": ("per_player", "game_wide"),
    "remainder": ("to_opponent", "lost"),
    "unstarted_chain": ("lost", "to_opponent"),
    "opening": ("starter_plays_opening_pair", "starter_rerolls"),
}

#: The options that take one of named values, with those values.
CHOICES = _CHOICES


@dataclass(frozen=True)
class Rules:
    """The options of a Gul Bara rule set (RULES §8); the default is RULES §1-7.

    * ``escalation``: doubles after the exempt rolls escalate (RULES §4.2).
    * ``exempt_rolls``: how many first rolls are exempt from escalation (>= 0).
    * ``exempt_counting``: ``"per_player"`` or ``"game_wide"`` (RULES §4.5).
    * ``remainder``: ``"to_opponent"`` (RULES §5) or ``"lost"``.
    * ``unstarted_chain``: ``"lost"`` (RULES §5.2) or ``"to_opponent"``.
    * ``opening``: ``"starter_plays_opening_pair"`` (RULES §6) or ``"starter_rerolls"``.
    * ``mars``: a game won before the loser bore off any checker scores 2 (RULES §7.1).
    * ``stuck_limit``: rolls in a row without a move that end the game as a draw
      (RULES §7.2), or ``None`` for no limit.
    * ``match_target``: points that win a match (RULES §7.3).
    """

    escalation: bool = True
    exempt_rolls: int = 3
    exempt_counting: str = "per_player"
    remainder: str = "to_opponent"
    unstarted_chain: str = "lost"
    opening: str = "starter_plays_opening_pair"
    mars: bool = True
    stuck_limit: Optional[int] = 100
    match_target: int = 3

    def __post_init__(self) -> None:
        for name in ("escalation", "mars"):
            value = getattr(self, name)
            if not isinstance(value, bool):
                raise InvalidRulesError(f"Rules.{name} must be True or False; got {shown(value)}")
        for name, choices in _CHOICES.items():
            value = getattr(self, name)
            if value not in choices:
                options = ", ".join(repr(c) for c in choices)
                raise InvalidRulesError(f"Rules.{name} must be one of {options}; "
                                        f"got {shown(value)}")
        _check_int(self, "exempt_rolls", 0)
        _check_int(self, "match_target", 1)
        if self.stuck_limit is not None:
            _check_int(self, "stuck_limit", 1)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Rules":
        """Rules from a mapping of option names; unknown names raise ``InvalidRulesError``.

        >>> Rules.from_dict({"escalation": False}).escalation
        False
        """
        if not isinstance(data, Mapping):
            raise InvalidRulesError(f"rules are a mapping of option names, not "
                                    f"{type(data).__name__}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known, key=str)
        if unknown:
            names = ", ".join(shown(name, 40) for name in unknown[:8])
            more = f" ... ({len(unknown)} in all)" if len(unknown) > 8 else ""
            raise InvalidRulesError(f"unknown Rules option(s): {names}{more}")
        return cls(**dict(data))

    def to_dict(self) -> Dict[str, Any]:
        """The options as a plain dict (for JSON records)."""
        return asdict(self)

    @classmethod
    def from_text(cls, text: str, where: str = "rules") -> "Rules":
        """Rules from the ``--rules`` grammar of the command line: ``default``, a preset
        (:data:`PRESETS`), options ``name=value`` separated by commas or spaces, or a preset
        followed by options; an unknown name is answered with the valid ones (:func:`rules_help`),
        the message starting with ``where`` (the command line passes ``"--rules"``).

        >>> Rules.from_text("bulgarian") == Rules.from_text("default") == DEFAULT_RULES
        True
        >>> Rules.from_text("plain-doubles,mars=off") == Rules(escalation=False, mars=False)
        True
        >>> Rules.from_text("stuck_limit=none").stuck_limit is None
        True
        >>> Rules.from_text("remainder=later")
        Traceback (most recent call last):
        ...
        gulbara.errors.InvalidRulesError: rules: remainder must be one of to_opponent, lost; got 'later'
        """
        if isinstance(text, Rules):
            return text
        if not isinstance(text, str):
            raise TypeError(f"rules text is a str, not {type(text).__name__}")
        words = [w for w in text.replace(",", " ").split() if w]
        base = DEFAULT_RULES
        if words and "=" not in words[0]:
            name = words.pop(0)
            if name != "default" and name not in PRESETS:
                raise InvalidRulesError(f"{where}: unknown preset or option {name!r}; "
                                        f"valid: {rules_help()}")
            base = DEFAULT_RULES if name == "default" else PRESETS[name]
        options = rule_options(words, where, InvalidRulesError, base.to_dict())
        return rules_from_options(options, where)

    @classmethod
    def preset(cls, name: str) -> "Rules":
        """A named rule set: one of :data:`PRESETS`.

        >>> Rules.preset("plain-doubles").escalation
        False
        """
        try:
            return PRESETS[name]
        except KeyError:
            raise InvalidRulesError(
                f"unknown Rules preset {name!r}; known: {', '.join(sorted(PRESETS))}") from None


def _check_int(rules: "Rules", name: str, minimum: int) -> None:
    """Check option ``name`` is an int >= ``minimum`` (any integer type: numpy's too; not a
    bool), and store it as a Python int."""
    number = checked_int(getattr(rules, name), f"Rules.{name}", minimum, None,
                         InvalidRulesError, InvalidRulesError, bounds=f">= {minimum}")
    object.__setattr__(rules, name, number)


DEFAULT_RULES = Rules()

#: Named rule sets: the default (Bulgarian) one and common variants of RULES §8.
PRESETS: Dict[str, Rules] = {
    "bulgarian": DEFAULT_RULES,
    "plain-doubles": Rules(escalation=False),
    "remainder-lost": Rules(remainder="lost"),
    "game-wide-exemption": Rules(exempt_counting="game_wide", opening="starter_rerolls"),
}


#: The words an on/off option takes in the ``--rules`` grammar.
_BOOL_WORDS = {"on": True, "off": False, "true": True, "false": False, "yes": True, "no": False}


def _option_values() -> Dict[str, str]:
    """Each option with the values it takes in the ``--rules`` grammar, as text."""
    out = {}
    for field in fields(Rules):
        default = getattr(DEFAULT_RULES, field.name)
        if field.name in _CHOICES:
            out[field.name] = "|".join(_CHOICES[field.name])
        elif isinstance(default, bool):
            out[field.name] = "on|off"
        elif field.name == "stuck_limit":
            out[field.name] = "N|none"
        else:
            out[field.name] = "N"
    return out


def rules_help() -> str:
    """The ``--rules`` grammar (:meth:`Rules.from_text`) in one line, for help texts and errors."""
    options = ", ".join(f"{name}={values}" for name, values in _option_values().items())
    return (f"'default', a preset ({', '.join(sorted(PRESETS))}), options ({options}) separated "
            f"by commas, or a preset then options")


def rule_option_value(name: str, value: str, where: str = "--rules",
                      error: type = InvalidRulesError) -> Any:
    """The value of option ``name`` written as ``value`` in a rules text that ``where``
    names (``--rules``, a record's line); a bad value raises ``error``. Numbers are
    ASCII digits only, at most 18 of them.

    >>> rule_option_value("mars", "off"), rule_option_value("stuck_limit", "none")
    (False, None)
    >>> rule_option_value("exempt_rolls", "\u0663")
    Traceback (most recent call last):
    ...
    gulbara.errors.InvalidRulesError: --rules: exempt_rolls must be N; got '٣'
    """
    default = getattr(DEFAULT_RULES, name)
    values = _option_values()[name]
    word = value.strip().lower()
    if isinstance(default, bool):
        if word not in _BOOL_WORDS:
            raise error(f"{where}: {name} must be on or off; got {shown(value)}")
        return _BOOL_WORDS[word]
    if isinstance(default, int) or default is None:
        if word == "none" and "none" in values:
            return None
        if re.fullmatch(r"-?[0-9]{1,18}", word) is None:
            raise error(f"{where}: {name} must be {values.replace('|', ' or ')}"
                        f"{' (at most 18 digits)' if word.isascii() and word.isdigit() else ''}; got {shown(value)}")
        return int(word)
    if value not in values.split("|"):
        raise error(f"{where}: {name} must be one of {values.replace('|', ', ')}; "
                    f"got {shown(value)}")
    return value


def rule_options(words, where: str, error: type, options: Dict[str, Any]) -> Dict[str, Any]:
    """``options`` updated by the ``name=value`` words of a rules text that ``where`` names;
    an unknown name, or one given twice, raises ``error``."""
    known = _option_values()
    seen = set()
    for word in words:
        name, sep, value = word.partition("=")
        if not sep or name not in known:
            hint = " (a preset comes first)" if where in ("--rules", "rules") else ""
            raise error(f"{where}: unknown option {shown(word)}{hint}; valid: {rules_help()}")
        if name in seen:
            raise error(f"{where}: option {name} is given twice")
        seen.add(name)
        options[name] = rule_option_value(name, value, where, error)
    return options


def rules_from_options(options: Mapping[str, Any], where: str,
                       error: type = InvalidRulesError) -> Rules:
    """``Rules(**options)`` for options read from a text that ``where`` names (``--rules``,
    a record's line): a bad value raises ``error`` with ``where`` before the message.

    >>> rules_from_options({"mars": False}, "--rules") == Rules(mars=False)
    True
    >>> rules_from_options({"match_target": 0}, "--rules")
    Traceback (most recent call last):
    ...
    gulbara.errors.InvalidRulesError: --rules: Rules.match_target must be >= 1, got 0
    """
    try:
        return Rules(**options)
    except InvalidRulesError as exc:
        raise error(f"{where}: {exc}") from None


@overload
def checked_rules(rules: Optional[Rules], default: Rules) -> Rules: ...
@overload
def checked_rules(rules: Optional[Rules], default: None = None) -> Optional[Rules]: ...
def checked_rules(rules: Optional[Rules], default: Optional[Rules] = None) -> Optional[Rules]:
    """``rules``, or ``default`` for ``None``; ``TypeError`` for anything but a :class:`Rules`.

    >>> checked_rules(None, DEFAULT_RULES) is DEFAULT_RULES
    True
    """
    if rules is None:
        return default
    if not isinstance(rules, Rules):
        raise TypeError(f"rules must be a gulbara.Rules, not {type(rules).__name__}")
    return rules
