"""The ``gulbara ends`` protocol from the other side: an engine driven over a pipe, and perft.

An *engine* is any program that reads one JSON request per line on stdin and
writes one JSON answer per line on stdout (docs/user/verify.md). Two requests:

* a stage, ``{"position": CODE, "seat": S, "dice": [...]}``, answered in the
  peer vectors' case format (:func:`ends_as_case`; gulbara's own answer to a
  request line is :func:`answer_request`);
* perft, ``{"perft": DEPTH, "state": STATE}`` (optionally ``"rules": {...}``),
  answered with the node count and the divide: one entry per first choice
  (RULES §10), keyed by its roll (at a chance node) and its end position.

:class:`EngineProcess` runs an engine as a subprocess and sends it requests
one at a time, each with a timeout, so that an engine that hangs, exits or
writes garbage is reported (:class:`EngineError`) and never blocks the caller.

>>> from gulbara.game.driver import Game
>>> answer = perft_answer({"perft": 1})
>>> answer["nodes"], len(answer["divide"]), answer["divide"][1]["roll"]
(30, 30, [6, 5])
>>> answer["divide"][1]["steps"], answer["divide"][1]["nodes"]
([[24, 6], [18, 5]], 1)
"""

import collections
import json
import os
import queue
import shlex
import signal
import subprocess
import threading
from typing import Callable, Dict, List, NamedTuple, Optional, Sequence, Union

from gulbara.core._backend import START_CODE  # noqa: F401  (for the doctests)
from gulbara.core._backend import raw_stage_ends
from gulbara.errors import GameStateError, GulBaraError, checked_int
from gulbara.game.driver import Game
from gulbara.game.perft import perft, perft_python
from gulbara.core.play import Play, StageEnds
from gulbara.rules import DEFAULT_RULES, Rules
from gulbara.game.state_codes import position_code

__all__ = ["EngineError", "EngineProcess", "Choice", "divide_choices", "perft_answer",
           "perft_request", "stage_request", "ends_as_case", "answer_request",
           "MAX_ANSWER_CHARS"]

#: The longest answer line read from an engine; a longer one is reported as an error.
#: (The largest of gulbara's answers to the 44,544 stage requests of
#: ``verify_cases(2000)`` is 83 KB; its perft 1 answer from the mid-game state of
#: ``gulbara.tools.bench.perft_rows``, 911 choices, is 111 KB.)
MAX_ANSWER_CHARS = 16 * 1024 * 1024
#: How much of an engine's stderr is kept for reports (its tail).
STDERR_TAIL_CHARS = 4000


def ends_as_case(code: str, ends) -> dict:
    """One stage's result (a :class:`StageEnds` or the backend's) in the vectors' case format.

    >>> from gulbara import stage_ends
    >>> case = ends_as_case(START_CODE, stage_ends(START_CODE, 0, [6, 5]))
    >>> case["playableDice"], case["ends"][1]
    (2, {'position': 'G:,,,,,,,,,,,-15,1,,,,,,,,,,,14|0,0|0,0', 'steps': [[24, 6], [18, 5]], 'end': 'none'})
    """
    raw = ends.raw if isinstance(ends, StageEnds) else ends
    return {
        "position": code,
        "seat": raw.seat,
        "dice": list(raw.dice),
        "playableDice": raw.playable_dice,
        "ends": [
            {
                "position": raw.code(i),
                "steps": [list(step) for step in raw.steps(i)],
                "end": "borneOff" if raw.ends_game(i) else "none",
            }
            for i in range(len(raw))
        ],
    }


def answer_request(line: str) -> str:
    """gulbara's answer to one line of the engine protocol: one JSON line (no newline).

    >>> answer_request('{"position": "start", "seat": 0, "dice": [6, 5]}')[:61]
    '{"position":"G:,,,,,,,,,,,-15,,,,,,,,,,,,15|0,0|0,0","seat":0'
    >>> answer_request('[6, 5]')
    '{"error": "a request is a JSON object with position, seat and dice"}'
    """
    try:
        request = json.loads(line)
    except (ValueError, RecursionError) as exc:
        return _error_line(f"invalid JSON: {exc}")
    if not isinstance(request, dict):
        return _error_line("a request is a JSON object with position, seat and dice")
    if "perft" in request:
        try:
            return json.dumps(perft_answer(request), separators=(",", ":"), ensure_ascii=False)
        except (GulBaraError, TypeError) as exc:
            return _error_line(str(exc))
    missing = [key for key in ("position", "seat", "dice") if key not in request]
    if missing:
        return _error_line(f"missing {', '.join(missing)} in request")
    code, seat, dice = request["position"], request["seat"], request["dice"]
    try:
        code = position_code(code) if isinstance(code, str) else code
        if not isinstance(dice, list):
            raise TypeError("dice must be a JSON array of numbers 1..6")
        ends = raw_stage_ends(code, seat, dice)
    except (GulBaraError, TypeError) as exc:
        return _error_line(str(exc))
    return json.dumps(ends_as_case(code, ends), separators=(",", ":"), ensure_ascii=False)


def _error_line(message: str) -> str:
    """An error answer of the protocol as a JSON line."""
    return json.dumps({"error": message}, ensure_ascii=False)


class EngineError(RuntimeError):
    """The engine failed: it could not be started, exited, gave no answer in time, or wrote
    an over-long line. ``request`` is the request it was answering (or ``None``), ``number``
    its 1-based number, ``wrote`` what it wrote (if anything) and ``stderr`` the tail of its
    standard error."""

    def __init__(self, message: str, request: Optional[str] = None, number: int = 0,
                 wrote: str = "", stderr: str = "") -> None:
        super().__init__(message)
        self.request, self.number, self.wrote, self.stderr = request, number, wrote, stderr

    def describe(self) -> str:
        """A few lines for a report: what happened, the request, what the engine wrote."""
        lines = [str(self)]
        if self.request is not None:
            lines.append(f"  request #{self.number}: {_clip(self.request)}")
        if self.wrote:
            lines.append(f"  it wrote: {_clip(self.wrote)!r}")
        if self.stderr.strip():
            tail = self.stderr.strip().splitlines()[-6:]
            lines.append("  its stderr ends with:")
            lines.extend(f"    {line}" for line in tail)
        return "\n".join(lines)


def _clip(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + f"... ({len(text):,} characters)"


class EngineProcess:
    """An engine running as a subprocess, spoken to one request at a time.

    ``command`` is a shell-like string (split with :func:`shlex.split`, not run
    by a shell) or an argument list. Each :meth:`request` waits at most
    ``timeout`` seconds for the answer line; the first one ``startup`` seconds
    more, for the engine's start-up (an interpreter, a JIT, tables to load).
    ``env`` and ``cwd`` are the process's environment and working directory. Two threads read the engine's
    stdout (lines, each at most :data:`MAX_ANSWER_CHARS`) and stderr (its last
    :data:`STDERR_TAIL_CHARS` kept), so neither pipe can fill up and block it.
    After an :class:`EngineError` the process is stopped; :meth:`close` (or the
    ``with`` block) stops it in any case, with its whole process group on POSIX.
    """

    def __init__(self, command: Union[str, Sequence[str]], timeout: float = 10.0,
                 env: Optional[Dict[str, str]] = None, startup: float = 20.0,
                 cwd: Optional[str] = None) -> None:
        argv = shlex.split(command) if isinstance(command, str) else [str(a) for a in command]
        if not argv:
            raise GulBaraError("the engine command is empty")
        if not timeout > 0:
            raise GulBaraError(f"the timeout must be a positive number of seconds, got {timeout!r}")
        self.command = command if isinstance(command, str) else shlex.join(argv)
        self.timeout = float(timeout)
        self.startup = float(startup)
        self.sent = 0
        self._answers: "queue.Queue[Optional[str]]" = queue.Queue()
        self._stderr: collections.deque = collections.deque()
        self._stderr_chars = 0
        self._stderr_lock = threading.Lock()
        try:
            self._process = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                env=env, cwd=cwd, encoding="utf-8", errors="replace", bufsize=1,
                start_new_session=os.name == "posix")
        except OSError as exc:
            raise EngineError(f"cannot start the engine {self.command!r}: {exc}") from None
        threading.Thread(target=self._read_answers, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read_answers(self) -> None:
        stream = self._process.stdout
        assert stream is not None                       # a pipe
        try:
            while True:
                line = stream.readline(MAX_ANSWER_CHARS + 1)
                if not line:
                    break
                self._answers.put(line)
        except (OSError, ValueError):
            pass
        self._answers.put(None)

    def _read_stderr(self) -> None:
        stderr = self._process.stderr
        assert stderr is not None                       # a pipe
        try:
            for chunk in iter(lambda: stderr.read(1024), ""):
                with self._stderr_lock:
                    self._stderr.append(chunk)
                    self._stderr_chars += len(chunk)
                    while self._stderr_chars > STDERR_TAIL_CHARS and len(self._stderr) > 1:
                        self._stderr_chars -= len(self._stderr.popleft())
        except (OSError, ValueError):
            pass

    def stderr_tail(self) -> str:
        """The last few thousand characters the engine wrote to stderr."""
        with self._stderr_lock:
            return "".join(self._stderr)[-STDERR_TAIL_CHARS:]

    def _fail(self, message: str, request: str, wrote: str = "") -> EngineError:
        self.close()
        return EngineError(message, request, self.sent, wrote, self.stderr_tail())

    def request(self, line: str, timeout: Optional[float] = None) -> str:
        """Send one request line and return the answer line (without its newline).

        Raises :class:`EngineError` if the engine has exited, does not answer
        within ``timeout`` (default: the engine's; ``startup`` more for the first
        request) seconds, or writes a line
        longer than :data:`MAX_ANSWER_CHARS`; the engine is stopped then.
        """
        wait = self.timeout if timeout is None else float(timeout)
        if self.sent == 0:
            wait += self.startup
        self.sent += 1
        stdin = self._process.stdin
        assert stdin is not None                        # a pipe
        try:
            stdin.write(line.rstrip("\n") + "\n")
            stdin.flush()
        except (OSError, ValueError):
            pass                     # it exited: the reader reports it below
        try:
            answer = self._answers.get(timeout=wait)
        except queue.Empty:
            raise self._fail(f"the engine gave no answer within {wait:g} s", line) from None
        if answer is None:
            status = self._exit_status()
            raise self._fail(f"the engine exited ({status}) after {self.sent - 1} answers",
                             line)
        if not answer.endswith("\n"):
            if len(answer) > MAX_ANSWER_CHARS:
                raise self._fail(f"the engine wrote an answer longer than "
                                 f"{MAX_ANSWER_CHARS:,} characters", line, answer[:300])
            # the last line, cut off by the engine's exit
            status = self._exit_status()
            raise self._fail(f"the engine exited ({status}) in the middle of an answer",
                             line, answer)
        return answer.rstrip("\r\n")

    def _exit_status(self) -> str:
        try:
            code = self._process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return "closed its output, still running"
        if code < 0:
            try:
                return f"killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"killed by signal {-code}"
        return f"status {code}"

    def close(self) -> None:
        """Stop the engine: close its stdin, then terminate (and kill) it if it lingers."""
        process = self._process
        assert process.stdin is not None and process.stdout is not None \
            and process.stderr is not None                 # pipes
        if process.poll() is None:
            try:
                process.stdin.close()
            except (OSError, ValueError):
                pass
            try:
                process.wait(timeout=0.5)
            except subprocess.TimeoutExpired:
                self._signal(signal.SIGTERM)
                try:
                    process.wait(timeout=2)
                except subprocess.TimeoutExpired:
                    self._signal(getattr(signal, "SIGKILL", signal.SIGTERM))
                    process.wait(timeout=5)
        for stream in (process.stdin, process.stdout, process.stderr):
            try:
                stream.close()
            except (OSError, ValueError):
                pass

    def _signal(self, sig) -> None:
        try:
            if os.name == "posix":
                os.killpg(self._process.pid, sig)
            else:                                   # pragma: no cover
                self._process.send_signal(sig)
        except (ProcessLookupError, PermissionError):
            pass

    def __enter__(self) -> "EngineProcess":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def stage_request(code: str, seat: int, dice: Sequence[int]) -> str:
    """The request line of one stage.

    >>> stage_request("G:,,,,,,,,,,,-15,,,,,,,,,,,,15|0,0|0,0", 0, (6, 5))
    '{"position":"G:,,,,,,,,,,,-15,,,,,,,,,,,,15|0,0|0,0","seat":0,"dice":[6,5]}'
    """
    return json.dumps({"position": code, "seat": seat, "dice": list(dice)},
                      separators=(",", ":"))


def perft_request(state: str, depth: int, rules: Rules = DEFAULT_RULES) -> str:
    """The request line of perft ``depth`` from the full state ``state`` (Game.state_code);
    the rules are sent only when they are not the default, as the options that differ.

    >>> perft_request("G:,,,,,,,,,,,-15,,,,,,,,,,,,15|0,0|0,0 next=opening rolls=0,0 stuck=0",
    ...               2, Rules(remainder="lost"))[-29:]
    '"rules":{"remainder":"lost"}}'
    """
    request = {"perft": depth, "state": state}
    changed = {name: value for name, value in rules.to_dict().items()
               if value != getattr(DEFAULT_RULES, name)}
    if changed:
        request["rules"] = changed
    return json.dumps(request, separators=(",", ":"), ensure_ascii=False)


class Choice(NamedTuple):
    """A first choice below a perft root: the ``roll`` (at a chance node, else ``None``),
    the stage's ``play`` and the ``nodes`` under it."""
    roll: Optional[tuple]
    play: Play
    nodes: int


def divide_choices(game: Game, depth: int,
                   plays: Optional[Callable[[Game], Sequence[Play]]] = None) -> List[Choice]:
    """perft ``depth`` below ``game`` split by the first choice, in canonical order.

    At a chance node the choices are each roll's stage plays, at a decision the
    stage's plays (RULES §10.2-10.3); a finished game has none. ``plays``
    replaces the stage generator (a function of the game giving a subset of
    ``game.legal_plays()``: the tree of another generator on the same game
    driver); by default the subtrees are counted by :func:`gulbara.perft`.

    >>> [(c.roll, str(c.play), c.nodes) for c in divide_choices(Game.new_perft_root(), 2)[:2]]
    [((6, 5), '24/18 24/19', 53), ((6, 5), '24/13', 53)]
    """
    work = game.copy(auto_roll=False)
    if work.is_over():
        return []
    cache: Dict = {}           # the Python perft's table, shared by the subtrees
    choices = []
    for roll in (work.chance_rolls() if work.is_chance() else (None,)):
        if roll is not None:
            work.roll(*roll)
        if not work.is_decision():          # a fresh roll is always followed by its stage
            raise GameStateError(f"no stage after the roll {roll} in {work.state_code()}")
        for play in (work.legal_plays() if plays is None else plays(work)):
            work.play(play)
            nodes = (perft(work, depth - 1, cache) if plays is None
                     else perft_python(work, depth - 1, cache, plays=plays))
            choices.append(Choice(roll, play, nodes))
            work.undo()
        if roll is not None:
            work.undo()
    return choices


def perft_answer(request: Dict, plays: Optional[Callable[[Game], Sequence[Play]]] = None) -> Dict:
    """The answer to a perft request (a parsed JSON object): ``perft``, ``state`` (the
    state code), ``nodes`` and ``divide``, a list of ``{"roll", "position", "steps",
    "nodes"}`` (``roll`` only at a chance node). Raises ``GulBaraError`` (or
    ``TypeError``) for a bad request. ``plays`` as for :func:`divide_choices`.
    """
    depth = request.get("perft")
    depth = checked_int(depth, "perft (a depth)", 0, type_error=GulBaraError)
    state, options = request.get("state"), request.get("rules", {})
    if state is not None and not isinstance(state, str):
        raise TypeError("state must be a state code string (Game.state_code)")
    if not isinstance(options, dict):
        raise TypeError("rules must be a JSON object of Rules options")
    rules = Rules.from_dict(options)
    game = Game.from_state_code(state, rules) if state else Game.new_perft_root(rules)
    choices = divide_choices(game, depth, plays) if depth >= 1 else []
    nodes = sum(c.nodes for c in choices) if choices else 1
    divide = []
    for choice in choices:
        entry: Dict[str, object] = {} if choice.roll is None else {"roll": list(choice.roll)}
        entry.update(position=choice.play.code, steps=[list(s) for s in choice.play.steps],
                     nodes=choice.nodes)
        divide.append(entry)
    return {"perft": depth, "state": game.state_code(), "nodes": nodes, "divide": divide}
