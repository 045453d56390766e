# cython: language_level=3
"""The gb1 inputs of a game state, inline (this file is the implementation): the layout
(docs/user/bots.md lists the inputs), the sparse inputs, the encoder, and the changes of a
point's inputs as its count changes, which the stage chooser (``_choose.pyx``) adds up.

Every module that encodes states compiles the encoder in: its functions are inline and its
one table (``RATIO``) is made by the C compiler, so nothing is shared at run time and no
call leaves the module. ``_inputs.pyx`` is the Python face (``encode_game``)."""

from libc.stdint cimport uint32_t, uint64_t

from gulbara.core._bits cimport bit_length, popcount
from gulbara.core._masks cimport rotate12
from gulbara.core._types cimport Pos
from gulbara.game._state cimport GameRules, GameState, PH_STAGE, K_PLAIN, K_CHAIN, escalates
from gulbara.eval._greedy cimport longest_run

# The input layout gb1 (docs/user/bots.md).
cdef enum:
    IN_OWN = 0                 # 96: the player's points 1..24, own numbering, 4 units each
    IN_OPP = 96                # 96: the opponent's checkers on the player's numbering
    IN_OFF = 192               # 2: borne off / 15 (player, opponent)
    IN_PIPS = 194              # 2: pip counts / 360
    IN_BLOCKS = 196            # 4: player's points ahead of the opponent's rearmost / 6,
                               #    its longest run / 6, the same for the opponent
    IN_ESCALATES = 200         # 2: the side's next roll escalates (RULES §4.2)
    IN_PENDING = 202           # 6: dice of each number 1..6 the player plays before the next roll / 4
    IN_PENDING_CHAIN = 208     # 1: those dice are the rest of the player's own chain
    N_IN = 209
    N_REST = 17                # the inputs from IN_OFF on

cdef enum:
    N_HEAD = IN_ESCALATES - IN_OFF     # the inputs from IN_OFF on that the position gives
    N_TAIL = N_REST - N_HEAD           # and those that what follows in the turn gives

ctypedef struct Sparse:
    int n
    int idx[N_IN]
    float val[N_IN]

cdef enum:                     # the denominators of the inputs from IN_OFF on
    BY_15 = 0
    BY_360 = 1
    BY_6 = 2
    BY_4 = 3
    RATIO_MAX = 360            # no numerator exceeds it (15 checkers on point 24)

cdef extern from *:
    """
    #ifndef GULBARA_NET_INPUTS_DEFINED
    #define GULBARA_NET_INPUTS_DEFINED
    #include <stdint.h>
    #if defined(__SSE2__) && !defined(GULBARA_NO_SIMD)
    #include <emmintrin.h>
    #define GULBARA_INPUTS_SSE2 1
    #endif
    #if defined(__GNUC__) || defined(__clang__)
    #define GULBARA_INPUTS_MAYBE_UNUSED __attribute__((unused))
    #else
    #define GULBARA_INPUTS_MAYBE_UNUSED
    #endif

    /* gulbara_ratio[k][n]: n = 0 .. 360 over the k-th denominator (15, 360, 6, 4), divided
       in double and rounded to float, as the same division at run time gives it (the
       compiler rounds its constants correctly): every module has the table from its start. */
    #define GULBARA_Q1(n, d) (float)((double)(n) / (d))
    #define GULBARA_Q4(n, d) GULBARA_Q1(n, d), GULBARA_Q1((n) + 1, d), GULBARA_Q1((n) + 2, d), \\
                             GULBARA_Q1((n) + 3, d)
    #define GULBARA_Q16(n, d) GULBARA_Q4(n, d), GULBARA_Q4((n) + 4, d), GULBARA_Q4((n) + 8, d), \\
                              GULBARA_Q4((n) + 12, d)
    #define GULBARA_Q64(n, d) GULBARA_Q16(n, d), GULBARA_Q16((n) + 16, d), \\
                              GULBARA_Q16((n) + 32, d), GULBARA_Q16((n) + 48, d)
    #define GULBARA_Q256(n, d) GULBARA_Q64(n, d), GULBARA_Q64((n) + 64, d), \\
                               GULBARA_Q64((n) + 128, d), GULBARA_Q64((n) + 192, d)
    #define GULBARA_Q361(d) {GULBARA_Q256(0, d), GULBARA_Q64(256, d), GULBARA_Q16(320, d), \\
                             GULBARA_Q16(336, d), GULBARA_Q4(352, d), GULBARA_Q4(356, d), \\
                             GULBARA_Q1(360, d)}
    static const float gulbara_ratio[4][361] GULBARA_INPUTS_MAYBE_UNUSED = {
        GULBARA_Q361(15.0), GULBARA_Q361(360.0), GULBARA_Q361(6.0), GULBARA_Q361(4.0)};

    /* The changes of one point's four inputs when its count goes from c0 to c1
       (put_point_change; the stage chooser's table POINT_CHANGE[c0][c1]): n entries, the
       units among 0..3 in order and by how much; zeros from n on. */
    typedef struct {
        int n;
        int unit[4];
        float val[4];
    } gulbara_point_change;

    /* gulbara_low_bit64 (the index of a 64-bit mask's lowest set bit) comes from
       _bits.pxd, whose code every module that cimports this file has before it. */
    #ifndef GULBARA_BITS_DEFINED
    #error "_inputs.pxd needs _bits.pxd's helpers (cimport gulbara.core._bits first)"
    #endif

    /* Bit i set for each nonzero four-bit nibble i of ``d``. */
    static inline uint32_t gulbara_nibbles_set(uint64_t d) {
        d = d | (d >> 1);
        d = (d | (d >> 2)) & 0x1111111111111111ULL;
        d = (d | (d >> 3)) & 0x0303030303030303ULL;
        d = (d | (d >> 6)) & 0x000F000F000F000FULL;
        d = (d | (d >> 12)) & 0x000000FF000000FFULL;
        return (uint32_t)((d | (d >> 24)) & 0xFFFF);
    }

    /* Append to the n entries of idx, val the changes of the inputs of each point p whose
       count differs between the packed counts ``was`` and ``now`` (_types.pxd's Key96 as
       two words: point p in bits 4 (p - 1) % 64 of word (p - 1) / 16), points in order:
       table[c0 * 16 + c1]'s entries, their units after first[p]. Adds the checkers that
       came onto the points to *moved_in and their pips (p each) to *pips, and sets bit p - 1
       of *occ when point p ends occupied, else clears it. Returns the new count; writes up
       to 4 entries past it. */
    static inline int gulbara_point_changes(const uint64_t* was, const uint64_t* now,
                                            const int* first, const gulbara_point_change* table,
                                            int* idx, float* val, int n, int* moved_in,
                                            int* pips, uint32_t* occ) {
        uint32_t changed = gulbara_nibbles_set(was[0] ^ now[0])
                           | (gulbara_nibbles_set(was[1] ^ now[1]) << 16);
        uint32_t o = *occ;
        int moved = 0, dp = 0;
        while (changed) {
            int b = gulbara_low_bit64(changed), shift = 4 * (b & 15);
            int c0 = (int)((was[b >> 4] >> shift) & 15), c1 = (int)((now[b >> 4] >> shift) & 15);
            const gulbara_point_change* pc = table + 16 * c0 + c1;
            int u;
            changed &= changed - 1;
    #ifdef GULBARA_INPUTS_SSE2
            _mm_storeu_si128((__m128i*)(idx + n),
                             _mm_add_epi32(_mm_set1_epi32(first[b + 1]),
                                           _mm_loadu_si128((const __m128i*)pc->unit)));
            _mm_storeu_ps(val + n, _mm_loadu_ps(pc->val));
    #else
            for (u = 0; u < 4; u++) {
                idx[n + u] = first[b + 1] + pc->unit[u];
                val[n + u] = pc->val[u];
            }
    #endif
            (void)u;
            n += pc->n;
            moved += c1 - c0;
            dp += (b + 1) * (c1 - c0);
            o = (o & ~((uint32_t)1 << b)) | ((uint32_t)(c1 != 0) << b);
        }
        *moved_in += moved;
        *pips += dp;
        *occ = o;
        return n;
    }
    #endif
    """
    # RATIO[k][n]: n over the k-th denominator, divided in double and rounded to float
    const float RATIO "gulbara_ratio"[4][RATIO_MAX + 1]
    ctypedef struct PointChange "gulbara_point_change":
        int n                  # the units that change, in order
        int unit[4]
        float val[4]
    int gulbara_point_changes(const uint64_t* was, const uint64_t* now, const int* first,
                              const PointChange* table, int* idx, float* val, int n,
                              int* moved_in, int* pips, uint32_t* occ) noexcept nogil


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


cdef inline void rest_tail(const GameRules* r, const GameState* s, float* f) noexcept nogil:
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


cdef inline void rest_dense(const GameRules* r, const GameState* s, int pips_me, int pips_op,
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


cdef inline void encode(const GameRules* r, const GameState* s, Sparse* x) noexcept nogil:
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
