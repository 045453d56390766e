"""A hostile engine: starts a child that holds its stdout (and sleeps), then exits at once,
as ``sh -c 'sleep 200 & exit 0'`` does: the harness once waited on the pipe for good."""

import subprocess
import sys

subprocess.Popen([sys.executable, "-c", "import time; time.sleep(200)"])
