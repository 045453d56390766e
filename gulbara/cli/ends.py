"""``gulbara ends``: the engine protocol on stdin and stdout.

Reads JSON lines ``{"position": code, "seat": s, "dice": [...]}`` and writes
one JSON line per request in the test vectors' case format, or ``{"error":
"..."}`` for a malformed request; ``{"perft": depth, "state": code}`` is
answered with the node count and the divide (:func:`gulbara.tools.protocol.answer_request`,
docs/user/verify.md).
"""

from typing import TextIO

from gulbara.tools.protocol import answer_request

__all__ = ["add_arguments", "run"]

_EMPTY_LINE = '{"error": "empty line: a request is one JSON object per line"}'


def add_arguments(parser) -> None:
    """``gulbara ends`` has no options: it reads requests on stdin."""


def run(args, stdin: TextIO, stdout: TextIO) -> int:
    """Answer every line of ``stdin`` on ``stdout``, one flushed line each."""
    for line in stdin:
        stdout.write((answer_request(line) if line.strip() else _EMPTY_LINE) + "\n")
        stdout.flush()
    return 0
