"""``gulbara engine``: a JSON-lines session holding one game (:class:`gulbara.tools.engine.Session`,
docs/user/engine.md)."""

import json
import sys
from typing import Optional, TextIO

from gulbara.tools.engine import Session, answer_line

__all__ = ["add_arguments", "run"]


def add_arguments(parser) -> None:
    """``gulbara engine`` has no options: it reads requests on stdin."""


def run(args, stdin: Optional[TextIO] = None, stdout: Optional[TextIO] = None) -> int:
    """Answer requests from ``stdin`` until it ends or ``{"cmd": "quit"}``."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    session = Session()
    for line in stdin:
        if not line.strip():
            text = json.dumps({"ok": False, "error": "empty line: a request is one JSON "
                                                     "object per line"})
        else:
            text = answer_line(session, line)
        stdout.write(text + "\n")
        stdout.flush()
        if session.done:
            break
    return 0
