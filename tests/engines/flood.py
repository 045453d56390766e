"""A hostile engine: floods its output with lines as fast as it can, as
``yes '{"error":"x"}'`` does (its answers once queued up to 7.8 GB in 120 s)."""

import os

line = b'{"error":"x"}\n' * 4096
while True:
    os.write(1, line)
