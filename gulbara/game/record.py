"""Game and match records: a human-readable text form and JSON, both lossless.

The text record of a game (seed 2, two greedy bots; lines left out)::

    [Gul Bara game]
    Rules: default
    Dice: seed 2
    Opening: 1-1 1-3
    B1 1-3: 24/21 24/23
    W1 2-6: 24/18 24/22
    ...
    B11 2-2 chain: [2222] 15/9 13/11 [3333] 14/11(4) [4444] 17/9 16/12 13/9 [5555] 14/9(3) | W remainder: [5] 11/6 [6666] 22/4 17/11
    ...
    W24 5-5 chain: [5555] 1/off(3)
    Result: White wins 1 point
    State: G:,,,,,,,,,,,,-5,,,,,,,,,,,|0,0|15,10 next=over result=W:1:single rolls=24,24 stuck=0

* ``Rules``: ``default``, or the options that differ from it (``remainder=lost
  mars=off``); ``Dice``: ``seed N`` (the seeded generator), ``draw`` (a
  caller's draw function: the dice are all in the record) or ``explicit``
  (rolls given with :meth:`Game.roll`).
* ``Opening``: the opening pairs, White's die first, ties included (RULES §6),
  then ``White starts`` when the first roll was given by the perft convention
  (RULES §10.5) instead of an opening pair.
* One line per roll: the roller and its roll number (RULES §4.5), the dice as
  rolled, ``chain`` if the roll escalates (RULES §4.2), then each stage's play
  in notation (RULES §9.3; ``pass`` for the empty play). A chain's stages, and a
  remainder's, are each labelled with their dice (``[4444]``, ``[55]``); the
  remainder the opponent plays follows ``| B remainder:`` on the roller's line
  (RULES §5.3). A roll whose stages are not all played yet ends the record of
  an unfinished game.
* ``Result`` once the game is over, and ``State``: the final state
  (:meth:`Game.state_code`), which the replay must reach.

A match record has a ``[Gul Bara match]`` header with ``Target``, then a
``Game N`` section per game (its opening, rolls, result, state and the match
``Score`` after it) and, once the match is over, ``Winner``.

Reading a record replays it through :class:`Game` or :class:`Match`, checking
every roll and every play; any mismatch raises :class:`RecordError`.

>>> from gulbara.game.driver import Game
>>> game = Game(seed=24)
>>> _ = game.play("24/14")
>>> text = write_record(game)
>>> print(text, end="")
[Gul Bara game]
Rules: default
Dice: seed 24
Opening: 6-4
W1 6-4: 24/14
B1 3-1:
State: G:,,,,,,,,,,,-15,,1,,,,,,,,,,14|0,0|0,0 next=play:B stage=3-1 roll=3-1 rolls=1,1 stuck=0
>>> again = read_record(text)
>>> again.state_code() == game.state_code(), write_record(again) == text
(True, True)
"""

import builtins
import json
import re
from typing import Any, Callable, Dict, List, Optional, Union

from gulbara.errors import GulBaraError, RecordError, shown
from gulbara.game.driver import SEAT_NAMES, Game, Match
from gulbara.rules import DEFAULT_RULES, Rules, rule_options, rules_from_options

__all__ = [
    "write_record", "read_record", "record_data", "game_to_text", "match_to_text",
    "text_to_data", "data_to_text", "replay_data",
]

_LETTERS = ("W", "B")
_FORMAT_VERSION = 1


# ---------------------------------------------------------------------------
# The record as data (the JSON form)
# ---------------------------------------------------------------------------


def _dice_data(stream_seed, auto: bool, has_draw: bool) -> Dict[str, Any]:
    if not auto:
        return {"mode": "explicit"}
    if has_draw:
        return {"mode": "draw"}
    return {"mode": "seed", "seed": stream_seed}


def _game_dice(game: Game) -> Dict[str, Any]:
    stream = game.dice
    # a game of a match other than the first does not start at the seed's first draw:
    # its record then holds all its dice instead
    has_draw = stream is not None and (stream.draw_function is not None or game.dice_start != 0)
    return _dice_data(game.seed, game.auto_roll, has_draw)


def _game_body(game: Game) -> Dict[str, Any]:
    """A game's own part of the record: opening, rolls with their stages, result, state."""
    if game.from_state:
        raise RecordError("a game rebuilt from a state code has no history to record")
    openings: List[List[int]] = []
    starter = None
    convention = False
    rolls: List[Dict[str, Any]] = []
    for event in game.events:
        kind = event.kind
        if kind == "opening":
            openings.append(list(event.dice))
        elif kind == "start":
            starter = event.seat
            convention = not openings or openings[-1][0] == openings[-1][1]
        elif kind == "roll":
            rolls.append({"seat": event.seat, "number": None, "dice": list(event.dice),
                          "opening": event.opening, "escalating": None, "stages": []})
        else:
            decision, play = event.decision, event.play
            assert decision is not None and play is not None    # a "play" event has both
            roll = rolls[-1]
            roll["number"] = decision.roll_number
            roll["escalating"] = decision.is_escalating
            roll["stages"].append({
                "seat": decision.seat, "dice": list(decision.dice),
                "remainder": decision.is_remainder, "play": str(play),
                "steps": [list(step) for step in play.steps]})
    # a roll without a played stage yet: its number and kind come from the decision
    decision = game.decision
    if rolls and rolls[-1]["number"] is None and decision is not None:
        rolls[-1]["number"] = decision.roll_number
        rolls[-1]["escalating"] = decision.is_escalating
    result = game.result()
    return {
        "openings": openings,
        "starter": starter,
        "convention": convention,
        "rolls": rolls,
        "result": None if result is None else {
            "winner": result.winner, "points": result.points, "kind": result.kind},
        "state": game.state_code(),
    }


def record_data(obj: Union[Game, Match]) -> Dict[str, Any]:
    """The record of a game or a match as plain data (what the JSON form holds)."""
    if isinstance(obj, Game):
        data = {"format": "gulbara-game", "version": _FORMAT_VERSION,
                "rules": obj.rules.to_dict(), "dice": _game_dice(obj)}
        data.update(_game_body(obj))
        return data
    if isinstance(obj, Match):
        stream = obj.dice
        has_draw = stream is not None and stream.draw_function is not None
        games = []
        for game in obj.games:
            body = _game_body(game)
            body["score"] = None
            games.append(body)
        scores = [0, 0]
        for body in games:
            result = body["result"]
            if result is not None and result["winner"] is not None:
                scores[result["winner"]] += result["points"]
                body["score"] = list(scores)
        outcome = obj.result()
        return {"format": "gulbara-match", "version": _FORMAT_VERSION,
                "rules": obj.rules.to_dict(),
                "dice": _dice_data(obj.seed, obj.auto_roll, has_draw),
                "target": obj.target, "games": games, "scores": list(obj.scores),
                "winner": None if outcome is None else outcome.winner}
    raise TypeError(f"a record is made of a Game or a Match, not {type(obj).__name__}")


# ---------------------------------------------------------------------------
# Text
# ---------------------------------------------------------------------------


def _rules_text(rules_dict: Dict[str, Any]) -> str:
    default = DEFAULT_RULES.to_dict()
    words = []
    for name, value in rules_dict.items():
        if value == default[name]:
            continue
        if isinstance(value, bool):
            value = "on" if value else "off"
        elif value is None:
            value = "none"
        words.append(f"{name}={value}")
    return " ".join(words) if words else "default"


def _rules_from_text(text: str, where: str) -> Rules:
    text = text.strip()
    if text == "default":
        return DEFAULT_RULES
    options = rule_options(text.split(), where, RecordError, {})
    return rules_from_options(options, where, RecordError)


def _dice_text(dice: Dict[str, Any]) -> str:
    if dice["mode"] == "seed":
        return f"seed {dice['seed']}"
    return dice["mode"]


def _stage_label(dice: List[int]) -> str:
    return "[" + "".join(map(str, dice)) + "]"


def _roll_line(roll: Dict[str, Any]) -> str:
    head = (f"{_LETTERS[roll['seat']]}{roll['number']} {roll['dice'][0]}-{roll['dice'][1]}"
            f"{' chain' if roll['escalating'] else ''}:")
    own = [stage for stage in roll["stages"] if not stage["remainder"]]
    rest = [stage for stage in roll["stages"] if stage["remainder"]]
    words = [head]
    if roll["escalating"]:
        for stage in own:
            words += [_stage_label(stage["dice"]), stage["play"]]
    elif own:
        words.append(own[0]["play"])
    if rest:
        words += ["|", f"{_LETTERS[rest[0]['seat']]} remainder:"]
        for stage in rest:
            words += [_stage_label(stage["dice"]), stage["play"]]
    return " ".join(words)


def _result_text(result: Dict[str, Any]) -> str:
    if result["winner"] is None:
        return "draw (stuck rule)"
    unit = "point" if result["points"] == 1 else "points"
    mars = " (mars)" if result["kind"] == "mars" else ""
    return f"{SEAT_NAMES[result['winner']]} wins {result['points']} {unit}{mars}"


def _opening_text(body: Dict[str, Any]) -> str:
    words = [f"{w}-{b}" for w, b in body["openings"]]
    if body["convention"]:
        words.append("White starts")
    return " ".join(words)


def _game_lines(body: Dict[str, Any]) -> List[str]:
    lines = [f"Opening: {_opening_text(body)}".rstrip()]
    lines += [_roll_line(roll) for roll in body["rolls"]]
    if body["result"] is not None:
        lines.append(f"Result: {_result_text(body['result'])}")
    lines.append(f"State: {body['state']}")
    return lines


def data_to_text(data: Dict[str, Any]) -> str:
    """The text record of a game's or a match's record data; :class:`RecordError` naming
    what is wrong for malformed data (``TypeError`` for data that is not a dict)."""
    if not isinstance(data, dict):
        raise TypeError(f"record data is a dict, not {type(data).__name__}")
    if data.get("format") in ("gulbara-game", "gulbara-match"):
        _check_data(data)       # the structure first: it once raised raw KeyErrors
        try:
            return _data_text(data)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
            raise RecordError(f"malformed record data: {type(exc).__name__}: "
                              f"{shown(str(exc))}") from None
    raise RecordError("record data must have format 'gulbara-game' or 'gulbara-match'")


def _data_text(data: Dict[str, Any]) -> str:
    if data.get("format") == "gulbara-game":
        lines = ["[Gul Bara game]", f"Rules: {_rules_text(data['rules'])}",
                 f"Dice: {_dice_text(data['dice'])}"]
        lines += _game_lines(data)
        return "\n".join(lines) + "\n"
    if data.get("format") == "gulbara-match":
        lines = ["[Gul Bara match]", f"Rules: {_rules_text(data['rules'])}",
                 f"Dice: {_dice_text(data['dice'])}", f"Target: {data['target']}"]
        for number, body in enumerate(data["games"], 1):
            lines += ["", f"Game {number}"]
            lines += _game_lines(body)
            if body.get("score") is not None:
                lines.append(f"Score: {body['score'][0]}-{body['score'][1]}")
        if data.get("winner") is not None:
            scores = data["scores"]
            lines += ["", f"Winner: {SEAT_NAMES[data['winner']]} {scores[0]}-{scores[1]}"]
        return "\n".join(lines) + "\n"
    raise RecordError("record data must have format 'gulbara-game' or 'gulbara-match'")


def game_to_text(game: Game) -> str:
    return data_to_text(record_data(game))


def match_to_text(match: Match) -> str:
    return data_to_text(record_data(match))


_ROLL_HEAD = re.compile(r"([WB])([0-9]{1,9}) ([1-6])-([1-6])( chain)?:(.*)")
_LABEL = re.compile(r"\[([1-6]{1,4})\]")
_PAIR = re.compile(r"([1-6])-([1-6])")


def _parse_stages(text: str, where: str) -> List[Dict[str, Any]]:
    """``[4444] 18/14(4) [55] pass`` -> stages with their dice and play notation."""
    stages: List[Dict[str, Any]] = []
    for word in text.split():
        label = _LABEL.fullmatch(word)
        if label:
            digits = label.group(1)
            if len(set(digits)) != 1:
                raise RecordError(f"{where}: a stage label holds equal dice, got {word}")
            stages.append({"dice": [int(d) for d in digits], "words": []})
        elif word.startswith("["):
            raise RecordError(f"{where}: cannot read stage label {shown(word)}")
        else:
            if not stages:
                raise RecordError(f"{where}: a play before the first stage label: {shown(word)}")
            stages[-1]["words"].append(word)
    for stage in stages:
        if not stage["words"]:
            raise RecordError(f"{where}: stage {_stage_label(stage['dice'])} has no play "
                              f"(write 'pass' for the empty play)")
        stage["play"] = " ".join(stage.pop("words"))
    return stages


def _parse_roll_line(line: str, where: str) -> Dict[str, Any]:
    match = _ROLL_HEAD.fullmatch(line)
    if not match:
        raise RecordError(f"{where}: cannot read {shown(line)} as a roll line like "
                          "'W3 6-4: 24/18 24/20'")
    seat = _LETTERS.index(match.group(1))
    dice = [int(match.group(3)), int(match.group(4))]
    escalating = bool(match.group(5))
    rest = match.group(6).strip()
    own_text, bar, rem_text = rest.partition("|")
    roll: Dict[str, Any] = {"seat": seat, "number": int(match.group(2)), "dice": dice,
                            "escalating": escalating, "stages": []}
    own_text = own_text.strip()
    if escalating:
        for stage in _parse_stages(own_text, where):
            stage.update(seat=seat, remainder=False)
            roll["stages"].append(stage)
    elif own_text:
        if own_text.startswith("["):
            raise RecordError(f"{where}: only a chain's stages are labelled: {shown(own_text)}")
        stage_dice = sorted(dice, reverse=True) if dice[0] != dice[1] else [dice[0]] * 4
        roll["stages"].append({"seat": seat, "dice": stage_dice, "remainder": False,
                               "play": own_text})
    if bar:
        parts = rem_text.strip().split(None, 2)
        if len(parts) < 2 or parts[0] not in _LETTERS or parts[1] != "remainder:":
            raise RecordError(f"{where}: a remainder is written '| B remainder: [55] ...'")
        receiver = _LETTERS.index(parts[0])
        stages = _parse_stages(parts[2] if len(parts) > 2 else "", where)
        if not stages:
            raise RecordError(f"{where}: a remainder without stages")
        for stage in stages:
            stage.update(seat=receiver, remainder=True)
            roll["stages"].append(stage)
    return roll


def _parse_result(text: str, where: str) -> Dict[str, Any]:
    text = text.strip()
    if text == "draw (stuck rule)":
        return {"winner": None, "points": 0, "kind": "stuck"}
    match = re.fullmatch(r"(White|Black) wins ([0-9]{1,2}) points?( \(mars\))?", text)
    if not match:
        raise RecordError(f"{where}: cannot read result {shown(text)}")
    points = int(match.group(2))
    kind = "mars" if match.group(3) else "single"
    return {"winner": SEAT_NAMES.index(match.group(1)), "points": points, "kind": kind}


def _parse_opening(text: str, where: str) -> Dict[str, Any]:
    text = text.strip()
    convention = text == "White starts" or text.endswith(" White starts")
    if convention:
        text = text[:-len("White starts")]
    pairs = []
    for word in text.split():
        match = _PAIR.fullmatch(word)
        if not match:
            raise RecordError(f"{where}: cannot read opening pair {shown(word)}")
        pairs.append([int(match.group(1)), int(match.group(2))])
    return {"openings": pairs, "convention": convention}


def text_to_data(text: str) -> Dict[str, Any]:
    """Read a text record into record data (plays as notation, not yet replayed)."""
    if not isinstance(text, str):
        raise TypeError(f"a text record is a str, not {type(text).__name__}")
    lines = [(n, line.rstrip()) for n, line in enumerate(text.splitlines(), 1)]
    lines = [(n, line) for n, line in lines if line.strip() and not line.startswith("#")]
    if not lines:
        raise RecordError("empty record")
    n, header = lines[0]
    if header not in ("[Gul Bara game]", "[Gul Bara match]"):
        raise RecordError(f"line {n}: a record starts with [Gul Bara game] or [Gul Bara match]")
    is_match = header == "[Gul Bara match]"
    data: Dict[str, Any] = {"format": "gulbara-match" if is_match else "gulbara-game",
                            "version": _FORMAT_VERSION}
    games: List[Dict[str, Any]] = []
    body: Optional[Dict[str, Any]] = None if is_match else {}
    if body is not None:
        games.append(body)
    for n, line in lines[1:]:
        where = f"line {n}"
        key, sep, value = line.partition(":")
        if _ROLL_HEAD.fullmatch(line):
            if body is None or "openings" not in body:
                raise RecordError(f"{where}: a roll line before the Opening line")
            roll = _parse_roll_line(line, where)
            roll["line"] = n
            body["rolls"].append(roll)
        elif key == "Rules" and sep:
            data["rules"] = _rules_from_text(value, where).to_dict()
        elif key == "Dice" and sep:
            words = value.split()
            if words[:1] == ["seed"] and len(words) == 2 and re.fullmatch(r"-?[0-9]{1,40}",
                                                                          words[1]):
                data["dice"] = {"mode": "seed", "seed": int(words[1])}
            elif words in (["draw"], ["explicit"]):
                data["dice"] = {"mode": words[0]}
            else:
                raise RecordError(f"{where}: Dice is 'seed N', 'draw' or 'explicit'")
        elif key == "Target" and sep and is_match:
            if not re.fullmatch(r"\s*[0-9]{1,9}\s*", value):
                raise RecordError(f"{where}: cannot read target {shown(value.strip())}")
            data["target"] = int(value)
        elif is_match and re.fullmatch(r"Game ([0-9]{1,9})", line):
            if int(line.split()[1]) != len(games) + 1:
                raise RecordError(f"{where}: expected Game {len(games) + 1}")
            body = {}
            games.append(body)
        elif key == "Opening" and sep:
            if body is None or "openings" in body:
                raise RecordError(f"{where}: unexpected Opening line")
            body.update(_parse_opening(value, where), rolls=[], result=None)
        elif key == "Result" and sep and body is not None:
            body["result"] = _parse_result(value, where)
        elif key == "State" and sep and body is not None:
            body["state"] = value.strip()
        elif key == "Score" and sep and body is not None and is_match:
            match = re.fullmatch(r"\s*([0-9]{1,9})-([0-9]{1,9})", value)
            if not match:
                raise RecordError(f"{where}: cannot read score {shown(value.strip())}")
            body["score"] = [int(match.group(1)), int(match.group(2))]
        elif key == "Winner" and sep and is_match:
            match = re.fullmatch(r"\s*(White|Black) ([0-9]{1,9})-([0-9]{1,9})", value)
            if not match:
                raise RecordError(f"{where}: cannot read {shown(line)}")
            data["winner"] = SEAT_NAMES.index(match.group(1))
            data["scores"] = [int(match.group(2)), int(match.group(3))]
        else:
            raise RecordError(f"{where}: cannot read {shown(line)}")
    for name in ("rules", "dice") + (("target",) if is_match else ()):
        if name not in data:
            raise RecordError(f"the record has no {name.capitalize()} line")
    for number, body in enumerate(games, 1):
        if "openings" not in body:
            raise RecordError(f"game {number} has no Opening line")
    if is_match:
        data["games"] = games
    else:
        data.update(games[0])
    return data


# ---------------------------------------------------------------------------
# Replay
# ---------------------------------------------------------------------------


def _recorded_draws(bodies: List[Dict[str, Any]]) -> List[int]:
    """The dice draws a record implies, in the order of RULES §6 and §4."""
    values: List[int] = []
    for body in bodies:
        for w, b in body["openings"]:
            values += [w - 1, b - 1]
        for roll in body["rolls"]:
            if not roll.get("opening_roll"):
                values += [roll["dice"][0] - 1, roll["dice"][1] - 1]
    return values


def _mark_opening_rolls(body: Dict[str, Any], rules: Rules, where: str) -> None:
    """Mark the roll that is the opening pair itself (RULES §6), which draws nothing more."""
    opening_pair = (rules.opening == "starter_plays_opening_pair" and not body["convention"]
                    and body["openings"] and body["openings"][-1][0] != body["openings"][-1][1])
    for k, roll in enumerate(body["rolls"]):
        roll["opening_roll"] = bool(opening_pair and k == 0)
        if roll["opening_roll"] and roll["dice"] != body["openings"][-1]:
            raise RecordError(f"{where}: the first roll {roll['dice']} is not the opening pair "
                              f"{body['openings'][-1]}")


def _feeder(values: List[int]) -> Callable[[], int]:
    it = iter(values)

    def draw() -> int:
        try:
            return next(it)
        except StopIteration:
            raise RecordError("the record holds no more dice than it used") from None
    return draw


def _check(condition: bool, where: str, message: str) -> None:
    if not condition:
        raise RecordError(f"{where}: {message}")


def _replay_game(driver, body: Dict[str, Any], explicit: bool, where: str) -> None:
    """Play one game's record on ``driver`` (a Game, or a Match at the game's start)."""
    if explicit:
        for w, b in body["openings"]:
            driver.roll_opening(w, b)
    for k, roll in enumerate(body["rolls"]):
        line = f"{where}, roll {k + 1} ({_LETTERS[roll['seat']]}{roll['number']})"
        if "line" in roll:
            line = f"line {roll['line']} ({_LETTERS[roll['seat']]}{roll['number']})"
        if explicit and not roll["opening_roll"]:
            _check(driver.is_chance(), line, "the game does not wait for a roll here")
            driver.roll(*roll["dice"])
        decision = driver.decision
        _check(decision is not None, line, "the game has no stage to play here")
        _check((decision.roller, list(decision.roll)) == (roll["seat"], roll["dice"]), line,
               f"the game rolled {decision.roll[0]}-{decision.roll[1]} for "
               f"{SEAT_NAMES[decision.roller]}")
        _check(decision.roll_number == roll["number"], line,
               f"this is roll {decision.roll_number} of {SEAT_NAMES[decision.roller]}")
        _check(decision.is_escalating == roll["escalating"], line,
               "the roll escalates" if decision.is_escalating else "the roll does not escalate")
        for j, stage in enumerate(roll["stages"]):
            decision = driver.decision
            here = f"{line}, stage {j + 1}"
            _check(decision is not None, here, "the turn is over before this stage")
            _check(decision.roll == tuple(roll["dice"]) and decision.roller == roll["seat"], here,
                   "the turn is over before this stage")
            _check((decision.seat, list(decision.dice), decision.is_remainder)
                   == (stage["seat"], stage["dice"], stage["remainder"]), here,
                   f"the stage to play is {decision.describe()}")
            try:
                if "steps" in stage:
                    play = driver.play([tuple(step) for step in stage["steps"]])
                    _check(str(play) == stage.get("play", str(play)), here,
                           f"steps and notation differ: {shown(stage.get('play'))}")
                else:
                    driver.play_notation(stage["play"])
            except GulBaraError as exc:
                if isinstance(exc, RecordError):
                    raise
                raise RecordError(f"{here}: {exc}") from None


def _check_game(game: Game, body: Dict[str, Any], where: str) -> None:
    got = _game_body(game)
    _check(got["openings"] == body["openings"], where,
           f"the opening is {got['openings']}, the record says {body['openings']}")
    _check(len(got["rolls"]) == len(body["rolls"]), where,
           f"the replay has {len(got['rolls'])} rolls, the record {len(body['rolls'])}")
    for k, (a, b) in enumerate(zip(got["rolls"], body["rolls"])):
        _check(len(a["stages"]) == len(b["stages"]), f"{where}, roll {k + 1}",
               f"the roll has {len(a['stages'])} stages, the record {len(b['stages'])}")
    _check(got["result"] == body.get("result"), where,
           f"the replay ends {got['result']}, the record says {body.get('result')}")
    if body.get("state") is not None:
        _check(got["state"] == body["state"], where,
               f"the replay reaches {shown(got['state'])}, the record says {shown(body['state'])}")


class _Shape:
    """Checks of record data's structure: each names the field that is wrong
    (``game 1, roll 3, stage 2: dice ...``) in a ``RecordError``."""

    def __init__(self, where: str) -> None:
        self.where = where

    def at(self, part: str) -> "_Shape":
        return _Shape(f"{self.where}, {part}" if self.where else part)

    def fail(self, message: str):
        raise RecordError(f"{self.where}: {message}" if self.where else message)

    def dict(self, value, what: str) -> Dict[str, Any]:
        if not isinstance(value, dict):
            self.fail(f"{what} must be an object, got {shown(value)}")
        return value

    def field(self, data: Dict[str, Any], key: str, optional: bool = False):
        if key not in data:
            if optional:
                return None
            self.fail(f"the record has no {key!r}")
        return data[key]

    def list(self, value, what: str, length=None) -> List[Any]:
        if not isinstance(value, list) or (length is not None and len(value) != length):
            size = "a list" if length is None else f"a list of {length}"
            self.fail(f"{what} must be {size}, got {shown(value)}")
        return value

    def int(self, value, what: str, low: int, high: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            self.fail(f"{what} must be an int {low}..{high:,}, got {shown(value)}")
        return value

    def bool(self, value, what: str) -> bool:
        if not isinstance(value, bool):
            self.fail(f"{what} must be true or false, got {shown(value)}")
        return value

    def str(self, value, what: str) -> str:
        if not isinstance(value, str):
            self.fail(f"{what} must be a string, got {shown(value)}")
        return value

    # (builtins: this class's own str and int methods hide the types here)
    def dice(self, value, what: builtins.str, low: builtins.int,
             high: builtins.int) -> List[builtins.int]:
        if not isinstance(value, list) or not low <= len(value) <= high:
            self.fail(f"{what} must be a list of {low} to {high} dice, got {shown(value)}")
        for die in value:
            self.int(die, what, 1, 6)
        return value


_MAX_RECORD_COUNT = 10**9     # the largest roll number, target or score a record may hold


def _check_body(body, shape: _Shape, is_match: bool) -> None:
    """Check one game's part of record data (see ``_game_body``)."""
    body = shape.dict(body, "a game")
    for pair in shape.list(shape.field(body, "openings"), "openings"):
        shape.dice(pair, "an opening pair", 2, 2)
    shape.bool(shape.field(body, "convention"), "convention")
    for k, roll in enumerate(shape.list(shape.field(body, "rolls"), "rolls"), 1):
        where = shape.at(f"roll {k}")
        roll = where.dict(roll, "a roll")
        where.int(where.field(roll, "seat"), "seat", 0, 1)
        where.int(where.field(roll, "number"), "number", 1, _MAX_RECORD_COUNT)
        where.dice(where.field(roll, "dice"), "dice", 2, 2)
        where.bool(where.field(roll, "escalating"), "escalating")
        for j, stage in enumerate(where.list(where.field(roll, "stages"), "stages"), 1):
            here = where.at(f"stage {j}")
            stage = here.dict(stage, "a stage")
            here.int(here.field(stage, "seat"), "seat", 0, 1)
            here.dice(here.field(stage, "dice"), "dice", 1, 4)
            here.bool(here.field(stage, "remainder"), "remainder")
            if "steps" in stage:
                for step in here.list(stage["steps"], "steps"):
                    here.list(step, "a step", 2)
                    here.int(step[0], "a step's point", 1, 24)
                    here.int(step[1], "a step's die", 1, 6)
                if "play" in stage:
                    here.str(stage["play"], "play")
            else:
                here.str(here.field(stage, "play"), "play")
    result = body.get("result")
    if result is not None:
        result = shape.dict(result, "result")
        winner = shape.field(result, "winner")
        if winner is not None:
            shape.int(winner, "result winner", 0, 1)
        shape.int(shape.field(result, "points"), "result points", 0, 2)
        shape.str(shape.field(result, "kind"), "result kind")
    if body.get("state") is not None:
        shape.str(body["state"], "state")
    if is_match and body.get("score") is not None:
        for points in shape.list(body["score"], "score", 2):
            shape.int(points, "score", 0, _MAX_RECORD_COUNT)


def _check_data(data) -> None:
    """Check the structure of record data (from JSON or text) before it is replayed."""
    shape = _Shape("")
    shape.dict(shape.field(data, "rules"), "rules")
    dice = shape.dict(shape.field(data, "dice"), "dice")
    mode = shape.field(dice, "mode")
    if mode not in ("seed", "draw", "explicit"):
        shape.fail(f"unknown dice mode {shown(mode)}")
    if mode == "seed":
        shape.int(shape.field(dice, "seed"), "the dice seed", 0, 2**64 - 1)
    if data.get("format") == "gulbara-game":
        _check_body(data, shape.at("game"), False)
        return
    shape.int(shape.field(data, "target"), "target", 1, _MAX_RECORD_COUNT)
    games = shape.list(shape.field(data, "games"), "games")
    if not games:
        shape.fail("a match record has at least one game")
    for number, body in enumerate(games, 1):
        _check_body(body, shape.at(f"game {number}"), True)
    if data.get("scores") is not None:
        for points in shape.list(data["scores"], "scores", 2):
            shape.int(points, "scores", 0, _MAX_RECORD_COUNT)
    if data.get("winner") is not None:
        shape.int(data["winner"], "winner", 0, 1)


def replay_data(data: Dict[str, Any]) -> Union[Game, Match]:
    """Replay record data (from JSON or text) into a :class:`Game` or :class:`Match`."""
    if not isinstance(data, dict):
        raise TypeError(f"record data is a dict, not {type(data).__name__}")
    kind = data.get("format")
    if kind not in ("gulbara-game", "gulbara-match"):
        raise RecordError("record data must have format 'gulbara-game' or 'gulbara-match'")
    _check_data(data)
    try:
        rules = Rules.from_dict(data["rules"])
    except GulBaraError as exc:
        raise RecordError(str(exc)) from None
    except TypeError as exc:                    # e.g. a rule option name that is not a string
        raise RecordError(f"cannot read the rules: {exc}") from None
    dice = data["dice"]
    mode = dice["mode"]
    bodies = data["games"] if kind == "gulbara-match" else [data]
    for number, body in enumerate(bodies, 1):
        _mark_opening_rolls(body, rules, f"game {number}")
    if mode == "seed":
        options = {"seed": dice["seed"]}
    elif mode == "draw":
        options = {"draw": _feeder(_recorded_draws(bodies))}
    else:
        options = {"auto_roll": False}
    explicit = mode == "explicit"
    try:
        if kind == "gulbara-game":
            game = Game(rules, **options)
            _replay_game(game, data, explicit, "game")
            _check_game(game, data, "game")
            return game
        match = Match(rules, target=data["target"], **options)
        for number, body in enumerate(bodies, 1):
            where = f"game {number}"
            _check(match.game_number == number, where, "the match is not at this game")
            _replay_game(match, body, explicit, where)
            _check_game(match.games[number - 1], body, where)
            if number < len(bodies):
                _check(match.game_number == number + 1, where,
                       "the match does not go on after this game")
        _check(len(match.games) == len(bodies), "match",
               f"the replay has {len(match.games)} games, the record {len(bodies)}")
        if data.get("scores") is not None:
            _check(list(match.scores) == list(data["scores"]), "match",
                   f"the replay scores {match.scores}, the record says {data['scores']}")
        if data.get("winner") is not None:
            result = match.result()
            _check(result is not None and result.winner == data["winner"], "match",
                   "the replay does not end with the recorded winner")
        return match
    except RecordError:
        raise
    except GulBaraError as exc:
        raise RecordError(str(exc)) from None


# ---------------------------------------------------------------------------
# The public entry points
# ---------------------------------------------------------------------------


def write_record(obj: Union[Game, Match], format: str = "text") -> str:
    """The record of a game or match: ``format="text"`` (human-readable) or ``"json"``."""
    data = record_data(obj)
    if format == "text":
        return data_to_text(data)
    if format == "json":
        return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"
    raise GulBaraError(f"record format must be 'text' or 'json', got {shown(format)}")


def read_record(record: Union[str, Dict[str, Any]]) -> Union[Game, Match]:
    """Replay a record (text, JSON text, or its data) into the :class:`Game` or :class:`Match` it describes.

    Every roll and play is checked; a record that does not replay raises
    :class:`RecordError`.
    """
    if isinstance(record, dict):
        return replay_data(record)
    if not isinstance(record, str):
        raise TypeError(f"a record is a str or a dict, not {type(record).__name__}")
    if record.lstrip().startswith("{"):
        try:
            data = json.loads(record)
        except ValueError as exc:
            raise RecordError(f"invalid JSON record: {shown(str(exc))}") from None
        except RecursionError:
            raise RecordError("invalid JSON record: nested too deeply") from None
        if not isinstance(data, dict):
            raise RecordError(f"a JSON record is an object, not {type(data).__name__}")
        return replay_data(data)
    return replay_data(text_to_data(record))
