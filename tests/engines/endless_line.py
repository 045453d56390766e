"""A hostile engine: reads one request and answers it with one line that never ends."""

import os
import sys

sys.stdin.readline()
chunk = b"x" * 65536
while True:
    os.write(1, chunk)
