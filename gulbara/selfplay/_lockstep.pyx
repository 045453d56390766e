# cython: language_level=3
"""Self-play with a caller's evaluator, ``K`` games in lockstep (``gulbara.selfplay.lockstep``).

Each slot plays one game at a time: game ``i`` of a run seeded ``seed`` draws
its dice from ``_rng.pxd`` stream 0 of ``(seed, i)``, exactly as native
self-play (``_selfplay.pyx``) does, and a stage with one end is played
without asking: each slot plays by the one native game loop (``_playloop.pxd``: ``play_game``)
with a policy that defers every other decision to the caller. :meth:`Lockstep.prepare` moves every slot on to its next
decision with two ends or more and writes all those ends' afterstate
features (the 196-value board block of ``_encode.pxd``, seen by the mover)
into one buffer; the caller scores them in one call and
:meth:`Lockstep.apply` plays each slot's best end (the first on a tie). So a
slot's game is the per-decision evaluator game with the same seed.

With ``trajectories`` every decision is recorded: the game, the mover, the
state features (the 220-value state block), the chosen afterstate's board
features, the number of ends and the index chosen; memory is 1,672 bytes
and a few counters per decision.
"""

from libc.stdint cimport uint8_t, int32_t, int64_t, uint64_t
from libc.stdlib cimport malloc, free
from libc.string cimport memset

from gulbara.core._types cimport StageEnd, MAX_STAGE_DICE
from gulbara.game._state cimport (GameRules, GameState, PH_OPENING, PH_ROLL, PH_OVER, play_end,
                             stage_dice, read_game)
from gulbara.game._rng cimport Rng, rng_seed
from gulbara.game._playloop cimport (alloc_ends, Policy, Watcher, GameEnd, play_game,
                                     play_chosen, game_end_start, CHOOSE_DEFER, GAME_PLAYED,
                                     GAME_DEFERRED, GAME_OVERFLOW)
from gulbara.encoding._context cimport stage_context
from gulbara.encoding._encode cimport (encode_end, encode_state, GameContext, BOARD_FEATURES,
                              STATE_FEATURES)

import numpy as np

#: Columns of the per-game results: winner (-1 a draw or unfinished), points,
#: rolls, decisions, starter (-1 when started past the opening).
RESULT_COLUMNS = ("winner", "points", "rolls", "decisions", "starter")


ctypedef struct Slot:
    GameState s
    Rng dice
    Rng rng                    # the policies' stream (unused: the caller chooses)
    int64_t game               # -1: idle
    GameEnd end                # what the one game loop counts of its game
    StageEnd* ends
    int n_ends
    Py_ssize_t row             # its first row in the features buffer


cdef int choose_deferred(const void* context, const GameRules* r, const GameState* s,
                         const StageEnd* ends, int n_ends, Rng* rng) noexcept nogil:
    """The caller's policy in the one game loop: a stage with one end is played without
    asking, any other decision deferred to the caller's evaluator (prepare, then apply)."""
    return 0 if n_ends == 1 else CHOOSE_DEFER


cdef int record_played(void* context, const GameState* before, const StageEnd* end, int n_ends,
                       int chosen, const GameState* after) noexcept with gil:
    """The watcher that records a decision's trajectory row; -1 when that failed."""
    try:
        (<Lockstep>context).record_decision(before, end, n_ends, chosen)
        return 0
    except BaseException:
        return -1


cdef void context_of(const GameRules* r, const GameState* s, GameContext* c) noexcept nogil:
    """The state block's context of a decision (``gulbara.encoding.features.encode_game``'s)."""
    cdef int k, limit = r.stuck_limit if r.stuck_limit else 100
    cdef uint8_t dice[MAX_STAGE_DICE]
    memset(c, 0, sizeof(GameContext))
    c.seat = s.seat
    c.to_act = True
    c.n_dice = stage_dice(s, dice)
    for k in range(c.n_dice):
        c.dice[dice[k] - 1] += 1
    stage_context(r, s, s.seat, c)
    c.stuck = s.stuck / <float>limit if s.stuck < limit else 1.0


cdef class Lockstep:
    """``n`` games from ``game``'s state in ``k`` slots (see the module docstring)."""
    cdef GameRules r
    cdef GameState s0
    cdef Slot* slots
    cdef int k
    cdef uint64_t seed
    cdef int64_t next_game
    cdef int64_t n_games
    cdef int32_t max_rolls
    cdef StageEnd* scratch
    cdef readonly object features
    cdef readonly object results
    cdef bint record
    cdef object traj                 # lists of arrays, joined at the end
    cdef int64_t playing             # the game whose decision is being recorded

    def __cinit__(self):
        self.slots = NULL
        self.scratch = NULL

    def __init__(self, game, uint64_t seed, int64_t n, int k, int32_t max_rolls=10000,
                 bint trajectories=False):
        cdef int i
        if n < 1 or k < 1:
            raise ValueError("n and k must be >= 1")
        read_game(game, &self.s0, &self.r)
        self.k = k if k < n else <int>n
        self.seed = seed
        self.n_games = n
        self.next_game = 0
        self.max_rolls = max_rolls
        self.record = trajectories
        self.scratch = alloc_ends()
        self.slots = <Slot*>malloc(self.k * sizeof(Slot))
        if self.slots == NULL:
            raise MemoryError("no memory for the lockstep slots")
        for i in range(self.k):
            self.slots[i].game = -1
            self.slots[i].ends = NULL
            self.slots[i].n_ends = 0
            self.slots[i].row = 0
        self.features = np.zeros((max(64, 32 * self.k), BOARD_FEATURES), dtype=np.float32)
        self.results = np.full((n, 5), -1, dtype=np.int32)
        self.traj = {"game": [], "seat": [], "state": [], "afterstate": [], "n_ends": [],
                     "chosen": []}

    def __dealloc__(self):
        cdef int i
        if self.slots != NULL:
            for i in range(self.k):
                free(self.slots[i].ends)
            free(self.slots)
        free(self.scratch)

    cdef void watcher(self, Watcher* w):
        w.rolled = NULL
        w.played = NULL
        if self.record:
            w.played = record_played
        w.context = <void*>self

    cdef int advance(self, Slot* sl) except -1:
        """Move a slot on to a decision with two ends or more (the one game loop, its
        decisions deferred); 0 when it has none left."""
        cdef int a, status
        cdef Watcher w
        cdef Policy policies[2]
        self.watcher(&w)
        policies[0].choose = policies[1].choose = choose_deferred
        policies[0].context = policies[1].context = NULL
        while True:
            if sl.game < 0:
                if self.next_game >= self.n_games:
                    return 0
                sl.game = self.next_game
                self.next_game += 1
                sl.s = self.s0
                rng_seed(&sl.dice, self.seed, <uint64_t>sl.game, 0)
                rng_seed(&sl.rng, self.seed, <uint64_t>sl.game, 1)
                game_end_start(&sl.end, &sl.s)
            self.playing = sl.game
            status = play_game(&self.r, &sl.s, policies, &sl.dice, &sl.rng, self.scratch,
                               self.max_rolls, &w, &sl.end)
            if status == GAME_PLAYED:
                self.finish(sl)
                continue
            if status == GAME_OVERFLOW:
                raise RuntimeError("a stage overflowed the lockstep buffer")
            if status != GAME_DEFERRED:
                raise MemoryError("no memory for the trajectories")
            free(sl.ends)
            sl.ends = <StageEnd*>malloc(sl.end.n_ends * sizeof(StageEnd))
            if sl.ends == NULL:
                raise MemoryError("no memory for a slot's ends")
            for a in range(sl.end.n_ends):
                sl.ends[a] = self.scratch[a]
            sl.n_ends = sl.end.n_ends
            return 1

    cdef int record_decision(self, const GameState* before, const StageEnd* end, int n_ends,
                             int chosen) except -1:
        cdef GameContext c
        cdef float[::1] state, after
        state = np.empty(STATE_FEATURES, dtype=np.float32)
        after = np.empty(BOARD_FEATURES, dtype=np.float32)
        context_of(&self.r, before, &c)
        encode_state(&before.pos, &c, &state[0])
        encode_end(&before.pos, before.seat, end.key, &after[0])
        t = self.traj
        t["game"].append(self.playing)
        t["seat"].append(before.seat)
        t["state"].append(state.base)
        t["afterstate"].append(after.base)
        t["n_ends"].append(n_ends)
        t["chosen"].append(chosen)
        return 0

    cdef void finish(self, Slot* sl):
        cdef int32_t[:, ::1] res = self.results
        cdef GameState* s = &sl.s
        res[sl.game, 0] = s.winner if s.phase == PH_OVER else -1
        res[sl.game, 1] = s.points if s.phase == PH_OVER else 0
        res[sl.game, 2] = sl.end.rolls
        res[sl.game, 3] = sl.end.decisions
        res[sl.game, 4] = sl.end.starter
        sl.game = -1

    def prepare(self):
        """Move every slot to its next decision and write their ends' features;
        the number of rows written (0 when every game is over)."""
        cdef int i, j
        cdef Py_ssize_t rows = 0
        cdef Slot* sl
        cdef float[:, ::1] out
        for i in range(self.k):
            sl = &self.slots[i]
            if not self.advance(sl):
                sl.n_ends = 0
                continue
            sl.row = rows
            rows += sl.n_ends
        if rows > self.features.shape[0]:
            self.features = np.zeros((max(rows, 2 * self.features.shape[0]), BOARD_FEATURES),
                                     dtype=np.float32)
        out = self.features
        with nogil:
            for i in range(self.k):
                sl = &self.slots[i]
                for j in range(sl.n_ends):
                    encode_end(&sl.s.pos, sl.s.seat, sl.ends[j].key, &out[sl.row + j, 0])
        return rows

    def apply(self, const double[::1] scores not None):
        """Play each waiting slot's best end by ``scores`` (one per row of :meth:`prepare`)."""
        cdef int i, j, best, status
        cdef Watcher w
        cdef Slot* sl
        cdef Py_ssize_t rows = 0
        for i in range(self.k):
            sl = &self.slots[i]
            if sl.n_ends and sl.row + sl.n_ends > rows:
                rows = sl.row + sl.n_ends
        if scores.shape[0] < rows:
            raise ValueError(f"apply takes a score for each of the {rows} rows prepare() gave, "
                             f"got {scores.shape[0]}")
        for i in range(self.k):
            sl = &self.slots[i]
            if sl.n_ends == 0:
                continue
            best = 0
            for j in range(1, sl.n_ends):
                if scores[sl.row + j] > scores[sl.row + best]:
                    best = j
            self.watcher(&w)
            self.playing = sl.game
            status = play_chosen(&self.r, &sl.s, sl.ends, sl.n_ends, best, &w, &sl.end)
            sl.n_ends = 0
            if status != GAME_PLAYED:
                raise MemoryError("no memory for the trajectories")

    def trajectories(self):
        """The recorded decisions as numpy arrays (game order within each game)."""
        t = self.traj
        out = {
            "game": np.array(t["game"], dtype=np.int64),
            "seat": np.array(t["seat"], dtype=np.int8),
            "n_ends": np.array(t["n_ends"], dtype=np.int32),
            "chosen": np.array(t["chosen"], dtype=np.int32),
            "state": (np.stack(t["state"]) if t["state"]
                      else np.zeros((0, STATE_FEATURES), np.float32)),
            "afterstate": (np.stack(t["afterstate"]) if t["afterstate"]
                           else np.zeros((0, BOARD_FEATURES), np.float32)),
        }
        order = np.argsort(out["game"], kind="stable")
        return {key: value[order] for key, value in out.items()}
