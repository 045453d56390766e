# cython: language_level=3
"""The network's stage chooser: the value of every end of a stage, and the best.

**A stage's ends in one pass** (``net_choose``): the first layer's sums over
the stage start's per-point inputs are made once per side to act after the
end (``StageLayer``), with the inputs from ``IN_OFF`` on of the first end
valued in that view; each end then adds only the rows of what differs: the
mover's points it changed (from the packed counts' difference) and the inputs
from ``IN_OFF`` on that differ from that first end's (usually a handful).
What follows an end (the side to act, its pending dice, a finished game) is
found once per number of steps (``EndKind``): no after-state is copied or
played per end. The ends go 16 at a time through each step in turn (inputs,
sums, the sums' sigmoids in one vector pass, outputs, their sigmoids).

**Values.** A stage's end is valued by the state it leads to: the game's
result when it ends the game (+points for the mover), else the network's
equity ``2 P(win) - 1 + P(win mars) - P(lose mars)`` for whoever acts next
(``2 P(win) - 1`` under rules without the mars, RULES §8: a game is then worth
1), negated when that is the opponent. The state after an end carries what
follows in the turn: the rest of the mover's own chain (the mover acts
again, its pending dice are inputs), a remainder handed to the opponent
(the opponent acts, the remainder's dice are its pending inputs), or the
opponent's roll. The network learns those states' values in training, so no
end is valued as if the opponent rolled next when it does not.

``net_choose`` is the network's policy in the native game loop (``_play.pyx``) and the
move of every search (``_search.pyx``). The inputs are ``_inputs.pxd``'s and the
arithmetic ``_forward.pxd``'s, compiled in; the tables of the inputs' changes are this
module's. :func:`stage_values` gives a game's values, :func:`time_values` is the
benchmark's loop.
"""

from libc.stdint cimport int8_t, int64_t, uint32_t, uint64_t
from libc.stdlib cimport malloc, free

from gulbara.core._bits cimport bit_length, popcount
from gulbara.core._masks cimport rotate12
from gulbara.core._types cimport StageEnd, Key96, MAX_STAGE_DICE, STAGE_CAPACITY
from gulbara.core._keys cimport pos_mover_key
from gulbara.game._state cimport (GameRules, GameState, PH_STAGE, PH_OVER, play_end_placed,
                                  read_game)
from gulbara.game._playloop cimport alloc_ends, pending_ends
from gulbara.eval._greedy cimport longest_run
from gulbara.net._inputs cimport (IN_OWN, IN_OPP, IN_OFF, IN_PIPS, IN_BLOCKS, IN_ESCALATES,
                                  N_REST, N_HEAD, N_TAIL, BY_15, BY_360, BY_6, RATIO, Sparse,
                                  PointChange, gulbara_point_changes, put, encode_points,
                                  pip_count, blocks, rest_head, rest_tail, put_point_change)
from gulbara.net._net cimport MAX_HIDDEN, N_OUT, equity, result_value, follow_simd_level
from gulbara.net._forward cimport (gulbara_hidden, gulbara_outputs, gulbara_sigmoid_n,
                                   simd_cell)

import numpy as np

follow_simd_level(&simd_cell, __name__)


# ---------------------------------------------------------------------------
# What the ends of a stage share
# ---------------------------------------------------------------------------

ctypedef struct EndKind:
    # what follows the stage's ends of one number of steps that end the game or not:
    # play_end_placed reads of an end nothing else, and of the position only the
    # opponent's borne-off checkers (RULES §7.1), which the stage does not change
    bint ready
    bint over                  # the game is over: worth ``value`` to the mover
    float value
    int view                   # else the side to act next
    float tail[N_TAIL]         # and its inputs from IN_ESCALATES on
    bint diffed                # whether ``diff`` is known:
    int n_diff                 # the inputs from IN_ESCALATES on that differ from the
    int diff_idx[N_TAIL]       # first end valued in the same view (StageLayer.rest),
    float diff_val[N_TAIL]     # in order, and by how much

ctypedef struct StageLayer:
    # what every end of one stage shares: the start and, per side's view, the first
    # layer's sums over the start's per-point inputs and over the inputs from IN_OFF on
    # (``rest``) of the first end valued in that view
    int mover
    int pips[2]                # the start's pip counts, borne-off checkers and
    int off[2]                 # occupied points by seat
    uint32_t occ[2]
    uint64_t words[2]          # the mover's checkers, packed (_types.pxd: Key96)
    bint ready[2]
    float rest[2][N_REST]
    float pre[2][MAX_HIDDEN]
    EndKind kinds[MAX_STAGE_DICE + 1][2]
    uint32_t ahead_mask        # the points in front of the opponent's rearmost checker
    uint32_t behind_known      # bit b: ``behind[b]`` is known:
    float behind[25][2]        # blocks(opponent, mover) when the mover's rearmost is on b
    # per view, what gives the first end's inputs from IN_OFF on that the end changes:
    int first_off[2]           # the mover's borne-off checkers and pips,
    int first_pips[2]
    uint32_t first_ahead[2]    # its points in front of the opponent's rearmost checker,
    int first_back[2]          # its rearmost point

cdef enum:
    CHOOSE_CHUNK = 16          # ends valued together, each step for all of them in turn
    END_CHANGES = 112          # room for an end's changed inputs: 24 points x 4 (a point's
                               # four written at once), 6 from IN_OFF on and N_TAIL

ctypedef struct Changes:
    # the inputs of one end that differ from its stage's start (StageLayer.pre)
    int n
    int idx[END_CHANGES]
    float val[END_CHANGES]


# POINT_CHANGE[c0][c1]: put_point_change's entries for a point going from c0 to c1
cdef PointChange POINT_CHANGE[16][16]


cdef void fill_point_changes() noexcept nogil:
    cdef Sparse x
    cdef int c0, c1, u
    for c0 in range(16):
        for c1 in range(16):
            x.n = 0
            put_point_change(&x, 0, c0, c1)
            POINT_CHANGE[c0][c1].n = x.n
            for u in range(x.n):
                POINT_CHANGE[c0][c1].unit[u] = x.idx[u]
                POINT_CHANGE[c0][c1].val[u] = x.val[u]


fill_point_changes()


# POINT_BASE[v][q]: the first of the four inputs of the mover's own point q in the
# view of the mover (v = 0) or of its opponent (v = 1, RULES §1.3)
cdef int POINT_BASE[2][25]


cdef void fill_point_bases() noexcept nogil:
    cdef int q
    for q in range(1, 25):
        POINT_BASE[0][q] = IN_OWN + 4 * (q - 1)
        POINT_BASE[1][q] = IN_OPP + 4 * ((q + 11) % 24)


fill_point_bases()


cdef void stage_layer(const GameState* s, StageLayer* st) noexcept nogil:
    """Start ``st`` for the ends of the stage of ``s``."""
    cdef Key96 key = pos_mover_key(&s.pos, s.seat)
    cdef int k, seat, back
    st.mover = s.seat
    for seat in range(2):
        st.pips[seat] = pip_count(&s.pos, seat)
        st.off[seat] = s.pos.off[seat]
        st.occ[seat] = s.pos.occ[seat]
        st.ready[seat] = False
    st.words[0] = key.lo
    st.words[1] = key.hi
    st.behind_known = 0
    back = bit_length(s.pos.occ[1 - s.seat])
    st.ahead_mask = ((<uint32_t>1 << (back - 1)) - 1) if back > 0 else 0
    for k in range(MAX_STAGE_DICE + 1):
        st.kinds[k][0].ready = st.kinds[k][1].ready = False


cdef EndKind* end_kind(const GameRules* r, const GameState* s, StageLayer* st,
                       const StageEnd* e) noexcept nogil:
    """What follows end ``e`` of the stage of ``s``, found once per kind of end."""
    cdef EndKind* kind = &st.kinds[e.n_steps][1 if e.ends_game else 0]
    cdef GameState after
    if not kind.ready:
        after = s[0]
        play_end_placed(r, &after, e)
        kind.over = after.phase == PH_OVER
        kind.value = result_value(&after, st.mover)
        kind.view = after.seat
        rest_tail(r, &after, kind.tail)
        kind.diffed = False
        kind.ready = True
    return kind


cdef void start_view(const Net* net, const GameState* s, StageLayer* st, int view,
                     const float* head, const EndKind* kind) noexcept nogil:
    """The first layer's sums in ``view`` over the start's per-point inputs and the inputs
    from IN_OFF on (``head`` then ``kind``'s tail) of the first end valued in it."""
    cdef Sparse x
    cdef int q
    x.n = 0
    encode_points(&s.pos, view, &x)
    for q in range(N_REST):
        st.rest[view][q] = head[q] if q < N_HEAD else kind.tail[q - N_HEAD]
        if st.rest[view][q] != 0.0:
            put(&x, IN_OFF + q, st.rest[view][q])
    gulbara_hidden(net.b1, x.idx, x.val, x.n, net.w1, net.hidden, st.pre[view], 0)
    st.ready[view] = True


cdef void diff_tail(const StageLayer* st, EndKind* kind) noexcept nogil:
    """``kind``'s inputs from IN_ESCALATES on less those of its view's first end."""
    cdef int q
    cdef float d
    kind.n_diff = 0
    for q in range(N_TAIL):
        d = kind.tail[q] - st.rest[kind.view][N_HEAD + q]
        kind.diff_idx[kind.n_diff] = IN_ESCALATES + q
        kind.diff_val[kind.n_diff] = d
        kind.n_diff += d != 0.0
    kind.diffed = True


# ---------------------------------------------------------------------------
# Each end: what differs from the first end valued in its view
# ---------------------------------------------------------------------------

cdef inline int put_change(int* idx, float* val, int n, int i, float d) noexcept nogil:
    """Append input ``i``'s change ``d`` to the ``n`` entries of ``idx`` and ``val`` when it
    is not zero (without a branch); returns the new count."""
    idx[n] = i
    val[n] = d
    return n + (d != 0.0)


cdef inline int put_ahead(const StageLayer* st, int view, uint32_t bits, int first, int* idx,
                          float* val, int n) noexcept nogil:
    """Append the changes of inputs ``first``, ``first + 1`` (the mover's points ``bits``
    in front of the opponent's rearmost checker, / 6, and their longest run / 6) from
    the first end valued in ``view``; returns the new count."""
    cdef const float* base = &st.rest[view][first - IN_OFF]
    if bits == st.first_ahead[view]:
        return n
    n = put_change(idx, val, n, first, RATIO[BY_6][popcount(bits)] - base[0])
    return put_change(idx, val, n, first + 1, RATIO[BY_6][longest_run(bits)] - base[1])


cdef inline int put_behind(StageLayer* st, int view, uint32_t occ, int back, int first,
                           int* idx, float* val, int n) noexcept nogil:
    """Append the changes of inputs ``first``, ``first + 1`` (the opponent's points in
    front of the mover's rearmost checker ``back``, the mover's points ``occ``) from the
    first end valued in ``view``; returns the new count."""
    cdef const float* base = &st.rest[view][first - IN_OFF]
    cdef float* behind = st.behind[back]
    if back == st.first_back[view]:
        return n
    if not (st.behind_known >> back) & 1:
        blocks(st.occ[1 - st.mover], occ, behind)
        st.behind_known |= <uint32_t>1 << back
    n = put_change(idx, val, n, first, behind[0] - base[0])
    return put_change(idx, val, n, first + 1, behind[1] - base[1])


cdef const float* end_changes(const Net* net, const GameState* s, StageLayer* st,
                              const StageEnd* e, EndKind* kind, Changes* x) noexcept nogil:
    """The inputs of the state after end ``e`` of the stage of ``s`` (not over) that
    differ from those its first layer starts from, the stage's sums in its view (the
    pointer returned), in order: the mover's points the end changed (from the packed
    counts' difference) and the inputs from IN_OFF on that differ from those of the
    first end valued in the same view (only the mover's borne-off checkers, pips and
    blocks can; the rest by ``kind``)."""
    cdef float head[N_HEAD]
    cdef int mover = st.mover, op = 1 - st.mover, view = kind.view, u, back, n, off
    cdef int moved_in = 0, pips = st.pips[mover], mine = view == mover
    cdef uint32_t occ = st.occ[mover], ahead_bits
    cdef uint64_t now[2]
    cdef int* idx = x.idx
    cdef float* val = x.val
    cdef const int* point_base = POINT_BASE[0 if mine else 1]
    cdef const float* base
    now[0] = e.key.lo
    now[1] = e.key.hi
    n = gulbara_point_changes(st.words, now, point_base, &POINT_CHANGE[0][0], idx, val, 0,
                              &moved_in, &pips, &occ)
    off = st.off[mover] - moved_in
    ahead_bits = rotate12(occ) & st.ahead_mask
    back = bit_length(occ)
    if not st.ready[view]:
        if mine:
            rest_head(off, st.off[op], pips, st.pips[op], occ, st.occ[op], head)
        else:
            rest_head(st.off[op], off, st.pips[op], pips, st.occ[op], occ, head)
        start_view(net, s, st, view, head, kind)
        st.first_off[view] = off
        st.first_pips[view] = pips
        st.first_ahead[view] = ahead_bits
        st.first_back[view] = back
    # Only the mover's checkers differ from the first end's: its borne-off checkers,
    # pips and blocks, each input equal to the first end's when what gives it is.
    base = st.rest[view]
    if off != st.first_off[view]:
        n = put_change(idx, val, n, IN_OFF + 1 - mine, RATIO[BY_15][off] - base[1 - mine])
    if pips != st.first_pips[view]:
        n = put_change(idx, val, n, IN_PIPS + 1 - mine, RATIO[BY_360][pips] - base[3 - mine])
    if mine:
        n = put_ahead(st, view, ahead_bits, IN_BLOCKS, idx, val, n)
        n = put_behind(st, view, occ, back, IN_BLOCKS + 2, idx, val, n)
    else:
        n = put_behind(st, view, occ, back, IN_BLOCKS, idx, val, n)
        n = put_ahead(st, view, ahead_bits, IN_BLOCKS + 2, idx, val, n)
    if not kind.diffed:
        diff_tail(st, kind)
    for u in range(kind.n_diff):
        idx[n + u] = kind.diff_idx[u]
        val[n + u] = kind.diff_val[u]
    x.n = n + kind.n_diff
    return st.pre[view]


# ---------------------------------------------------------------------------
# The choice
# ---------------------------------------------------------------------------

cdef int net_choose(const Net* net, const GameRules* r, const GameState* s,
                    const StageEnd* ends, int n_ends, float* values) noexcept nogil:
    """The end with the highest value (the first on a tie); ``values`` (or NULL) gets them all.

    Ends are valued CHOOSE_CHUNK at a time, each step of the network for all of
    them in turn: their inputs' changes, their first layers' sums, the sigmoids
    of all those sums in one vector pass, their outputs, the outputs' sigmoids
    in one pass (the same bytes as end by end: every sum in its own order)."""
    cdef StageLayer st
    cdef EndKind* kind
    cdef Changes ch[CHOOSE_CHUNK]
    cdef const float* start[CHOOSE_CHUNK]
    cdef float a[CHOOSE_CHUNK * MAX_HIDDEN]
    cdef float z[CHOOSE_CHUNK * N_OUT]
    cdef float fixed[CHOOSE_CHUNK]
    cdef int8_t sign[CHOOSE_CHUNK]
    cdef int i, t, m, k, u, lo, best = 0, mover = s.seat, H = net.hidden
    cdef float v, best_v = 0.0
    stage_layer(s, &st)
    lo = 0
    while lo < n_ends:
        m = min(<int>CHOOSE_CHUNK, n_ends - lo)
        k = 0                              # the ends of the chunk the network values
        for t in range(m):
            kind = end_kind(r, s, &st, &ends[lo + t])
            if kind.over:
                sign[t] = 0
                fixed[t] = kind.value
            else:
                sign[t] = 1 if kind.view == mover else -1
                start[k] = end_changes(net, s, &st, &ends[lo + t], kind, &ch[k])
                k += 1
        for u in range(k):
            gulbara_hidden(start[u], ch[u].idx, ch[u].val, ch[u].n, net.w1, H, &a[u * H], 0)
        gulbara_sigmoid_n(a, k * H)
        for u in range(k):
            gulbara_outputs(&a[u * H], net.w2, net.b2, H, &z[N_OUT * u], 0)
        gulbara_sigmoid_n(z, N_OUT * k)
        u = 0
        for t in range(m):
            i = lo + t
            if sign[t] == 0:
                v = fixed[t]
            else:
                v = sign[t] * equity(&z[N_OUT * u], r.mars)
                u += 1
            if values != NULL:
                values[i] = v
            if i == 0 or v > best_v:
                best, best_v = i, v
        lo += m
    return best


# ---------------------------------------------------------------------------
# Python entry points (gulbara.net.model, the benchmarks)
# ---------------------------------------------------------------------------

cdef int decision_ends(game, GameState* s, GameRules* r, StageEnd* ends, int* n_ends) except -1:
    """Read ``game`` (at a decision) and generate its stage's ends."""
    cdef int failed
    read_game(game, s, r)
    if s.phase != PH_STAGE:
        raise ValueError("the game is not at a decision")
    with nogil:
        failed = pending_ends(s, ends, n_ends)
    if failed:
        raise RuntimeError("the stage overflowed its buffer")
    return 0


cdef class _Decision:
    """A game's decision read natively (state, rules, its stage's ends) with the
    buffers the values of its ends need, ``later`` for the stages after them (or
    NULL); both freed with the object."""

    def __cinit__(self, game, bint later):
        self.ends = alloc_ends()
        if later:
            self.later = alloc_ends()
        decision_ends(game, &self.s, &self.r, self.ends, &self.n_ends)

    def __dealloc__(self):
        free(self.ends)
        free(self.later)


cdef object decision_values(Network network, _Decision d):
    values = np.zeros(d.n_ends, dtype=np.float32)
    cdef float[::1] view = values
    with nogil:
        net_choose(&network.net, &d.r, &d.s, d.ends, d.n_ends, &view[0])
    return values


def stage_values(Network network not None, game):
    """The value of each end of ``game``'s pending stage for its mover (float32, in
    the order of :meth:`gulbara.Game.legal_plays`), GIL released."""
    return decision_values(network, _Decision(game, False))


def time_values(Network network not None, games, int repeat):
    """Value the ends of each game's stage ``repeat`` times natively (the benchmark's
    inner loop: generation outside it); returns the ends valued and their values' sum."""
    cdef GameState s
    cdef GameRules r
    cdef int n_ends = 0, k
    cdef int64_t total = 0
    cdef double checksum = 0.0
    cdef StageEnd* ends = alloc_ends()
    cdef float* values = <float*>malloc(STAGE_CAPACITY * sizeof(float))
    try:
        if values == NULL:
            raise MemoryError("no memory")
        for game in games:
            decision_ends(game, &s, &r, ends, &n_ends)
            with nogil:
                for k in range(repeat):
                    net_choose(&network.net, &r, &s, ends, n_ends, values)
                total += <int64_t>n_ends * repeat
                for k in range(n_ends):
                    checksum += values[k]
    finally:
        free(ends)
        free(values)
    return total, checksum
