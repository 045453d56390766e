# cython: language_level=3
"""gulbara's compiled move generator: positions, steps and stages.

Everything inside a loop over steps or positions is a ``cdef ... noexcept
nogil`` function on the plain structs of ``_types.pxd``. The Python-facing
classes ``Position`` and ``Ends`` implement the backend contract of
``docs/backend.md``; the pure-Python reference (``gulbara._reference``)
implements the same contract and is the oracle this module is tested against.

>>> ends = stage_ends(START_CODE, 0, [6, 6, 6, 6])
>>> len(ends), ends.steps(0)
(1, ((24, 6), (24, 6), (24, 6), (24, 6)))
"""

from libc.stdint cimport uint8_t, uint32_t, uint64_t
from libc.stdlib cimport malloc, free
from libc.string cimport memset, memcpy, memcmp
from cpython.unicode cimport PyUnicode_AsUTF8AndSize, PyUnicode_DecodeASCII

from gulbara._types cimport (Pos, Step, Key96, StageEnd, N_POINTS, N_CHECKERS,
                             MAX_STAGE_DICE, HOME_BITS, BOARD_BITS)

from operator import index as _index

from gulbara.errors import (InvalidPositionError, InvalidSeatError,
                            InvalidDiceError, IllegalPlayError)

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    static inline int gulbara_bit_length(unsigned int m) {
        return m ? 32 - __builtin_clz(m) : 0;
    }
    #else
    static inline int gulbara_bit_length(unsigned int m) {
        int n = 0;
        while (m) { m >>= 1; n++; }
        return n;
    }
    #endif
    """
    int bit_length "gulbara_bit_length"(unsigned int m) noexcept nogil

START_CODE = "G:,,,,,,,,,,,-15,,,,,,,,,,,,15|0,0|0,0"

# Largest number of leaves one stage can keep: four equal dice give at most
# C(24 + 3, 4) = 17,550 distinct step multisets; two different dice at most
# 24 * 2 * 24 plays.
cdef enum:
    STAGE_CAPACITY = 17600
    CODE_BUFFER = 160

cdef StageEnd _scratch[STAGE_CAPACITY]


# ---------------------------------------------------------------------------
# Position primitives (RULES §1, §9.1)
# ---------------------------------------------------------------------------

cdef inline int point_in_other_frame(int p) noexcept nogil:
    """A side's own point p as the other side's point (RULES §1.3; self-inverse)."""
    return ((p + 11) % 24) + 1


cdef void pos_set_occupancy(Pos* p) noexcept nogil:
    cdef int s, q
    for s in range(2):
        p.occ[s] = 0
        for q in range(1, 25):
            if p.cnt[s][q]:
                p.occ[s] |= (<uint32_t>1) << (q - 1)


cdef inline Py_ssize_t write_uint(char* buf, Py_ssize_t i, int v) noexcept nogil:
    if v >= 10:
        buf[i] = 48 + v // 10
        i += 1
    buf[i] = 48 + v % 10
    return i + 1


cdef Py_ssize_t pos_format(const Pos* p, char* buf) noexcept nogil:
    """Write the canonical code of ``p`` into ``buf`` (RULES §9.1); return its length."""
    cdef Py_ssize_t i = 2
    cdef int q, k
    buf[0] = 71  # 'G'
    buf[1] = 58  # ':'
    for q in range(1, 25):
        if q > 1:
            buf[i] = 44  # ','
            i += 1
        k = p.cnt[0][q]
        if k:
            i = write_uint(buf, i, k)
        else:
            k = p.cnt[1][point_in_other_frame(q)]
            if k:
                buf[i] = 45  # '-'
                i = write_uint(buf, i + 1, k)
    memcpy(buf + i, b"|0,0|", 5)
    i = write_uint(buf, i + 5, p.off[0])
    buf[i] = 44
    return write_uint(buf, i + 1, p.off[1])


cdef inline Key96 pos_mover_key(const Pos* p, int seat) noexcept nogil:
    cdef Key96 key
    cdef int q
    key.lo = 0
    key.hi = 0
    for q in range(1, 17):
        key.lo |= (<uint64_t>p.cnt[seat][q]) << (4 * (q - 1))
    for q in range(17, 25):
        key.hi |= (<uint32_t>p.cnt[seat][q]) << (4 * (q - 17))
    return key


cdef void pos_set_mover_key(Pos* p, int seat, Key96 key) noexcept nogil:
    """Overwrite ``seat``'s checkers with the packed counts of ``key``."""
    cdef int q, total = 0
    cdef uint32_t occ = 0
    for q in range(1, 17):
        p.cnt[seat][q] = (key.lo >> (4 * (q - 1))) & 15
    for q in range(17, 25):
        p.cnt[seat][q] = (key.hi >> (4 * (q - 17))) & 15
    for q in range(1, 25):
        total += p.cnt[seat][q]
        if p.cnt[seat][q]:
            occ |= (<uint32_t>1) << (q - 1)
    p.occ[seat] = occ
    p.off[seat] = N_CHECKERS - total


cdef inline uint64_t mix64(uint64_t z) noexcept nogil:
    # splitmix64 finaliser
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef uint64_t pos_key64(const Pos* p) noexcept nogil:
    """64-bit hash of the whole position (formula in docs/backend.md)."""
    cdef Key96 k0 = pos_mover_key(p, 0)
    cdef Key96 k1 = pos_mover_key(p, 1)
    return (mix64(k0.lo)
            ^ mix64(<uint64_t>k0.hi | ((k1.lo & <uint64_t>0xFFFFFFFFULL) << 32))
            ^ mix64(((k1.lo >> 32) | (<uint64_t>k1.hi << 32))
                    ^ <uint64_t>0x9E3779B97F4A7C15ULL))


# ---------------------------------------------------------------------------
# Steps (RULES §2)
# ---------------------------------------------------------------------------

cdef inline uint32_t rotate12(uint32_t m) noexcept nogil:
    """The other side's occupancy in this side's numbering (RULES §1.3)."""
    return ((m << 12) | (m >> 12)) & BOARD_BITS


cdef bint step_is_legal(const Pos* p, int seat, int frm, int die) noexcept nogil:
    """RULES §2.2-2.3 for one step of ``seat`` on ``p``."""
    cdef uint32_t mine = p.occ[seat]
    cdef int target = frm - die
    if frm < 1 or frm > 24 or die < 1 or die > 6 or p.off[seat] == N_CHECKERS:
        return False
    if not (mine >> (frm - 1)) & 1:
        return False
    if target >= 1:
        return not (rotate12(p.occ[1 - seat]) >> (target - 1)) & 1
    if mine & ~(<uint32_t>HOME_BITS):
        return False
    return target == 0 or frm == bit_length(mine)


cdef void step_apply(Pos* p, int seat, int frm, int die) noexcept nogil:
    cdef int target = frm - die
    p.cnt[seat][frm] -= 1
    if not p.cnt[seat][frm]:
        p.occ[seat] &= ~((<uint32_t>1) << (frm - 1))
    if target >= 1:
        p.cnt[seat][target] += 1
        p.occ[seat] |= (<uint32_t>1) << (target - 1)
    else:
        p.off[seat] += 1


cdef void step_undo(Pos* p, int seat, int frm, int die) noexcept nogil:
    cdef int target = frm - die
    if target >= 1:
        p.cnt[seat][target] -= 1
        if not p.cnt[seat][target]:
            p.occ[seat] &= ~((<uint32_t>1) << (target - 1))
    else:
        p.off[seat] -= 1
    p.cnt[seat][frm] += 1
    p.occ[seat] |= (<uint32_t>1) << (frm - 1)


# ---------------------------------------------------------------------------
# Stage enumeration (RULES §3)
# ---------------------------------------------------------------------------

# The mover's side of a position in its own numbering, with the opponent's
# occupancy rotated into the same numbering, the packed key kept up to date
# step by step, and the current step path.
ctypedef struct Gen:
    uint8_t c[25]
    uint32_t mask
    uint32_t blocked
    int off
    uint64_t klo
    uint64_t khi
    Step path[MAX_STAGE_DICE]
    StageEnd* out
    int capacity
    int n
    int best
    int overflow


cdef inline bint gen_can_step(const Gen* g, int frm, int die) noexcept nogil:
    # The caller knows the mover has a checker on frm.
    cdef int target = frm - die
    if target >= 1:
        return not (g.blocked >> (target - 1)) & 1      # RULES §2.2
    if g.mask & ~(<uint32_t>HOME_BITS):                  # RULES §2.3: all home
        return False
    return target == 0 or frm == bit_length(g.mask)    # exact, or highest point


cdef inline void gen_nibble_add(Gen* g, int q, int sign) noexcept nogil:
    if q <= 16:
        if sign > 0:
            g.klo += (<uint64_t>1) << (4 * (q - 1))
        else:
            g.klo -= (<uint64_t>1) << (4 * (q - 1))
    else:
        if sign > 0:
            g.khi += (<uint64_t>1) << (4 * (q - 17))
        else:
            g.khi -= (<uint64_t>1) << (4 * (q - 17))


cdef inline void gen_do(Gen* g, int frm, int die) noexcept nogil:
    cdef int target = frm - die
    g.c[frm] -= 1
    if not g.c[frm]:
        g.mask &= ~((<uint32_t>1) << (frm - 1))
    gen_nibble_add(g, frm, -1)
    if target >= 1:
        g.c[target] += 1
        g.mask |= (<uint32_t>1) << (target - 1)
        gen_nibble_add(g, target, 1)
    else:
        g.off += 1


cdef inline void gen_undo(Gen* g, int frm, int die) noexcept nogil:
    cdef int target = frm - die
    if target >= 1:
        g.c[target] -= 1
        if not g.c[target]:
            g.mask &= ~((<uint32_t>1) << (target - 1))
        gen_nibble_add(g, target, -1)
    else:
        g.off -= 1
    g.c[frm] += 1
    g.mask |= (<uint32_t>1) << (frm - 1)
    gen_nibble_add(g, frm, 1)


cdef inline void gen_record(Gen* g, int n_steps, int effective, bint ends_game,
                            bint dedup) noexcept nogil:
    """Keep a finished play if its effective length is the best so far (RULES §3.4).

    Plays arrive in canonical order (RULES §3.8), so the first play that
    reaches an end carries its canonical steps; later ones are dropped.
    """
    cdef int i
    cdef StageEnd* e
    if effective < g.best:
        return
    if effective > g.best:
        g.best = effective
        g.n = 0
    if dedup:
        for i in range(g.n):
            if g.out[i].key.lo == g.klo and g.out[i].key.hi == g.khi:
                return
    if g.n >= g.capacity:
        g.overflow = 1
        return
    e = &g.out[g.n]
    e.key.lo = g.klo
    e.key.hi = <uint32_t>g.khi
    e.n_steps = n_steps
    e.ends_game = ends_game
    for i in range(n_steps):
        e.steps[i] = g.path[i]
    g.n += 1


cdef void gen_two_dice(Gen* g, int high, int low) noexcept nogil:
    """All plays of two different dice, in canonical order (RULES §3.2-3.5)."""
    cdef uint32_t first_sources = g.mask, second_sources
    cdef int frm, frm2, k, die, other
    cdef bint played_second
    while first_sources:
        frm = bit_length(first_sources)
        first_sources &= ~((<uint32_t>1) << (frm - 1))
        for k in range(2):
            die = high if k == 0 else low
            other = low if k == 0 else high
            if not gen_can_step(g, frm, die):
                continue
            gen_do(g, frm, die)
            g.path[0].frm = frm
            g.path[0].die = die
            if g.off == N_CHECKERS:
                # RULES §3.3: the 15th checker off completes the play.
                gen_record(g, 1, 2, True, True)
            else:
                played_second = False
                second_sources = g.mask
                while second_sources:
                    frm2 = bit_length(second_sources)
                    second_sources &= ~((<uint32_t>1) << (frm2 - 1))
                    if gen_can_step(g, frm2, other):
                        played_second = True
                        gen_do(g, frm2, other)
                        g.path[1].frm = frm2
                        g.path[1].die = other
                        gen_record(g, 2, 2, g.off == N_CHECKERS, True)
                        gen_undo(g, frm2, other)
                if not played_second:
                    gen_record(g, 1, 1, False, True)
            gen_undo(g, frm, die)


cdef void gen_equal_dice(Gen* g, int die, int n_dice, int depth,
                         int max_from) noexcept nogil:
    """All plays of ``n_dice`` equal dice with sources in non-increasing order.

    With equal dice a play is a multiset of steps, and each multiset leads to
    its own end position; its non-increasing order is legal whenever any
    order is, and is the first in canonical order (RULES §3.8). So every end
    is generated exactly once, with its canonical steps, and in canonical
    order: no de-duplication is needed.
    """
    cdef uint32_t sources = g.mask & (((<uint32_t>1) << max_from) - 1)
    cdef int frm
    cdef bint played = False
    while sources:
        frm = bit_length(sources)
        sources &= ~((<uint32_t>1) << (frm - 1))
        if not gen_can_step(g, frm, die):
            continue
        played = True
        gen_do(g, frm, die)
        g.path[depth].frm = frm
        g.path[depth].die = die
        if g.off == N_CHECKERS:
            gen_record(g, depth + 1, n_dice, True, False)    # RULES §3.3
        elif depth + 1 == n_dice:
            gen_record(g, depth + 1, n_dice, False, False)
        else:
            gen_equal_dice(g, die, n_dice, depth + 1, frm)
        gen_undo(g, frm, die)
    if not played:
        gen_record(g, depth, depth, False, False)


cdef int stage_generate(const Pos* p, int seat, const uint8_t* dice, int n_dice,
                        StageEnd* out, int capacity, int* n_ends,
                        int* playable) noexcept nogil:
    """Enumerate the distinct ends of one stage (RULES §3) into ``out``.

    ``dice`` is a valid stage: two different dice (larger first) or one to
    four equal dice. Returns 0, or -1 when ``capacity`` is too small.
    """
    cdef Gen g
    cdef int q, i, kept
    for q in range(25):
        g.c[q] = p.cnt[seat][q]
    g.mask = p.occ[seat]
    g.blocked = rotate12(p.occ[1 - seat])
    g.off = p.off[seat]
    cdef Key96 key = pos_mover_key(p, seat)
    g.klo = key.lo
    g.khi = key.hi
    g.out = out
    g.capacity = capacity
    g.n = 0
    g.best = 0
    g.overflow = 0
    if g.off < N_CHECKERS:
        if n_dice == 2 and dice[0] != dice[1]:
            gen_two_dice(&g, dice[0], dice[1])
            if g.best == 1:
                # RULES §3.5: only one die can be played; the larger one if it can.
                kept = 0
                for i in range(g.n):
                    if out[i].steps[0].die == dice[0]:
                        out[kept] = out[i]
                        kept += 1
                if kept:
                    g.n = kept
        else:
            gen_equal_dice(&g, dice[0], n_dice, 0, 24)
    if g.n == 0:
        gen_record(&g, 0, 0, False, False)    # RULES §3.6: the empty play
    n_ends[0] = g.n
    playable[0] = g.best
    return -1 if g.overflow else 0


# ---------------------------------------------------------------------------
# Input checking (once per call, with the GIL)
# ---------------------------------------------------------------------------

cdef int check_seat(object seat) except -1:
    if type(seat) is int:
        if seat == 0:
            return 0
        if seat == 1:
            return 1
    elif isinstance(seat, bool) or not hasattr(type(seat), "__index__"):
        raise TypeError(f"seat must be an int (0 = White, 1 = Black), not {type(seat).__name__}")
    else:
        value = _index(seat)
        if value == 0 or value == 1:
            return value
    raise InvalidSeatError(f"seat must be 0 (White) or 1 (Black), got {seat!r}")


cdef int check_die(object die, object dice) except -1:
    if type(die) is not int:
        if isinstance(die, bool) or not hasattr(type(die), "__index__"):
            raise TypeError(f"dice must be ints, got {die!r} in {dice!r}")
        die = _index(die)
    if die < 1 or die > 6:
        raise InvalidDiceError(f"a die must be 1 to 6, got {die!r} in {list(dice)!r}")
    return die


cdef int read_dice(object dice, uint8_t* out) except -1:
    """Check ``dice`` is a stage (RULES §3.1); store it larger first; return its size."""
    cdef int n, i
    if type(dice) is not list and type(dice) is not tuple:
        if isinstance(dice, (str, bytes, bytearray)) or not hasattr(dice, "__iter__"):
            raise TypeError(f"dice must be a sequence of ints, not {type(dice).__name__}")
        dice = tuple(dice)
    n = len(dice)
    for die in dice:
        if type(die) is not int and (isinstance(die, bool) or not hasattr(type(die), "__index__")):
            raise TypeError(f"dice must be ints, got {die!r} in {list(dice)!r}")
    if n < 1 or n > MAX_STAGE_DICE:
        raise InvalidDiceError(
            f"a stage is two different dice or one to four equal dice, got {len(dice)} dice: {list(dice)!r}")
    for i in range(n):
        out[i] = check_die(dice[i], dice)
    if n == 2 and out[0] < out[1]:
        out[0], out[1] = out[1], out[0]
    for i in range(1, n):
        if out[i] != out[0] and n != 2:
            raise InvalidDiceError(
                f"a stage of {n} dice must have equal dice, got {list(dice)!r}")
    return n


# Error codes of parse_code
cdef enum:
    E_PREFIX = 1
    E_SECTIONS = 2
    E_TOKENS = 3
    E_CHAR = 4
    E_BOTH = 5
    E_COUNT = 6
    E_BAR = 7
    E_OFF = 8
    E_TOTAL = 9


cdef inline bint is_digit(char ch) noexcept nogil:
    return 48 <= ch <= 57


cdef int parse_code(const char* s, Py_ssize_t n, Pos* out, int* where) noexcept nogil:
    """Read a position code (RULES §9.1) into ``out``; 0 or an error code.

    ``where`` receives the 1-based point of a point error, or the seat of a
    total error.
    """
    cdef Py_ssize_t i = 2
    cdef int q, value, digits, sign, seat, total
    cdef int board_total[2]
    memset(out, 0, sizeof(Pos))
    where[0] = 0
    if n < 2 or s[0] != 71 or s[1] != 58:
        return E_PREFIX
    board_total[0] = 0
    board_total[1] = 0
    for q in range(1, 25):
        where[0] = q
        sign = 1
        value = 0
        digits = 0
        if i < n and (s[i] == 45 or s[i] == 43):        # '-' or '+'
            sign = -1 if s[i] == 45 else 1
            i += 1
            if i >= n or not is_digit(s[i]):
                return E_CHAR
        while i < n and is_digit(s[i]):
            value = value * 10 + (s[i] - 48)
            if value > 99:
                value = 99          # saturate: anything above 15 is an error
            digits += 1
            i += 1
        if i >= n:
            return E_SECTIONS
        if s[i] == 44:                                     # ','
            if q == 24:
                return E_TOKENS
        elif s[i] == 124:                                  # '|'
            if q < 24:
                return E_TOKENS
        elif (s[i] == 45 or s[i] == 43) and digits:
            return E_BOTH
        else:
            return E_CHAR
        i += 1
        if value > N_CHECKERS:
            return E_COUNT
        if sign > 0:
            out.cnt[0][q] = value
            board_total[0] += value
        else:
            out.cnt[1][point_in_other_frame(q)] = value
            board_total[1] += value
    # RULES §9.1: the bar is always empty in Gul Bara.
    where[0] = 0
    if i + 4 > n or s[i] != 48 or s[i + 1] != 44 or s[i + 2] != 48 or s[i + 3] != 124:
        return E_BAR
    i += 4
    for seat in range(2):
        value = 0
        digits = 0
        while i < n and is_digit(s[i]):
            value = value * 10 + (s[i] - 48)
            if value > 99:
                value = 99
            digits += 1
            i += 1
        if digits == 0 or value > N_CHECKERS:
            return E_OFF
        if seat == 0:
            if i >= n or s[i] != 44:
                return E_OFF
            i += 1
        out.off[seat] = value
    if i != n:
        return E_OFF
    for seat in range(2):
        total = board_total[seat] + out.off[seat]
        if total != N_CHECKERS:
            where[0] = seat
            return E_TOTAL
    pos_set_occupancy(out)
    return 0


cdef object code_error(str code, int err, int where):
    """The exception for a failed parse_code, with a message naming the problem."""
    text = repr(code) if len(code) <= 120 else repr(code[:117]) + "..."
    if err == E_PREFIX:
        return InvalidPositionError(f"a position code starts with 'G:', got {text}")
    if err == E_SECTIONS or err == E_TOKENS:
        parts = code[2:].split("|")
        if len(parts) != 3:
            return InvalidPositionError(
                f"a position code has three '|'-separated sections (points|bar|off), "
                f"got {len(parts)} in {text}")
        return InvalidPositionError(
            f"a position code has 24 point tokens, got {len(parts[0].split(','))} in {text}")
    if err == E_CHAR:
        token = code[2:].split("|")[0].split(",")[where - 1]
        return InvalidPositionError(f"point {where} has the bad token {token!r} in {text}")
    if err == E_BOTH:
        token = code[2:].split("|")[0].split(",")[where - 1]
        return InvalidPositionError(
            f"point {where} holds checkers of both colours ({token!r}) in {text}")
    if err == E_COUNT:
        token = code[2:].split("|")[0].split(",")[where - 1]
        return InvalidPositionError(
            f"point {where} holds more than 15 checkers ({token!r}) in {text}")
    if err == E_BAR:
        return InvalidPositionError(f"the bar must be '0,0' in Gul Bara (no hitting), in {text}")
    if err == E_OFF:
        return InvalidPositionError(
            f"the borne-off section must be two counts 0..15 ('w,b'), in {text}")
    colour = "White" if where == 0 else "Black"
    return InvalidPositionError(
        f"{colour} must have exactly 15 checkers on the board and borne off, in {text}")


cdef int read_code(object code, Pos* out) except -1:
    cdef Py_ssize_t n
    cdef const char* s
    cdef int err, where
    if type(code) is not str:
        if not isinstance(code, str):
            raise TypeError(f"a position code must be a str, not {type(code).__name__}")
    try:
        s = PyUnicode_AsUTF8AndSize(code, &n)
    except UnicodeError:
        raise InvalidPositionError(
            f"a position code is ASCII text, got {code[:120]!r}") from None
    err = parse_code(s, n, out, &where)
    if err:
        raise code_error(code, err, where)
    return 0


cdef str format_code(const Pos* p):
    cdef char buf[CODE_BUFFER]
    cdef Py_ssize_t n = pos_format(p, buf)
    return PyUnicode_DecodeASCII(buf, n, NULL)


cdef Position wrap(const Pos* p):
    cdef Position result = Position.__new__(Position)
    result.pos = p[0]
    return result


# ---------------------------------------------------------------------------
# Python-facing classes (the backend contract of docs/backend.md)
# ---------------------------------------------------------------------------

cdef class Position:
    """An immutable Gul Bara position (no side to move).

    >>> p = Position.from_code(START_CODE)
    >>> p.pip_count(0), p.borne_off(1), p.code() == START_CODE
    (360, 0, True)
    """

    def __cinit__(self):
        memset(&self.pos, 0, sizeof(Pos))

    @staticmethod
    def from_code(code):
        """Read a position code (RULES §9.1); ``InvalidPositionError`` if malformed."""
        cdef Position result = Position.__new__(Position)
        read_code(code, &result.pos)
        return result

    @staticmethod
    def from_points(points, off_white, off_black):
        """Build a position from 24 signed counts in White's numbering and the borne-off counts."""
        points = list(points)
        if len(points) != 24:
            raise InvalidPositionError(f"a board has 24 points, got {len(points)}")
        tokens = []
        for value in points:
            if isinstance(value, bool) or not hasattr(type(value), "__index__"):
                raise TypeError(f"point counts must be ints, got {value!r}")
            value = _index(value)
            tokens.append(str(value) if value else "")
        offs = []
        for value in (off_white, off_black):
            if isinstance(value, bool) or not hasattr(type(value), "__index__"):
                raise TypeError(f"borne-off counts must be ints, got {value!r}")
            offs.append(str(_index(value)))
        return Position.from_code("G:" + ",".join(tokens) + "|0,0|" + ",".join(offs))

    def code(self):
        """The canonical position code (RULES §9.1)."""
        return format_code(&self.pos)

    def points(self):
        """24 signed counts in White's numbering (positive White, negative Black)."""
        return tuple(self.pos.cnt[0][q] - self.pos.cnt[1][point_in_other_frame(q)]
                     for q in range(1, 25))

    def borne_off(self, seat):
        """Checkers ``seat`` has borne off."""
        return self.pos.off[check_seat(seat)]

    def pip_count(self, seat):
        """Sum over ``seat``'s checkers of their own point numbers."""
        cdef int s = check_seat(seat), q, total = 0
        for q in range(1, 25):
            total += q * self.pos.cnt[s][q]
        return total

    def key(self):
        """A 64-bit hash of the position, equal for equal positions."""
        return pos_key64(&self.pos)

    def stage_ends(self, seat, dice):
        """The distinct ends of one stage for ``seat`` (RULES §3)."""
        return make_ends(&self.pos, check_seat(seat), dice)

    def apply_steps(self, seat, steps):
        """The position after ``steps``, each checked against RULES §2 (not the stage rules)."""
        cdef int s = check_seat(seat), frm, die
        cdef Position result = wrap(&self.pos)
        for step in steps:
            try:
                frm_obj, die_obj = step
            except (TypeError, ValueError):
                raise TypeError(f"a step is a pair (from, die), got {step!r}") from None
            for value in (frm_obj, die_obj):
                if isinstance(value, bool) or not hasattr(type(value), "__index__"):
                    raise TypeError(f"a step is a pair of ints (from, die), got {step!r}")
            frm_obj = _index(frm_obj)
            die_obj = _index(die_obj)
            if not (1 <= frm_obj <= 24 and 1 <= die_obj <= 6):
                raise IllegalPlayError(
                    f"step {(frm_obj, die_obj)!r} is out of range (from 1..24, die 1..6)")
            frm = frm_obj
            die = die_obj
            if not step_is_legal(&result.pos, s, frm, die):
                raise IllegalPlayError(
                    f"step {(frm, die)!r} is illegal for {'White' if s == 0 else 'Black'} "
                    f"in {format_code(&result.pos)}: {step_problem(&result.pos, s, frm, die)}")
            step_apply(&result.pos, s, frm, die)
        return result

    def __eq__(self, other):
        if not isinstance(other, Position):
            return NotImplemented
        cdef Position o = other
        return (memcmp(self.pos.cnt, o.pos.cnt, sizeof(self.pos.cnt)) == 0
                and self.pos.off[0] == o.pos.off[0] and self.pos.off[1] == o.pos.off[1])

    def __hash__(self):
        return <Py_ssize_t>(pos_key64(&self.pos) >> 2)

    def __repr__(self):
        return f"Position.from_code({self.code()!r})"

    def __reduce__(self):
        return (Position.from_code, (self.code(),))


cdef str step_problem(const Pos* p, int seat, int frm, int die):
    cdef int target = frm - die
    if p.off[seat] == N_CHECKERS:
        return "every checker is already borne off"
    if not p.cnt[seat][frm]:
        return f"no checker on point {frm}"
    if target >= 1:
        return f"point {target} is held by the opponent"
    if p.occ[seat] & ~(<uint32_t>HOME_BITS):
        return "bearing off needs every checker in the home board"
    return f"a {die} bears off only from the highest point, {bit_length(p.occ[seat])}"


cdef Ends make_ends(const Pos* p, int seat, object dice):
    cdef uint8_t d[MAX_STAGE_DICE]
    cdef int n_dice = read_dice(dice, d)
    cdef int n_ends, playable
    if stage_generate(p, seat, d, n_dice, _scratch, STAGE_CAPACITY, &n_ends, &playable):
        raise MemoryError("stage capacity exceeded")  # unreachable by the bound above
    cdef Ends ends = Ends.__new__(Ends)
    ends.ends = <StageEnd*>malloc(n_ends * sizeof(StageEnd))
    if ends.ends == NULL:
        raise MemoryError()
    memcpy(ends.ends, _scratch, n_ends * sizeof(StageEnd))
    ends.n = n_ends
    ends.base = p[0]
    ends.seat_ = seat
    ends.playable = playable
    if n_dice == 2:
        ends.dice_ = (d[0], d[1])
    else:
        ends.dice_ = (d[0],) * n_dice
    return ends


def stage_ends(code, seat, dice):
    """The distinct ends of one stage (RULES §3) for ``seat`` in the position ``code``.

    >>> ends = stage_ends(START_CODE, 0, [6, 5])
    >>> ends.playable_dice, len(ends), ends.steps(0)
    (2, 2, ((24, 6), (24, 5)))
    """
    cdef Pos p
    read_code(code, &p)
    return make_ends(&p, check_seat(seat), dice)


cdef class Ends:
    """The distinct ends of one stage, in canonical order (RULES §3.7-3.8)."""

    def __dealloc__(self):
        free(self.ends)

    def __len__(self):
        return self.n

    def start(self):
        """The position the stage is played from."""
        return wrap(&self.base)

    @property
    def seat(self):
        return self.seat_

    @property
    def dice(self):
        return self.dice_

    @property
    def playable_dice(self):
        """The effective length every legal play has (RULES §3.4)."""
        return self.playable

    cdef int check_index(self, Py_ssize_t i) except -1:
        if i < 0 or i >= self.n:
            raise IndexError(f"end index {i} out of range for {self.n} ends")
        return 0

    def steps(self, Py_ssize_t i):
        """The canonical steps of end ``i`` (RULES §3.8), in the mover's numbering."""
        self.check_index(i)
        cdef StageEnd* e = &self.ends[i]
        return tuple([(e.steps[k].frm, e.steps[k].die) for k in range(e.n_steps)])

    def ends_game(self, Py_ssize_t i):
        """Whether end ``i`` bears off the mover's last checker."""
        self.check_index(i)
        return bool(self.ends[i].ends_game)

    cdef void end_pos(self, Py_ssize_t i, Pos* out) noexcept:
        out[0] = self.base
        pos_set_mover_key(out, self.seat_, self.ends[i].key)

    def code(self, Py_ssize_t i):
        """The position code of end ``i``."""
        self.check_index(i)
        cdef Pos p
        self.end_pos(i, &p)
        return format_code(&p)

    def position(self, Py_ssize_t i):
        """End ``i`` as a ``Position``."""
        self.check_index(i)
        cdef Pos p
        self.end_pos(i, &p)
        return wrap(&p)

    def index(self, Position position not None):
        """The index of the end equal to ``position``, or -1."""
        cdef Key96 key = pos_mover_key(&position.pos, self.seat_)
        cdef int other = 1 - self.seat_, i
        if (memcmp(position.pos.cnt[other], self.base.cnt[other], 25) != 0
                or position.pos.off[other] != self.base.off[other]):
            return -1
        for i in range(self.n):
            if self.ends[i].key.lo == key.lo and self.ends[i].key.hi == key.hi:
                return i
        return -1

    def __repr__(self):
        return f"<Ends seat={self.seat_} dice={self.dice_} playable_dice={self.playable} n={self.n}>"
