"""Worker processes and the signals that stop them: one policy for every long command.

* In a worker process, :func:`worker_started` comes first: Ctrl-C is left to the parent
  (``SIGINT`` ignored), ``SIGTERM`` kills, and the worker dies with its parent even when the
  parent is killed outright (``SIGKILL``): a parent-death signal on Linux
  (``prctl(PR_SET_PDEATHSIG)``), elsewhere a thread that exits the worker when its parent
  is gone.
* In the parent, :func:`run_processes` plays jobs on worker processes of its own, and
  :func:`stop_processes` stops them: ``terminate``, ``kill`` after :data:`STOP_GRACE`
  seconds, then ``join``.
* The command line runs every command that starts workers or runs long under
  :func:`stop_on_signals`: the first Ctrl-C (``SIGINT``) or ``SIGTERM`` runs the cleanups
  registered with :func:`on_stop` (the worker processes stopped and joined, unfinished
  temporary files removed, an engine's process group killed), prints one line on stderr
  saying what was done, and exits with 130 (``SIGINT``) or 143 (``SIGTERM``), within a
  fraction of a second whatever the main thread is doing (native code included): the
  signal is taken by a thread of its own (``signal.set_wakeup_fd``), and the main thread
  stops at its next Python instruction, so it can print no traceback.

Library calls made outside :func:`stop_on_signals` keep Python's behaviour: Ctrl-C raises
``KeyboardInterrupt``, and :func:`run_processes` stops its workers before passing it on.
"""

import os
import pickle
import signal
import socket
import sys
import threading
import time
from contextlib import contextmanager
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

__all__ = ["STOP_GRACE", "worker_started", "stop_processes", "run_processes", "on_stop",
           "stop_on_signals", "signal_status"]

#: Seconds a worker has to end after ``terminate`` before it is killed.
STOP_GRACE = 0.3

#: What a stop signal runs and says: key -> (cleanup, say), in registration order.
#: Read without a lock by the stopping thread (the main thread may be stopped holding any).
_ON_STOP: Dict[int, Tuple[Optional[Callable[[], None]], Optional[Callable[[], str]]]] = {}
_KEYS = iter(range(1, 1 << 62))
#: Not empty while :func:`stop_on_signals` holds the signals of this process.
_INSTALLED: List[str] = []


def signal_status(signum: int) -> int:
    """The conventional exit status of a command stopped by ``signum``: 128 + its number."""
    return 128 + int(signum)


def _signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


# -- the worker's side --------------------------------------------------------------------

def _die_with_parent(parent: int) -> None:
    """Exit this process when ``parent`` is gone (killed or not)."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            libc = ctypes.CDLL(None, use_errno=True)
            PR_SET_PDEATHSIG = 1
            if libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0:
                if os.getppid() != parent:          # it died before the signal was asked for
                    os._exit(1)
                return
        except (OSError, AttributeError):           # pragma: no cover (no libc prctl)
            pass

    def watch() -> None:                            # pragma: no cover (not Linux)
        while os.getppid() == parent:
            time.sleep(0.2)
        os._exit(1)

    threading.Thread(target=watch, name="gulbara-parent-watch", daemon=True).start()


def worker_started(parent: Optional[int] = None) -> None:
    """The first call in a worker process whose parent is ``parent`` (default: this process's
    parent now): ``SIGINT`` ignored (Ctrl-C is the parent's to answer), ``SIGTERM`` back to
    its default (it ends the worker at once) and the worker tied to its parent's life."""
    if threading.current_thread() is threading.main_thread():
        try:
            signal.set_wakeup_fd(-1)
        except ValueError:                          # pragma: no cover
            pass
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        if hasattr(signal, "SIGTERM"):
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _die_with_parent(os.getppid() if parent is None else parent)


# -- the parent's side --------------------------------------------------------------------

def stop_processes(processes: Sequence[Any], grace: float = STOP_GRACE) -> None:
    """Stop ``processes`` (``multiprocessing`` processes or ``subprocess.Popen``):
    ``terminate`` those still running, ``kill`` those alive after ``grace`` seconds, and wait
    for every one (no zombie left)."""
    for process in processes:
        try:
            if _alive(process):
                process.terminate()
        except (OSError, ValueError, AttributeError):
            pass
    deadline = time.monotonic() + grace
    for process in processes:
        _wait(process, max(0.0, deadline - time.monotonic()))
    for process in processes:
        try:
            if _alive(process):
                process.kill()
        except (OSError, ValueError, AttributeError):
            pass
        _wait(process, None)


def _alive(process: Any) -> bool:
    if hasattr(process, "is_alive"):
        return process.is_alive()
    return process.poll() is None


def _wait(process: Any, timeout: Optional[float]) -> None:
    try:
        if hasattr(process, "join"):
            process.join(timeout)
        else:
            process.wait(timeout)
    except Exception:                               # subprocess.TimeoutExpired, ...
        pass


def _portable_error(exc: BaseException) -> BaseException:
    """``exc`` if it survives pickling (to cross from a worker process), else a
    ``RuntimeError`` naming its type and message."""
    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:
        name = f"{type(exc).__module__}.{type(exc).__qualname__}"
        return RuntimeError(f"a worker process raised {name}: {exc} "
                            "(the exception itself cannot be pickled)")


def _serve(task: Callable[..., Any], share: List[Tuple[int, tuple]], conn, parent: int) -> None:
    """A worker process: run ``task(*args)`` for each ``(index, args)`` of ``share`` and send
    each result, or the first error, to the parent through ``conn``."""
    worker_started(parent)
    try:
        for i, args in share:
            conn.send((i, task(*args), None))
    except BaseException as exc:                    # the caller's evaluator raised, ...
        conn.send((None, None, _portable_error(exc)))
    finally:
        conn.close()


def run_processes(task: Callable[..., Any], jobs: Sequence[tuple], workers: int,
                  finished: Callable[[int, Any], None], what: str = "worker") -> None:
    """Run ``task(*jobs[i])`` for every job on ``workers`` processes of this call's own (job
    ``i`` on worker ``i % workers``), passing each result to ``finished(i, result)`` in the
    calling thread as it comes.

    The processes are forked where the platform can (nothing pickled: ``task`` and its
    arguments may be any objects), each started with :func:`worker_started`. A worker's
    exception is raised here; on any exception (Ctrl-C included) every worker is stopped
    (:func:`stop_processes`) before it passes on, and a stop signal under
    :func:`stop_on_signals` stops them too.

    A daemonic process (a ``multiprocessing.Pool`` worker, or a worker of this
    function's) may not start processes: there the jobs run in the calling process,
    one after another: the same results for tasks that, like gulbara's, depend only on their
    arguments, but whatever state a task changes stays changed in the caller.
    """
    import multiprocessing
    from multiprocessing.connection import wait
    if multiprocessing.current_process().daemon:
        for i, args in enumerate(jobs):
            finished(i, task(*args))
        return
    if "fork" in multiprocessing.get_all_start_methods():
        context: Any = multiprocessing.get_context("fork")
    else:                                           # pragma: no cover (not Linux)
        context = multiprocessing.get_context("spawn")
    workers = max(1, min(workers, len(jobs)))
    shares = [[(i, tuple(args)) for i, args in enumerate(jobs) if i % workers == k]
              for k in range(workers)]
    processes: List[Any] = []
    readers: Dict[Any, Any] = {}               # multiprocessing Connection -> its process
    with on_stop(lambda: stop_processes(processes)):
        try:
            for share in shares:
                reader, writer = context.Pipe(duplex=False)
                process = context.Process(target=_serve, args=(task, share, writer, os.getpid()),
                                          daemon=True)
                process.start()
                writer.close()
                processes.append(process)
                readers[reader] = process
            pending = len(jobs)
            while pending:
                if not readers:
                    codes = ", ".join(str(p.exitcode) for p in processes)
                    raise RuntimeError(f"{what} processes stopped with {pending} jobs undone "
                                       f"(exit codes {codes})")
                ready: List[Any] = list(wait(list(readers)))
                for reader in ready:
                    try:
                        i, result, error = reader.recv()
                    except EOFError:                # the worker is done (or died)
                        del readers[reader]
                        reader.close()
                        continue
                    if error is not None:
                        raise error
                    pending -= 1
                    finished(i, result)
        finally:
            stop_processes(processes)
            for reader in readers:
                reader.close()


# -- the command's side: what a stop signal runs and says ----------------------------------

@contextmanager
def on_stop(cleanup: Optional[Callable[[], None]] = None,
            say: Optional[Callable[[], str]] = None) -> Iterator[None]:
    """While in the block, a stop signal under :func:`stop_on_signals` runs ``cleanup()``
    (before exiting; the last registered first) and adds ``say()`` (what was done, e.g.
    ``"1,200 of 5,000 games played"``) to its line. Both are called from another thread."""
    key = next(_KEYS)
    _ON_STOP[key] = (cleanup, say)
    try:
        yield
    finally:
        _ON_STOP.pop(key, None)


def _flush_stdout(timeout: float) -> None:
    """Flush ``sys.stdout``, waiting at most ``timeout`` seconds (the main thread may hold it,
    or its reader may not be reading)."""
    def flush() -> None:
        try:
            sys.stdout.flush()
        except BaseException:
            pass
    thread = threading.Thread(target=flush, daemon=True)
    thread.start()
    thread.join(timeout)


def _stop(command: str, signum: int) -> None:
    """Run the cleanups, print the one line, exit ``128 + signum``."""
    entries = list(_ON_STOP.values())
    for cleanup, _ in reversed(entries):
        if cleanup is not None:
            try:
                cleanup()
            except BaseException:
                pass
    parts = []
    for _, say in entries:
        if say is not None:
            try:
                text = say()
            except BaseException:
                text = ""
            if text:
                parts.append(text)
    _flush_stdout(0.2)
    line = f"gulbara {command}: stopped by {_signal_name(signum)}"
    if parts:
        line += "; " + "; ".join(parts)
    try:
        lead = "\n" if os.isatty(2) else ""
    except OSError:                                 # pragma: no cover
        lead = ""
    try:
        os.write(2, (lead + line + "\n").encode("utf-8", "replace"))
    except OSError:
        pass
    os._exit(signal_status(signum))


def _stopper(reader: socket.socket, command: str) -> None:
    while True:
        try:
            data = reader.recv(1)
        except InterruptedError:                    # pragma: no cover
            continue
        except OSError:
            return
        if not data or data[0] == 0:                # the command ended
            return
        _stop(command, data[0])


#: The signals a long command stops on.
STOP_SIGNALS = tuple(s for s in (getattr(signal, "SIGINT", None), getattr(signal, "SIGTERM", None))
                     if s is not None)


@contextmanager
def stop_on_signals(command: str) -> Iterator[None]:
    """Run the block under the stop policy of the module docstring: the first ``SIGINT`` or
    ``SIGTERM`` stops the command ``command`` (named in the line printed). Only from the main
    thread (elsewhere the block runs unchanged)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    reader, writer = socket.socketpair()
    writer.setblocking(False)
    old_fd = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)

    def hold(signum: int, frame: Any) -> None:
        # the stopping thread exits the process: the main thread waits here, at a Python
        # instruction boundary, so nothing it would do next (a traceback) is printed
        time.sleep(10)
        os._exit(signal_status(signum))             # pragma: no cover (the stopper failed)

    old = {s: signal.signal(s, hold) for s in STOP_SIGNALS}
    thread = threading.Thread(target=_stopper, args=(reader, command), name="gulbara-stop",
                              daemon=True)
    thread.start()
    _INSTALLED.append(command)
    try:
        yield
    finally:
        _INSTALLED.clear()
        for s, handler in old.items():
            signal.signal(s, handler)
        signal.set_wakeup_fd(old_fd)
        try:
            writer.setblocking(True)
            writer.send(b"\0")
        except OSError:                             # pragma: no cover
            pass
        thread.join(1.0)
        reader.close()
        writer.close()


def _after_fork_in_child() -> None:
    """A forked child does not answer the parent's stop signals (it is a worker)."""
    _ON_STOP.clear()
    if _INSTALLED and threading.current_thread() is threading.main_thread():
        _INSTALLED.clear()
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        if hasattr(signal, "SIGTERM"):
            signal.signal(signal.SIGTERM, signal.SIG_DFL)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
