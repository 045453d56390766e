"""``gulbara engine``: a JSON-lines session holding one game (:class:`gulbara.tools.engine.Session`,
docs/user/engine.md).

Each request line is read as UTF-8 bytes, at most :data:`MAX_REQUEST_BYTES` of them: a longer
line, or one that is not UTF-8, gets an error answer and the session goes on. Answers are
written as UTF-8 whatever the locale."""

import json
import sys
from typing import Iterator, Optional, TextIO

from gulbara.tools.engine import Session, answer_line

__all__ = ["add_arguments", "run", "MAX_REQUEST_BYTES"]

#: The longest request line read (longer ones are refused, their bytes skipped unread).
MAX_REQUEST_BYTES = 1 << 20


def add_arguments(parser) -> None:
    """``gulbara engine`` has no options: it reads requests on stdin."""


def _lines(stdin) -> Iterator[str]:
    """The request lines of ``stdin``; a line too long or not UTF-8 as ``None`` with why."""
    binary = getattr(stdin, "buffer", None)
    if binary is None:                          # a text stream (tests): lines as they are
        for line in stdin:
            if len(line) > MAX_REQUEST_BYTES:
                yield _refusal(f"a request line is at most {MAX_REQUEST_BYTES:,} bytes")
            else:
                yield line
        return
    while True:
        raw = binary.readline(MAX_REQUEST_BYTES + 1)
        if not raw:
            return
        if len(raw) > MAX_REQUEST_BYTES and not raw.endswith(b"\n"):
            while raw and not raw.endswith(b"\n"):         # skip the rest of the line
                raw = binary.readline(1 << 16)
            yield _refusal(f"a request line is at most {MAX_REQUEST_BYTES:,} bytes")
            continue
        try:
            yield raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            yield _refusal(f"a request line is UTF-8 text: {exc.reason} at byte {exc.start}")


class _Refusal(str):
    """A line answered with an error, not read as a request."""


def _refusal(why: str) -> str:
    return _Refusal(json.dumps({"ok": False, "error": why}))


def run(args, stdin: Optional[TextIO] = None, stdout: Optional[TextIO] = None) -> int:
    """Answer requests from ``stdin`` until it ends or ``{"cmd": "quit"}``."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    out = getattr(stdout, "buffer", None)
    session = Session()
    for line in _lines(stdin):
        if isinstance(line, _Refusal):
            text = str(line)
        elif not line.strip():
            text = json.dumps({"ok": False, "error": "empty line: a request is one JSON "
                                                     "object per line"})
        else:
            text = answer_line(session, line)
        if out is not None:
            stdout.flush()
            out.write(text.encode("utf-8") + b"\n")
            out.flush()
        else:
            stdout.write(text + "\n")
            stdout.flush()
        if session.done:
            break
    return 0
