# cython: language_level=3
"""Native training of the gb1 network (``gulbara.net.train``): a run's games played by
the frozen network's native policy (``_play.pyx``: ``play_seeded``), each game's
after-states moved toward their targets, the change written into the slot's own
row of a float64 delta array.

**TD(lambda)** (``target="td"``): the cross-entropy gradient (target minus
output on the pre-sigmoid outputs) of each after-state toward the next one's
outputs, the last toward the game's result, with eligibility traces over the
game (``td_update``). **Deeper** (``target="deeper"``): each after-state toward
the frozen network's own outputs one decision deeper (``_search.pyx``:
``deeper_white``, every roll of a state waiting for one). **Teacher**
(``target="teacher"``): each after-state toward another network's outputs on it
(distillation, ``teacher_targets``). The caller sums the
rows in slot order, so the weights depend only on the arguments, never on the
threads.
"""

from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memset
from libc.math cimport fabs

from gulbara.core._types cimport StageEnd
from gulbara.core._movegen cimport Position
from gulbara.game._state cimport GameRules, GameState, PH_OPENING, read_rules
from gulbara.game._playloop cimport alloc_ends, Policy
from gulbara.net._play cimport Record, Outcome, play_seeded, put_result, choose_net
from gulbara.net._inputs cimport Sparse, N_IN, encode
from gulbara.net._net cimport (Net, Network, N_OUT, MAX_HIDDEN, to_white, result_white,
                               follow_simd_level)
from gulbara.net._forward cimport forward, simd_cell
from gulbara.net._search cimport deeper_white

import numpy as np

from gulbara.core._backend import START_CODE
from gulbara.net._net import parameter_count

follow_simd_level(&simd_cell, __name__)


cdef int targets_room(const Record* rec, double** targets, int* capacity) noexcept nogil:
    """Grow ``targets`` to three per after-state of the game; 0, or -1 without memory."""
    cdef double* grown
    if rec.n > capacity[0]:
        grown = <double*>realloc(targets[0], 3 * <size_t>rec.n * sizeof(double))
        if grown == NULL:
            return -1
        targets[0] = grown
        capacity[0] = rec.n
    return 0


cdef int deeper_targets(const Net* net, const GameRules* r, const Record* rec, StageEnd* ends,
                        double** targets, int* capacity) noexcept nogil:
    """``deeper_white`` of each of the game's after-states into ``targets``; 0, or -1
    without memory or on a stage overflow."""
    cdef int t
    if targets_room(rec, targets, capacity):
        return -1
    for t in range(rec.n):
        if deeper_white(net, r, &rec.states[t], ends, &targets[0][3 * t]):
            return -1
    return 0


cdef int teacher_targets(const Net* teacher, const GameRules* r, const Record* rec,
                         double** targets, int* capacity) noexcept nogil:
    """The teacher network's outputs on each of the game's after-states, in White's
    frame, into ``targets``; 0, or -1 without memory."""
    cdef int t
    cdef Sparse x
    cdef float hidden[MAX_HIDDEN]
    cdef float out[N_OUT]
    if targets_room(rec, targets, capacity):
        return -1
    for t in range(rec.n):
        encode(r, &rec.states[t], &x)
        forward(teacher, &x, hidden, out)
        to_white(out, rec.states[t].seat, &targets[0][3 * t])
    return 0


cdef int td_update(const Net* net, const GameRules* r, const Record* rec, const Outcome* res,
                   double alpha, double lam, const double* fixed, double* delta,
                   double* abs_err) noexcept nogil:
    """Add alpha * sum_t G_t grad z_t of the game's after-states into ``delta``.

    ``G_t = sum_{u >= t} lam**(u - t) d_u`` with ``d_u = Y_{u+1} - Y_u`` (White's
    frame; the last target is the result), which is the eligibility-trace
    update with weights frozen during the game. With ``fixed`` (three White-frame
    targets per after-state: ``deeper_white``'s or a teacher's),
    ``G_t = fixed_t - Y_t`` instead: each state is moved toward its own target.
    Returns 0, -1 without memory.
    """
    cdef int T = rec.n, t, k, j, i, H = net.hidden, seat
    cdef double* Y
    cdef double z[3]
    cdef double g[3]
    cdef double gx[3]
    cdef double c
    cdef float* hs
    cdef float* h
    cdef float out[N_OUT]
    cdef Sparse x
    cdef double* d_w1 = delta
    cdef double* d_b1 = delta + N_IN * H
    cdef double* d_w2 = d_b1 + H
    cdef double* d_b2 = d_w2 + N_OUT * H
    cdef double* row
    cdef double cj[MAX_HIDDEN]
    abs_err[0] = 0.0
    if T == 0:
        return 0
    Y = <double*>malloc(3 * T * sizeof(double))
    hs = <float*>malloc(<size_t>T * H * sizeof(float))
    if Y == NULL or hs == NULL:
        free(Y)
        free(hs)
        return -1
    for t in range(T):                              # the hidden activations kept for the pass back
        encode(r, &rec.states[t], &x)
        forward(net, &x, &hs[<size_t>t * H], out)
        to_white(out, rec.states[t].seat, &Y[3 * t])
    result_white(res.winner, res.points, z)
    g[0] = g[1] = g[2] = 0.0
    for t in range(T - 1, -1, -1):
        for k in range(3):
            if fixed != NULL:
                c = fixed[3 * t + k] - Y[3 * t + k]
            elif t == T - 1:
                c = z[k] - Y[3 * t + k]
            else:
                c = Y[3 * (t + 1) + k] - Y[3 * t + k]
            if k == 0:
                abs_err[0] += fabs(c)
            g[k] = c if fixed != NULL else c + lam * g[k]
        seat = rec.states[t].seat
        if seat == 0:
            gx[0], gx[1], gx[2] = g[0], g[1], g[2]
        else:                                       # the side to act's frame
            gx[0], gx[1], gx[2] = -g[0], g[2], g[1]
        encode(r, &rec.states[t], &x)
        h = &hs[<size_t>t * H]
        for k in range(N_OUT):
            d_b2[k] += alpha * gx[k]
            for j in range(H):
                d_w2[k * H + j] += alpha * gx[k] * h[j]
        for j in range(H):
            c = 0.0
            for k in range(N_OUT):
                c += gx[k] * net.w2[k * H + j]
            cj[j] = alpha * c * h[j] * (1.0 - h[j])
            d_b1[j] += cj[j]
        for i in range(x.n):
            row = d_w1 + x.idx[i] * H
            c = x.val[i]
            for j in range(H):
                row[j] += c * cj[j]
    free(Y)
    free(hs)
    return 0


def train_slots(Network network not None, rules, uint64_t seed, int64_t batch, int slots,
                slot_list, double[:, ::1] delta, double alpha, double lam,
                int32_t max_rolls=10000, bint deeper=False, Network teacher=None):
    """Play and learn from the games of ``slot_list`` (slots of batch ``batch``);
    slot ``k``'s update goes to ``delta[k]``: TD(``lam``), or with ``deeper`` each
    after-state moved toward the network's value one decision deeper
    (``deeper_white``), or with a ``teacher`` network toward its outputs. Returns an
    ``len(slot_list) x 5`` int64 array (states, winner, points, rolls, 1e6 x summed
    |TD error|)."""
    cdef GameRules r
    cdef GameState s0
    cdef Policy pl[2]
    cdef Record rec
    cdef Outcome res
    cdef StageEnd* ends
    cdef int failed = 0, n_trace = 0, targets_cap = 0
    cdef double err
    cdef double* targets = NULL
    cdef Py_ssize_t k, n = len(slot_list)
    cdef int64_t[::1] slot_v = np.asarray(slot_list, dtype=np.int64)
    cdef uint64_t game
    cdef const Net* taught = NULL
    if deeper and teacher is not None:
        raise ValueError("deeper and teacher are two different targets")
    if teacher is not None:
        taught = &teacher.net
    if delta.shape[1] != parameter_count(network.hidden):
        raise ValueError("delta has the wrong number of columns")
    stats = np.zeros((n, 5), dtype=np.int64)
    cdef int64_t[:, ::1] st = stats
    read_rules(rules, &r)
    memset(&s0, 0, sizeof(GameState))
    s0.phase = PH_OPENING
    s0.winner = -1
    cdef Position start = Position.from_code(START_CODE)
    s0.pos = start.pos
    pl[0].choose = pl[1].choose = choose_net         # the network plays both seats
    pl[0].context = pl[1].context = <const void*>&network.net
    ends = alloc_ends()
    rec.states = NULL
    rec.n = rec.capacity = rec.failed = 0
    try:
        with nogil:
            for k in range(n):
                if slot_v[k] < 0 or slot_v[k] >= slots:
                    failed = 2
                    break
                game = <uint64_t>batch * <uint64_t>slots + <uint64_t>slot_v[k]
                rec.n = 0
                if play_seeded(&r, &s0, pl, seed, game, ends, max_rolls, &rec, &res, NULL):
                    failed = 1
                    break
                if deeper and deeper_targets(&network.net, &r, &rec, ends, &targets,
                                             &targets_cap):
                    failed = 1
                    break
                if taught != NULL and teacher_targets(taught, &r, &rec, &targets, &targets_cap):
                    failed = 1
                    break
                if td_update(&network.net, &r, &rec, &res, alpha, lam,
                             targets if deeper or taught != NULL else NULL,
                             &delta[slot_v[k], 0], &err):
                    failed = 1
                    break
                st[k, 0] = rec.n
                put_result(&st[k, 0], &res)
                st[k, 4] = <int64_t>(err * 1e6)
    finally:
        free(ends)
        free(rec.states)
        free(targets)
    if failed == 2:
        raise ValueError(f"slots are 0..{slots - 1}")
    if failed:
        raise MemoryError("no memory for a training game")
    return stats
