# cython: language_level=3
"""The one-sided bear-off database, built natively (``gulbara.eval.bearoff`` is its API).

One side's bear-off position is its counts on its own points 1..6, at most 15
in all (the rest borne off): C(21, 6) = 54,264 positions, ranked by the
combinatorial number system (15 checkers and 6 bars in a row: the borne-off
checkers, bar 1, point 1's checkers, bar 2, ..., bar 6, point 6's checkers;
the rank is the sum of C(b_i, i) over the bars' places b_i).

For each position the database holds the distribution of the number of rolls
to bear off every checker, and the distribution of the number of rolls to bear
off the first one (for a side with all 15 on the board: RULES §7.1's mars),
each under the play that minimises that number's expectation. With every
checker home every die can be played (RULES §2.3), so a double's chain always
escalates to its 6's (RULES §4.2, §4.4: in a bear-off every side is past its
third roll) unless the game ends, and no remainder passes (RULES §5): the two
sides never interact, and a two-sided race is valued from the two one-sided
distributions (``gulbara.eval.bearoff.race_equity``).

A chain's choice is a minimum over its whole-chain outcomes. Steps of equal
dice can be taken one at a time, so that minimum is computed die by die: the
best value with ``k`` dice of number ``d`` still to play (and the chain's
later numbers after them) from position ``q`` is the best over ``q``'s legal
steps of the same value one die later. Every step lowers the pip count, so
positions are solved in rising pip order and every value a position needs is
already known. The step rule is the move generator's (``step_is_legal``,
``step_apply``): it is not written again here.
"""

import threading

import numpy as np

from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport malloc, free

from gulbara.core._types cimport Pos
from gulbara.core._movegen cimport step_is_legal, step_apply
from gulbara.core._interrupt cimport Interrupt, interrupt_init, interrupted, interrupt_raise

cdef unsigned long MAIN_THREAD = threading.main_thread().ident

cdef enum:
    HOME = 6
    CHECKERS = 15
    N_BEAROFF = 54264          # C(21, 6)
    MAX_PIPS = 90              # 15 checkers on point 6
    STAGE = 4                  # dice of one chain stage (RULES §4.2)
    N_ROLLS = 21               # the distinct rolls: 15 non-doubles, 6 doubles
    MOVES = HOME * HOME        # steps of a position: die d from point p

cdef int BINOM[22][7]          # C(n, k), n <= 21, k <= 6


cdef void fill_binom() noexcept nogil:
    cdef int n, k
    for n in range(22):
        for k in range(7):
            if k == 0:
                BINOM[n][k] = 1
            elif n == 0:
                BINOM[n][k] = 0
            else:
                BINOM[n][k] = BINOM[n - 1][k - 1] + BINOM[n - 1][k]


fill_binom()


cdef int rank_counts(const int* c) noexcept nogil:
    """The rank of counts ``c[1..6]`` (their sum at most 15); module docstring."""
    cdef int i, bar = CHECKERS, r
    for i in range(1, HOME + 1):
        bar -= c[i]
    r = BINOM[bar][1]
    for i in range(2, HOME + 1):
        bar += c[i - 1] + 1
        r += BINOM[bar][i]
    return r


cdef void race_chances(const double* dist, const double* first_dist, int length, int roller,
                       int other, double* out) noexcept nogil:
    """The chances of the side about to roll at rank ``roller`` against rank ``other``, from
    the database's rows ``dist`` and ``first_dist`` (``length`` each): ``out`` = (winning,
    winning with a mars, losing with a mars). The roller wins when it needs no more rolls than
    the other side (it rolls first); it wins a mars when it is done before the other side has
    borne off a checker, and loses one when the other side is done before it has (RULES §7.1).
    """
    cdef const double* mine = dist + <Py_ssize_t>roller * length
    cdef const double* theirs = dist + <Py_ssize_t>other * length
    cdef const double* mine_first = first_dist + <Py_ssize_t>roller * length
    cdef const double* theirs_first = first_dist + <Py_ssize_t>other * length
    cdef double win = 0.0, win_mars = 0.0, lose_mars = 0.0
    cdef double theirs_before = 0.0, theirs_first_before = 0.0, mine_first_by = 0.0
    cdef int k
    for k in range(length):                      # P(N_other >= k) = 1 - P(N_other < k)
        win += mine[k] * (1.0 - theirs_before)
        win_mars += mine[k] * (1.0 - theirs_first_before)
        theirs_before += theirs[k]
        theirs_first_before += theirs_first[k]
        mine_first_by += mine_first[k]
        lose_mars += theirs[k] * (1.0 - mine_first_by)   # P(F_roller > k)
    out[0], out[1], out[2] = win, win_mars, lose_mars


cdef double race_points(const double* dist, const double* first_dist, int length, int roller,
                        int other, bint mars) noexcept nogil:
    """The equity in points of :func:`race_chances`' chances: ``2 P(win) - 1``, plus
    ``P(win mars) - P(lose mars)`` with ``mars`` (RULES §8)."""
    cdef double c[3]
    race_chances(dist, first_dist, length, roller, other, c)
    if mars:
        return 2.0 * c[0] - 1.0 + c[1] - c[2]
    return 2.0 * c[0] - 1.0


cdef struct Board:
    int32_t step_to[N_BEAROFF][MOVES]   # die d (1..6) from point p (1..6): [(d-1)*6 + p-1]
    int32_t on_board[N_BEAROFF]
    int32_t order[N_BEAROFF]            # the positions in rising pip count


cdef void fill_board(Board* b, int32_t* counts) noexcept nogil:
    """Every position's counts (``counts[6 * q + p - 1]``, p = 1..6), its legal steps and
    the pip order."""
    cdef int c[HOME + 1]
    cdef int pips_of[N_BEAROFF]
    cdef int start[MAX_PIPS + 2]
    cdef int q, p, d, n, a1, a2, a3, a4, a5, pips
    cdef Pos pos, after
    c[0] = 0
    for a1 in range(CHECKERS + 1):
        for a2 in range(CHECKERS + 1 - a1):
            for a3 in range(CHECKERS + 1 - a1 - a2):
                for a4 in range(CHECKERS + 1 - a1 - a2 - a3):
                    for a5 in range(CHECKERS + 1 - a1 - a2 - a3 - a4):
                        for n in range(CHECKERS + 1 - a1 - a2 - a3 - a4 - a5):
                            c[1], c[2], c[3], c[4], c[5], c[6] = a1, a2, a3, a4, a5, n
                            q = rank_counts(c)
                            for p in range(1, HOME + 1):
                                counts[HOME * q + p - 1] = c[p]
    for q in range(MAX_PIPS + 2):
        start[q] = 0
    for q in range(N_BEAROFF):
        # White's checkers home, Black's 15 on its own point 6 (White's 18): nothing
        # of Black's is in White's way (RULES §1.3)
        for p in range(25):
            pos.cnt[0][p] = 0
            pos.cnt[1][p] = 0
        pos.occ[0] = 0
        pos.occ[1] = 1 << 5
        pos.cnt[1][6] = CHECKERS
        pos.off[1] = 0
        n = 0
        pips = 0
        for p in range(1, HOME + 1):
            pos.cnt[0][p] = counts[HOME * q + p - 1]
            if counts[HOME * q + p - 1]:
                pos.occ[0] |= 1 << (p - 1)
            n += counts[HOME * q + p - 1]
            pips += p * counts[HOME * q + p - 1]
        pos.off[0] = CHECKERS - n
        b.on_board[q] = n
        pips_of[q] = pips
        start[pips + 1] += 1
        for d in range(1, HOME + 1):
            for p in range(1, HOME + 1):
                if step_is_legal(&pos, 0, p, d):
                    after = pos
                    step_apply(&after, 0, p, d)
                    for a1 in range(1, HOME + 1):
                        c[a1] = after.cnt[0][a1]
                    b.step_to[q][(d - 1) * HOME + p - 1] = rank_counts(c)
                else:
                    b.step_to[q][(d - 1) * HOME + p - 1] = -1
    for q in range(1, MAX_PIPS + 2):
        start[q] += start[q - 1]
    for q in range(N_BEAROFF):
        b.order[start[pips_of[q]]] = q
        start[pips_of[q]] += 1


cdef struct Best:
    double value               # expected rolls after the turn
    int32_t end                # the turn's end position


cdef struct Solver:
    Best one[N_BEAROFF][HOME]                 # one die d, then the turn ends
    Best chain[N_BEAROFF][HOME][STAGE]        # k + 1 dice of d left, then d + 1 .. 6


cdef inline bint is_done(const Board* b, int q, bint first_off) noexcept nogil:
    """The counted event has happened at ``q``: all off, or (first_off) one off."""
    return b.on_board[q] < CHECKERS if first_off else b.on_board[q] == 0


cdef enum:
    THEN_CHAIN = -1            # best_step's ``then``: the chain goes on
    THEN_NOTHING = 0           # the turn ends


cdef inline Best best_step(const Board* b, const Solver* sv, const double* mean, int q, int d,
                           int left, int then, bint first_off) noexcept nogil:
    """The best legal step with die ``d`` from ``q`` (higher points first on a tie), valued by
    what follows it: ``then`` THEN_NOTHING (the turn ends), a die 1..6 (one more die, then
    the turn ends) or THEN_CHAIN (``left`` more dice of ``d``, then the chain's next
    number)."""
    cdef Best best, v
    cdef int p, r
    best.value = 1e300
    best.end = -1
    for p in range(HOME, 0, -1):
        r = b.step_to[q][(d - 1) * HOME + p - 1]
        if r < 0:
            continue
        if is_done(b, r, first_off):
            v.value = 0.0
            v.end = r
        elif then > 0:
            v = sv.one[r][then - 1]
        elif then == THEN_NOTHING or (left == 0 and d == HOME):
            v.value = mean[r]
            v.end = r
        elif left > 0:
            v = sv.chain[r][d - 1][left - 1]
        else:
            v = sv.chain[r][d][STAGE - 1]
        if v.value < best.value:
            best = v
    return best


cdef int solve(const Board* b, Solver* sv, bint first_off, double* mean, double* dist,
               int length, Interrupt* intr) noexcept nogil:
    """Fill ``mean`` and ``dist`` (``length`` entries a position: P(k rolls)); 0, -1 when
    some position needs more than ``length - 1`` rolls, or -2 when interrupted (Ctrl-C)."""
    cdef int i, q, d, k, a, hi, r, t
    cdef Best roll[N_ROLLS]
    cdef Best v, w
    cdef double prob, total
    cdef double* row
    for i in range(N_BEAROFF):
        if interrupted(intr, <uint64_t>length):
            return -2
        q = b.order[i]
        row = &dist[<Py_ssize_t>q * length]
        for k in range(length):
            row[k] = 0.0
        if is_done(b, q, first_off):
            mean[q] = 0.0
            row[0] = 1.0
            continue
        for d in range(1, HOME + 1):
            sv.one[q][d - 1] = best_step(b, sv, mean, q, d, 0, THEN_NOTHING, first_off)
        for d in range(HOME, 0, -1):
            for k in range(STAGE):
                sv.chain[q][d - 1][k] = best_step(b, sv, mean, q, d, k, THEN_CHAIN, first_off)
        t = 0
        for hi in range(2, HOME + 1):        # two different dice, either one first (RULES §3.2)
            for a in range(1, hi):
                w.value = 1e300
                w.end = -1
                for r in range(2):
                    d = hi if r == 0 else a
                    v = best_step(b, sv, mean, q, d, 0, a if r == 0 else hi, first_off)
                    if v.value < w.value:
                        w = v
                roll[t] = w
                t += 1
        for d in range(1, HOME + 1):
            roll[t] = sv.chain[q][d - 1][STAGE - 1]
            t += 1
        total = 1.0
        for t in range(N_ROLLS):
            prob = (2.0 if t < N_ROLLS - HOME else 1.0) / 36.0
            total += prob * roll[t].value
            if dist[<Py_ssize_t>roll[t].end * length + length - 1] != 0.0:
                return -1
            for k in range(1, length):
                row[k] += prob * dist[<Py_ssize_t>roll[t].end * length + k - 1]
        mean[q] = total
    return 0


def build(int length=32):
    """``(counts, mean, dist, first_mean, first_dist)``: each position's counts (N x 6,
    own points 1..6), the rolls to bear off all (mean, N x length distribution) and the
    first checker (the same; 0 rolls when one is already off). Raises ``ValueError``
    when ``length`` rolls are not enough."""
    if length < 2 or length > 4096:
        raise ValueError(f"length must be at least 2 and at most 4096, got {length}")
    counts = np.zeros((N_BEAROFF, HOME), dtype=np.int32)
    mean = np.zeros(N_BEAROFF)
    dist = np.zeros((N_BEAROFF, length))
    first_mean = np.zeros(N_BEAROFF)
    first_dist = np.zeros((N_BEAROFF, length))
    cdef int32_t[:, ::1] counts_v = counts
    cdef double[::1] mean_v = mean, first_mean_v = first_mean
    cdef double[:, ::1] dist_v = dist, first_dist_v = first_dist
    cdef Board* board = <Board*>malloc(sizeof(Board))
    cdef Solver* solver = <Solver*>malloc(sizeof(Solver))
    cdef int failed = 0
    cdef Interrupt intr
    if board == NULL or solver == NULL:
        free(board)
        free(solver)
        raise MemoryError("no memory for the bear-off database")
    interrupt_init(&intr, 1 << 16, MAIN_THREAD)
    try:
        with nogil:
            fill_board(board, &counts_v[0, 0])
            failed = solve(board, solver, False, &mean_v[0], &dist_v[0, 0], length, &intr)
            if not failed:
                failed = solve(board, solver, True, &first_mean_v[0], &first_dist_v[0, 0],
                               length, &intr)
    finally:
        free(board)
        free(solver)
    interrupt_raise(&intr)                  # Ctrl-C during the build
    if failed:
        raise ValueError(f"some bear-off needs more than {length - 1} rolls")
    return counts, mean, dist, first_mean, first_dist


def ranks(const int32_t[:, ::1] counts not None):
    """The rank of each row of six counts (own points 1..6, at most 15 in all), as int64;
    ValueError naming the first bad row."""
    cdef Py_ssize_t i, n = counts.shape[0]
    cdef int c[HOME + 1]
    cdef int p, total
    if counts.shape[1] != HOME:
        raise ValueError(f"a bear-off position has 6 counts, got {counts.shape[1]}")
    out = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] out_v = out
    c[0] = 0
    for i in range(n):
        total = 0
        for p in range(HOME):
            c[p + 1] = counts[i, p]
            if c[p + 1] < 0:
                raise ValueError(f"counts must be >= 0, got {list(counts[i])}")
            total += c[p + 1]
        if total > CHECKERS:
            raise ValueError(f"at most 15 checkers, got {total} in {list(counts[i])}")
        out_v[i] = rank_counts(c)
    return out


def chances(const double[:, ::1] dist not None, const double[:, ::1] first_dist not None,
            int roller, const int64_t[::1] others not None):
    """The chances (:func:`race_chances`) of the side about to roll at rank ``roller``
    against each rank of ``others``, an ``N x 3`` float64 array; the ranks already checked."""
    cdef Py_ssize_t i, n = others.shape[0]
    cdef int length = <int>dist.shape[1]
    out = np.empty((n, 3), dtype=np.float64)
    cdef double[:, ::1] view = out
    if first_dist.shape[1] != length or first_dist.shape[0] != dist.shape[0]:
        raise ValueError("dist and first_dist must have the same shape")
    for i in range(n):
        if not (0 <= roller < dist.shape[0] and 0 <= others[i] < dist.shape[0]):
            raise ValueError(f"ranks must be 0..{dist.shape[0] - 1}")
    with nogil:
        for i in range(n):
            race_chances(&dist[0, 0], &first_dist[0, 0], length, roller, <int>others[i],
                         &view[i, 0])
    return out
