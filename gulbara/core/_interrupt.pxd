# cython: language_level=3
"""Prompt Ctrl-C in loops that run without the GIL.

Python runs a signal's handler (SIGINT's raises ``KeyboardInterrupt``) only
when the main thread executes Python code, so a long ``nogil`` loop would
ignore Ctrl-C until it returns. A loop that may run long counts its work
with :c:func:`interrupted`; every ``every`` units it takes the GIL for a
moment and runs the pending handlers (``PyErr_CheckSignals``). Once a handler
raised, :c:func:`interrupted` says so at every later call: the loop stops,
frees what it holds, and its caller, with the GIL again, raises the
handler's exception with :c:func:`interrupt_raise`.

Only the main thread runs signal handlers, so a loop running in another
thread never takes the GIL for the check (``armed`` is false) and costs one
branch per unit of work.

Usage::

    cdef Interrupt intr
    interrupt_init(&intr, 4096, MAIN_THREAD)   # MAIN_THREAD: threading.main_thread().ident
    with nogil:
        for ...:
            if interrupted(&intr, units):
                break                    # free, unwind
    interrupt_raise(&intr)               # with the GIL: raises if a handler did

Inline C (this file is the implementation).
"""

from libc.stdint cimport uint64_t
from cpython.ref cimport PyObject
from cpython.exc cimport PyErr_Fetch, PyErr_Restore

cdef extern from "Python.h":
    # Declared without an exception value: a failure leaves the exception set
    # for check_signals_gil to take.
    int check_signals_raw "PyErr_CheckSignals"() noexcept
    unsigned long PyThread_get_thread_ident() noexcept nogil


ctypedef struct Interrupt:
    bint armed                 # the call runs on the main thread (only it runs handlers)
    bint raised                # a handler raised: the loop unwinds
    uint64_t ticks             # units of work since the last check
    uint64_t every             # check once every this many units
    PyObject* exc_type         # the handler's exception, held until interrupt_raise
    PyObject* exc_value
    PyObject* exc_tb


cdef inline void interrupt_init(Interrupt* it, uint64_t every,
                                unsigned long main_thread) noexcept:
    """Prepare a check every ``every`` units of work; ``main_thread`` is the main
    thread's ident (``threading.main_thread().ident``, read once by the caller's module)."""
    it.armed = PyThread_get_thread_ident() == main_thread
    it.raised = False
    it.ticks = 0
    it.every = every if every > 0 else 1
    it.exc_type = NULL
    it.exc_value = NULL
    it.exc_tb = NULL


cdef inline bint check_signals_gil(Interrupt* it) noexcept with gil:
    if check_signals_raw() != 0:
        PyErr_Fetch(&it.exc_type, &it.exc_value, &it.exc_tb)
        it.raised = True
    return it.raised


cdef inline bint interrupted(Interrupt* it, uint64_t units) noexcept nogil:
    """Count ``units`` of work; True once a signal handler has raised (stop the loop)."""
    if it.raised:
        return True
    if not it.armed:
        return False
    it.ticks += units
    if it.ticks < it.every:
        return False
    it.ticks = 0
    return check_signals_gil(it)


cdef inline int interrupt_raise(Interrupt* it) except -1:
    """Raise the exception a signal handler raised during the loop, if one did (with the GIL)."""
    if not it.raised:
        return 0
    it.raised = False
    if it.exc_type == NULL:
        raise KeyboardInterrupt
    PyErr_Restore(it.exc_type, it.exc_value, it.exc_tb)
    it.exc_type = NULL
    it.exc_value = NULL
    it.exc_tb = NULL
    return -1
