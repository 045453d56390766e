"""Every ``gulbara ...`` command line in the README and docs/ runs, through a subprocess.

The commands are read from the documents themselves, so a new example is tested as soon as it is
written. Long runs are shortened (fewer games, positions, rounds), the placeholder engine
``./my-engine --jsonl`` is gulbara's own ``gulbara ends``, and ``gulbara play`` gets a script
that quits; otherwise each command runs as printed, from a scratch directory (so the source tree
never shadows the installed package).
"""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [ROOT / "README.md"] + sorted((ROOT / "docs").rglob("*.md"))
_COMMAND = re.compile(r"^\s*(?:\$ )?(?:(?P<echo>echo '[^']*') \| *)?(?P<cmd>gulbara .*)$")
_ENGINE = f"{sys.executable} -m gulbara ends"
#: option -> the most it may be in a test run
_CAPS = {"--games": 40, "--positions": 3, "--rounds": 1, "--workers": 1}


def _examples():
    found = []
    for path in DOCUMENTS:
        fenced = False
        lines = path.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines, 1):
            if line.startswith("```"):
                fenced = not fenced
                continue
            if not (fenced or line.startswith("    ")):
                continue                                      # prose
            line = line.split("&& ", 1)[-1]
            match = _COMMAND.match(line)
            if not match or " [--" in line or re.match(r"gulbara [^\"']*\w: ", match["cmd"]):
                continue                                      # synopses, output lines
            cmd = match["cmd"]
            if "  #" in cmd:
                cmd = cmd[:cmd.index("  #")]
            shown = None                       # the output printed under a `$ ` command
            if line.lstrip().startswith("$ ") and number < len(lines) and \
                    not lines[number].startswith(("$", "```")):
                shown = lines[number]
            found.append(pytest.param(match["echo"], cmd.strip(), shown,
                                      id=f"{path.name}:{number}",
                                      marks=[pytest.mark.slow] if _slow(cmd) else []))
    return found


def _slow(cmd: str) -> bool:
    return cmd.startswith("gulbara bench --rounds") or "--perft 3" in cmd


def _runnable(cmd: str):
    words = shlex.split(cmd)[1:]
    stdin_path = None
    if "<" in words:
        at = words.index("<")
        stdin_path = ROOT / words[at + 1]
        words = words[:at] + words[at + 2:]
    for i, word in enumerate(words):
        if word == "./my-engine --jsonl":
            words[i] = _ENGINE
        elif word.startswith("env GULBARA_BACKEND=reference gulbara ends"):
            words[i] = f"env GULBARA_BACKEND=reference {_ENGINE}"
        if i and words[i - 1] in _CAPS:
            words[i] = str(min(int(word), _CAPS[words[i - 1]]))
    if words[:1] == ["arena"] and "--games" not in words:
        words += ["--games", "2"]
    if words[:1] == ["arena"] and "expectimax2" in words:
        words[words.index("--games") + 1] = "1"
    return words, stdin_path


EXAMPLES = _examples()


def test_the_documents_have_examples():
    assert len(EXAMPLES) >= 30


@pytest.mark.parametrize("echo, cmd, shown", EXAMPLES)
def test_documented_command_runs(echo, cmd, shown, tmp_path):
    words, stdin_path = _runnable(cmd)
    if echo is not None:
        stdin = shlex.split(echo)[1] + "\n"
    elif stdin_path is not None:
        stdin = stdin_path.read_text(encoding="utf-8")
    elif words[:1] == ["play"]:
        stdin = "1\nquit\n"
    else:
        stdin = ""
    env = {k: v for k, v in os.environ.items() if k != "GULBARA_BACKEND"}
    if "--resume" in words:            # resuming needs the run it goes on from
        subprocess.run([sys.executable, "-m", "gulbara"] + [w for w in words if w != "--resume"],
                       capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300,
                       check=True)
    proc = subprocess.run([sys.executable, "-m", "gulbara"] + words, input=stdin,
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    assert proc.returncode == 0, (words, proc.stdout[-2000:], proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr
    assert not re.search(r"\bnan\b", proc.stdout, re.IGNORECASE), proc.stdout
    if shown is not None and words[0] in ("ends", "engine"):     # deterministic: as printed
        assert proc.stdout.splitlines()[0] == shown
