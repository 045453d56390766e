# cython: language_level=3
"""Native value network: inference, the network's policy, its games and searches.

**The network** (layout ``gb1``, ``N_INPUTS`` inputs; docs/user/bots.md lists them):
one hidden layer of ``hidden`` sigmoid units and three sigmoid outputs,
P(win), P(win with mars), P(lose with mars), for the *side to act* of a game
state that waits for a roll or for a chain or remainder stage (RULES §4-5).
float32 throughout; the first layer is summed over the nonzero inputs only
(a position sets about 50 of the 209). The parameters are one flat float32
array: ``w1`` (inputs x hidden, input-major), ``b1``, ``w2`` (3 x hidden,
output-major), ``b2``; ``gulbara.net.model`` reads and writes them as ``.npz``.

**Arithmetic.** The sigmoid is ``1 / (1 + e**-z)`` with ``e**x`` from a range
reduction and ``1 + r + r**2 q(r)``, ``q`` a cubic by Estrin's scheme (the
sigmoid within 2.3e-7 of the exact one, no libm call), so it vectorizes.
Every operation is one IEEE float32 operation in a fixed order per hidden
unit or output lane, a multiply and the add after it fused into one rounding
(the FMA instructions, or their exact double-precision form where the CPU
has none: :func:`fused_multiply_add`), done 8 lanes at a time with AVX2 and
FMA when the CPU has them (chosen at import, :func:`simd_level`), the sigmoids
and the first layer's sums 16 at a time with AVX-512F, 4 with SSE2, else one
by one: all give the same bytes (a test), and so do trained weights on any
build (the extensions are compiled with ``-ffp-contract=off``).

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

**Deeper.** ``deeper_white`` values a state one decision deeper (the targets of deeper
training and ``net2``'s replies). The network's policy in the native game loop, and the
games themselves, are in ``_play.pyx``.
"""

from libc.stdint cimport int8_t, uint8_t, int32_t, int64_t, uint32_t, uint64_t
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memcmp, memcpy, memset
from cpython.exc cimport PyErr_CheckSignals

from gulbara.core._bits cimport bit_length, popcount
from gulbara.core._masks cimport rotate12
from gulbara.core._types cimport Pos, StageEnd, Key96, MAX_STAGE_DICE, STAGE_CAPACITY
from gulbara.core._keys cimport key_hash, pos_mover_key
from gulbara.core._movegen cimport Position
from gulbara.game._state cimport (GameRules, GameState, PH_OPENING, PH_ROLL, PH_STAGE, PH_OVER,
                             K_PLAIN, K_CHAIN, K_REMAINDER, begin_roll, escalates, play_end,
                             play_end_placed, read_rules, read_game)
from gulbara.game._rng cimport Rng, rng_seed, rng_below
from gulbara.game._playloop cimport alloc_ends, pending_ends
from gulbara.eval._greedy cimport greedy_choose, longest_run

import numpy as np

from gulbara.core._backend import START_CODE


#: Inputs of the gb1 layout and its name.
N_INPUTS = N_IN
LAYOUT = "gb1"


# ---------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------

cdef inline void put(Sparse* x, int i, float v) noexcept nogil:
    x.idx[x.n] = i
    x.val[x.n] = v
    x.n += 1


cdef inline void put_point(Sparse* x, int base, int c) noexcept nogil:
    if c >= 1:
        put(x, base, 1.0)
        if c >= 2:
            put(x, base + 1, 1.0)
            if c >= 3:
                put(x, base + 2, 1.0)
                if c > 3:
                    put(x, base + 3, (c - 3) / 2.0)


cdef inline void encode_points(const Pos* p, int me, Sparse* x) noexcept nogil:
    """The gb1 per-point inputs (indices below IN_OFF) of ``p`` for side ``me``, appended."""
    cdef int op = 1 - me, q
    for q in range(1, 25):
        put_point(x, IN_OWN + 4 * (q - 1), p.cnt[me][q])
    for q in range(1, 25):                 # the same physical point (RULES §1.3)
        put_point(x, IN_OPP + 4 * (q - 1), p.cnt[op][(q + 11) % 24 + 1])


cdef inline int pip_count(const Pos* p, int seat) noexcept nogil:
    cdef int q, pips = 0
    for q in range(1, 25):
        pips += q * p.cnt[seat][q]
    return pips


cdef enum:                     # the denominators of the inputs from IN_OFF on
    BY_15 = 0
    BY_360 = 1
    BY_6 = 2
    BY_4 = 3
    RATIO_MAX = 360            # no numerator exceeds it (15 checkers on point 24)

# RATIO[k][n]: n over the k-th denominator, divided in double and rounded to float
cdef float RATIO[4][RATIO_MAX + 1]


cdef void fill_ratios() noexcept nogil:
    cdef int n
    for n in range(RATIO_MAX + 1):
        RATIO[BY_15][n] = n / 15.0
        RATIO[BY_360][n] = n / 360.0
        RATIO[BY_6][n] = n / 6.0
        RATIO[BY_4][n] = n / 4.0


fill_ratios()


cdef inline void blocks(uint32_t occ_me, uint32_t occ_op, float* f) noexcept nogil:
    """``f[0]``, ``f[1]``: the points of ``occ_me`` ahead of the rearmost checker of
    ``occ_op`` (each in its own numbering) / 6, and their longest run / 6."""
    cdef int back = bit_length(occ_op)
    cdef uint32_t ahead
    if back > 0:
        ahead = rotate12(occ_me) & ((<uint32_t>1 << (back - 1)) - 1)
        f[0] = RATIO[BY_6][popcount(ahead)]
        f[1] = RATIO[BY_6][longest_run(ahead)]
    else:
        f[0] = f[1] = 0.0


cdef inline void rest_head(int off_me, int off_op, int pips_me, int pips_op, uint32_t occ_me,
                           uint32_t occ_op, float* f) noexcept nogil:
    """The N_HEAD gb1 inputs from IN_OFF on (borne off, pips, blocks) of the side ``me``."""
    f[IN_OFF - IN_OFF] = RATIO[BY_15][off_me]
    f[IN_OFF + 1 - IN_OFF] = RATIO[BY_15][off_op]
    f[IN_PIPS - IN_OFF] = RATIO[BY_360][pips_me]
    f[IN_PIPS + 1 - IN_OFF] = RATIO[BY_360][pips_op]
    blocks(occ_me, occ_op, &f[IN_BLOCKS - IN_OFF])
    blocks(occ_op, occ_me, &f[IN_BLOCKS + 2 - IN_OFF])


cdef void rest_tail(const GameRules* r, const GameState* s, float* f) noexcept nogil:
    """The N_TAIL gb1 inputs from IN_ESCALATES on of ``s`` for its side to act: whose next
    roll escalates and the dice it plays before it. They read nothing of the position."""
    cdef int me = s.seat, op = 1 - s.seat, q
    cdef int counts[7]
    cdef bint chain = False, me_first
    for q in range(7):
        counts[q] = 0
    if s.phase == PH_STAGE and s.kind != K_PLAIN:
        chain = s.kind == K_CHAIN
        counts[s.high] += s.count
        for q in range(s.high + 1, 7):
            counts[q] += 4 if chain else s.then[q]
    # who rolls next: the player, unless it is in its own chain (RULES §4.5)
    me_first = not chain
    f[IN_ESCALATES - IN_ESCALATES] = (
        1.0 if escalates(r, s.rolls[me] + 1, s.game_rolls + (1 if me_first else 2)) else 0.0)
    f[IN_ESCALATES + 1 - IN_ESCALATES] = (
        1.0 if escalates(r, s.rolls[op] + 1, s.game_rolls + (2 if me_first else 1)) else 0.0)
    for q in range(1, 7):
        f[IN_PENDING + q - 1 - IN_ESCALATES] = RATIO[BY_4][counts[q]]
    f[IN_PENDING_CHAIN - IN_ESCALATES] = 1.0 if chain else 0.0


cdef void rest_dense(const GameRules* r, const GameState* s, int pips_me, int pips_op,
                     float* f) noexcept nogil:
    """The N_REST gb1 inputs from IN_OFF on of ``s`` for its side to act, zeros included;
    ``pips_me`` and ``pips_op`` are the pip counts of that side and the other. Every
    numerator is at most RATIO_MAX (a pending count at most 4, 259 even in a corrupt state)."""
    cdef int me = s.seat, op = 1 - s.seat
    rest_head(s.pos.off[me], s.pos.off[op], pips_me, pips_op, s.pos.occ[me], s.pos.occ[op], f)
    rest_tail(r, s, &f[N_HEAD])


cdef inline void encode_rest(const GameRules* r, const GameState* s, Sparse* x) noexcept nogil:
    """The nonzero gb1 inputs from IN_OFF on of ``s`` for its side to act, appended."""
    cdef float f[N_REST]
    cdef int q
    rest_dense(r, s, pip_count(&s.pos, s.seat), pip_count(&s.pos, 1 - s.seat), f)
    for q in range(N_REST):
        if f[q] != 0.0:
            put(x, IN_OFF + q, f[q])


cdef void encode(const GameRules* r, const GameState* s, Sparse* x) noexcept nogil:
    """The gb1 inputs of ``s`` for its side to act (ascending indices)."""
    x.n = 0
    encode_points(&s.pos, s.seat, x)
    encode_rest(r, s, x)


cdef inline void put_point_change(Sparse* x, int base, int c0, int c1) noexcept nogil:
    """The change of one point's four inputs when its count goes from c0 to c1, appended."""
    cdef int u
    cdef float d
    for u in range(3):
        d = (<float>(c1 > u)) - (<float>(c0 > u))
        if d != 0.0:
            put(x, base + u, d)
    d = (c1 - 3) / 2.0 if c1 > 3 else 0.0
    d -= (c0 - 3) / 2.0 if c0 > 3 else 0.0
    if d != 0.0:
        put(x, base + 3, d)


cdef extern from "_net_math.h":
    ctypedef struct PointChange "gulbara_point_change":
        int n                  # the units that change, in order
        int unit[4]
        float val[4]
    int gulbara_point_changes(const uint64_t* was, const uint64_t* now, const int* first,
                              const PointChange* table, int* idx, float* val, int n,
                              int* moved_in, int* pips, uint32_t* occ) noexcept nogil

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


# ---------------------------------------------------------------------------
# The forward pass
# ---------------------------------------------------------------------------

cdef extern from "_net_math.h":
    float gulbara_sigmoid(float z) noexcept nogil
    void gulbara_hidden(const float* start, const int* idx, const float* val, int n_in,
                        const float* w1, int H, float* h, int sigmoid) noexcept nogil
    int gulbara_net_simd(int level) noexcept nogil
    void gulbara_outputs(const float* a, const float* w, const float* b, int n,
                         float* out, int sigmoid) noexcept nogil
    void gulbara_sigmoid_n(float* z, int n) noexcept nogil
    void gulbara_fma_n(const float* a, const float* b, const float* c, float* out,
                       int n) noexcept nogil


def simd_level(int level=-1):
    """The arithmetic the network uses: 3 AVX-512F, 2 AVX2 and FMA, 1 SSE2, 0 plain C (the best
    this build and CPU have at import). ``level`` >= 0 chooses a lower one (tests: every level
    gives the same bytes). Returns the level in use."""
    return gulbara_net_simd(level)


SIMD_LEVEL = gulbara_net_simd(-1)


def sigmoid(const float[::1] z not None):
    """The network's sigmoid of each of ``z`` (float32), by the arithmetic level in use
    (``simd_level``; every level gives the same bytes)."""
    out = np.array(z, dtype=np.float32)
    cdef float[::1] view = out
    if out.shape[0]:
        gulbara_sigmoid_n(&view[0], <int>out.shape[0])
    return out


def fused_multiply_add(const float[::1] a not None, const float[::1] b not None,
                       const float[::1] c not None):
    """``a * b + c`` rounded once to float32, lane by lane, by the fused multiply-add of
    the arithmetic level in use (``simd_level``): the FMA instructions, or their exact
    double-precision form where the CPU has none. The network's sums and sigmoid use it;
    tests check every level against exact rounding."""
    if not (a.shape[0] == b.shape[0] == c.shape[0]):
        raise ValueError(f"a, b and c must have one length, got {a.shape[0]}, {b.shape[0]}, "
                         f"{c.shape[0]}")
    out = np.empty(a.shape[0], dtype=np.float32)
    cdef float[::1] view = out
    if a.shape[0]:
        gulbara_fma_n(&a[0], &b[0], &c[0], &view[0], <int>a.shape[0])
    return out


cdef inline void outputs(const Net* net, const float* h, float* out) noexcept nogil:
    """The three outputs of hidden activations ``h``."""
    gulbara_outputs(h, net.w2, net.b2, net.hidden, out, 1)


cdef void forward(const Net* net, const Sparse* x, float* h, float* out) noexcept nogil:
    """Hidden activations ``h`` and the three outputs of inputs ``x``."""
    gulbara_hidden(net.b1, x.idx, x.val, x.n, net.w1, net.hidden, h, 1)
    outputs(net, h, out)


cdef inline float equity(const float* out, bint mars) noexcept nogil:
    """Equity in points of the outputs; without the mars (RULES §8) a game is worth 1."""
    if mars:
        return 2.0 * out[0] - 1.0 + out[1] - out[2]
    return 2.0 * out[0] - 1.0


cdef inline float result_value(const GameState* over, int mover) noexcept nogil:
    """``mover``'s points of a finished game (0 for a draw)."""
    if over.winner < 0:
        return 0.0
    return over.points if over.winner == mover else -over.points


cdef float after_value(const Net* net, const GameRules* r, const GameState* after,
                       int mover, Sparse* x) noexcept nogil:
    """The value for ``mover`` of the state after one of its stage's ends."""
    cdef float h[MAX_HIDDEN]
    cdef float out[N_OUT]
    cdef float e
    if after.phase == PH_OVER:
        return result_value(after, mover)
    encode(r, after, x)
    forward(net, x, h, out)
    e = equity(out, r.mars)
    return e if after.seat == mover else -e


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
# One decision deeper (the targets of deeper training, net2's replies)
# ---------------------------------------------------------------------------

cdef int deeper_white(const Net* net, const GameRules* r, const GameState* s, StageEnd* ends,
                      double* y) noexcept nogil:
    """The network's outputs for ``s`` one decision deeper, in White's frame: a state
    waiting for a roll is averaged over the 36 rolls (RULES §4.2 escalation as
    ``begin_roll`` applies it), each answered by its mover's best end by the
    network (``net_choose``, the native policy); a pending stage (the rest of a
    chain, a remainder) by its best end. A finished game after an end counts
    its result. 0, or -1 when a stage overflowed ``ends``."""
    cdef GameState c
    cdef int a, b, k
    cdef double part[3]
    c = s[0]
    if s.phase != PH_ROLL:
        return best_end_white(net, r, &c, ends, y)
    y[0] = y[1] = y[2] = 0.0
    for a in range(1, 7):
        for b in range(a, 7):
            c = s[0]
            begin_roll(r, &c, b, a, False)
            if best_end_white(net, r, &c, ends, part):
                return -1
            for k in range(3):
                y[k] += part[k] * (1.0 if a == b else 2.0) / 36.0
    return 0


cdef int best_end_white(const Net* net, const GameRules* r, GameState* c, StageEnd* ends,
                        double* y) noexcept nogil:
    """Play the best end of ``c``'s pending stage by the network into ``c`` and put the
    outputs of what follows in White's frame into ``y``; 0, or -1 on an overflow."""
    cdef int n_ends, best
    cdef float h[MAX_HIDDEN]
    cdef float out[N_OUT]
    cdef Sparse x
    if pending_ends(c, ends, &n_ends):
        return -1
    best = net_choose(net, r, c, ends, n_ends, NULL)
    play_end(r, c, &ends[best])
    if c.phase == PH_OVER:
        result_white(c.winner, c.points, y)
        return 0
    encode(r, c, &x)
    forward(net, &x, h, out)
    to_white(out, c.seat, y)
    return 0


# ---------------------------------------------------------------------------
# Python entry points (gulbara.net.model, gulbara.net.train)
# ---------------------------------------------------------------------------

cdef class Network:
    """The native side of a network: its flat float32 parameters (borrowed views)."""

    def __init__(self, params, int hidden):
        if hidden < 1 or hidden > MAX_HIDDEN:
            raise ValueError(f"hidden must be 1..{MAX_HIDDEN}, got {hidden}")
        params = np.ascontiguousarray(params, dtype=np.float32)
        if params.shape != (parameter_count(hidden),):
            raise ValueError(f"a gb1 network with {hidden} hidden units has "
                             f"{parameter_count(hidden)} parameters, got shape {params.shape}")
        self.params = params
        self.hidden = hidden
        cdef const float[::1] view = params
        self.net.hidden = hidden
        self.net.w1 = &view[0]
        self.net.b1 = self.net.w1 + N_IN * hidden
        self.net.w2 = self.net.b1 + hidden
        self.net.b2 = self.net.w2 + N_OUT * hidden


def parameter_count(int hidden):
    """Parameters of a gb1 network with ``hidden`` hidden units."""
    return N_IN * hidden + hidden + N_OUT * hidden + N_OUT


def forward_dense(Network network not None, const float[:, ::1] inputs):
    """The outputs (``N x 3`` float32) of ``N x N_INPUTS`` inputs (GIL released)."""
    if inputs.shape[1] != N_IN:
        raise ValueError(f"inputs must have {N_IN} columns, got {inputs.shape[1]}")
    out = np.zeros((inputs.shape[0], N_OUT), dtype=np.float32)
    cdef float[:, ::1] o = out
    cdef Py_ssize_t n = inputs.shape[0], row
    cdef Sparse x
    cdef float h[MAX_HIDDEN]
    cdef int i
    with nogil:
        for row in range(n):
            x.n = 0
            for i in range(N_IN):
                if inputs[row, i] != 0.0:
                    put(&x, i, inputs[row, i])
            forward(&network.net, &x, h, &o[row, 0])
    return out


def encode_game(game):
    """The gb1 inputs (float32, ``N_INPUTS``) of a :class:`gulbara.Game` waiting for
    a roll or for a chain or remainder stage, for its side to act."""
    cdef GameState s
    cdef GameRules r
    cdef Sparse x
    cdef int i
    read_game(game, &s, &r)
    if s.phase == PH_OPENING or s.phase == PH_OVER or (s.phase == PH_STAGE and s.kind == K_PLAIN):
        raise ValueError("the inputs describe a game waiting for a roll, a chain stage or a "
                         "remainder stage")
    encode(&r, &s, &x)
    out = np.zeros(N_IN, dtype=np.float32)
    for i in range(x.n):
        out[x.idx[i]] = x.val[i]
    return out


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
    cdef GameState s
    cdef GameRules r
    cdef StageEnd* ends
    cdef StageEnd* later
    cdef int n_ends

    def __cinit__(self, game, bint later):
        self.ends = alloc_ends()
        if later:
            self.later = alloc_ends()
        decision_ends(game, &self.s, &self.r, self.ends, &self.n_ends)

    def __dealloc__(self):
        free(self.ends)
        free(self.later)


def stage_values(Network network not None, game):
    """The value of each end of ``game``'s pending stage for its mover (float32, in
    the order of :meth:`gulbara.Game.legal_plays`), GIL released."""
    cdef _Decision d = _Decision(game, False)
    values = np.zeros(d.n_ends, dtype=np.float32)
    _values_into(&network.net, &d.r, &d.s, d.ends, d.n_ends, values)
    return values


cdef void _values_into(const Net* net, const GameRules* r, const GameState* s,
                       const StageEnd* ends, int n_ends, float[::1] values):
    with nogil:
        net_choose(net, r, s, ends, n_ends, &values[0])


def deeper_outputs(Network network not None, game):
    """The targets of ``target="deeper"`` training for ``game`` (waiting for a roll, or
    at a chain or remainder stage): ``deeper_white``'s (White wins, White mars, Black
    mars), float64, GIL released."""
    cdef GameRules r
    cdef GameState s
    cdef int failed
    cdef double[::1] y
    read_game(game, &s, &r)
    if not (s.phase == PH_ROLL or (s.phase == PH_STAGE and s.kind != K_PLAIN)):
        raise ValueError("the deeper value is of a game waiting for a roll, a chain stage "
                         "or a remainder stage")
    out = np.zeros(3)
    y = out
    cdef StageEnd* ends = alloc_ends()
    try:
        with nogil:
            failed = deeper_white(&network.net, &r, &s, ends, &y[0])
    finally:
        free(ends)
    if failed:
        raise RuntimeError("a stage overflowed its buffer")
    return out


# ---------------------------------------------------------------------------
# Whole-turn outcomes and the two-decision search (gulbara.bots.netbot)
# ---------------------------------------------------------------------------

from gulbara.core._rows cimport read_board, ROW_OK


def outcome_values(Network network not None, rules, const int8_t[:, ::1] boards,
                   const uint8_t[:, ::1] borne_off, const uint8_t[:, ::1] remainder,
                   const uint8_t[::1] ends_game, int mover, int rolls_white, int rolls_black,
                   bint own_chain):
    """The value for ``mover`` of each whole-turn outcome of a chain (``own_chain``) or
    of a remainder's stages (the arrays of :class:`gulbara.ChainEnds`), GIL released.

    An outcome that ends the game is worth its points; one that passes a
    remainder is the opponent to play that remainder first; otherwise the
    opponent rolls after a chain, the mover itself after a remainder (RULES §5.4).
    """
    cdef GameRules r
    cdef GameState s
    cdef Py_ssize_t n = boards.shape[0], i
    cdef Sparse x
    cdef int problem = 0, detail = 0, q, lowest, bad = -1
    read_rules(rules, &r)
    if boards.shape[1] != 24 or borne_off.shape[0] != n or remainder.shape[0] != n \
            or ends_game.shape[0] != n or borne_off.shape[1] != 2 or remainder.shape[1] != 6:
        raise ValueError("the outcome arrays do not match (N x 24, N x 2, N x 6, N)")
    if mover not in (0, 1):
        raise ValueError(f"mover must be 0 or 1, got {mover}")
    values = np.zeros(n, dtype=np.float32)
    cdef float[::1] v = values
    with nogil:
        for i in range(n):
            memset(&s, 0, sizeof(GameState))
            problem = read_board(&boards[i, 0], &borne_off[i, 0], False, &s.pos, &detail)
            if problem != ROW_OK:
                bad = i
                break
            s.rolls[0] = rolls_white
            s.rolls[1] = rolls_black
            s.game_rolls = rolls_white + rolls_black
            s.winner = -1
            if ends_game[i]:
                s.phase = PH_OVER
                s.winner = mover
                s.points = 2 if r.mars and s.pos.off[1 - mover] == 0 else 1
            else:
                lowest = 0
                for q in range(6, 0, -1):
                    if remainder[i, q - 1]:
                        lowest = q
                if lowest:
                    s.phase = PH_STAGE
                    s.kind = K_REMAINDER
                    s.seat = 1 - mover
                    s.high = s.low = lowest
                    s.count = remainder[i, lowest - 1]
                    for q in range(lowest + 1, 7):
                        s.then[q] = remainder[i, q - 1]
                else:
                    s.phase = PH_ROLL
                    s.seat = 1 - mover if own_chain else mover
            v[i] = after_value(&network.net, &r, &s, mover, &x)
    if bad >= 0:
        raise ValueError(f"outcome {bad} is not a position")
    return values


cdef float reply_value(const Net* net, const GameRules* r, const GameState* after, int mover,
                       StageEnd* ends, int* failed) noexcept nogil:
    """``mover``'s value of ``after`` (the opponent to roll) averaged over the opponent's
    36 rolls, each answered by the opponent's best end by the network: the equity
    of ``deeper_white``'s outputs."""
    cdef double y[3]
    cdef double e
    if deeper_white(net, r, after, ends, y):
        failed[0] = 1
        return 0.0
    e = 2.0 * y[0] - 1.0                           # White's equity
    if r.mars:
        e = e + y[1] - y[2]
    return <float>(e if mover == 0 else -e)


def search_values(Network network not None, game, int top):
    """Values of ``game``'s stage ends two decisions deep: the ``top`` best ends by the
    network (1-ply) that hand the roll to the opponent get the average over its 36
    rolls of its best reply; the others keep their 1-ply value. Returns
    ``(values_1ply, values_2ply, searched)`` (legal-play order; ``searched`` marks the
    ends valued two deep or exactly), GIL released."""
    cdef GameState after
    cdef int failed = 0, i
    cdef float v
    cdef _Decision d
    if top < 1:
        raise ValueError(f"top must be >= 1, got {top}")
    d = _Decision(game, True)
    one = np.zeros(d.n_ends, dtype=np.float32)
    _values_into(&network.net, &d.r, &d.s, d.ends, d.n_ends, one)
    two = one.copy()
    searched = np.zeros(d.n_ends, dtype=bool)
    order = np.argsort(-one, kind="stable")[:top]
    for k in order:
        i = k
        after = d.s
        play_end(&d.r, &after, &d.ends[i])
        if after.phase == PH_OVER:
            searched[i] = True                      # exact
            continue
        if after.phase != PH_ROLL or after.seat == d.s.seat:
            continue
        searched[i] = True
        with nogil:
            v = reply_value(&network.net, &d.r, &after, d.s.seat, d.later, &failed)
        if failed:
            raise RuntimeError("a reply stage overflowed its buffer")
        two[i] = v
    return one, two, searched


def continuation_values(Network network not None, game):
    """The value for the mover of each end of ``game``'s stage after the rest of its turn
    played by the network stage by stage (its best end at each later stage of the
    same chain or remainder), in legal-play order; GIL released."""
    cdef int failed = 0
    cdef _Decision d = _Decision(game, True)
    values = np.zeros(d.n_ends, dtype=np.float32)
    _continuations_into(&network.net, &d.r, &d.s, d.ends, d.n_ends, d.later, values, &failed)
    if failed:
        raise RuntimeError("a later stage overflowed its buffer")
    return values


# A continuation's memo: a later-stage state -> the value its turn ends in. The rest of the
# turn from a state is fixed (the network's best end at each stage), so ends whose
# continuations meet share it (about 40% of the later stages in real games). Hashed by the
# mover's packed checkers and the stage; equal bytes are equal states (equal states whose
# padding bytes differ would only miss the memo).
cdef enum:
    MEMO_PATH = 32              # later stages remembered per end (a turn has fewer)
    MEMO_SLOTS_PER_END = 8      # the table's size: slots per end of the stage, a power of
    MEMO_MAX_SLOTS = 65536      # two up to this bound (about 7.5 MB); filled at most half
    MEMO_MAX_PROBES = 64

ctypedef struct MemoEntry:
    GameState state
    float value
    uint8_t used


cdef inline uint64_t _state_hash(const GameState* s) noexcept nogil:
    """Within a turn only the mover's checkers and the stage change: their packed key."""
    cdef Key96 key = pos_mover_key(&s.pos, s.seat)
    return key_hash(key.lo, key.hi | (<uint64_t>s.high << 32) | (<uint64_t>s.low << 36)
                    | (<uint64_t>s.count << 40) | (<uint64_t>s.kind << 48)
                    | (<uint64_t>(s.index & 0xFF) << 56))


cdef inline MemoEntry* _memo_slot(MemoEntry* memo, uint64_t mask, const GameState* s) noexcept nogil:
    """The entry holding ``s``, else the empty entry where it goes (NULL when full)."""
    cdef uint64_t i = _state_hash(s) & mask, probes = 0
    while memo[i].used:
        if memcmp(&memo[i].state, s, sizeof(GameState)) == 0:
            return &memo[i]
        probes += 1
        if probes >= MEMO_MAX_PROBES:
            return NULL
        i = (i + 1) & mask
    return &memo[i]


cdef void _continuations_into(const Net* net, const GameRules* r, const GameState* s,
                              const StageEnd* ends, int n_ends, StageEnd* later,
                              float[::1] values, int* failed):
    cdef GameState after
    cdef GameState path[MEMO_PATH]
    cdef int i, k, n_later, best, n_path, found, mover = s.seat
    cdef float value
    cdef Sparse x
    cdef MemoEntry* slot
    cdef uint64_t capacity = 64, filled = 0
    while capacity < <uint64_t>n_ends * MEMO_SLOTS_PER_END and capacity < MEMO_MAX_SLOTS:
        capacity *= 2
    cdef MemoEntry* memo = <MemoEntry*>malloc(capacity * sizeof(MemoEntry))
    if memo == NULL:
        raise MemoryError("no memory for the continuations' memo")
    memset(memo, 0, capacity * sizeof(MemoEntry))
    memset(&after, 0, sizeof(GameState))              # its padding bytes defined (the hash reads them)
    try:
        with nogil:
            for i in range(n_ends):
                after = s[0]
                play_end(r, &after, &ends[i])
                n_path = 0
                found = 0
                while after.phase == PH_STAGE and after.seat == mover:
                    slot = _memo_slot(memo, capacity - 1, &after)
                    if slot != NULL and slot.used:
                        value = slot.value
                        found = 1
                        break
                    if n_path < MEMO_PATH:
                        memcpy(&path[n_path], &after, sizeof(GameState))
                        n_path += 1
                    if pending_ends(&after, later, &n_later):
                        failed[0] = 1
                        return
                    best = net_choose(net, r, &after, later, n_later, NULL)
                    play_end(r, &after, &later[best])
                if not found:
                    value = after_value(net, r, &after, mover, &x)
                values[i] = value
                for k in range(n_path):
                    if 2 * filled >= capacity:        # at most half full: short probes
                        break
                    slot = _memo_slot(memo, capacity - 1, &path[k])
                    if slot != NULL and not slot.used:
                        filled += 1
                        memcpy(&slot.state, &path[k], sizeof(GameState))
                        slot.value = value
                        slot.used = 1
    finally:
        free(memo)


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
