# cython: language_level=3
"""A chain outcome's tag: why and where the chain stopped (shared by the
stage-by-stage enumeration, the decision diagrams and the steps' search)."""

from libc.stdint cimport uint64_t

from gulbara.core._types cimport Key96

# Why and where a chain stopped: an outcome's tag is (stop, number, played),
# make_tag below; it determines the remainder (RULES §5.1).
cdef enum:
    STOP_COMPLETE = 0     # every stage played in full (or the remainder played out)
    STOP_STALLED = 1      # a stage not played in full: the chain stops (RULES §4.4)
    STOP_UNSTARTED = 2    # not even one die of the first stage (RULES §5.2)
    STOP_GAME_OVER = 3    # the mover bore off its last checker (RULES §5.5)

# A game-ending outcome leaves one position (the mover's 15 checkers off, the
# opponent unmoved) and passes nothing, so it is one outcome whichever stage
# ended the game (RULES §5.6). Both ways of enumerating place and sort it under
# this tag (no number, no dice); retag_game_over then gives it the number and
# dice of the first stage that can end the game.
cdef enum:
    GAME_OVER_TAG = STOP_GAME_OVER


cdef inline uint64_t make_tag(int stop, int number, int played) noexcept nogil:
    return <uint64_t>(stop | (number << 4) | (played << 8))


cdef inline uint64_t key_k1(Key96 key, uint64_t tag) noexcept nogil:
    return <uint64_t>key.hi | (tag << 32)


cdef inline uint64_t game_over_k1() noexcept nogil:
    """The k1 of the game-ending outcome (the empty board: its key's high bits
    are 0) while it is placed and sorted, under GAME_OVER_TAG."""
    return (<uint64_t>GAME_OVER_TAG) << 32


cdef inline void retag_game_over(uint64_t* dense, Py_ssize_t n, uint64_t tag) noexcept nogil:
    """Give the game-ending outcome of ``n`` (mover key, tag) pairs, placed and
    sorted under GAME_OVER_TAG (its stage not yet known), its own
    ``tag`` (RULES §5.6: one such outcome, tagged by its first stage)."""
    cdef Py_ssize_t i
    for i in range(n):
        if dense[2 * i + 1] == game_over_k1():
            dense[2 * i + 1] = tag << 32
            return
