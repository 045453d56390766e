# cython: language_level=3
"""The result codes of the chains' native functions (and of a chain
enumeration). The functions that allocate return one rather than raise: they
run on worker threads without a Python thread state, and the caller raises
once the threads are joined (``gulbara.chains._chains``)."""

cdef enum:
    CHAIN_OK = 0
    CHAIN_NO_MEMORY = -1
    CHAIN_TOO_MANY = -2       # past max_ends (positions held at once) or the byte budget
    CHAIN_INTERRUPTED = -3    # a signal (Ctrl-C) arrived: everything is freed
