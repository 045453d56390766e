# cython: language_level=3
"""Stage ends for many (position, dice) requests in one call (the batch core).

The Python API is ``gulbara.core.batch``; this module is its compiled loop. One
call reads numpy arrays (typed memoryviews) and, with the GIL released, checks
each row, enumerates its stage with ``stage_generate`` of the ``_movegen.pxd``
contract into a small scratch that stays in cache, and decodes the ends
straight into the output arrays. Those are numpy arrays sized for this call
alone (nothing is shared between threads): they start at the size that rows
sampled evenly over the batch project (or, when that sample agrees within a
factor of two, the ends per row of the thread's last batch), and when they fill up the loop stops, they grow (with the GIL: new arrays, the
ends so far copied) to the need projected from the rows done so far (beyond 2M
ends at most twice their size, never beyond what the rows left can hold),
and the loop goes on; at the end they are cut to the exact size the same way. The loop
looks for a pending Ctrl-C every few thousand ends (``_interrupt.pxd``).

Layout (N requests, M ends in all; request ``i`` owns ends
``offsets[i]:offsets[i + 1]``, in canonical order, RULES §3.8):

* per request: ``counts`` (N, int32), ``playable`` (N, uint8), ``offsets``
  (N + 1, int64);
* per end: ``end_boards`` (M x 24, int8, White's numbering, + White, - Black),
  ``end_borne_off`` (M x 2, uint8), ``end_game`` (M, bool) and, unless only the
  afterstates are asked for, ``end_steps`` (M x 4 x 2, uint8, (from, die) in the
  mover's numbering, zero-padded) and ``end_n_steps`` (M, uint8).

A bad row stops the loop; the call returns ``(row, problem, detail)`` and
``gulbara.core.batch`` turns it into an exception that names the row.

>>> import numpy as np
>>> boards = np.zeros((1, 24), np.int8); boards[0, 23] = 15; boards[0, 11] = -15
>>> out = stage_ends_batch(boards, np.zeros((1, 2), np.uint8), True,
...                        np.zeros(1, np.uint8), np.array([[6, 5, 0, 0]], np.uint8), True)
>>> out[0], out[1].tolist(), out[2].tolist(), out[6][0].tolist()
(None, [2], [2], [[24, 6], [24, 5], [0, 0], [0, 0]])
"""

from libc.stdint cimport uint8_t, int8_t, int32_t, int64_t, uint32_t, uint64_t
from libc.stdlib cimport malloc, free
from libc.string cimport memset, memcpy
from cpython.buffer cimport PyObject_GetBuffer, PyBuffer_Release, PyBUF_ANY_CONTIGUOUS

from gulbara.core._types cimport (Pos, Step, Key96, StageEnd, N_POINTS, N_CHECKERS, MAX_STAGE_DICE,
                             STAGE_CAPACITY)
from gulbara.core._keys cimport key_outside
from gulbara.core._movegen cimport stage_generate_key
from gulbara.core._rows cimport read_board, BAD_SEAT, BAD_POINT, BAD_OFF, BAD_TOTAL
from gulbara.core._interrupt cimport Interrupt, interrupt_init, interrupted, interrupt_raise

import threading

import numpy as np

# Only the main thread runs signal handlers (_interrupt.pxd).
cdef unsigned long MAIN_THREAD = threading.main_thread().ident

# Per thread: the ends per row of its last batch (a hint, bounded by each call's sample).
_last = threading.local()

# Problems a row can have; gulbara.core.batch maps them to messages and error classes.
cdef enum:
    # BAD_SEAT = 1, BAD_POINT = 2, BAD_OFF = 3, BAD_TOTAL = 4 of _rows.pxd: seat not 0
    # or 1 (detail: -), a point holds more than 15 checkers (detail: point 1..24), a
    # borne-off count above 15 (detail: seat), board + borne off != 15 (detail: seat)
    BAD_DIE = 5          # a die above 6                         (detail: column)
    BAD_NO_DICE = 6      # no die in the row                     (detail: -)
    BAD_GAP = 7          # a die after a zero                    (detail: column)
    BAD_UNEQUAL = 8      # three or four dice not all equal      (detail: -)
    FULL = 9             # the output arrays are full: grow them and go on

PROBLEMS = {BAD_SEAT: "seat", BAD_POINT: "point", BAD_OFF: "off", BAD_TOTAL: "total",
            BAD_DIE: "die", BAD_NO_DICE: "no_dice", BAD_GAP: "gap", BAD_UNEQUAL: "unequal"}

cdef enum:
    # The scratch one stage is generated into: SMALL_SCRATCH ends at first (a
    # usual stage has tens); a stage with more is generated again into
    # SCRATCH, which holds every stage (STAGE_CAPACITY of _types.pxd).
    SMALL_SCRATCH = 1024
    SCRATCH = STAGE_CAPACITY
    MIN_CAPACITY = 64
    FIRST_PER_ROW = 16       # ends per row at first for a batch too small to sample
    SAMPLE_EVERY = 64        # one row in this many (at most MAX_SAMPLES) sizes the output
    MAX_SAMPLES = 32
    FREE_GROWTH = 2097152    # up to this many ends (72 MiB) the arrays grow to the projection
    NO_MEMORY = 10       # a scratch could not grow (with the BAD_* codes)
    INTERRUPTED = 11     # a signal handler raised (Ctrl-C): stop
    CHECK_EVERY = 16384  # ends written between two looks at pending signals


# ---------------------------------------------------------------------------
# One row: check it, build the position, decode the ends
# ---------------------------------------------------------------------------

cdef inline int read_row(const int8_t* board, const uint8_t* off, bint derive_off, int seat,
                         const uint8_t* dice_row, Pos* p, uint8_t* dice, int* n_dice,
                         int* detail) noexcept nogil:
    """Check one request (RULES §1.1, §3.1, §9.1) and read it; 0 or a BAD_* code."""
    cdef int err
    if seat != 0 and seat != 1:
        detail[0] = 0
        return BAD_SEAT
    err = read_board(board, off, derive_off, p, detail)
    if err:
        return err
    return read_stage_dice(dice_row, dice, n_dice, detail)


cdef inline int read_stage_dice(const uint8_t* dice_row, uint8_t* dice, int* n_dice,
                                int* detail) noexcept nogil:
    """The dice of a row (RULES §3.1), larger first: the leading non-zero columns, then
    zeros only; 0 or a BAD_* code."""
    cdef int k, n = 0
    cdef uint8_t a
    for k in range(MAX_STAGE_DICE):
        a = dice_row[k]
        if a > 6:
            detail[0] = k
            return BAD_DIE
        if a == 0:
            continue
        if n != k:
            detail[0] = k
            return BAD_GAP
        dice[n] = a
        n += 1
    if n == 0:
        return BAD_NO_DICE
    if n == 2:
        if dice[0] < dice[1]:
            a = dice[0]
            dice[0] = dice[1]
            dice[1] = a
    else:
        for k in range(1, n):
            if dice[k] != dice[0]:
                return BAD_UNEQUAL
    n_dice[0] = n
    return 0


cdef extern from *:
    """
    /* One request row and one end position, a whole board at a time: with
       SSE2 (every x86-64) 16 points per instruction, else plain 64-bit words.
       Define GULBARA_NO_SIMD to build the plain version on x86-64 too. */
    #if defined(__SSE2__) && (defined(__x86_64__) || defined(_M_X64)) && !defined(GULBARA_NO_SIMD)
    #define GULBARA_SSE2 1
    #include <emmintrin.h>
    #else
    #define GULBARA_SSE2 0
    #endif
    #include <string.h>

    /* A request's board, read once: the mover's packed key (own numbering,
       as Key96), its occupancy, the opponent's points in the mover's
       numbering, the checkers each side has on the board, and the
       opponent's signed counts in White's numbering (the fixed part of
       every end's board). */
    typedef struct {
        uint64_t lo, hi;
        uint32_t mine, blocked;
        int on_board[2];          /* White's, Black's */
        int8_t base[24];
    } gulbara_row;

    static inline uint32_t gulbara_rotate12(uint32_t m) {
        return ((m << 12) | (m >> 12)) & 0xFFFFFFu;
    }

    /* A key over White's numbering as the same side's key over Black's
       numbering, and back (RULES 1.3: a rotation by 12 points, 48 bits). */
    static inline void gulbara_rotate_key(uint64_t lo, uint64_t hi, uint64_t* rlo, uint64_t* rhi) {
        *rlo = (lo >> 48) | (hi << 16) | (lo << 48);
        *rhi = (lo >> 16) & 0xFFFFFFFFull;
    }

    #if GULBARA_SSE2
    static inline uint64_t gulbara_pack_nibbles(__m128i a, __m128i b, uint64_t* hi) {
        /* 24 counts (bytes, < 16) as 24 nibbles: bytes 2j, 2j + 1 -> byte j */
        __m128i m = _mm_set1_epi16(0xFF);
        __m128i pa = _mm_and_si128(_mm_or_si128(a, _mm_srli_epi16(a, 4)), m);
        __m128i pb = _mm_and_si128(_mm_or_si128(b, _mm_srli_epi16(b, 4)), m);
        __m128i p = _mm_packus_epi16(pa, pb);
        *hi = (uint64_t)_mm_cvtsi128_si64(_mm_srli_si128(p, 8));
        return (uint64_t)_mm_cvtsi128_si64(p);
    }

    static inline int gulbara_byte_sum(__m128i a, __m128i b) {
        __m128i s = _mm_sad_epu8(_mm_add_epi8(a, b), _mm_setzero_si128());
        return _mm_cvtsi128_si32(s) + _mm_cvtsi128_si32(_mm_srli_si128(s, 8));
    }
    #endif

    /* Read a board row for ``seat``; 0, or 1 when a point holds more than 15. */
    static inline int gulbara_row_read(const int8_t* board, int seat, gulbara_row* r) {
        uint64_t wlo, whi, blo, bhi;
        uint32_t occ_w, occ_b;
    #if GULBARA_SSE2
        __m128i z = _mm_setzero_si128();
        __m128i a, b, gta, gtb, lta, ltb, wa, wb, ka, kb;
        memcpy(&wlo, board + 16, 8);
        a = _mm_loadu_si128((const __m128i*)board);               /* points 1..16 */
        b = _mm_cvtsi64_si128((long long)wlo);                    /* points 17..24 */
        gta = _mm_cmpgt_epi8(a, z);
        gtb = _mm_cmpgt_epi8(b, z);
        lta = _mm_cmpgt_epi8(z, a);
        ltb = _mm_cmpgt_epi8(z, b);
        wa = _mm_and_si128(a, gta);                               /* White's counts */
        wb = _mm_and_si128(b, gtb);
        ka = _mm_and_si128(_mm_sub_epi8(z, a), lta);              /* Black's, White's numbering */
        kb = _mm_and_si128(_mm_sub_epi8(z, b), ltb);
        if (_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_subs_epu8(_mm_or_si128(wa, ka), _mm_set1_epi8(15)), z)) != 0xFFFF
            || _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_subs_epu8(_mm_or_si128(wb, kb), _mm_set1_epi8(15)), z)) != 0xFFFF)
            return 1;
        occ_w = (uint32_t)_mm_movemask_epi8(gta) | ((uint32_t)_mm_movemask_epi8(gtb) << 16);
        occ_b = (uint32_t)_mm_movemask_epi8(lta) | ((uint32_t)_mm_movemask_epi8(ltb) << 16);
        r->on_board[0] = gulbara_byte_sum(wa, wb);
        r->on_board[1] = gulbara_byte_sum(ka, kb);
        wlo = gulbara_pack_nibbles(wa, wb, &whi);
        blo = gulbara_pack_nibbles(ka, kb, &bhi);
        if (seat == 0) {
            _mm_storeu_si128((__m128i*)r->base, _mm_and_si128(a, lta));
            _mm_storel_epi64((__m128i*)(r->base + 16), _mm_and_si128(b, ltb));
        } else {
            _mm_storeu_si128((__m128i*)r->base, wa);
            _mm_storel_epi64((__m128i*)(r->base + 16), wb);
        }
    #else
        int q, v;
        wlo = whi = blo = bhi = 0;
        occ_w = occ_b = 0;
        r->on_board[0] = r->on_board[1] = 0;
        for (q = 0; q < 24; q++) {
            v = board[q];
            if (v > 15 || v < -15)
                return 1;
            if (v > 0) {
                occ_w |= (uint32_t)1 << q;
                r->on_board[0] += v;
                if (q < 16) wlo |= (uint64_t)v << (4 * q); else whi |= (uint64_t)v << (4 * (q - 16));
            } else if (v < 0) {
                occ_b |= (uint32_t)1 << q;
                r->on_board[1] -= v;
                if (q < 16) blo |= (uint64_t)(-v) << (4 * q); else bhi |= (uint64_t)(-v) << (4 * (q - 16));
            }
            r->base[q] = (int8_t)((seat == 0) ? (v < 0 ? v : 0) : (v > 0 ? v : 0));
        }
    #endif
        if (seat == 0) {
            r->lo = wlo;
            r->hi = whi;
            r->mine = occ_w;
            r->blocked = occ_b;
        } else {
            gulbara_rotate_key(blo, bhi, &r->lo, &r->hi);
            r->mine = gulbara_rotate12(occ_b);
            r->blocked = gulbara_rotate12(occ_w);
        }
        return 0;
    }

    /* Write the board of the end with mover key (lo, hi) in White's numbering
       (+ White, - Black) at dst; return the mover's checkers on the board when
       ``count`` (else 0). The mover never shares a point with the opponent
       (RULES 2.2), so OR-ing its signed counts into the base adds them. */
    static inline int gulbara_end_board(int8_t* dst, const gulbara_row* r, uint64_t lo,
                                        uint64_t hi, int seat, int count) {
        uint64_t wlo = lo, whi = hi;
        if (seat)
            gulbara_rotate_key(lo, hi, &wlo, &whi);
    #if GULBARA_SSE2
        {
            __m128i z = _mm_setzero_si128(), m = _mm_set1_epi8(0x0F);
            __m128i x = _mm_set_epi64x((long long)whi, (long long)wlo);
            __m128i l = _mm_and_si128(x, m), h = _mm_and_si128(_mm_srli_epi16(x, 4), m);
            __m128i c0 = _mm_unpacklo_epi8(l, h), c1 = _mm_unpackhi_epi8(l, h);
            int total = count ? gulbara_byte_sum(l, h) : 0;
            if (seat) {
                c0 = _mm_sub_epi8(z, c0);
                c1 = _mm_sub_epi8(z, c1);
            }
            c0 = _mm_or_si128(c0, _mm_loadu_si128((const __m128i*)r->base));
            c1 = _mm_or_si128(c1, _mm_loadl_epi64((const __m128i*)(r->base + 16)));
            _mm_storeu_si128((__m128i*)dst, c0);
            _mm_storel_epi64((__m128i*)(dst + 16), c1);
            return total;
        }
    #else
        {
            int q, c, total = 0;
            for (q = 0; q < 24; q++) {
                c = (int)(((q < 16) ? (wlo >> (4 * q)) : (whi >> (4 * (q - 16)))) & 15);
                total += c;
                dst[q] = (int8_t)(r->base[q] | (seat ? -c : c));
            }
            return count ? total : 0;
        }
    #endif
    }
    """
    ctypedef struct Row "gulbara_row":
        uint64_t lo
        uint64_t hi
        uint32_t mine
        uint32_t blocked
        int on_board[2]
    int row_read "gulbara_row_read"(const int8_t* board, int seat, Row* r) noexcept nogil
    int end_board "gulbara_end_board"(int8_t* dst, const Row* r, uint64_t lo, uint64_t hi,
                                      int seat, int count) noexcept nogil


cdef inline int read_dice(const uint8_t* dice_row, uint8_t* dice, int* n_dice) noexcept nogil:
    """The dice of a row when they are a valid stage (RULES §3.1), larger first; else -1."""
    cdef int detail
    return -1 if read_stage_dice(dice_row, dice, n_dice, &detail) else 0


# The output arrays of one call, as raw pointers (re-read after every resize).
ctypedef struct Out:
    int8_t* boards        # 24 per end
    uint8_t* borne_off    # 2 per end
    uint8_t* game         # 1 per end
    uint8_t* steps        # 8 per end, NULL in afterstates mode
    uint8_t* n_steps      # 1 per end, NULL in afterstates mode
    Py_ssize_t size
    Py_ssize_t capacity


# The state of a batch between runs of the loop.
ctypedef struct Loop:
    StageEnd* scratch
    int scratch_capacity
    Py_ssize_t row        # the next row to read
    int pending           # the scratch holds row ``row``'s ends, not written yet
    int n_ends
    int played
    Row info              # the pending row's board, read (row_read)
    int other_off         # and the opponent's borne-off count
    bint fixed            # no play of the stage bears off (write_ends)
    int problem
    int detail


cdef inline void write_ends(Out* o, const StageEnd* ends, int n, const Row* info,
                            int other_off, int seat, bint fixed) noexcept nogil:
    """Append ``n`` ends of a stage played by ``seat`` (RULES §1.3: White's numbering).

    ``fixed``: no play of the stage bears off, every end keeps the borne-off counts."""
    cdef int j, on_board
    cdef int8_t* boards = o.boards + 24 * o.size
    cdef uint8_t* bo = o.borne_off + 2 * o.size
    cdef uint8_t* game = o.game + o.size
    cdef uint8_t* steps = o.steps
    cdef uint8_t* n_steps = o.n_steps
    cdef uint8_t pair[2]
    if steps != NULL:
        steps += 8 * o.size
        n_steps += o.size
    pair[1 - seat] = <uint8_t>other_off
    pair[seat] = <uint8_t>(N_CHECKERS - info.on_board[seat])
    for j in range(n):
        if fixed:
            end_board(boards, info, ends[j].key.lo, ends[j].key.hi, seat, 0)
        else:
            on_board = end_board(boards, info, ends[j].key.lo, ends[j].key.hi, seat, 1)
            pair[seat] = <uint8_t>(N_CHECKERS - on_board)
        memcpy(bo, pair, 2)
        game[j] = ends[j].ends_game
        if steps != NULL:
            memcpy(steps, ends[j].steps, 8)     # zero past n_steps (stage_generate)
            n_steps[j] = ends[j].n_steps
            steps += 8
        boards += 24
        bo += 2
    o.size += n


cdef int run_rows(const int8_t[:, ::1] boards, const uint8_t[:, ::1] borne_off,
                  bint derive_off, const uint8_t[::1] seats, const uint8_t[:, ::1] dice,
                  Out* o, Loop* s, int32_t* counts, uint8_t* playable,
                  int64_t* offsets, Interrupt* intr) noexcept nogil:
    """Go on with the batch from row ``s.row``; 0 when done, else a BAD_* code, FULL or
    INTERRUPTED."""
    cdef Py_ssize_t i, n = boards.shape[0]
    cdef Pos p
    cdef Key96 key
    cdef uint8_t d[MAX_STAGE_DICE]
    cdef const int8_t* board
    cdef const uint8_t* off_row
    cdef int n_dice, err, seat, other_off = 0
    cdef bint ok
    while s.row < n:
        i = s.row
        seat = seats[i]
        if not s.pending:
            board = &boards[i, 0]
            off_row = NULL
            if not derive_off:
                off_row = &borne_off[i, 0]
            # The usual row, checked on the way; on any problem read_row names it.
            ok = seat <= 1 and row_read(board, seat, &s.info) == 0
            if ok:
                if derive_off:
                    ok = s.info.on_board[0] <= N_CHECKERS and s.info.on_board[1] <= N_CHECKERS
                    other_off = N_CHECKERS - s.info.on_board[1 - seat]
                else:
                    ok = (off_row[0] + s.info.on_board[0] == N_CHECKERS
                          and off_row[1] + s.info.on_board[1] == N_CHECKERS)
                    other_off = off_row[1 - seat]
                ok = ok and read_dice(&dice[i, 0], d, &n_dice) == 0
            if not ok:
                err = read_row(board, off_row, derive_off, seat, &dice[i, 0], &p, d, &n_dice,
                               &s.detail)
                if err:
                    s.problem = err
                    return err
                other_off = p.off[1 - seat]
            key.lo = s.info.lo
            key.hi = <uint32_t>s.info.hi
            if stage_generate_key(key, s.info.mine, s.info.blocked, d, n_dice, s.scratch,
                                  s.scratch_capacity, &s.n_ends, &s.played):
                # More ends than the scratch holds: again, into one that holds any stage.
                free(s.scratch)
                s.scratch = <StageEnd*>malloc(SCRATCH * sizeof(StageEnd))
                s.scratch_capacity = SCRATCH
                if s.scratch == NULL:
                    s.scratch_capacity = 0
                    s.problem = NO_MEMORY
                    return NO_MEMORY
                stage_generate_key(key, s.info.mine, s.info.blocked, d, n_dice, s.scratch,
                                   SCRATCH, &s.n_ends, &s.played)
            s.other_off = other_off
            s.fixed = key_outside(key.lo, key.hi) >= n_dice
            s.pending = 1
        if o.size + s.n_ends > o.capacity:
            return FULL
        write_ends(o, s.scratch, s.n_ends, &s.info, s.other_off, seat, s.fixed)
        counts[i] = s.n_ends
        playable[i] = s.played
        offsets[i + 1] = o.size
        s.pending = 0
        s.row += 1
        if interrupted(intr, s.n_ends + 1):
            return INTERRUPTED
    return 0


cdef double sampled_ends_per_row(const int8_t[:, ::1] boards, const uint8_t[::1] seats,
                                 const uint8_t[:, ::1] dice, StageEnd* scratch) noexcept nogil:
    """A call's ends per row, estimated from rows spread evenly over its own batch (one
    in SAMPLE_EVERY, at most MAX_SAMPLES, each generated into the scratch);
    FIRST_PER_ROW for a small batch. A bad row is left to the main loop, which names it."""
    cdef Py_ssize_t n = boards.shape[0], i, total = 0, k, samples = n // SAMPLE_EVERY
    cdef Row info
    cdef Key96 key
    cdef uint8_t d[MAX_STAGE_DICE]
    cdef int n_dice, n_ends, played, seat
    if samples < 2:
        return FIRST_PER_ROW
    if samples > MAX_SAMPLES:
        samples = MAX_SAMPLES
    for k in range(samples):
        i = k * n // samples
        seat = seats[i]
        if seat > 1 or row_read(&boards[i, 0], seat, &info) or read_dice(&dice[i, 0], d, &n_dice):
            continue
        key.lo = info.lo
        key.hi = <uint32_t>info.hi
        if stage_generate_key(key, info.mine, info.blocked, d, n_dice, scratch, SMALL_SCRATCH,
                              &n_ends, &played):
            n_ends = SMALL_SCRATCH                  # more: the arrays grow when they fill up
        total += n_ends
    return total / <double>samples


cdef Py_ssize_t next_capacity(Py_ssize_t capacity, Py_ssize_t size, Py_ssize_t pending,
                              Py_ssize_t done, Py_ssize_t n):
    """The output capacity after it filled up with ``done`` of ``n`` rows written and
    ``pending`` ends of the next row to write: this call's need as projected from its
    own rows done, but at least what that row needs and twice the capacity, exactly
    twice the capacity once past FREE_GROWTH ends, and never more than the rows left
    can hold."""
    cdef Py_ssize_t need = size + pending, left = n - done - 1
    cdef Py_ssize_t want = 2 * capacity
    if done > 0:
        want = need + <Py_ssize_t>(left * (size / <double>done) * 1.1) + MIN_CAPACITY
        want = max(want, 2 * capacity)         # few growths: each takes fresh pages
        if want > FREE_GROWTH:
            want = max(FREE_GROWTH, min(want, 2 * capacity))
    return max(need, min(want, need + left * SCRATCH))


cdef void* data_of(object array) except NULL:
    """The data pointer of a C-contiguous array with at least one element.

    The buffer is released at once: the pointer stays valid while the array
    lives and is not resized.
    """
    cdef Py_buffer view
    PyObject_GetBuffer(array, &view, PyBUF_ANY_CONTIGUOUS)
    cdef void* data = view.buf
    PyBuffer_Release(&view)
    return data


cdef class Outputs:
    """The per-end numpy arrays of one call, resized in place (``ndarray.resize``)."""
    cdef list arrays      # boards, borne_off, game[, steps, n_steps]
    cdef Out out

    def __cinit__(self, Py_ssize_t capacity, bint with_steps):
        self.arrays = [np.empty((capacity, 24), dtype=np.int8),
                       np.empty((capacity, 2), dtype=np.uint8),
                       np.empty(capacity, dtype=np.bool_)]
        if with_steps:
            self.arrays += [np.empty((capacity, 4, 2), dtype=np.uint8),
                            np.empty(capacity, dtype=np.uint8)]
        memset(&self.out, 0, sizeof(Out))
        self.point()

    cdef int point(self) except -1:
        """Re-read the data pointers and the capacity after the arrays changed."""
        self.out.capacity = len(self.arrays[0])
        self.out.boards = <int8_t*>data_of(self.arrays[0])
        self.out.borne_off = <uint8_t*>data_of(self.arrays[1])
        self.out.game = <uint8_t*>data_of(self.arrays[2])
        if len(self.arrays) == 5:
            self.out.steps = <uint8_t*>data_of(self.arrays[3])
            self.out.n_steps = <uint8_t*>data_of(self.arrays[4])
        return 0

    cdef int resize(self, Py_ssize_t capacity) except -1:
        """Grow or cut every array to ``capacity`` ends, keeping the first ``out.size``.

        Growing takes new arrays and copies the ends written (``ndarray.resize``
        would zero-fill the new part, touching every page of it); cutting is an
        in-place ``realloc``."""
        cdef Py_ssize_t size = self.out.size
        if capacity > self.out.capacity:
            grown = []
            for array in self.arrays:
                bigger = np.empty((capacity,) + array.shape[1:], dtype=array.dtype)
                bigger[:size] = array[:size]
                grown.append(bigger)
            self.arrays = grown
        else:
            for array in self.arrays:
                # The arrays own their data and nothing else refers to it.
                array.resize((capacity,) + array.shape[1:], refcheck=False)
        return self.point()


def stage_ends_batch(const int8_t[:, ::1] boards, const uint8_t[:, ::1] borne_off,
                     bint derive_off, const uint8_t[::1] seats, const uint8_t[:, ::1] dice,
                     bint with_steps):
    """Enumerate every request's stage (RULES §3); see the module docstring.

    ``boards`` (N, 24) int8, ``borne_off`` (N, 2) uint8 (not read when
    ``derive_off``: 15 minus the checkers on the board), ``seats`` (N,) uint8,
    ``dice`` (N, 4) uint8. Returns ``(error, counts, playable, offsets,
    end_boards, end_borne_off, end_steps, end_n_steps, end_game)`` where
    ``error`` is ``None`` or ``(row, problem, detail)`` (``problem`` a value of
    ``PROBLEMS``); ``end_steps`` and ``end_n_steps`` are ``None`` unless
    ``with_steps``.
    """
    cdef Py_ssize_t n = boards.shape[0]
    if boards.shape[1] != N_POINTS:
        raise ValueError(
            f"boards must have shape (N, 24), got ({boards.shape[0]}, {boards.shape[1]})")
    if not derive_off and (borne_off.shape[0] != n or borne_off.shape[1] != 2):
        raise ValueError(f"borne_off must have shape ({n}, 2), "
                         f"got ({borne_off.shape[0]}, {borne_off.shape[1]})")
    if seats.shape[0] != n:
        raise ValueError(f"seats must have shape ({n},), got ({seats.shape[0]},)")
    if dice.shape[0] != n or dice.shape[1] != MAX_STAGE_DICE:
        raise ValueError(f"dice must have shape ({n}, 4), got ({dice.shape[0]}, {dice.shape[1]})")
    counts_arr = np.empty(n, dtype=np.int32)
    playable_arr = np.empty(n, dtype=np.uint8)
    offsets_arr = np.empty(n + 1, dtype=np.int64)
    cdef int32_t[::1] counts = counts_arr
    cdef uint8_t[::1] playable = playable_arr
    cdef int64_t[::1] offsets = offsets_arr
    cdef Outputs outputs
    cdef Loop state
    cdef int status
    cdef Interrupt intr
    cdef Py_ssize_t capacity
    cdef double per_row, last
    interrupt_init(&intr, CHECK_EVERY, MAIN_THREAD)
    memset(&state, 0, sizeof(Loop))
    offsets[0] = 0
    state.scratch = <StageEnd*>malloc(SMALL_SCRATCH * sizeof(StageEnd))
    state.scratch_capacity = SMALL_SCRATCH
    if state.scratch == NULL:
        raise MemoryError()
    per_row = FIRST_PER_ROW
    if n >= 2 * SAMPLE_EVERY:
        with nogil:
            per_row = sampled_ends_per_row(boards, seats, dice, state.scratch)
        # The ends per row of this thread's last big batch, when this batch's own sample
        # does not say it needs much less: repeated calls then get their size at once.
        last = getattr(_last, "per_row", 0.0)
        if per_row < last <= 2 * per_row:
            per_row = last
    capacity = max(MIN_CAPACITY, <Py_ssize_t>(n * per_row * 1.1) + MIN_CAPACITY)
    try:
        outputs = Outputs(capacity, with_steps)
    except BaseException:
        free(state.scratch)
        raise
    try:
        while True:
            with nogil:
                status = run_rows(boards, borne_off, derive_off, seats, dice, &outputs.out,
                                  &state, &counts[0] if n else NULL,
                                  &playable[0] if n else NULL, &offsets[0], &intr)
            if status != FULL:
                break
            outputs.resize(next_capacity(outputs.out.capacity, outputs.out.size, state.n_ends,
                                         state.row, n))
    finally:
        free(state.scratch)
    interrupt_raise(&intr)
    if status == NO_MEMORY:
        raise MemoryError(f"out of memory at row {state.row} of the batch")
    if status:
        return ((state.row, PROBLEMS[status], state.detail),) + (None,) * 8
    m = outputs.out.size
    if m != outputs.out.capacity:
        outputs.resize(m)
    if n >= 2 * SAMPLE_EVERY:
        _last.per_row = m / <double>n
    arrays = outputs.arrays + [None, None]
    return (None, counts_arr, playable_arr, offsets_arr, arrays[0], arrays[1], arrays[3],
            arrays[4], arrays[2])
