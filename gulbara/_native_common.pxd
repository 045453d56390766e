# cython: language_level=3
"""What the native self-play (``_selfplay.pyx``) and the native vector env (``_vector.pyx``)
share: the splitmix64 step (public-domain algorithm) and the greedy heuristic
(``gulbara.bots.greedy_score`` is the same function in Python)."""

from libc.stdint cimport uint32_t, uint64_t

from gulbara._bits cimport bit_length, popcount
from gulbara._masks cimport rotate12
from gulbara._types cimport Pos


cdef inline uint64_t splitmix64(uint64_t* x) noexcept nogil:
    cdef uint64_t z
    x[0] += <uint64_t>0x9E3779B97F4A7C15ULL
    z = x[0]
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EBULL
    return z ^ (z >> 31)



cdef inline int longest_run(uint32_t m) noexcept nogil:
    cdef int n = 0
    while m:
        m &= m << 1
        n += 1
    return n


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

    ``gulbara.bots.greedy_score`` is the same function in Python.
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
