"""Call every callable of one compiled module (and every method of its classes) with junk
arguments: ``python tests/junk_calls.py gulbara.core._movegen`` prints ``ok N`` unless the
interpreter crashes (``tests/test_no_crash.py`` runs it in a child process per module).

Any exception is fine; a call that runs more than a second on junk is stopped by SIGALRM, as
Ctrl-C would stop it (the long native calls check for signals)."""

import importlib
import inspect
import math
import random
import re
import signal
import sys
import time

import numpy as np
import gulbara
from gulbara.net.model import ValueNet
rng = random.Random(7)
game = gulbara.Game(auto_roll=False)
played = gulbara.Game(seed=3)
network = ValueNet.random(hidden=8, seed=1).native
INTS = [0, 1, 2, 3, 4, 5, 6, 7, -1, -2, 24, 25, 255, 2**31, 2**40, 2**63, 2**64 - 1, 2**70]
SMALL = [0, 1, 2, 3, 4, 5]
FLOATS = [0.0, 1.5, -1.0, 1e30, math.nan, math.inf]
ARRAYS = [np.zeros(0, np.float32), np.zeros(3, np.float32), np.ones((3, 196), np.float32),
          np.zeros((2, 2), np.int8), np.zeros((0, 24), np.int8), np.full((2, 24), 15, np.int8),
          np.zeros((2, 24), np.int8), np.zeros((2, 2), np.uint8), np.zeros(5, np.uint8),
          np.zeros(4, np.int64), np.zeros((3, 3), np.float64), np.zeros(7, np.int32),
          np.full(6, 200, np.uint8), np.full((2, 6), 9, np.uint8)]
OBJECTS = [None, "x", "random", "net", "greedy", "evaluator", game, played,
           gulbara.Position.from_code(gulbara.START_CODE), gulbara.START_CODE, gulbara.Rules(),
           network, (None, None), (0, 0), ("random", "first"), [], {}, [6, 5], [[1, 1]],
           [0, 1, 2], lambda *a: None, lambda x: np.zeros(len(x))]
EVERYTHING = INTS + FLOATS + ARRAYS + OBJECTS + [True, False]

def pool(kind):
    kind = (kind or "").strip()
    if "[" in kind:
        return ARRAYS + [None]
    if kind in ("bint", "bool"):
        return [True, False, 0, 1]
    if kind in ("double", "float"):
        return FLOATS + INTS[:4]
    if kind.startswith(("int", "uint", "long", "Py_ssize_t", "size_t", "unsigned")):
        return INTS + SMALL + SMALL           # small values often: codes, counts, seats
    if kind in ("Network",):
        return [None, network]
    if kind in ("str",):
        return ["x", "random", "net", "greedy", "first", "", "evaluator"]
    if kind:                                # a typed object: one of the objects, often None
        return OBJECTS
    return OBJECTS + OBJECTS + INTS[:9]     # untyped: mostly objects, as in the real calls

def parameters(fn):
    # (type, has default) of each parameter, from the embedded signature
    doc = (getattr(fn, "__doc__", None) or "").strip().split("\n", 1)[0]
    m = re.match(r"[\w.]+\((.*)\)", doc)
    if not m:
        return None
    params, depth, cur = [], 0, ""
    for ch in m.group(1):
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == "," and depth == 0:
            params.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        params.append(cur)
    out = []
    for p in params:
        p = p.strip()
        if p in ("self", "*", "/") or p.startswith("*"):
            continue
        head = p.split("=", 1)[0].strip().replace(" not None", "")
        words = head.split()
        out.append((" ".join(words[:-1]) if len(words) > 1 else None, "=" in p))
    return out

def calls(fn):
    yield ()
    params = parameters(fn)
    for _ in range(1000):
        if params is None:
            yield tuple(rng.choice(EVERYTHING) for _ in range(rng.randint(1, 12)))
            continue
        required = sum(1 for _, default in params if not default)
        n = rng.randint(required, len(params)) if rng.random() < 0.9 else rng.randint(0, len(params))
        yield tuple(rng.choice(pool(kind)) for kind, _ in params[:n])

class Slow(Exception):
    pass

def too_slow(signum, frame):
    raise Slow()


def probe(fn):
    began = time.perf_counter()
    for args in calls(fn):
        if time.perf_counter() - began > 3.0:     # a slow callable gets fewer tries
            break
        signal.setitimer(signal.ITIMER_REAL, 1.0)
        try:
            fn(*args)
        except BaseException as exc:       # any exception is fine: a crash is not
            if isinstance(exc, KeyboardInterrupt):
                raise
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)

def main(module_name):
    # a call that runs long on junk (a perft 7 deep) is stopped after a second, as Ctrl-C would
    # stop it: the long native calls check for signals
    signal.signal(signal.SIGALRM, too_slow)
    module = importlib.import_module(module_name)
    names = sorted(n for n in dir(module) if not n.startswith("__"))
    for name in names:
        obj = getattr(module, name)
        if inspect.isclass(obj) and obj.__module__ == module.__name__:
            instances = []
            for args in calls(obj):
                try:
                    instances.append(obj(*args))
                except BaseException:
                    pass
                if len(instances) >= 3:
                    break
            try:
                instances.append(obj.__new__(obj))          # never initialised
            except BaseException:
                pass
            for instance in instances:
                for attr in sorted(a for a in dir(instance) if not a.startswith("__")):
                    try:
                        member = getattr(instance, attr)
                    except BaseException:
                        continue
                    if callable(member):
                        probe(member)
        elif callable(obj) and getattr(obj, "__module__", module.__name__) == module.__name__:
            probe(obj)
    print("ok", len(names))


if __name__ == "__main__":
    main(sys.argv[1])
