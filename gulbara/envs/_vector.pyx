# cython: language_level=3
"""N games stepped in C, one step action at a time: the core of the native vector env.

Each slot holds one game (the :c:type:`GameState` of ``_state.pxd``) in which one seat is the
agent. The slot's game is played by the one native game loop (``_playloop.pxd``:
``play_game``): the dice are rolled there, the other seat plays by its native policy
(``gulbara/net/_play.pyx``: ``resolve_policy``, any of ``NATIVE_POLICIES``), and the agent's
policy defers every decision of its own, so a call to :meth:`VecGames.step` runs every slot
from one agent step to the next without Python. Slot ``i``'s ``k``-th episode after
``reset(seed)`` is game ``i + k * n`` of the run seeded ``seed``: its dice are stream 0 of
``_rng.pxd`` and the opponent's draws stream 1, as in native self-play, so an episode can be
replayed through :class:`gulbara.Game` (``tests/test_vector_env.py`` does).

The actions, mask and observations are those of ``gulbara.envs.gymnasium``
(``(from - 1) * 6 + (die - 1)``, ``144`` to pass; the prefix-closed mask of
``docs/user/envs.md``; the 220 state features, mid-stage aware), checked against the Python
step driver in ``tests/test_vector_env.py``.

The mask of a step ``(from, die)`` taken from the position after the steps
so far, with ``need`` dice still to play (the stage's playable dice minus the
steps taken, RULES §3.4): the step is legal on the board (RULES §2), and then

* it bears off the mover's last checker: legal when an end of the stage does
  (the game-ending step counts as all the dice, RULES §3.3);
* ``need`` is 1: legal, except for the first step of two different dice of
  which only one can be played, where the end must be one of the stage's
  (the larger-die rule, RULES §3.5);
* else legal when ``need - 1`` of the remaining dice can still be played after it.

Memory: one slot (about 500 bytes) per game and one stage buffer of 17,600
ends shared by all.
"""

from libc.stdint cimport uint8_t, int8_t, int32_t, int64_t, uint64_t
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy, memset

from gulbara.eval._greedy cimport greedy_score
from gulbara.game._rng cimport Rng, rng_seed
from gulbara.core._types cimport Pos, StageEnd, Key96, MAX_STAGE_DICE, STAGE_CAPACITY
from gulbara.core._keys cimport pos_mover_key
from gulbara.core._movegen cimport stage_generate, step_is_legal, step_apply, Position
from gulbara.game._state cimport (GameRules, GameState, PH_OPENING, PH_STAGE, PH_OVER,
                                  play_end, stage_dice, read_rules, read_game)
from gulbara.game._playloop cimport (alloc_ends, Policy, GameEnd, play_game, game_end_start,
                                     CHOOSE_DEFER, GAME_PLAYED, GAME_DEFERRED, GAME_OVERFLOW)
from gulbara.encoding._encode cimport encode_state, GameContext, STATE_FEATURES
from gulbara.encoding._context cimport stage_context
from gulbara.net._play cimport resolve_policy

cdef enum:
    N_ACTIONS = 145
    PASS_ACTION = 144
    MAX_KEYS = 48              # ends of a one-die play of two different dice: <= 2 x 24

cdef enum:
    NO_ROLL_LIMIT = 0x7FFFFFFF     # a game ends by the rules (RULES §7), never by a count


ctypedef struct Slot:
    GameState s                # the game, at the start of the current stage
    Pos cur                    # the position after the steps taken
    uint8_t left[MAX_STAGE_DICE]   # the dice not used yet
    int n_left
    int taken
    int playable               # dice every legal play of the stage uses (RULES §3.4)
    bint game_end              # some end of the stage ends the game
    int n_keys                 # the stage's end keys, for the larger-die rule; -1: not needed
    Key96 keys[MAX_KEYS]
    int8_t mask[N_ACTIONS]
    uint64_t game              # the game of the run (seed) this slot plays
    Rng dice                   # its dice: stream 0 of (seed, game)
    Rng rng                    # the opponent's draws: stream 1
    GameEnd end                # what the one game loop counts of the game
    bint done                  # the episode ended at the last step: reset at the next


cdef int choose_agent(const void* context, const GameRules* r, const GameState* s,
                      const StageEnd* ends, int n_ends, Rng* rng) noexcept nogil:
    """The agent's policy in the one game loop: every decision is the agent's, step by step."""
    return CHOOSE_DEFER


cdef inline bint same_key(Key96 a, Key96 b) noexcept nogil:
    return a.lo == b.lo and a.hi == b.hi


cdef int failed(int status) except -1:
    """A game loop's failure as an exception."""
    if status == GAME_OVERFLOW or status == -1:
        raise RuntimeError("a stage overflowed the ends buffer")
    raise RuntimeError(f"the opponent's policy failed (status {status})")


cdef class VecGames:
    """``n`` games with the agent in ``seat`` against the native policy ``opponent`` (one of
    ``gulbara.net._play.NATIVE_POLICIES``; ``network``, a ``_net.Network``, for ``"net"``)."""

    cdef Slot* slots
    cdef StageEnd* ends
    cdef int n
    cdef int seat
    cdef Policy policies[2]
    cdef readonly str opponent
    cdef object network              # the "net" opponent's, kept alive for its policy
    cdef object py_rules             # the Rules given (for copy)
    cdef uint64_t seed
    cdef GameRules rules
    cdef float stuck_limit
    cdef Pos start

    def __cinit__(self, int n, rules, int seat=0, str opponent="random", network=None):
        cdef int i
        if n < 1:
            raise ValueError(f"num_envs must be >= 1, got {n}")
        if seat not in (0, 1):
            raise ValueError(f"seat must be 0 or 1, got {seat}")
        resolve_policy(opponent, network, &self.policies[1 - seat])
        self.policies[seat].choose = choose_agent
        self.policies[seat].context = NULL
        self.opponent = opponent
        self.network = network
        from gulbara.core._movegen import START_CODE
        cdef Position first = Position.from_code(START_CODE)
        self.start = first.pos
        read_rules(rules, &self.rules)
        self.py_rules = rules
        self.stuck_limit = float(rules.stuck_limit or 100)
        self.n = n
        self.seat = seat
        self.seed = 0
        self.ends = alloc_ends()
        self.slots = <Slot*>malloc(n * sizeof(Slot))
        if self.slots == NULL:
            raise MemoryError("no memory for the environments' slots")
        memset(self.slots, 0, n * sizeof(Slot))
        for i in range(n):                       # game i of the run seeded 0 until a reset
            self.slots[i].game = i
            self.seed_slot(&self.slots[i])

    def __dealloc__(self):
        free(self.slots)
        free(self.ends)

    def copy(self):
        """An independent copy: the same games at the same step, each slot's dice and the
        opponent's draws included (a slot is a plain struct: copied whole), the same network."""
        cdef VecGames other = VecGames(self.n, self.py_rules, self.seat, self.opponent,
                                       self.network)
        memcpy(other.slots, self.slots, self.n * sizeof(Slot))
        other.seed = self.seed
        return other

    def __reduce__(self):
        raise TypeError("the native vector env's games cannot be pickled (copy.deepcopy "
                        "copies them)")

    @property
    def num_envs(self):
        return self.n

    # -- the game loop (no GIL) -------------------------------------------------

    cdef int generate(self, const Pos* p, int seat, const uint8_t* dice, int n_dice,
                      int* n_ends, int* playable) noexcept nogil:
        return stage_generate(p, seat, dice, n_dice, self.ends, STAGE_CAPACITY, n_ends,
                              playable)

    cdef int begin_stage(self, Slot* t) noexcept nogil:
        """The agent's stage begins: its playable dice, what the mask needs, the mask."""
        cdef int n_dice, n_ends, playable, i
        n_dice = stage_dice(&t.s, t.left)
        if self.generate(&t.s.pos, t.s.seat, t.left, n_dice, &n_ends, &playable):
            return -1
        t.n_left = n_dice
        t.taken = 0
        t.cur = t.s.pos
        t.playable = playable
        t.game_end = False
        for i in range(n_ends):
            if self.ends[i].ends_game:
                t.game_end = True
        t.n_keys = -1
        if n_dice == 2 and t.left[0] != t.left[1] and playable == 1:
            if n_ends > MAX_KEYS:
                return -1
            t.n_keys = n_ends
            for i in range(n_ends):
                t.keys[i] = self.ends[i].key
        return self.fill_mask(t)

    cdef bint can_play(self, const Pos* p, int seat, const uint8_t* dice, int n_dice,
                       int need) noexcept nogil:
        """Whether ``need`` of ``dice`` (equal ones, or one die) can still be played from ``p``."""
        cdef int f, n_ends, playable
        if need == 1:
            for f in range(1, 25):
                if step_is_legal(p, seat, f, dice[0]):
                    return True
            return False
        if self.generate(p, seat, dice, n_dice, &n_ends, &playable):
            return False
        return playable >= need

    cdef int fill_mask(self, Slot* t) noexcept nogil:
        cdef int seat = t.s.seat, need = t.playable - t.taken, f, k, j, d, m
        cdef uint8_t rest[MAX_STAGE_DICE]
        cdef uint8_t tried[7]
        cdef Pos after
        cdef Key96 key
        cdef bint ok
        memset(t.mask, 0, N_ACTIONS)
        if t.playable == 0:
            t.mask[PASS_ACTION] = 1
            return 0
        memset(tried, 0, 7)
        for k in range(t.n_left):
            d = t.left[k]
            if tried[d]:
                continue
            tried[d] = 1
            m = 0
            for j in range(t.n_left):          # the dice left after this one
                if j != k:
                    rest[m] = t.left[j]
                    m += 1
            for f in range(1, 25):
                if not step_is_legal(&t.cur, seat, f, d):
                    continue
                after = t.cur
                step_apply(&after, seat, f, d)
                if after.off[seat] == 15:      # RULES §3.3
                    ok = t.game_end
                elif need == 1:
                    ok = True
                    if t.taken == 0 and t.n_keys >= 0:      # RULES §3.5
                        ok = False
                        key = pos_mover_key(&after, seat)
                        for j in range(t.n_keys):
                            if same_key(key, t.keys[j]):
                                ok = True
                                break
                else:
                    ok = self.can_play(&after, seat, rest, m, need - 1)
                if ok:
                    t.mask[(f - 1) * 6 + d - 1] = 1
        return 0

    cdef int advance(self, Slot* t) noexcept nogil:
        """Play on (the one game loop: the dice, the opponent's stages) until the agent has a
        stage, or the game is over; 0, or a GAME_* failure."""
        cdef int status = play_game(&self.rules, &t.s, self.policies, &t.dice, &t.rng,
                                    self.ends, NO_ROLL_LIMIT, NULL, &t.end)
        if status == GAME_DEFERRED:
            return self.begin_stage(t)
        return status                            # GAME_PLAYED (0): over, else a failure

    cdef void seed_slot(self, Slot* t) noexcept nogil:
        """The dice and draws of game ``t.game`` of the run seeded ``self.seed``."""
        rng_seed(&t.dice, self.seed, t.game, 0)
        rng_seed(&t.rng, self.seed, t.game, 1)

    cdef int new_game(self, Slot* t) noexcept nogil:
        memset(&t.s, 0, sizeof(GameState))
        t.s.pos = self.start
        t.s.phase = PH_OPENING
        t.s.winner = -1
        t.done = False
        self.seed_slot(t)
        game_end_start(&t.end, &t.s)
        return self.advance(t)

    cdef void observe(self, Slot* t, float* out) noexcept nogil:
        cdef GameContext c
        cdef GameState* s = &t.s
        cdef int k
        memset(&c, 0, sizeof(GameContext))
        c.seat = self.seat
        c.stuck = s.stuck / self.stuck_limit if s.stuck < self.stuck_limit else 1.0
        if s.phase == PH_OVER:
            c.game_over = True
            encode_state(&s.pos, &c, out)
            return
        c.to_act = True
        for k in range(t.n_left):
            c.dice[t.left[k] - 1] += 1
        c.n_dice = t.n_left
        stage_context(&self.rules, s, self.seat, &c)
        encode_state(&t.cur, &c, out)

    cdef double reward(self, Slot* t) noexcept nogil:
        if t.s.winner < 0:
            return 0.0
        return t.s.points if t.s.winner == self.seat else -<double>t.s.points

    cdef int step_one(self, Slot* t, int64_t action, double* reward, bint* illegal) noexcept nogil:
        """One agent step in slot ``t``: 1 when the episode ended, 0 when it goes on, else a
        GAME_* failure (below 0); its reward and whether the action was illegal."""
        cdef StageEnd e
        cdef int f, d, k, status, seat = t.s.seat
        illegal[0] = False
        reward[0] = 0.0
        if action < 0 or action >= N_ACTIONS or not t.mask[action]:
            illegal[0] = True
            reward[0] = -1.0
            return 1
        if action == PASS_ACTION:
            e.key = pos_mover_key(&t.s.pos, seat)
            e.n_steps = 0
            e.ends_game = False
        else:
            f = <int>(action // 6) + 1
            d = <int>(action % 6) + 1
            step_apply(&t.cur, seat, f, d)
            for k in range(t.n_left):
                if t.left[k] == d:
                    t.left[k] = t.left[t.n_left - 1]
                    t.n_left -= 1
                    break
            t.taken += 1
            if t.taken < t.playable and t.cur.off[seat] < 15:
                return self.fill_mask(t)               # the stage goes on
            e.key = pos_mover_key(&t.cur, seat)
            e.n_steps = t.taken
            e.ends_game = t.cur.off[seat] == 15
        play_end(&self.rules, &t.s, &e)
        status = self.advance(t)
        if status != GAME_PLAYED:
            return status
        if t.s.phase == PH_OVER:
            reward[0] = self.reward(t)
            return 1
        return 0

    # -- Python entry points ----------------------------------------------------

    def reset(self, uint64_t seed, float[:, ::1] obs, int8_t[:, ::1] mask):
        """New games in every slot: slot ``i`` plays game ``i`` of the run seeded ``seed``."""
        cdef int i, status = 0
        cdef Slot* t
        self.check(obs, mask)
        self.seed = seed
        with nogil:
            for i in range(self.n):
                t = &self.slots[i]
                t.game = i
                status = self.new_game(t)
                if status != GAME_PLAYED:
                    break
                self.emit(t, &obs[i, 0], &mask[i, 0])
        if status != GAME_PLAYED:
            failed(status)

    cdef void emit(self, Slot* t, float* obs, int8_t* mask) noexcept nogil:
        """Slot ``t``'s observation and action mask, into ``obs`` and ``mask``."""
        self.observe(t, obs)
        self.write_mask(t, mask)

    cdef Slot* slot(self, int i) except NULL:
        """Slot ``i``, an IndexError if there is none."""
        if not 0 <= i < self.n:
            raise IndexError(f"slot {i} out of range for {self.n} slots")
        return &self.slots[i]

    cdef void write_mask(self, Slot* t, int8_t* out) noexcept nogil:
        cdef int k
        if t.s.phase == PH_OVER or t.done:
            memset(out, 0, N_ACTIONS)
            out[PASS_ACTION] = 1                       # the terminal mask (docs/user/envs.md)
            return
        for k in range(N_ACTIONS):
            out[k] = t.mask[k]

    cdef int check(self, float[:, ::1] obs, int8_t[:, ::1] mask) except -1:
        if obs.shape[0] != self.n or obs.shape[1] != STATE_FEATURES:
            raise ValueError(f"obs must be float32 ({self.n}, {STATE_FEATURES})")
        if mask.shape[0] != self.n or mask.shape[1] != N_ACTIONS:
            raise ValueError(f"mask must be int8 ({self.n}, {N_ACTIONS})")
        return 0

    def step(self, const int64_t[::1] actions, float[:, ::1] obs, int8_t[:, ::1] mask,
             double[::1] rewards, uint8_t[::1] terminated, uint8_t[::1] illegal):
        """One step in every slot (Gymnasium 1.x next-step autoreset: a slot whose episode
        ended at the last step starts a new game now, its action ignored: slot ``i``'s next
        game of the run is ``n`` after its last)."""
        cdef int i, r, status = 0
        cdef Slot* t
        cdef double reward
        cdef bint wrong
        self.check(obs, mask)
        if actions.shape[0] != self.n or rewards.shape[0] != self.n or \
                terminated.shape[0] != self.n or illegal.shape[0] != self.n:
            raise ValueError(f"actions, rewards, terminated and illegal need {self.n} entries")
        with nogil:
            for i in range(self.n):
                t = &self.slots[i]
                if t.done:
                    t.game += <uint64_t>self.n
                    status = self.new_game(t)
                    if status != GAME_PLAYED:
                        break
                    rewards[i] = 0.0
                    terminated[i] = 0
                    illegal[i] = 0
                else:
                    r = self.step_one(t, actions[i], &reward, &wrong)
                    if r < 0:
                        status = r
                        break
                    rewards[i] = reward
                    terminated[i] = r
                    illegal[i] = wrong
                    t.done = r == 1
                self.emit(t, &obs[i, 0], &mask[i, 0])
        if status != GAME_PLAYED:
            failed(status)

    def load(self, int i, game):
        """Put slot ``i`` in the state of ``game`` (a :class:`gulbara.Game` at a stage of the
        agent, or over), for tests; the slot's dice go on from where they were."""
        cdef Slot* t = self.slot(i)
        cdef GameRules r
        read_game(game, &t.s, &r)
        t.done = False
        game_end_start(&t.end, &t.s)
        if t.s.phase == PH_STAGE and t.s.seat == self.seat:
            if self.begin_stage(t):
                failed(GAME_OVERFLOW)
        elif t.s.phase != PH_OVER:
            raise ValueError("load a game at a stage of the agent, or over")

    def slot_arrays(self, int i):
        """The float32 observation and int8 mask of slot ``i`` (copies)."""
        import numpy as np
        cdef Slot* t = self.slot(i)
        obs = np.zeros(STATE_FEATURES, dtype=np.float32)
        mask = np.zeros(N_ACTIONS, dtype=np.int8)
        cdef float[::1] obs_view = obs
        cdef int8_t[::1] mask_view = mask
        self.emit(t, &obs_view[0], &mask_view[0])
        return obs, mask

    def slot_mask(self, int i):
        """The int8 mask of slot ``i`` (a copy)."""
        return self.slot_arrays(i)[1]

    def slot_observation(self, int i):
        """The float32 observation of slot ``i`` (a copy)."""
        return self.slot_arrays(i)[0]

    def slot_step(self, int i, int64_t action):
        """One agent step in slot ``i`` alone: ``(reward, ended, illegal)``."""
        cdef double reward
        cdef bint wrong
        cdef Slot* t = self.slot(i)
        cdef int r = self.step_one(t, action, &reward, &wrong)
        if r < 0:
            failed(r)
        t.done = r == 1
        return reward, r == 1, bool(wrong)

    def slot_taken(self, int i):
        """Steps taken in slot ``i``'s current stage."""
        return self.slot(i).taken

    def slot_game(self, int i):
        """The game of the run (seeded by :meth:`reset`) that slot ``i`` plays."""
        return self.slot(i).game


def greedy_score_native(position, int seat, bint ends_game=False):
    """The native greedy score of a core ``Position`` (for the cross-check with Python)."""
    cdef Position py = position
    return greedy_score(&py.pos, seat, ends_game)
