# cython: language_level=3
"""The native policies by name, and the games the network layer plays with them (``_play.pyx``):
one game of a seeded run (``play_seeded``, what training learns from) and its record."""

from libc.stdint cimport int32_t, int64_t, uint64_t

from gulbara.core._types cimport StageEnd
from gulbara.game._state cimport GameRules, GameState
from gulbara.game._playloop cimport Policy, Trace
from gulbara.game._rng cimport Rng
from gulbara.net._net cimport Net


ctypedef struct Record:
    # the after-states of one game, in order (training)
    GameState* states
    int n
    int capacity
    int failed

ctypedef struct Outcome:
    int winner                 # 0, 1, -1 a draw or unfinished
    int points
    int rolls
    int decisions
    int starter
    int unfinished


ctypedef fused result_int:
    int32_t
    int64_t


cdef inline void put_result(result_int* row, const Outcome* res) noexcept nogil:
    """A game's winner, points and rolls into columns 1..3 of ``row`` (the rows of
    train_slots and play_match)."""
    row[1] = res.winner
    row[2] = res.points
    row[3] = res.rolls


# The network's policy (a chooser of _playloop.pxd; its context is a ``const Net*``).
cdef int choose_net(const void* net, const GameRules* r, const GameState* s,
                    const StageEnd* ends, int n_ends, Rng* rng) noexcept nogil

# The native policy ``name`` (one of NATIVE_POLICIES) into ``out``; ``network`` (a Network) is
# the "net" policy's and must outlive the games. InvalidPolicyError for any other name.
cdef int resolve_policy(object name, object network, Policy* out) except -1

cdef int play_seeded(const GameRules* r, const GameState* s0, const Policy* policies,
                     uint64_t seed, uint64_t game, StageEnd* ends, int32_t max_rolls,
                     Record* rec, Outcome* res, Trace* trace) noexcept nogil
