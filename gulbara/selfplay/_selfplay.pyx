# cython: language_level=3
"""Native self-play: whole games under the full rules, the GIL released.

A game is played on the :c:type:`GameState` of ``_state.pxd`` (the twin of
:class:`gulbara.Game`) with the transitions shared with native perft, so
its rules are the game driver's rules: the opening (RULES §6), escalating
chains and their remainders (RULES §4-5), the stuck rule and mars (RULES §7).

**Random numbers.** Game ``i`` of a run seeded ``seed`` draws from two
xoshiro256** generators (one for the dice, one for the policies' choices),
each seeded by splitmix64 from ``(seed, i, stream)`` (:func:`rng_seed`). A
die is ``below(6) + 1``; ``below(n)`` rejects the ``2**64 mod n`` lowest
outputs and takes the rest modulo ``n``, so it is exactly uniform. Dice are
drawn as :class:`gulbara.Game` draws them: two per opening pair (White's
die, then Black's, again on a tie), two per roll; a chain or a remainder
draws nothing. ``gulbara.selfplay.games.Rng`` is the same generator in Python.

**Policies** (per seat): uniformly random end, first (canonical, RULES
§3.8) end, greedy (the highest :func:`greedy_score`, the first such end on a
tie), or a caller's evaluator called once per decision on the afterstates'
features (``_encode.pxd``), the highest score chosen, the first on a tie.

**Statistics.** Each game writes one row of ``N_COLUMNS`` int32 values (the
``COL_*`` constants); a run also counts each chain's number of stages played
in full (0..6) into a histogram.
"""

from libc.stdint cimport uint8_t, int32_t, int64_t, uint32_t, uint64_t
from libc.stdlib cimport malloc, free
from cpython.exc cimport PyErr_CheckSignals

from gulbara.core._types cimport StageEnd, MAX_STAGE_DICE, STAGE_CAPACITY
from gulbara.core._movegen cimport stage_generate, Position, Ends
from gulbara.game._state cimport (GameRules, GameState, PH_OPENING, PH_ROLL, PH_STAGE, PH_OVER,
                             K_PLAIN, K_CHAIN, K_REMAINDER, begin_roll, play_end,
                             stage_dice, read_game, state_code)
from gulbara.encoding._encode cimport encode_end, BOARD_FEATURES
from gulbara.game._rng cimport Rng, splitmix64, rng_seed, rng_next, rng_below
from gulbara.eval._greedy cimport greedy_score, greedy_choose
from gulbara.game._playloop cimport (alloc_ends, Policy, Watcher, GameEnd, Trace, trace_alloc,
                                     play_game, game_end_start, trace_push, GAME_PLAYED,
                                     GAME_POLICY_FAILED)
from gulbara.net._play cimport resolve_policy

import numpy as np

from gulbara.errors import InvalidPolicyError, checked_scores

#: The name of a caller's evaluator as a seat's policy (the others: _play.NATIVE_POLICIES).
EVALUATOR = "evaluator"

# The per-game row (gulbara.selfplay.games.COLUMNS names them in this order).
cdef enum:
    COL_WINNER = 0             # 0 White, 1 Black, -1 a draw (stuck) or unfinished
    COL_POINTS = 1             # 0, 1 or 2 (mars)
    COL_ROLLS = 2              # rolls made in this run, by either side (RULES §4.5)
    COL_ROLLS_WHITE = 3
    COL_ROLLS_BLACK = 4
    COL_STARTER = 5            # who won the opening, -1 when started past it
    COL_DECISIONS = 6          # stages played (passes included)
    COL_DOUBLES = 7            # doubles rolled
    COL_CHAINS = 8             # escalating doubles (chains begun, RULES §4.2)
    COL_CHAIN_STAGES = 9       # chain stages played in full
    COL_STALLS = 10            # chains that stopped on a stage not played in full (RULES §4.4)
    COL_UNSTARTED = 11         # of them: first stage moved nothing (RULES §5.2)
    COL_REMAINDERS = 12        # remainders handed to the opponent (RULES §5.1-5.2)
    COL_REMAINDER_DICE = 13    # dice those remainders carried
    COL_STUCK = 14             # 1: ended by the stuck rule (RULES §7.2)
    COL_UNFINISHED = 15        # 1: stopped at max_rolls
    COL_CHAIN_WIN = 16         # 1: the winning stage was a chain or remainder stage
    COL_MOVES = 17             # stages that moved a checker
    N_COLUMNS = 18

cdef enum:
    HIST_BINS = 8              # chain stages played in full: 0..6 (7 unused)


# The greedy heuristic (greedy_score, and its per-end form greedy_score_end) is
# in _greedy.pxd; the generator (splitmix64 seeding, xoshiro256**) in _rng.pxd.


# ---------------------------------------------------------------------------
# One game: the one native game loop (_playloop.pxd: play_game), watched for the row
# ---------------------------------------------------------------------------

ctypedef struct Stats:
    int32_t* row               # the game's row (N_COLUMNS)
    int64_t* hist              # chain stages played in full (HIST_BINS)
    Trace* trace               # optional: (n_ends, chosen) per decision, for the tests
    bint in_chain              # a chain of the mover's is being played
    int chain_full             # its stages played in full so far


cdef void stats_rolled(void* context, const GameState* s, int a, int b) noexcept nogil:
    cdef Stats* st = <Stats*>context
    if a == b:
        st.row[COL_DOUBLES] += 1
        if s.kind == K_CHAIN:                      # an escalating double (RULES §4.2)
            st.row[COL_CHAINS] += 1
            st.in_chain = True
            st.chain_full = 0


cdef int stats_played(void* context, const GameState* before, const StageEnd* end, int n_ends,
                      int chosen, const GameState* s) noexcept nogil:
    cdef Stats* st = <Stats*>context
    cdef int32_t* row = st.row
    cdef int played = end.n_steps, k
    trace_push(st.trace, n_ends, chosen)
    row[COL_DECISIONS] += 1
    if played:
        row[COL_MOVES] += 1
    if s.phase == PH_OVER:
        if s.winner >= 0 and before.kind != K_PLAIN:
            row[COL_CHAIN_WIN] = 1
        if before.kind == K_CHAIN and st.in_chain:     # the game ended inside the chain
            if end.ends_game:                          # the winning stage counts as played in full
                st.chain_full += 1
                row[COL_CHAIN_STAGES] += 1
            st.hist[st.chain_full] += 1
            st.in_chain = False
        return 0
    if before.kind == K_CHAIN:
        if played == before.count:
            st.chain_full += 1
            row[COL_CHAIN_STAGES] += 1
            if before.high == 6:                       # the whole chain played (RULES §4.2)
                st.hist[st.chain_full] += 1
                st.in_chain = False
        else:                                          # stopped (RULES §4.4)
            row[COL_STALLS] += 1
            if before.index == 0 and played == 0:
                row[COL_UNSTARTED] += 1
            st.hist[st.chain_full] += 1
            st.in_chain = False
            if s.phase == PH_STAGE and s.kind == K_REMAINDER:
                row[COL_REMAINDERS] += 1
                row[COL_REMAINDER_DICE] += s.count
                for k in range(1, 7):
                    row[COL_REMAINDER_DICE] += s.then[k]
    return 0


cdef int play_row(const GameRules* r, GameState* s, const Policy* policies, Rng* dice, Rng* rng,
                  StageEnd* ends, int32_t max_rolls, int32_t* row, int64_t* hist,
                  Trace* trace) noexcept nogil:
    """Play ``s`` to its end with ``play_game``; write the game's row. The GAME_* status."""
    cdef Stats st
    cdef Watcher w
    cdef GameEnd end
    cdef int32_t start_white = s.rolls[0], start_black = s.rolls[1]
    cdef int k, status
    for k in range(N_COLUMNS):
        row[k] = 0
    st.row = row
    st.hist = hist
    st.trace = trace
    st.in_chain = s.phase == PH_STAGE and s.kind == K_CHAIN   # a chain begun before this run
    st.chain_full = s.index if st.in_chain else 0
    w.rolled = stats_rolled
    w.played = stats_played
    w.context = &st
    game_end_start(&end, s)
    status = play_game(r, s, policies, dice, rng, ends, max_rolls, &w, &end)
    row[COL_STARTER] = end.starter
    row[COL_UNFINISHED] = end.unfinished
    row[COL_WINNER] = -1
    if s.phase == PH_OVER:
        row[COL_WINNER] = s.winner
        row[COL_POINTS] = s.points
        row[COL_STUCK] = 1 if s.winner < 0 else 0
    row[COL_ROLLS] = end.rolls
    row[COL_ROLLS_WHITE] = s.rolls[0] - start_white
    row[COL_ROLLS_BLACK] = s.rolls[1] - start_black
    return status


# ---------------------------------------------------------------------------
# The caller's evaluator (with the GIL, once per decision)
# ---------------------------------------------------------------------------

cdef class _Evaluator:
    """Holds the caller's ``evaluate(features) -> scores`` and the features of the
    decision being scored: a fresh array per decision, so the caller may keep it."""
    cdef object fn
    cdef object array
    cdef public object error

    def __init__(self, fn):
        self.fn = fn
        self.array = None
        self.error = None

    cdef float[:, ::1] buffer(self, int n):
        # every value is written (encode_end fills a whole row)
        self.array = np.empty((n, BOARD_FEATURES), dtype=np.float32)
        return self.array

    cdef int best(self, int n) except -1:
        features, self.array = self.array, None
        return int(np.argmax(checked_scores(self.fn(features), n)))


cdef int choose_with_evaluator(const void* evaluator, const GameRules* r, const GameState* s,
                               const StageEnd* ends, int n_ends, Rng* rng) noexcept with gil:
    """A caller's evaluator as a policy (a chooser of _playloop.pxd): the afterstates'
    features scored by the caller's function, the best one; -1 when it raised."""
    cdef _Evaluator ev = <_Evaluator>evaluator
    cdef float[:, ::1] buf
    cdef int i
    if n_ends == 1:
        return 0
    try:
        buf = ev.buffer(n_ends)
        for i in range(n_ends):
            encode_end(&s.pos, s.seat, ends[i].key, &buf[i, 0])
        return ev.best(n_ends)
    except BaseException as exc:
        ev.error = exc
        return -1


# ---------------------------------------------------------------------------
# Python entry point (gulbara.selfplay.games wraps it)
# ---------------------------------------------------------------------------

COLUMN_COUNT = N_COLUMNS
HISTOGRAM_BINS = HIST_BINS


def play_games(game, seed, first_game, n_games, policies, evaluator=None,
               max_rolls=10000, trace=False, networks=(None, None)):
    """Play games ``first_game .. first_game + n_games - 1`` of a run seeded ``seed``
    from the state of ``game`` (a :class:`gulbara.Game`, not changed).

    ``policies`` is a pair of policy names (White's, Black's): ``_play.NATIVE_POLICIES``, or
    ``"evaluator"`` for the caller's ``evaluator``. Returns
    ``(rows, histogram, traces)``: an ``n_games x N_COLUMNS`` int32 array, the
    int64 histogram of chain stages played in full, and with ``trace`` one
    int32 array of ``(n_ends, chosen)`` pairs per game (else ``None``).
    ``networks`` gives each ``"net"`` seat its ``_net.Network``.
    """
    cdef GameState s0, s
    cdef GameRules r
    cdef Policy pl[2]
    cdef Rng dice, rng
    cdef StageEnd* ends
    cdef uint64_t c_seed = seed, c_first = first_game
    cdef Py_ssize_t n = n_games, g
    cdef int32_t c_max = max_rolls
    cdef int status = GAME_PLAYED
    cdef Trace tr
    cdef Trace* trp = NULL
    cdef _Evaluator ev = None
    cdef int k
    if len(policies) != 2 or len(networks) != 2:
        raise ValueError("policies and networks are pairs (White's, Black's)")
    for k in range(2):
        if policies[k] == EVALUATOR:
            if ev is None:
                if not callable(evaluator):
                    raise InvalidPolicyError("the evaluator policy needs a callable evaluator")
                ev = _Evaluator(evaluator)
            pl[k].choose = choose_with_evaluator
            pl[k].context = <const void*>ev
        else:
            resolve_policy(policies[k], networks[k], &pl[k])
    read_game(game, &s0, &r)
    rows = np.zeros((n, N_COLUMNS), dtype=np.int32)
    hist = np.zeros(HIST_BINS, dtype=np.int64)
    cdef int32_t[:, ::1] rows_v = rows
    cdef int64_t[::1] hist_v = hist
    traces = [] if trace else None
    ends = alloc_ends()
    tr.data = NULL
    tr.n = 0
    tr.capacity = 0
    try:
        if trace:
            trace_alloc(&tr, c_max)
            trp = &tr
        for g in range(n):
            with nogil:
                s = s0
                rng_seed(&dice, c_seed, c_first + <uint64_t>g, 0)
                rng_seed(&rng, c_seed, c_first + <uint64_t>g, 1)
                tr.n = 0
                status = play_row(&r, &s, pl, &dice, &rng, ends, c_max, &rows_v[g, 0],
                                  &hist_v[0], trp)
            if status != GAME_PLAYED:
                if status == GAME_POLICY_FAILED and ev is not None and ev.error is not None:
                    raise ev.error
                raise RuntimeError("a stage overflowed the self-play buffer")
            PyErr_CheckSignals()               # Ctrl-C between games (the GIL is held here)
            if trace:
                pairs = np.array(<int32_t[:tr.n]>tr.data if tr.n else [], dtype=np.int32)
                traces.append((pairs.reshape(-1, 2), state_code(&s)))
    finally:
        free(ends)
        free(tr.data)
    return rows, hist, traces


def py_rng(seed, game, stream, n, bound=0):
    """``n`` outputs of stream ``stream`` of game ``game`` (raw, or below(bound)) (tests)."""
    cdef Rng g
    rng_seed(&g, seed, game, stream)
    if bound:
        return [rng_below(&g, bound) for _ in range(n)]
    return [rng_next(&g) for _ in range(n)]

