# cython: language_level=3
"""The native policies by name, and the games the network layer plays with them.

A native policy is a chooser and its context (``gulbara/game/_playloop.pxd``).
:data:`NATIVE_POLICIES` names those the native game loop plays; ``resolve_policy`` turns a
name into its chooser, and refuses any other name (``InvalidPolicyError``), so no game can
run a policy with the wrong context. The network's chooser (``choose_net``) is here, the
others beside what they know (``_playloop.pxd``, ``gulbara/eval/_greedy.pxd``).

``play_seeded`` plays game ``g`` of a run seeded ``seed`` with the one game loop
(``play_game``): its dice from stream 0 of ``(seed, g)``, the policies' draws from stream 1
(``_rng.pxd``), recording its after-states for training (``_train.pyx``).
:func:`play_match` plays a match of two policies on those streams (the native arena, and
training's evaluation against the hand-made policies).
"""

from libc.stdint cimport int32_t, uint64_t
from libc.stdlib cimport malloc, realloc, free
from cpython.exc cimport PyErr_CheckSignals

from gulbara.core._types cimport StageEnd
from gulbara.game._state cimport GameRules, GameState, PH_OVER, read_game
from gulbara.game._rng cimport Rng, rng_seed
from gulbara.game._playloop cimport (Policy, Watcher, GameEnd, Trace, trace_alloc, play_game,
                                     alloc_ends, game_end_start, choose_random, choose_first,
                                     trace_push, GAME_PLAYED, GAME_OVERFLOW)
from gulbara.eval._greedy cimport choose_greedy
from gulbara.net._net cimport Net, Network
from gulbara.net._choose cimport net_choose

import numpy as np

from gulbara.errors import InvalidPolicyError

#: The policies the native game loop plays, by name (the ``native`` column of
#: :data:`gulbara.bots.REGISTRY` names one of them; self-play adds a caller's evaluator).
NATIVE_POLICIES = ("random", "first", "greedy", "net")


cdef int choose_net(const void* net, const GameRules* r, const GameState* s,
                    const StageEnd* ends, int n_ends, Rng* rng) noexcept nogil:
    """The end the network values best for the side to act (``net_choose``)."""
    if n_ends == 1:
        return 0
    return net_choose(<const Net*>net, r, s, ends, n_ends, NULL)


cdef int resolve_policy(object name, object network, Policy* out) except -1:
    cdef Network net
    if not isinstance(name, str):
        raise TypeError(f"a native policy is named by a str, not {type(name).__name__}")
    out.context = NULL
    if name == "random":
        out.choose = choose_random
    elif name == "first":
        out.choose = choose_first
    elif name == "greedy":
        out.choose = choose_greedy
    elif name == "net":
        if not isinstance(network, Network):
            raise InvalidPolicyError("the native 'net' policy needs its network")
        net = <Network>network
        out.choose = choose_net
        out.context = <const void*>&net.net
    else:
        raise InvalidPolicyError(f"unknown native policy {name!r} (the native policies are "
                                 f"{', '.join(NATIVE_POLICIES)})")
    return 0


# ---------------------------------------------------------------------------
# One game of a seeded run, recorded
# ---------------------------------------------------------------------------

cdef int record_push(Record* rec, const GameState* s) noexcept nogil:
    cdef int cap
    cdef GameState* grown
    if rec.n == rec.capacity:
        cap = 2 * rec.capacity if rec.capacity else 256
        grown = <GameState*>realloc(rec.states, cap * sizeof(GameState))
        if grown == NULL:
            rec.failed = 1
            return -1
        rec.states = grown
        rec.capacity = cap
    rec.states[rec.n] = s[0]
    rec.n += 1
    return 0


ctypedef struct Watching:
    Record* rec                # the after-states that do not end the game, or NULL
    Trace* trace               # or NULL


cdef int watch_played(void* context, const GameState* before, const StageEnd* end, int n_ends,
                      int chosen, const GameState* after) noexcept nogil:
    cdef Watching* w = <Watching*>context
    trace_push(w.trace, n_ends, chosen)
    if w.rec != NULL and after.phase != PH_OVER:
        return record_push(w.rec, after)
    return 0


cdef int play_seeded(const GameRules* r, const GameState* s0, const Policy* policies,
                     uint64_t seed, uint64_t game, StageEnd* ends, int32_t max_rolls,
                     Record* rec, Outcome* res, Trace* trace) noexcept nogil:
    """Game ``game`` of the run seeded ``seed`` from ``s0`` by ``policies``; 0, or -1 on a
    failure (a stage's overflow, no memory for the record)."""
    cdef Rng dice, rng
    cdef GameState s = s0[0]
    cdef Watching watching
    cdef Watcher w
    cdef GameEnd end
    cdef int status
    watching.rec = rec
    watching.trace = trace
    w.rolled = NULL
    w.played = NULL
    if rec != NULL or trace != NULL:
        w.played = watch_played
    w.context = &watching
    rng_seed(&dice, seed, game, 0)
    rng_seed(&rng, seed, game, 1)
    game_end_start(&end, &s)
    status = play_game(r, &s, policies, &dice, &rng, ends, max_rolls, &w, &end)
    res.winner = s.winner if s.phase == PH_OVER else -1
    res.points = s.points if s.phase == PH_OVER else 0
    res.rolls = end.rolls
    res.decisions = end.decisions
    res.starter = end.starter
    res.unfinished = end.unfinished
    return 0 if status == GAME_PLAYED else -1


# ---------------------------------------------------------------------------
# A match of two native policies
# ---------------------------------------------------------------------------

def play_match(policy_a, policy_b, game, uint64_t seed, uint64_t first, Py_ssize_t n,
               bint duplicate, int32_t max_rolls=10000, bint trace=False, network_a=None,
               network_b=None):
    """Games of A against B from ``game``'s state (a :class:`gulbara.Game`).

    ``policy_a`` and ``policy_b`` are names of :data:`NATIVE_POLICIES`; ``network_a`` and
    ``network_b`` the ``_net.Network`` of a ``"net"`` policy. Game ``g``: A plays White when
    ``g`` is even; the dice are game ``first + g`` of the run seeded ``seed``, or with
    ``duplicate`` game ``first + g // 2`` (each pair on the same dice, seats swapped).
    Returns an ``n x 6`` int32 array (A's seat, winner, points, rolls, decisions, starter)
    and, with ``trace``, one int32 array of (n_ends, chosen) pairs per game.
    """
    cdef GameRules r
    cdef GameState s0
    cdef Policy a, b
    cdef Policy seats[2]
    cdef Outcome res
    cdef StageEnd* ends
    cdef int failed = 0, a_seat
    cdef Trace tr
    cdef Trace* trp = NULL
    cdef Py_ssize_t g
    cdef uint64_t dice_game
    resolve_policy(policy_a, network_a, &a)
    resolve_policy(policy_b, network_b, &b)
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    read_game(game, &s0, &r)
    rows = np.zeros((n, 6), dtype=np.int32)
    cdef int32_t[:, ::1] rv = rows
    traces = [] if trace else None
    tr.data = NULL
    tr.n = 0
    tr.capacity = 0
    ends = alloc_ends()
    try:
        if trace:
            trace_alloc(&tr, max_rolls)
            trp = &tr
        for g in range(n):
            PyErr_CheckSignals()                        # Ctrl-C between games
            a_seat = <int>(g % 2)
            seats[a_seat] = a
            seats[1 - a_seat] = b
            dice_game = first + <uint64_t>(g // 2 if duplicate else g)
            with nogil:
                tr.n = 0
                failed = play_seeded(&r, &s0, seats, seed, dice_game, ends, max_rolls, NULL,
                                     &res, trp)
            if failed:
                raise RuntimeError("a stage overflowed the match buffer")
            rv[g, 0] = a_seat
            put_result(&rv[g, 0], &res)
            rv[g, 4] = res.decisions
            rv[g, 5] = res.starter
            if trace:
                pairs = np.array(<int32_t[:tr.n]>tr.data if tr.n else [], dtype=np.int32)
                traces.append(pairs.reshape(-1, 2))
    finally:
        free(ends)
        free(tr.data)
    return rows, traces
