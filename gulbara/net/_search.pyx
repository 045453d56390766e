# cython: language_level=3
"""The network's searches: beyond the one stage that ``net_choose`` (``_choose.pyx``) values.

**Deeper.** ``deeper_white`` values a state one decision deeper (the targets of deeper
training, ``_train.pyx``, and ``net2``'s replies): a state waiting for a roll is averaged
over the 36 rolls, each answered by its mover's best end by the network; a pending stage
by its best end (:func:`deeper_outputs`).

**Whole turns** (``gulbara.bots.netbot``): :func:`outcome_values` values the whole-turn
outcomes of a chain or of a remainder's stages by what follows them;
:func:`search_values` searches two decisions deep (the opponent's best reply to each of
the best ends, every roll); :func:`continuation_values` plays the rest of the turn after
each end stage by stage by the network (with a memo: ends whose continuations meet share
them).

**Before a roll** (the rollouts' "model" luck rule, ``gulbara/rollouts/_rollout.pyx``):
``waiting_features`` gives the hidden activations of a state waiting for its roll and the
network's value of each double's chain begun and unplayed; ``dense_head`` is the small
dense function of such features that the rule fits.

The leaves are valued by the network, a finished game by its result (``_net.pxd``'s
``equity`` and ``result_value``), with ``_inputs.pxd``'s encoder and ``_forward.pxd``'s
forward pass compiled in; each stage's choice is ``net_choose``.
"""

from libc.stdint cimport int8_t, uint8_t, uint64_t
from libc.stdlib cimport malloc, free
from libc.string cimport memcmp, memcpy, memset
from libc.math cimport fabsf

from gulbara.core._types cimport StageEnd, Key96
from gulbara.core._keys cimport key_hash, pos_mover_key
from gulbara.core._rows cimport read_board, ROW_OK
from gulbara.game._state cimport (GameRules, GameState, PH_ROLL, PH_STAGE, PH_OVER, K_PLAIN,
                                  K_REMAINDER, begin_roll, play_end, read_rules, read_game)
from gulbara.game._playloop cimport alloc_ends, pending_ends
from gulbara.net._inputs cimport Sparse, encode, rest_tail, IN_ESCALATES, N_TAIL
from gulbara.net._net cimport (Net, Network, MAX_HIDDEN, N_OUT, equity, result_value, to_white,
                               result_white, follow_simd_level)
from gulbara.net._forward cimport (forward, outputs, gulbara_hidden, gulbara_sigmoid_n,
                                   simd_cell)
from gulbara.net._choose cimport net_choose, _Decision, decision_values

import numpy as np

follow_simd_level(&simd_cell, __name__)


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


cdef void state_outputs(const Net* net, const GameRules* r, const GameState* s,
                        float* out) noexcept nogil:
    cdef Sparse x
    cdef float h[MAX_HIDDEN]
    encode(r, s, &x)
    forward(net, &x, h, out)


cdef void dense_head(const float* layer1, const float* layer2, int n, int units,
                     const float* f, float* out) noexcept nogil:
    """``out`` (HEAD_OUT values) = ``f @ B + softsign(f @ A) @ layer2`` for the ``n``
    features ``f``: ``layer1`` is ``n x head_width(units)``, each row A's ``units`` values,
    zeros to ``head_offset(units)``, then B's HEAD_OUT; ``layer2`` is ``units x HEAD_OUT``;
    ``softsign(z) = z / (1 + |z|)`` (the rollouts' "model" luck rule,
    ``gulbara.rollouts.luckmodel``; widths in whole SIMD blocks). At most MAX_HEAD inputs
    and units."""
    cdef int idx[MAX_HEAD]
    cdef float zero[MAX_HEAD + HEAD_OUT + 16]
    cdef float z[MAX_HEAD + HEAD_OUT + 16]
    cdef float a[MAX_HEAD]
    cdef int i, width = head_width(units), offset = head_offset(units)
    for i in range(n if n > width else width):
        idx[i] = i
        zero[i] = 0.0
    gulbara_hidden(zero, idx, f, n, layer1, width, z, 0)
    for i in range(units):
        a[i] = z[i] / (1.0 + fabsf(z[i]))
    gulbara_hidden(&z[offset], idx, a, units, layer2, HEAD_OUT, out, 0)


cdef void waiting_features(const Net* net, const GameRules* r, const GameState* before,
                           bint chains, float* h, double* unplayed) noexcept nogil:
    """The hidden activations ``h`` of ``before`` waiting for its roll (its phase is read as
    PH_ROLL), and with ``chains`` the network's equity, for the roller, of each double d-d's
    chain begun and not played (``unplayed[d - 1]``). Such a state differs from ``before``
    only in the inputs from IN_ESCALATES on (the pending chain), so each adds the rows of
    those to the first layer's sums of ``before`` instead of a whole pass."""
    cdef GameState p = before[0], c
    cdef Sparse x
    cdef float z[MAX_HIDDEN]
    cdef float hu[MAX_HIDDEN]
    cdef float o[N_OUT]
    cdef float t0[N_TAIL]
    cdef float t1[N_TAIL]
    cdef int idx[N_TAIL]
    cdef float val[N_TAIL]
    cdef int d, q, n, H = net.hidden
    cdef float e
    p.phase = PH_ROLL
    encode(r, &p, &x)
    gulbara_hidden(net.b1, x.idx, x.val, x.n, net.w1, H, z, 0)
    memcpy(h, z, H * sizeof(float))
    gulbara_sigmoid_n(h, H)
    if not chains:
        return
    rest_tail(r, &p, t0)
    for d in range(1, 7):
        c = before[0]
        begin_roll(r, &c, d, d, False)
        if c.phase == PH_STAGE and c.seat == p.seat:  # the roller's chain: same points
            rest_tail(r, &c, t1)
            n = 0
            for q in range(N_TAIL):
                if t1[q] != t0[q]:
                    idx[n] = IN_ESCALATES + q
                    val[n] = t1[q] - t0[q]
                    n += 1
            gulbara_hidden(z, idx, val, n, net.w1, H, hu, 1)
            outputs(net, hu, o)
            e = equity(o, r.mars)
        else:                                          # (not reached: a whole pass)
            state_outputs(net, r, &c, o)
            e = equity(o, r.mars) if c.seat == p.seat else -equity(o, r.mars)
        unplayed[d - 1] = e


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
    one = decision_values(network, d)
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
