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
import time
from typing import Callable, Dict, List, NamedTuple, Optional, Sequence, Union

from gulbara.core._backend import START_CODE  # noqa: F401  (for the doctests)
from gulbara.core._backend import raw_stage_ends
from gulbara.errors import GameStateError, GulBaraError, checked_int
from gulbara.game.driver import Game
from gulbara.game.perft import perft, perft_python
from gulbara.core.play import Play, StageEnds
from gulbara.rules import DEFAULT_RULES, Rules
from gulbara.game.state_codes import position_code
from gulbara.workers import on_stop

__all__ = ["EngineError", "EngineProcess", "Choice", "divide_choices", "perft_answer",
           "perft_request", "stage_request", "ends_as_case", "answer_request",
           "MAX_ANSWER_BYTES", "MAX_UNASKED_LINES"]

#: The longest answer line read from an engine, in bytes; a longer one is reported as an
#: error. (The largest of gulbara's answers to the 44,544 stage requests of
#: ``verify_cases(2000)`` is 83 KB; its perft 1 answer from the mid-game state of
#: ``gulbara.tools.bench.perft_rows``, 911 choices, is 111 KB.)
MAX_ANSWER_BYTES = 16 * 1024 * 1024
#: Lines an engine may write ahead of the requests before it is stopped as flooding (one
#: answer a request: a line waiting when a request is sent is already an error).
MAX_UNASKED_LINES = 64
#: Seconds an engine that exited has for its last answer to come, before what it left
#: holding its output is killed.
EXIT_GRACE = 0.3
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
    """An engine running as a subprocess, spoken to one request at a time; it never blocks
    the caller longer than the request's deadline, whatever the engine does.

    ``command`` is a shell-like string (split with :func:`shlex.split`, not run
    by a shell) or an argument list. Each :meth:`request` has ``timeout`` seconds
    for the request to be taken and its answer line to come; the first one ``startup``
    seconds more, for the engine's start-up (an interpreter, a JIT, tables to load).
    ``env`` and ``cwd`` are the process's environment and working directory.

    Threads of its own write the requests (so an engine that stops reading its input
    cannot block the caller) and read the engine's stdout, in lines of at most
    ``max_line`` bytes (default :data:`MAX_ANSWER_BYTES`), and its stderr (the last
    :data:`STDERR_TAIL_CHARS` kept). Memory stays bounded: an answer line longer than
    ``max_line``, or lines the engine writes without being asked
    (:data:`MAX_UNASKED_LINES`), end the run with an :class:`EngineError` naming what the
    engine did, as do no answer in time, an exit, and an exit that leaves a child process
    holding the engine's output. After an :class:`EngineError` the process is stopped;
    :meth:`close` (or the ``with`` block, or a stop signal, :mod:`gulbara.workers`) stops
    it in any case, with its whole process group on POSIX, even once the engine itself
    has exited.
    """

    def __init__(self, command: Union[str, Sequence[str]], timeout: float = 10.0,
                 env: Optional[Dict[str, str]] = None, startup: float = 20.0,
                 cwd: Optional[str] = None, max_line: Optional[int] = None) -> None:
        argv = shlex.split(command) if isinstance(command, str) else [str(a) for a in command]
        if not argv:
            raise GulBaraError("the engine command is empty")
        if not (isinstance(timeout, (int, float)) and 0 < timeout < float("inf")):
            raise GulBaraError(f"the timeout must be a positive number of seconds, got {timeout!r}")
        if not (isinstance(startup, (int, float)) and 0 <= startup < float("inf")):
            raise GulBaraError(f"startup must be a number of seconds >= 0, got {startup!r}")
        self.command = command if isinstance(command, str) else shlex.join(argv)
        self.timeout = float(timeout)
        self.startup = float(startup)
        self.max_line = checked_int(MAX_ANSWER_BYTES if max_line is None else max_line,
                                    "max_line", 1)
        self.sent = 0
        self._lines: "collections.deque[bytes]" = collections.deque()
        self._ended = False                     # the engine's stdout is closed
        self._problem: Optional[str] = None     # what the reader saw the engine do wrong
        self._partial = b""                     # the start of the line being read
        self._queued = 0                        # bytes in self._lines
        self._cond = threading.Condition()
        self._writes: "queue.Queue[Optional[bytes]]" = queue.Queue()
        self._written = 0                       # requests fully written
        self._write_error = False
        self._stderr: collections.deque = collections.deque()
        self._stderr_chars = 0
        self._stderr_lock = threading.Lock()
        self._closed = False
        try:
            self._process = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                env=env, cwd=cwd, bufsize=0, start_new_session=os.name == "posix")
        except OSError as exc:
            raise EngineError(f"cannot start the engine {self.command!r}: {exc}") from None
        self._stop = on_stop(self._kill_group)          # a stop signal kills the engine too
        self._stop.__enter__()
        for target in (self._write_requests, self._read_answers, self._read_stderr):
            threading.Thread(target=target, daemon=True).start()

    # -- the threads ----------------------------------------------------------------------

    def _write_requests(self) -> None:
        stdin = self._process.stdin
        assert stdin is not None                        # a pipe
        while True:
            data = self._writes.get()
            if data is None:
                break
            try:
                view = memoryview(data)
                while view:
                    view = view[stdin.write(view) or 0:]
            except (OSError, ValueError):
                with self._cond:
                    self._write_error = True
                    self._cond.notify_all()
                break
            with self._cond:
                self._written += 1
                self._cond.notify_all()
        try:
            stdin.close()
        except (OSError, ValueError):
            pass

    def _read_answers(self) -> None:
        fd = self._process.stdout.fileno()              # type: ignore[union-attr]
        try:
            while True:
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                with self._cond:
                    parts = (self._partial + chunk).split(b"\n")
                    self._partial = parts.pop()
                    self._lines.extend(parts)
                    self._queued += sum(len(line) for line in parts)
                    if len(self._partial) > self.max_line or any(
                            len(line) > self.max_line for line in parts):
                        self._problem = (f"the engine answered a line over {self.max_line:,} "
                                         "bytes")
                    elif len(self._lines) > MAX_UNASKED_LINES or self._queued > self.max_line:
                        # (one answer a request: two lines waiting are one too many)
                        self._problem = (f"the engine flooded its output: {len(self._lines):,} "
                                         "lines it was not asked for")
                    self._cond.notify_all()
                    if self._problem is not None:
                        self._lines.clear()             # (memory stays bounded)
                        self._partial = self._partial[:300]
                        break                           # read no more: close() kills it
        except (OSError, ValueError):
            pass
        with self._cond:
            self._ended = True
            self._cond.notify_all()

    def _read_stderr(self) -> None:
        fd = self._process.stderr.fileno()              # type: ignore[union-attr]
        try:
            while True:
                chunk = os.read(fd, 4096)
                if not chunk:
                    break
                text = chunk.decode("utf-8", "replace")
                with self._stderr_lock:
                    self._stderr.append(text)
                    self._stderr_chars += len(text)
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

    # -- a request --------------------------------------------------------------------------

    def request(self, line: str, timeout: Optional[float] = None) -> str:
        """Send one request line and return the answer line (without its newline).

        Raises :class:`EngineError` naming what the engine did if it has exited (leaving a
        child that holds its output or not), does not take the request or answer it within
        ``timeout`` (default: the engine's; ``startup`` more for the first request)
        seconds, writes lines it was not asked for, or an answer line longer than
        ``max_line`` bytes; the engine is stopped then.
        """
        wait = self.timeout if timeout is None else float(timeout)
        if not 0 < wait < float("inf"):
            raise GulBaraError(f"the timeout must be a positive number of seconds, got {wait!r}")
        if self.sent == 0:
            wait += self.startup
        if self._closed:
            raise EngineError("the engine was stopped", line, self.sent + 1)
        with self._cond:
            if self._lines and self._problem is None:
                self._problem = (f"the engine wrote {len(self._lines):,} lines it was not "
                                 "asked for (one answer a request)")
        self.sent += 1
        self._writes.put(line.rstrip("\n").encode("utf-8", "replace") + b"\n")
        deadline = time.monotonic() + wait
        exited_at: Optional[float] = None
        with self._cond:
            while True:
                if self._problem is not None:
                    excerpt = self._partial[:300].decode("utf-8", "replace")
                    raise self._fail(self._problem, line, excerpt)
                if self._lines and self._written >= self.sent:   # (an answer to a request
                    answer = self._lines.popleft()                  # it has not read: none)
                    self._queued -= len(answer)
                    break
                if self._ended:
                    status = self._exit_status()
                    if self._partial:
                        raise self._fail(f"the engine exited ({status}) in the middle of an "
                                         "answer", line,
                                         self._partial[:300].decode("utf-8", "replace"))
                    raise self._fail(f"the engine exited ({status}) after {self.sent - 1} "
                                     "answers", line)
                now = time.monotonic()
                if exited_at is None and self._process.poll() is not None:
                    exited_at = now                     # its output may still come
                if exited_at is not None and now - exited_at > EXIT_GRACE:
                    raise self._fail(f"the engine exited ({self._exit_status()}) after "
                                     f"{self.sent - 1} answers, leaving a child process that "
                                     "held its output (its process group was killed)", line)
                if now >= deadline:
                    if self._written < self.sent or self._write_error:
                        raise self._fail(f"the engine stopped reading its input: the request "
                                         f"was not taken within {wait:g} s", line)
                    raise self._fail(f"the engine gave no answer within {wait:g} s", line)
                self._cond.wait(min(deadline - now, 0.05))
        return answer.rstrip(b"\r").decode("utf-8", "replace")

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

    # -- stopping ---------------------------------------------------------------------------

    def close(self) -> None:
        """Stop the engine: close its stdin; then, if it lingers, terminate it; and in any
        case kill its whole process group (what it left behind included). Never blocks
        more than a few seconds."""
        if self._closed:
            return
        self._closed = True
        process = self._process
        self._writes.put(None)                          # the writer closes stdin
        if process.poll() is None:
            try:
                process.wait(timeout=0.5)
            except subprocess.TimeoutExpired:
                self._signal(signal.SIGTERM)
                try:
                    process.wait(timeout=1)
                except subprocess.TimeoutExpired:
                    pass
        self._kill_group()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:               # pragma: no cover
            pass
        self._stop.__exit__(None, None, None)
        for stream in (process.stdout, process.stderr):
            try:
                stream.close()                          # type: ignore[union-attr]
            except (OSError, ValueError):
                pass

    def _kill_group(self) -> None:
        self._signal(getattr(signal, "SIGKILL", signal.SIGTERM))

    def _signal(self, sig) -> None:
        try:
            if os.name == "posix":
                os.killpg(self._process.pid, sig)
            elif self._process.poll() is None:          # pragma: no cover
                self._process.send_signal(sig)
        except (ProcessLookupError, PermissionError, OSError):
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
