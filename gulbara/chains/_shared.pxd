# cython: language_level=3
"""What the threads of one chain enumeration share (``Shared``: its meter,
the positions held, the first failure, the signal check, what it counted of
its ways, ``ChainStats``), and ``shared_fail``, which records a failure
(a result code of ``_status.pxd``) for every thread to see."""

from gulbara.core._interrupt cimport Interrupt
from gulbara.chains._atomics cimport first_error
from gulbara.chains._memory cimport Meter


# What one enumeration counted of the ways it took (the ``stats`` of
# gulbara.chains' calls: tests prove with them that a path ran). Written by
# the calling thread alone; zeroed with its Shared.
ctypedef struct ChainStats:
    Py_ssize_t diagram_chains     # enumerations and counts done by decision diagram
    Py_ssize_t small_tries        # chains tried stage by stage before a diagram (small_try)
    Py_ssize_t stages_bucketed    # stages whose full plays went into buckets
    Py_ssize_t stages_layered     # stages expanded a step at a time (from their start or
    Py_ssize_t stages_turned      # turned to it part way: those counted in both)
    Py_ssize_t dd_nodes           # the last diagram built (0: none): its nodes,
    Py_ssize_t dd_dead            # the ids among them a team took and left unused,
    Py_ssize_t dd_room            # its room for nodes, its cache slots
    Py_ssize_t dd_cache_slots
    size_t dd_bytes               # and the bytes it counted in the meter;
    bint dd_team                  # whether a helper thread built it with the calling one


# What the threads of one enumeration share.
ctypedef struct Shared:
    Meter meter
    Py_ssize_t held           # positions in every live table (atomic)
    Py_ssize_t max_held       # max_ends: CHAIN_TOO_MANY past it
    int err                   # the first failure; every thread stops when it is set
    Interrupt intr            # Ctrl-C, looked for by the calling thread (_interrupt.pxd)
    ChainStats stats          # what it counted of its ways (the calling thread's)


cdef inline void shared_fail(Shared* sh, int err) noexcept nogil:
    first_error(&sh.err, err)
