"""``python -m gulbara``: the same as the ``gulbara`` command."""

import sys

try:
    from gulbara.cli import main
except KeyboardInterrupt:               # Ctrl-C while starting: no traceback
    sys.exit(130)

sys.exit(main())
