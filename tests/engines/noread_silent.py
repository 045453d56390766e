"""A hostile engine: never reads its input, never answers (a request bigger than the pipe
then cannot be written: the harness must not block on it)."""

import time

time.sleep(600)
