"""A hostile engine: writes {"error":"busy"} every 2 ms and never reads its input.

gulbara's harness once wrote its requests with a blocking write: once the pipe was full it
waited for good (``verify --engine`` still running at 100 s with ``--timeout 5``)."""

import sys
import time

while True:
    sys.stdout.write('{"error":"busy"}\n')
    sys.stdout.flush()
    time.sleep(0.002)
