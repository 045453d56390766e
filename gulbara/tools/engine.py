"""``gulbara engine``: a JSON-lines session in which another program plays a game through gulbara.

Unlike ``gulbara ends`` (one stateless stage per request), a session holds one game. Each request
is a JSON object with a ``"cmd"``; each answer is one JSON line, ``{"ok": true, ...}`` or
``{"ok": false, "error": "..."}`` (a failed request changes nothing), with the request's ``"id"``
echoed when it has one. The commands (docs/user/engine.md has a transcript):

* ``new`` (``rules``, ``seed``): a new game, its dice rolled by a generator seeded ``seed``;
* ``set`` (``state``; or a position code with ``seat`` and optional ``rolls``; ``rules``,
  ``seed``): the game in that state (docs/user/state-codes.md), the dice then rolled with ``roll``;
* ``state``: the state code, the decision (who plays which dice, chain or remainder), the result;
* ``roll`` (``dice``: ``[a, b]``, or none for the session's own generator): at a chance node;
* ``legal``: the current decision's distinct ends: notation, canonical steps, end position;
* ``play`` (``play``: notation, the index of a legal play, or ``[[from, die], ...]``): checked;
* ``undo``: the last play (or roll), exactly;
* ``chain`` (``count: true``, or ``chunk: N``): at a stage of an escalation chain, how many
  distinct outcomes the rest of the chain has (:func:`gulbara.chain_count`), or the first ``N``
  of them (:func:`gulbara.chain_ends_iter`), ``next`` giving the following ones (``more`` says
  whether any are left; two chunks are held at a time);
* ``go`` (``bot``, ``nodes``, ``seconds``): the best play of a named bot
  (:data:`gulbara.bots.BOTS`), with its equity (expected points for the side to play) from the
  search and network bots, within a node or time budget; the game is not changed;
* ``quit``.

``rules`` is the ``--rules`` grammar (:meth:`gulbara.Rules.from_text`), or a dict of
options. Every answer after a change carries the new ``state``.

>>> session = Session()
>>> session.answer('{"cmd": "new", "seed": 24}')["decision"]
{'seat': 'white', 'dice': [6, 4], 'stage': 'roll', 'roll_number': 1, 'following': []}
>>> [p["notation"] for p in session.answer('{"cmd": "legal"}')["plays"]]
['24/18 24/20', '24/14']
>>> session.answer('{"cmd": "play", "play": "24/14"}')["decision"]["seat"]
'black'
>>> session.answer('{"cmd": "play", "play": "24/10"}')["error"]
"'24/10' is not a legal play of 3-1 for Black; legal: '24/21 24/23', '24/20'"
"""

import json
import random
import time
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Optional, Union, cast

from gulbara.errors import GulBaraError, checked_int
from gulbara.game.driver import Game

if TYPE_CHECKING:
    from gulbara.chains.enumeration import ChainEnds

__all__ = ["Session", "answer_line", "COMMANDS", "MAX_CHUNK"]

#: The largest ``chunk`` of chain outcomes one answer carries.
MAX_CHUNK = 100_000
SEATS = ("white", "black")


class Session:
    """One game driven by requests (see the module docstring)."""

    def __init__(self) -> None:
        self.game: Optional[Game] = None
        self.dice = random.Random()
        self.outcomes: Optional[Iterator] = None
        self.sent = 0
        self.pending: Optional[ChainEnds] = None
        self.done = False

    # -- requests ----------------------------------------------------------------

    def answer(self, line: str) -> Dict[str, Any]:
        """The answer to one request line, as a dict."""
        try:
            request = json.loads(line)
        except (ValueError, RecursionError) as exc:
            return {"ok": False, "error": f"invalid JSON: {exc}"}
        if not isinstance(request, dict):
            return {"ok": False, "error": 'a request is a JSON object with "cmd"'}
        cmd = request.get("cmd")
        handler = COMMANDS.get(cmd) if isinstance(cmd, str) else None
        if handler is None:
            out = {"ok": False, "error": f"unknown cmd {cmd!r}; the commands are "
                                         f"{', '.join(COMMANDS)}"}
        else:
            try:
                out = {"ok": True, **handler(self, request)}
            except (GulBaraError, TypeError, IndexError) as exc:
                out = {"ok": False, "error": str(exc)}
        if "id" in request:
            out["id"] = request["id"]
        return out

    def _game(self) -> Game:
        if self.game is None:
            raise GulBaraError('no game: send {"cmd": "new"} or {"cmd": "set", "state": ...}')
        return self.game

    def _report(self) -> Dict[str, Any]:
        game = self._game()
        out: Dict[str, Any] = {"state": game.state_code(), "chance": game.is_chance(),
                               "over": game.is_over()}
        decision = game.decision
        if decision is not None:
            stage = ("remainder" if decision.is_remainder
                     else "chain" if decision.is_escalating else "roll")
            out["decision"] = {"seat": SEATS[decision.seat], "dice": list(decision.dice),
                               "stage": stage, "roll_number": decision.roll_number,
                               "following": [list(f) for f in decision.following]}
        elif game.is_chance():
            # a roll node has a side to roll
            out["to_roll"] = "opening" if game.is_opening() else SEATS[cast(int, game.to_move)]
        if game.is_over():
            result = game.result()
            assert result is not None
            out["result"] = {"winner": None if result.winner is None else SEATS[result.winner],
                             "points": result.points, "kind": result.kind}
        return out

    # -- the commands ---------------------------------------------------------------

    def cmd_new(self, request) -> Dict[str, Any]:
        rules = _rules(request.get("rules"))
        seed = _seed(request.get("seed"))
        self.game = Game(rules, seed=seed)
        self.dice.seed(seed)
        self.outcomes = None
        return self._report()

    def cmd_set(self, request) -> Dict[str, Any]:
        from gulbara.game.state_codes import state_code
        if "state" not in request:
            raise GulBaraError('set needs "state": a state code, or a position code with "seat"')
        rules = _rules(request.get("rules"))
        rolls = request.get("rolls")
        if rolls is not None and not isinstance(rolls, list):
            raise TypeError("rolls is [White's, Black's]")
        code = state_code(request["state"], request.get("seat"), rules=rules,
                          rolls=None if rolls is None else tuple(rolls))
        game = Game.from_state_code(code, rules)
        self.game = game
        self.dice.seed(_seed(request.get("seed")))
        self.outcomes = None
        return self._report()

    def cmd_state(self, request) -> Dict[str, Any]:
        return self._report()

    def cmd_roll(self, request) -> Dict[str, Any]:
        game = self._game()
        if not game.is_chance():
            raise GulBaraError("no dice to roll: the game waits for a play" if not game.is_over()
                               else "the game is over")
        dice = request.get("dice")
        opening = game.is_opening()
        if dice is None:
            while True:
                dice = [self.dice.randint(1, 6), self.dice.randint(1, 6)]
                if not (opening and dice[0] == dice[1]):
                    break
        if not isinstance(dice, list) or len(dice) != 2:
            raise TypeError("dice is [a, b] (at the opening: [White's die, Black's die])")
        if opening:
            game.roll_opening(dice[0], dice[1])
        else:
            game.roll(dice[0], dice[1])
        self.outcomes = None
        return self._report()

    def cmd_legal(self, request) -> Dict[str, Any]:
        game = self._game()
        if game.decision is None:
            raise GulBaraError("no decision now: " + ("the game is over" if game.is_over()
                                                     else "roll the dice first"))
        ends = game.legal_plays()
        return {"playable_dice": ends.playable_dice, "count": len(ends),
                "plays": [_play(play) for play in ends]}

    def cmd_play(self, request) -> Dict[str, Any]:
        game = self._game()
        if "play" not in request:
            raise GulBaraError('play needs "play": notation, an index or [[from, die], ...]')
        choice = request["play"]
        if isinstance(choice, bool):
            raise TypeError("play is notation, an index or [[from, die], ...], not a bool")
        if isinstance(choice, int):
            ends = game.legal_plays() if game.decision is not None else ()
            if not 0 <= choice < len(ends):
                raise GulBaraError(f"play index {choice} out of range: {len(ends)} legal plays")
            choice = ends[choice]
        elif isinstance(choice, list):
            choice = [tuple(step) if isinstance(step, list) else step for step in choice]
        played = game.play(choice)
        self.outcomes = None
        return {"played": _play(played), **self._report()}

    def cmd_undo(self, request) -> Dict[str, Any]:
        game = self._game()
        undone = game.undo()
        self.outcomes = None
        taken_back: Union[Dict[str, Any], List[int], None]
        if hasattr(undone, "steps"):
            taken_back = _play(undone)
        elif undone is None:
            taken_back = None
        else:                                   # a roll: its dice, as [a, b]
            taken_back = [int(die) for die in undone]
        return {"undone": taken_back, **self._report()}

    def cmd_chain(self, request) -> Dict[str, Any]:
        from gulbara.chains.enumeration import chain_count, chain_ends_iter
        game = self._game()
        decision = game.decision
        if decision is None or not decision.is_escalating or decision.is_remainder:
            raise GulBaraError("chain: the decision is not a stage of an escalation chain")
        first = decision.dice[0]
        if request.get("count"):
            return {"first": first, "count": chain_count(game.position, decision.seat, first)}
        chunk = request.get("chunk", 1000)
        if isinstance(chunk, bool) or not isinstance(chunk, int) or not 1 <= chunk <= MAX_CHUNK:
            raise GulBaraError(f"chunk must be an int 1..{MAX_CHUNK}, got {chunk!r}")
        self.outcomes = chain_ends_iter(game.position, decision.seat, first, game.rules,
                                        chunk=chunk)
        self.pending = next(self.outcomes, None)
        self.sent = 0
        return {"first": first, **self._next_chunk()}

    def cmd_next(self, request) -> Dict[str, Any]:
        if self.outcomes is None:
            raise GulBaraError('next: no chain outcomes pending (send {"cmd": "chain", '
                               '"chunk": N} first)')
        return self._next_chunk()

    def _next_chunk(self) -> Dict[str, Any]:
        """The pending chunk; the one after it is fetched now, so ``more`` is exact."""
        part = self.pending
        rows: List[Dict[str, Any]] = [] if part is None else [
            {"position": o.code, "stop": o.stop, "remainder": list(o.remainder),
             "ends_game": bool(o.ends_game)} for o in part]
        # (a pending chunk comes from the outcomes)
        self.pending = None if part is None else next(cast(Iterator, self.outcomes), None)
        offset = self.sent
        self.sent += len(rows)
        more = self.pending is not None
        if not more:
            self.outcomes = None
        return {"offset": offset, "outcomes": rows, "more": more}

    def cmd_go(self, request) -> Dict[str, Any]:
        from gulbara.bots import BOTS
        from gulbara.bots.search import expectimax
        game = self._game()
        if game.decision is None:
            raise GulBaraError("go: no decision now: " + ("the game is over" if game.is_over()
                                                         else "roll the dice first"))
        name = request.get("bot", "expectimax1")
        if not isinstance(name, str) or name not in BOTS:
            raise GulBaraError(f"unknown bot {name!r}; the bots are {', '.join(sorted(BOTS))}")
        nodes, seconds = request.get("nodes"), request.get("seconds")
        began = time.perf_counter()
        if name.startswith("expectimax"):
            depth = int(name[len("expectimax"):])
            if nodes is None and seconds is None and depth > 1:
                nodes = 200_000
            result = expectimax(game, depth, budget_nodes=nodes, budget_seconds=seconds)
            out = {"play": _play(result.play), "equity": result.value, "depth": result.depth,
                   "nodes": result.nodes, "cut": result.cut}
        else:
            from gulbara.bots import make_bot
            bot = make_bot(name, _seed(request.get("seed")))
            rank = getattr(bot, "rank", None)
            if rank is not None:                 # the network bots: their best and its value
                best, value = rank(game)[0]
                out = {"play": _play(best), "equity": float(value)}
            else:
                out = {"play": _play(bot.choose(game)), "equity": None}
        out["bot"] = name
        out["seconds"] = round(time.perf_counter() - began, 6)
        return out

    def cmd_quit(self, request) -> Dict[str, Any]:
        self.done = True
        return {"bye": True}


COMMANDS = {name[4:]: getattr(Session, name) for name in
            ("cmd_new", "cmd_set", "cmd_state", "cmd_roll", "cmd_legal", "cmd_play", "cmd_undo",
             "cmd_chain", "cmd_next", "cmd_go", "cmd_quit")}


def _play(play) -> Dict[str, Any]:
    return {"notation": str(play), "steps": [list(step) for step in play.steps],
            "position": play.code, "ends_game": bool(play.ends_game)}


def _rules(value):
    from gulbara.rules import Rules
    if value is None:
        return None
    if isinstance(value, dict):
        return Rules.from_dict(value)
    if isinstance(value, str):
        return Rules.from_text(value)
    raise TypeError("rules is a --rules string or a dict of options")


def _seed(value) -> Optional[int]:
    if value is None:
        return None
    return checked_int(value, "seed", 0, 2**64 - 1, bounds="0 .. 2**64 - 1")


def answer_line(session: Session, line: str) -> str:
    """One answer as a JSON line (no newline), always valid UTF-8: a string the request held
    that UTF-8 cannot carry (a lone surrogate, ``"\\ud800"``) comes back as the same JSON
    escape, so any JSON string round-trips."""
    answer = session.answer(line)
    text = json.dumps(answer, separators=(",", ":"), ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(answer, separators=(",", ":"), ensure_ascii=True)
    return text
