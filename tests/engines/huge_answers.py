"""A hostile engine: answers every request with an error line of 1 MB (verify once kept
every failing answer whole: 15 MB lines took it to 8.4 GB over 566 requests)."""

import sys

filler = "x" * (1 << 20)
for line in sys.stdin:
    sys.stdout.write('{"error":"' + filler + '"}\n')
    sys.stdout.flush()
