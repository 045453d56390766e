# cython: language_level=3
"""The greedy policy's score (greedy_score), and its per-end form from a
stage's start and an end's canonical steps (greedy_score_end); the Python twin
is ``gulbara.eval.greedy.greedy_score``. Shared by self-play, the network's modules
and the native vector env; inline C (this file is the implementation)."""

from libc.stdint cimport uint8_t, uint32_t, uint64_t

from gulbara.core._bits cimport bit_length, popcount
from gulbara.core._masks cimport rotate12
from gulbara.core._types cimport Pos, StageEnd
from gulbara.game._state cimport GameRules, GameState
from gulbara.game._rng cimport Rng


cdef inline int longest_run(uint32_t m) noexcept nogil:
    """The longest run of set bits of ``m`` (below bit 31), without a data-dependent loop.

    ``at[k]`` has bit i set where bits i - 2**k + 1 .. i are all set; the run is
    found from the longest power of two down, ``ends`` keeping the bits where a
    run of ``n`` ends (each step a conditional move, not a jump)."""
    cdef uint64_t at[5]
    cdef uint64_t ends = m, t
    cdef int k, n = 1
    at[0] = m
    for k in range(1, 5):
        at[k] = at[k - 1] & (at[k - 1] << (1 << (k - 1)))
    for k in range(4, -1, -1):
        t = ends & (at[k] << n)
        if t:
            ends = t
            n += 1 << k
    return n if m != 0 else 0


cdef inline int greedy_score(const Pos* p, int seat, bint ends_game) noexcept nogil:
    """The greedy policy's score of an end position ``p`` for its mover ``seat``.

    A play that ends the game scores 1,000,000. Otherwise, with the mover's
    own numbering (RULES §1.2-1.3)::

        - 4 x pips                 (the mover's pip count: progress)
        + 3 x held                 (points the mover holds: RULES §2.2, a
                                    single checker holds a point)
        + 4 x blocks               (held points still in front of the
                                    opponent's rearmost checker)
        + 6 x prime                (the longest run of such points in a row)
        + 2 x home                 (checkers on points 1..6 or borne off)

    ``gulbara.eval.greedy.greedy_score`` is the same function in Python.
    """
    cdef int o = 1 - seat, q, pips = 0, home
    cdef uint32_t mine_in_theirs, ahead
    cdef int back
    if ends_game:
        return 1000000
    for q in range(1, 25):
        pips += q * p.cnt[seat][q]
    home = p.off[seat]
    for q in range(1, 7):
        home += p.cnt[seat][q]
    back = bit_length(p.occ[o])            # the opponent's rearmost point, its numbering
    mine_in_theirs = rotate12(p.occ[seat])
    ahead = mine_in_theirs & ((<uint32_t>1 << (back - 1)) - 1) if back > 0 else 0
    return (-4 * pips + 3 * popcount(p.occ[seat]) + 4 * popcount(ahead)
            + 6 * longest_run(ahead) + 2 * home)


ctypedef struct GreedyBase:
    # what the score needs of the stage's start, to score each end from its steps
    uint8_t cnt[25]
    uint32_t occ
    int pips
    int home
    uint32_t ahead_mask        # the opponent's points (its numbering) ahead of its rearmost


cdef inline void greedy_base(GreedyBase* b, const Pos* p, int seat) noexcept nogil:
    cdef int q, back = bit_length(p.occ[1 - seat])
    b.pips = 0
    b.home = p.off[seat]
    for q in range(25):
        b.cnt[q] = p.cnt[seat][q]
    for q in range(1, 25):
        b.pips += q * p.cnt[seat][q]
    for q in range(1, 7):
        b.home += p.cnt[seat][q]
    b.occ = p.occ[seat]
    b.ahead_mask = ((<uint32_t>1 << (back - 1)) - 1) if back > 0 else 0


cdef inline int greedy_score_end(const GreedyBase* b, const StageEnd* e) noexcept nogil:
    cdef uint8_t cnt[25]
    cdef uint32_t occ = b.occ, ahead
    cdef int pips = b.pips, home = b.home, k, frm, die, to
    if e.ends_game:
        return 1000000
    for k in range(25):
        cnt[k] = b.cnt[k]
    for k in range(e.n_steps):
        frm = e.steps[k].frm
        die = e.steps[k].die
        cnt[frm] -= 1
        if cnt[frm] == 0:
            occ &= ~(<uint32_t>1 << (frm - 1))
        to = frm - die
        if to >= 1:
            pips -= die
            cnt[to] += 1
            occ |= <uint32_t>1 << (to - 1)
            if frm > 6 and to <= 6:
                home += 1
        else:
            pips -= frm                        # borne off (already home)
    ahead = rotate12(occ) & b.ahead_mask
    return (-4 * pips + 3 * popcount(occ) + 4 * popcount(ahead)
            + 6 * longest_run(ahead) + 2 * home)


cdef inline int greedy_choose(const Pos* p, int seat, const StageEnd* ends, int n_ends) noexcept nogil:
    """The greedy policy's end: the highest score, the first on a tie."""
    cdef GreedyBase base
    cdef int i, best = 0, score, best_score = 0
    greedy_base(&base, p, seat)
    for i in range(n_ends):
        score = greedy_score_end(&base, &ends[i])
        if i == 0 or score > best_score:
            best, best_score = i, score
    return best


cdef inline int choose_greedy(const void* context, const GameRules* r, const GameState* s,
                              const StageEnd* ends, int n_ends, Rng* rng) noexcept nogil:
    """The greedy policy (a chooser of ``gulbara/game/_playloop.pxd``): greedy_choose."""
    if n_ends == 1:
        return 0
    return greedy_choose(&s.pos, s.seat, ends, n_ends)
