# cython: language_level=3
"""Stage ends for many (position, dice) requests in one call (the batch core).

The Python API is ``gulbara.batch``; this module is its compiled loop. One
call reads numpy arrays (typed memoryviews) and, with the GIL released, checks
each row, enumerates its stage with ``stage_generate`` of the ``_movegen.pxd``
contract into a small scratch that stays in cache, and decodes the ends
straight into the output arrays. Those are numpy arrays sized from the
ends-per-stage of earlier calls; if they fill up, the loop stops, they grow
(with the GIL, ``ndarray.resize``: a ``realloc``) and the loop goes on; at the
end they are cut to the exact size the same way.

Layout (N requests, M ends in all; request ``i`` owns ends
``offsets[i]:offsets[i + 1]``, in canonical order, RULES §3.8):

* per request: ``counts`` (N, int32), ``playable`` (N, uint8), ``offsets``
  (N + 1, int64);
* per end: ``end_boards`` (M x 24, int8, White's numbering, + White, - Black),
  ``end_borne_off`` (M x 2, uint8), ``end_game`` (M, bool) and, unless only the
  afterstates are asked for, ``end_steps`` (M x 4 x 2, uint8, (from, die) in the
  mover's numbering, zero-padded) and ``end_n_steps`` (M, uint8).

A bad row stops the loop; the call returns ``(row, problem, detail)`` and
``gulbara.batch`` turns it into an exception that names the row.

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

from gulbara._types cimport Pos, Step, Key96, StageEnd, N_POINTS, N_CHECKERS, MAX_STAGE_DICE
from gulbara._movegen cimport stage_generate

import numpy as np

# Problems a row can have; gulbara.batch maps them to messages and error classes.
cdef enum:
    BAD_SEAT = 1         # seat not 0 or 1                       (detail: -)
    BAD_POINT = 2        # a point holds more than 15 checkers   (detail: point 1..24)
    BAD_OFF = 3          # a borne-off count above 15            (detail: seat)
    BAD_TOTAL = 4        # board + borne off != 15 for a side    (detail: seat)
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
    # SCRATCH, which holds every stage (see _movegen's STAGE_CAPACITY: at most
    # C(27, 4) = 17,550 multisets of four equal dice).
    SMALL_SCRATCH = 1024
    SCRATCH = 17600
    MIN_CAPACITY = 64
    NO_MEMORY = 10       # a scratch could not grow (with the BAD_* codes)

# Output capacity of the next call: N x this, from the ends per stage seen last.
cdef double _ends_per_stage = 16.0


# ---------------------------------------------------------------------------
# One row: check it, build the position, decode the ends
# ---------------------------------------------------------------------------

cdef inline int read_row(const int8_t* board, const uint8_t* off, bint derive_off, int seat,
                         const uint8_t* dice_row, Pos* p, uint8_t* dice, int* n_dice,
                         int* detail) noexcept nogil:
    """Check one request (RULES §1.1, §3.1, §9.1) and read it; 0 or a BAD_* code."""
    cdef int q, v, k, n, total0 = 0, total1 = 0
    cdef uint8_t a
    detail[0] = 0
    if seat != 0 and seat != 1:
        return BAD_SEAT
    memset(p, 0, sizeof(Pos))
    for q in range(1, 25):
        v = board[q - 1]
        if v > 0:
            if v > N_CHECKERS:
                detail[0] = q
                return BAD_POINT
            p.cnt[0][q] = v
            p.occ[0] |= (<uint32_t>1) << (q - 1)
            total0 += v
        elif v < 0:
            if v < -N_CHECKERS:
                detail[0] = q
                return BAD_POINT
            # Black's own point of White's q (RULES §1.3)
            k = ((q + 11) % 24) + 1
            p.cnt[1][k] = -v
            p.occ[1] |= (<uint32_t>1) << (k - 1)
            total1 += -v
    if derive_off:
        if total0 > N_CHECKERS:
            detail[0] = 0
            return BAD_TOTAL
        if total1 > N_CHECKERS:
            detail[0] = 1
            return BAD_TOTAL
        p.off[0] = N_CHECKERS - total0
        p.off[1] = N_CHECKERS - total1
    else:
        for k in range(2):
            if off[k] > N_CHECKERS:
                detail[0] = k
                return BAD_OFF
        if total0 + off[0] != N_CHECKERS:
            detail[0] = 0
            return BAD_TOTAL
        if total1 + off[1] != N_CHECKERS:
            detail[0] = 1
            return BAD_TOTAL
        p.off[0] = off[0]
        p.off[1] = off[1]
    # Dice: the leading non-zero columns, then zeros only.
    n = 0
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
    /* A uint64 whose byte k (k = 0..7, in memory order) is bits 8k..8k+7 of x. */
    #if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) && \\
        __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    #define gulbara_le64(x) __builtin_bswap64(x)
    #else
    #define gulbara_le64(x) (x)
    #endif
    """
    uint64_t le64 "gulbara_le64"(uint64_t x) noexcept nogil


# STEP_MASK[n]: the bytes of n steps (2 bytes each) of a StageEnd's 8-byte step array.
cdef uint8_t STEP_MASK[MAX_STAGE_DICE + 1][8]


cdef void init_tables() noexcept:
    cdef int n, k
    for n in range(MAX_STAGE_DICE + 1):
        for k in range(8):
            STEP_MASK[n][k] = 0xFF if k < 2 * n else 0


init_tables()

cdef uint64_t LOW_NIBBLES = <uint64_t>0x0F0F0F0F0F0F0F0FULL
cdef uint64_t HIGH_BITS = <uint64_t>0x8080808080808080ULL


cdef inline uint64_t spread(uint64_t x) noexcept nogil:
    """Eight 4-bit counts (bits 4k..4k+3 of x) as eight bytes (bits 8k..8k+7)."""
    x &= <uint64_t>0xFFFFFFFFULL
    x = (x | (x << 16)) & <uint64_t>0x0000FFFF0000FFFFULL
    x = (x | (x << 8)) & <uint64_t>0x00FF00FF00FF00FFULL
    return (x | (x << 4)) & LOW_NIBBLES


cdef inline uint64_t negate_bytes(uint64_t x) noexcept nogil:
    """Every byte c (0..15) of x as the int8 byte -c (no borrow crosses a byte: c < 0x80)."""
    return (HIGH_BITS - x) ^ HIGH_BITS


cdef inline void mover_base(const int8_t* board, int seat, uint64_t* base) noexcept nogil:
    """The board without the mover's checkers, in the mover's numbering, as three words.

    Word w byte k is the mover's own point 8w + k + 1, which is White's point
    8w + k + 1 for White and ((8w + k + 12) mod 24) + 1 for Black (RULES §1.3).
    """
    cdef int8_t m[24]
    cdef int k, v
    for k in range(24):
        v = board[k] if seat == 0 else board[(k + 12) % 24]
        m[k] = v if (v < 0) == (seat == 0) else 0
    memcpy(base, m, 24)


cdef inline void decode_board(int8_t* dst, const uint64_t* base, Key96 key,
                              int seat) noexcept nogil:
    """Write the end of ``key`` in White's numbering: ``base`` plus the mover's counts.

    The mover never shares a point with the opponent (RULES §2.2), so OR-ing
    its signed counts into ``base`` adds them. Black's words go to White's
    points 13..20, 21..24 + 1..4 and 5..12 (RULES §1.3).
    """
    cdef uint64_t w0 = spread(key.lo), w1 = spread(key.lo >> 32), w2 = spread(key.hi)
    if seat == 0:
        w0 = le64(w0) | base[0]
        w1 = le64(w1) | base[1]
        w2 = le64(w2) | base[2]
        memcpy(dst, &w0, 8)
        memcpy(dst + 8, &w1, 8)
        memcpy(dst + 16, &w2, 8)
    else:
        w0 = le64(negate_bytes(w0)) | base[0]
        w1 = le64(negate_bytes(w1)) | base[1]
        w2 = le64(negate_bytes(w2)) | base[2]
        memcpy(dst + 12, &w0, 8)
        memcpy(dst + 20, &w1, 4)                    # own 9..12 -> White's 21..24
        memcpy(dst, (<uint8_t*>&w1) + 4, 4)         # own 13..16 -> White's 1..4
        memcpy(dst + 4, &w2, 8)


cdef inline int key_checkers(Key96 key) noexcept nogil:
    """The checkers on the board in a mover key: the sum of its 24 nibbles (at most 15)."""
    cdef uint64_t m = <uint64_t>0x0F0F0F0F0F0F0F0FULL
    cdef uint64_t t = (key.lo & m) + ((key.lo >> 4) & m) + (key.hi & m) + ((key.hi >> 4) & m)
    # every byte of t is at most 15 and so is their sum: no carries between bytes
    return <int>((t * <uint64_t>0x0101010101010101ULL) >> 56)


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
    uint64_t base[3]      # the pending row's board without the mover's checkers (mover_base)
    int other_off         # and the opponent's borne-off count
    int problem
    int detail


cdef inline void write_ends(Out* o, const StageEnd* ends, int n, const uint64_t* base,
                            int other_off, int seat) noexcept nogil:
    """Append ``n`` ends of a stage played by ``seat`` (RULES §1.3: White's numbering)."""
    cdef int j, k
    cdef Py_ssize_t at
    cdef uint64_t w, mask
    cdef uint8_t* bo
    for j in range(n):
        at = o.size + j
        decode_board(o.boards + 24 * at, base, ends[j].key, seat)
        bo = o.borne_off + 2 * at
        bo[seat] = <uint8_t>(N_CHECKERS - key_checkers(ends[j].key))
        bo[1 - seat] = <uint8_t>other_off
        o.game[at] = ends[j].ends_game
    if o.steps != NULL:
        for j in range(n):
            at = o.size + j
            k = ends[j].n_steps
            memcpy(&w, ends[j].steps, 8)      # steps past n_steps are not set: mask them
            memcpy(&mask, STEP_MASK[k], 8)
            w &= mask
            memcpy(o.steps + 8 * at, &w, 8)
            o.n_steps[at] = <uint8_t>k
    o.size += n


cdef int run_rows(const int8_t[:, ::1] boards, const uint8_t[:, ::1] borne_off,
                  bint derive_off, const uint8_t[::1] seats, const uint8_t[:, ::1] dice,
                  Out* o, Loop* s, int32_t* counts, uint8_t* playable,
                  int64_t* offsets) noexcept nogil:
    """Go on with the batch from row ``s.row``; 0 when done, else a BAD_* code or FULL."""
    cdef Py_ssize_t i, n = boards.shape[0]
    cdef Pos p
    cdef uint8_t d[MAX_STAGE_DICE]
    cdef const int8_t* board
    cdef const uint8_t* off_row
    cdef int n_dice, err, seat
    while s.row < n:
        i = s.row
        seat = seats[i]
        if not s.pending:
            board = &boards[i, 0]
            off_row = NULL
            if not derive_off:
                off_row = &borne_off[i, 0]
            err = read_row(board, off_row, derive_off, seat, &dice[i, 0], &p, d, &n_dice,
                           &s.detail)
            if err:
                s.problem = err
                return err
            if stage_generate(&p, seat, d, n_dice, s.scratch, s.scratch_capacity,
                              &s.n_ends, &s.played):
                # More ends than the scratch holds: again, into one that holds any stage.
                free(s.scratch)
                s.scratch = <StageEnd*>malloc(SCRATCH * sizeof(StageEnd))
                s.scratch_capacity = SCRATCH
                if s.scratch == NULL:
                    s.scratch_capacity = 0
                    s.problem = NO_MEMORY
                    return NO_MEMORY
                stage_generate(&p, seat, d, n_dice, s.scratch, SCRATCH, &s.n_ends, &s.played)
            mover_base(board, seat, s.base)
            s.other_off = p.off[1 - seat]
            s.pending = 1
        if o.size + s.n_ends > o.capacity:
            return FULL
        write_ends(o, s.scratch, s.n_ends, s.base, s.other_off, seat)
        counts[i] = s.n_ends
        playable[i] = s.played
        offsets[i + 1] = o.size
        s.pending = 0
        s.row += 1
    return 0


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
        """Grow or cut every array to ``capacity`` ends, keeping the first ``out.size``."""
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
    global _ends_per_stage
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
    cdef Outputs outputs = Outputs(max(MIN_CAPACITY, <Py_ssize_t>(n * _ends_per_stage * 1.1)),
                                   with_steps)
    cdef Loop state
    cdef int status
    memset(&state, 0, sizeof(Loop))
    offsets[0] = 0
    state.scratch = <StageEnd*>malloc(SMALL_SCRATCH * sizeof(StageEnd))
    state.scratch_capacity = SMALL_SCRATCH
    if state.scratch == NULL:
        raise MemoryError()
    try:
        while True:
            with nogil:
                status = run_rows(boards, borne_off, derive_off, seats, dice, &outputs.out,
                                  &state, &counts[0] if n else NULL,
                                  &playable[0] if n else NULL, &offsets[0])
            if status != FULL:
                break
            outputs.resize(max(2 * outputs.out.capacity, outputs.out.size + state.n_ends))
    finally:
        free(state.scratch)
    if status == NO_MEMORY:
        raise MemoryError(f"out of memory at row {state.row} of the batch")
    if status:
        return ((state.row, PROBLEMS[status], state.detail),) + (None,) * 8
    m = outputs.out.size
    if m != outputs.out.capacity:
        outputs.resize(m)
    if n >= 64:
        _ends_per_stage = max(1.0, m / <double>n)
    arrays = outputs.arrays + [None, None]
    return (None, counts_arr, playable_arr, offsets_arr, arrays[0], arrays[1], arrays[3],
            arrays[4], arrays[2])
