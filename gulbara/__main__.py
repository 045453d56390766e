"""``python -m gulbara``: the same as the ``gulbara`` command."""

import sys

from gulbara.cli import main

sys.exit(main())
