"""Files written all at once: a unique temporary file beside the target, which replaces it only
when the writing succeeded.

:func:`replaced_atomically` is how gulbara writes every file it makes (networks, rollouts,
statistics, plots, pictures, records): a failure (a full disk, an error, Ctrl-C) leaves the
target as it was and no temporary file behind, and two runs writing the same target never
share a temporary name, so each leaves a whole file (the last to finish wins).

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "out.txt")
>>> with replaced_atomically(path) as f:
...     _ = f.write("all or nothing")
>>> open(path).read()
'all or nothing'
>>> try:
...     with replaced_atomically(path) as f:
...         _ = f.write("half")
...         raise OSError("disk full")
... except OSError:
...     pass
>>> open(path).read(), os.listdir(os.path.dirname(path))
('all or nothing', ['out.txt'])
"""

import os
import tempfile
from contextlib import contextmanager
from typing import IO, Iterator, Optional, Union

from gulbara.workers import on_stop

__all__ = ["replaced_atomically"]


@contextmanager
def replaced_atomically(path: Union[str, "os.PathLike[str]"], mode: str = "w",
                        encoding: Optional[str] = "utf-8") -> Iterator[IO]:
    """A file object to write ``path``'s new content to (``mode`` ``"w"`` or ``"wb"``); on
    leaving the block without an error it replaces ``path``, else it is removed."""
    if mode not in ("w", "wb"):
        raise ValueError(f"mode is 'w' or 'wb', not {mode!r}")
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    fd, temporary = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp",
                                     dir=folder)
    def remove() -> None:
        try:
            os.unlink(temporary)
        except OSError:
            pass

    # a stop signal (gulbara.workers) exits without unwinding: the temporary file goes too
    with on_stop(remove):
        try:
            with os.fdopen(fd, mode, encoding=None if "b" in mode else encoding) as f:
                yield f
            os.replace(temporary, path)
        except BaseException:
            remove()
            raise
