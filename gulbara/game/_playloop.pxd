# cython: language_level=3
"""The one native game loop (:c:func:`play_game`) and what it is made of: a native policy (a
chooser and its context, :c:type:`Policy`), what a caller watches of a game
(:c:type:`Watcher`), a buffer for a stage's ends, one draw at a chance node, the pending
stage's ends. Self-play (``_selfplay.pyx``), the native matches and training (``_play.pyx``,
``_train.pyx``), the lockstep games (``_lockstep.pyx``) and the vector environment
(``_vector.pyx``) all play their games with :c:func:`play_game`; the last two by a policy that
defers decisions to their caller (``CHOOSE_DEFER``). Inline C (this file is the
implementation).

The policies themselves sit with what they know: ``choose_random`` and ``choose_first`` here,
``choose_greedy`` in ``gulbara/eval/_greedy.pxd``, ``choose_net`` in ``gulbara/net/_play.pyx``,
and a caller's evaluator in ``gulbara/selfplay/_selfplay.pyx``; ``gulbara/net/_play.pyx``
resolves a policy's name to its chooser (``NATIVE_POLICIES``)."""

from libc.stdint cimport uint8_t, int32_t, uint32_t
from libc.stdlib cimport malloc

from gulbara.core._types cimport StageEnd, MAX_STAGE_DICE, STAGE_CAPACITY
from gulbara.core._movegen cimport stage_generate
from gulbara.game._state cimport (GameRules, GameState, PH_OPENING, K_CHAIN, K_REMAINDER,
                             begin_roll, next_roll, stage_dice)
from gulbara.game._rng cimport Rng, rng_below
from gulbara.game._state cimport PH_ROLL, PH_OVER, play_end

cdef enum:
    OPENING_TIE = -2


# ---------------------------------------------------------------------------
# A native policy: a chooser and its context
# ---------------------------------------------------------------------------

# The index (0 .. n_ends - 1) of the end that the side to act in ``s`` plays among the pending
# stage's ``ends``, or -1 when the policy failed (a caller's evaluator raised). ``rng`` is the
# game's stream for the policies' choices (stream 1 of _rng.pxd). A policy that draws from
# ``rng`` draws at every decision, a stage with one end included, so that a game's draws do
# not depend on the other seat's policy.
ctypedef int (*ChooseFn)(const void* context, const GameRules* r, const GameState* s,
                         const StageEnd* ends, int n_ends, Rng* rng) noexcept nogil

cdef enum:
    CHOOSE_DEFER = -2          # a chooser's answer: the caller chooses, later (play_game
                               # returns GAME_DEFERRED, the caller plays it by play_chosen)

ctypedef struct Policy:
    ChooseFn choose            # never NULL in a game
    const void* context        # what the chooser reads (a network, an evaluator), borrowed


cdef inline int choose_random(const void* context, const GameRules* r, const GameState* s,
                              const StageEnd* ends, int n_ends, Rng* rng) noexcept nogil:
    """A uniformly random end: one draw per decision, a pass's included."""
    return <int>rng_below(rng, <uint32_t>n_ends)


cdef inline int choose_first(const void* context, const GameRules* r, const GameState* s,
                             const StageEnd* ends, int n_ends, Rng* rng) noexcept nogil:
    """The first end in canonical order (RULES §3.8)."""
    return 0


# ---------------------------------------------------------------------------
# What a caller watches of a game
# ---------------------------------------------------------------------------

# After a roll is begun (not at the opening): the state and the two dice as drawn. (The state
# before the roll is ``s`` with the roller's and the game's roll counts one less: begin_roll
# sets every other field it changes.)
ctypedef void (*RolledFn)(void* context, const GameState* s, int a, int b) noexcept nogil
# After a decision: the state before it, the end played (``ends[chosen]`` of ``n_ends``), and
# the state after it. Returns 0, or -1 to stop the game as failed (out of memory).
ctypedef int (*PlayedFn)(void* context, const GameState* before, const StageEnd* end,
                         int n_ends, int chosen, const GameState* after) noexcept nogil

ctypedef struct Watcher:
    RolledFn rolled            # or NULL
    PlayedFn played            # or NULL
    void* context


# What play_game returns.
cdef enum:
    GAME_DEFERRED = 1          # stopped at a decision a chooser deferred (``GameEnd.n_ends``)
    GAME_PLAYED = 0            # over, or stopped at max_rolls (``unfinished``)
    GAME_OVERFLOW = -1         # a stage had more ends than STAGE_CAPACITY
    GAME_POLICY_FAILED = -2    # a chooser returned -1 (or an index out of range)
    GAME_WATCHER_FAILED = -3   # the watcher's played() returned -1

ctypedef struct GameEnd:
    # what play_game counts of a game, from game_end_start on (a deferred game goes on counting)
    int starter                # who won the opening in this game, -1 if started past it
    int unfinished             # 1: stopped at max_rolls
    int decisions              # decisions played (passes included)
    int32_t rolls              # rolls made by either side in this game
    int32_t start_rolls        # the state's rolls when the game started (for max_rolls)
    int n_ends                 # the deferred decision's ends (GAME_DEFERRED)
    # The dice of the game's next rolls, given instead of drawn (a rollout's quasi-random
    # dice): ``n_given`` rolls, two dice each from ``given`` (1..6), at the next chance nodes
    # that are not the opening; the dice stream is drawn from for the rolls after them.
    const uint8_t* given
    int n_given


cdef inline void game_end_start(GameEnd* out, const GameState* s) noexcept nogil:
    """Start counting a game that begins at ``s``."""
    out.starter = -1
    out.unfinished = 0
    out.decisions = 0
    out.rolls = 0
    out.start_rolls = s.game_rolls
    out.n_ends = 0
    out.given = NULL
    out.n_given = 0


cdef inline StageEnd* alloc_ends() except NULL:
    """A buffer for one stage's ends (STAGE_CAPACITY of them); the caller frees it."""
    cdef StageEnd* ends = <StageEnd*>malloc(STAGE_CAPACITY * sizeof(StageEnd))
    if ends == NULL:
        raise MemoryError("no memory for a stage's ends")
    return ends


cdef inline int chance_step(const GameRules* r, GameState* s, Rng* dice) noexcept nogil:
    """Roll the chance node ``s`` (RULES §6 at the opening): two dice from ``dice``.
    Returns the starter when it decided the opening, OPENING_TIE on a tie, else -1."""
    cdef int a = <int>rng_below(dice, 6) + 1
    cdef int b = <int>rng_below(dice, 6) + 1
    cdef int seat
    if s.phase == PH_OPENING:
        if a == b:
            return OPENING_TIE
        seat = 0 if a > b else 1
        if r.starter_rerolls:
            next_roll(s, seat)
        else:
            s.seat = seat
            begin_roll(r, s, a, b, True)
        return seat
    begin_roll(r, s, a, b, False)
    return -1


cdef inline int pending_ends(const GameState* s, StageEnd* ends, int* n_ends) noexcept nogil:
    """The ends of the pending stage of ``s`` into ``ends`` (STAGE_CAPACITY); 0, or -1 on overflow."""
    cdef uint8_t stage[MAX_STAGE_DICE]
    cdef int playable
    cdef int n_dice = stage_dice(s, stage)
    if stage_generate(&s.pos, s.seat, stage, n_dice, ends, STAGE_CAPACITY, n_ends, &playable):
        return -1
    return 0


cdef inline int play_chosen(const GameRules* r, GameState* s, const StageEnd* ends, int n_ends,
                            int i, const Watcher* w, GameEnd* out) noexcept nogil:
    """Play end ``i`` of the pending stage's ``ends`` (``n_ends``), the watcher told; the GAME_*
    status. play_game plays each decision by it, and a caller a decision it deferred."""
    cdef GameState before
    out.decisions += 1
    if w != NULL and w.played != NULL:
        before = s[0]
        play_end(r, s, &ends[i])
        out.rolls = s.game_rolls - out.start_rolls
        if w.played(w.context, &before, &ends[i], n_ends, i, s):
            return GAME_WATCHER_FAILED
    else:
        play_end(r, s, &ends[i])
        out.rolls = s.game_rolls - out.start_rolls
    return GAME_PLAYED


cdef inline int play_game(const GameRules* r, GameState* s, const Policy* policies, Rng* dice,
                          Rng* rng, StageEnd* ends, int32_t max_rolls, const Watcher* w,
                          GameEnd* out) noexcept nogil:
    """Play ``s`` on to its end (RULES §4-7), the seat ``k`` by ``policies[k]``, its dice from
    ``dice`` and its policies' draws from ``rng``, at most ``max_rolls`` rolls from
    ``out.start_rolls``; ``w`` (or NULL) watches; ``out`` counts (``game_end_start`` first).
    Returns GAME_PLAYED, GAME_DEFERRED (a chooser deferred the decision whose ``out.n_ends``
    ends are in ``ends``: play one with ``play_chosen``, then call again) or a failure."""
    cdef int n_ends, seat, i, a, b, status
    while s.phase != PH_OVER:
        if s.phase == PH_OPENING:                  # RULES §6 (a tie rolls again)
            seat = chance_step(r, s, dice)
            if seat >= 0:
                out.starter = seat
            continue
        if s.phase == PH_ROLL:                     # RULES §4.5
            if s.game_rolls - out.start_rolls >= max_rolls:
                out.unfinished = 1
                break
            if out.n_given > 0:                    # given dice (quasi-random)
                a = out.given[0]
                b = out.given[1]
                out.given += 2
                out.n_given -= 1
            else:
                a = <int>rng_below(dice, 6) + 1    # as chance_step draws them
                b = <int>rng_below(dice, 6) + 1
            begin_roll(r, s, a, b, False)
            if w != NULL and w.rolled != NULL:
                w.rolled(w.context, s, a, b)
            continue
        if pending_ends(s, ends, &n_ends):
            out.rolls = s.game_rolls - out.start_rolls
            return GAME_OVERFLOW
        i = policies[s.seat].choose(policies[s.seat].context, r, s, ends, n_ends, rng)
        if i == CHOOSE_DEFER:
            out.n_ends = n_ends
            out.rolls = s.game_rolls - out.start_rolls
            return GAME_DEFERRED
        if i < 0 or i >= n_ends:
            out.rolls = s.game_rolls - out.start_rolls
            return GAME_POLICY_FAILED
        status = play_chosen(r, s, ends, n_ends, i, w, out)
        if status != GAME_PLAYED:
            return status
    out.rolls = s.game_rolls - out.start_rolls
    return GAME_PLAYED


# ---------------------------------------------------------------------------
# A trace of a game's decisions: (number of ends, index chosen) pairs
# ---------------------------------------------------------------------------

ctypedef struct Trace:
    int32_t* data
    int capacity               # int32 values (two a decision); the rest is dropped
    int n


cdef inline int trace_alloc(Trace* t, int32_t max_rolls) except -1:
    """Room in ``t`` for one game of at most ``max_rolls`` rolls (64 decisions a roll at most,
    the rest dropped); the caller frees ``t.data``. MemoryError when there is none."""
    t.n = 0
    t.capacity = 2 * (max_rolls + 64) * 64
    t.data = <int32_t*>malloc(t.capacity * sizeof(int32_t))
    if t.data == NULL:
        t.capacity = 0
        raise MemoryError("no memory for the trace")
    return 0


cdef inline void trace_push(Trace* t, int n_ends, int chosen) noexcept nogil:
    if t != NULL and t.data != NULL and t.n + 2 <= t.capacity:
        t.data[t.n] = n_ends
        t.data[t.n + 1] = chosen
        t.n += 2
