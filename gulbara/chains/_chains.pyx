# cython: language_level=3
"""gulbara's compiled whole chains and remainders (RULES §4.3-4.4, §5) for
Python: the ``ChainResult`` and ``ChainRun`` objects and the ``*_raw`` entry
points of the chain part of the backend contract (``docs/dev/backend.md``),
checking their arguments and raising their errors; the enumeration itself is
``_chain_engine``'s. ``gulbara.chains.enumeration`` wraps them.

>>> len(chain_ends_raw(START_CODE, 0, 6))
1
"""

from libc.stdint cimport uint8_t, int8_t, uint32_t, uint64_t, SIZE_MAX
from cpython.pyport cimport PY_SSIZE_T_MAX
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy, memset

from gulbara.core._masks cimport point_in_other_frame
from gulbara.core._interrupt cimport interrupt_init, interrupt_raise
from gulbara.chains._status cimport CHAIN_OK, CHAIN_TOO_MANY, CHAIN_NO_MEMORY
from gulbara.chains._threads cimport MAX_THREADS
from gulbara.chains._memory cimport big_release, meter_init
from gulbara.chains._shared cimport Shared, ChainStats
from gulbara.chains._keysets cimport (N_PARTS, KeySet, table_bytes, keyset_clear, keyset_init,
                                      keyset_free)
from gulbara.core._types cimport Pos, Step, Key96, MAX_STAGE_DICE
from gulbara.core._movegen cimport Position, EndSet, read_code, format_code, check_seat
from gulbara.chains._chain_engine cimport (STOP_GAME_OVER, BYTES_PER_HELD, BASE_BYTES, ChainPlan,
                                    default_plan, chain_enumerate, chain_count_enumerate)
from gulbara.chains._chain_steps cimport chain_recover

from operator import index as _index
import threading

from gulbara.errors import checked_int, checked_bool, InvalidDiceError, EnumerationLimitError
from gulbara.core._movegen import START_CODE
from gulbara.chains._memory import buffer_pool_release, buffer_pool_stats
from gulbara.chains._chain_dd_out import diagram_sizes

# Only the main thread runs signal handlers (_interrupt.pxd).
cdef unsigned long MAIN_THREAD = threading.main_thread().ident

cdef enum:
    POLL_EVERY = 4096         # positions read between two looks for a signal

#: Peak memory of a chain enumeration per distinct position held at once, in
#: bytes (see _chain_engine.pxd): with ``max_ends`` set, the tables are held
#: to max_ends * CHAIN_BYTES_PER_END + CHAIN_BASE_BYTES.
CHAIN_BYTES_PER_END = BYTES_PER_HELD
#: What the smallest tables add to that bound, in bytes.
CHAIN_BASE_BYTES = BASE_BYTES


def _half_the_memory():
    """Half the machine's physical memory in bytes (3 GiB where it cannot be read)."""
    import os
    try:
        return max(1 << 30, os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2)
    except (AttributeError, ValueError, OSError):
        return 3 << 30


#: Memory the tables of one chain enumeration may hold by default, in bytes
#: (half the machine's memory): past it the outcomes are found in passes
#: (each keeping a share of them).
DEFAULT_CHAIN_MEMORY = _half_the_memory()
#: How many passes an enumeration may take at most (each keeps 1/N of the outcomes).
CHAIN_MAX_PASSES = N_PARTS


# The stages a chain or a remainder enumerates (RULES §4-5): their numbers and
# how many dice of each, and whether a stage that plays nothing ends it.
ctypedef struct ChainStages:
    bint is_chain
    int n_stages
    uint8_t numbers[7]
    uint8_t counts[7]


# A plan's fields (ChainPlan in _chain_engine.pxd) and the values each may take:
# (name, least, most); ``diagrams`` is a bool.
PLAN_BOUNDS = (("small_chain", 0, PY_SSIZE_T_MAX), ("diagram_contact", 0, 24),
               ("threaded_frontier", 1, PY_SSIZE_T_MAX), ("bucket_frontier", 1, PY_SSIZE_T_MAX),
               ("layered_frontier", 1, PY_SSIZE_T_MAX), ("layered_duplication", 0, 1_000_000),
               ("layered_probe", 1, PY_SSIZE_T_MAX), ("turn_duplication", 0, 1_000_000))


cdef dict plan_fields(const ChainPlan* plan):
    return dict(diagrams=bool(plan.diagrams), small_chain=plan.small_chain,
                diagram_contact=plan.diagram_contact, threaded_frontier=plan.threaded_frontier,
                bucket_frontier=plan.bucket_frontier, layered_frontier=plan.layered_frontier,
                layered_duplication=plan.layered_duplication, layered_probe=plan.layered_probe,
                turn_duplication=plan.turn_duplication)


cdef ChainPlan _default = default_plan()
#: The fields of the plan an enumeration takes unless given one (``plan=None``),
#: those of ``gulbara.chains.ChainPlan()``.
DEFAULT_PLAN = plan_fields(&_default)


cdef ChainPlan read_plan(object plan) except *:
    """The C plan of a ``plan`` argument: None is the default plan; else an
    object with the fields of DEFAULT_PLAN (gulbara.chains.ChainPlan), each checked."""
    cdef ChainPlan p = default_plan()
    if plan is None:
        return p
    values = {}
    for name in DEFAULT_PLAN:
        try:
            values[name] = getattr(plan, name)
        except AttributeError:
            raise TypeError(f"plan must be a gulbara.chains.ChainPlan or None, "
                            f"not {type(plan).__name__}") from None
    values["diagrams"] = checked_bool(values["diagrams"], "plan.diagrams")
    for name, low, high in PLAN_BOUNDS:
        values[name] = checked_int(values[name], f"plan.{name}", low, high,
                                   bounds=f"at least {low}" if high == PY_SSIZE_T_MAX else None)
    p.diagrams = values["diagrams"]
    p.small_chain = values["small_chain"]
    p.diagram_contact = values["diagram_contact"]
    p.threaded_frontier = values["threaded_frontier"]
    p.bucket_frontier = values["bucket_frontier"]
    p.layered_frontier = values["layered_frontier"]
    p.layered_duplication = values["layered_duplication"]
    p.layered_probe = values["layered_probe"]
    p.turn_duplication = values["turn_duplication"]
    return p


cdef class ChainResult(EndSet):
    """Every distinct outcome of a chain or a remainder (backend object; see gulbara.chains.enumeration)."""
    cdef ChainStages chain
    cdef KeySet outcomes
    cdef readonly size_t table_peak_bytes  # the most bytes its tables held at once (with
                                           # max_ends set, at most max_ends *
                                           # CHAIN_BYTES_PER_END + CHAIN_BASE_BYTES)
    cdef readonly int passes               # passes it took (1 unless memory ran short)

    def __dealloc__(self):
        big_release(self.outcomes.dense)
        self.outcomes.dense = NULL

    cdef Py_ssize_t count(self) noexcept:
        return self.outcomes.size

    cdef Key96 key_at(self, Py_ssize_t i) noexcept nogil:
        cdef Key96 key
        key.lo = self.outcomes.dense[2 * i]
        key.hi = <uint32_t>self.outcomes.dense[2 * i + 1]
        return key

    @property
    def stages(self):
        """The stages as tuples of equal dice."""
        cdef const ChainStages* chain = &self.chain
        return tuple([(chain.numbers[i],) * chain.counts[i] for i in range(chain.n_stages)])

    def tag(self, Py_ssize_t i):
        """(stop, number, dice played in that stage) of outcome ``i``."""
        self.check_index(i)
        cdef uint64_t tag = self.outcomes.dense[2 * i + 1] >> 32
        return (<int>(tag & 15), <int>((tag >> 4) & 15), <int>((tag >> 8) & 15))

    def fill(self, int8_t[:, ::1] boards, uint8_t[:, ::1] borne_off,
             int8_t[::1] stop, uint8_t[::1] number, uint8_t[::1] played):
        """Write every outcome into caller arrays (shapes N x 24, N x 2, N, N, N)."""
        cdef Py_ssize_t i, n = self.outcomes.size
        cdef int q, other = 1 - self.seat
        cdef Pos p
        cdef uint64_t tag
        if (boards.shape[0] != n or boards.shape[1] != 24 or borne_off.shape[0] != n
                or borne_off.shape[1] != 2 or stop.shape[0] != n or number.shape[0] != n
                or played.shape[0] != n):
            raise ValueError(f"fill needs arrays of shape ({n}, 24), ({n}, 2), ({n},) x 3")
        with nogil:
            for i in range(n):
                self.end_pos(i, &p)
                for q in range(1, 25):
                    boards[i, q - 1] = <int8_t>(p.cnt[0][q] - p.cnt[1][point_in_other_frame(q)])
                borne_off[i, 0] = p.off[0]
                borne_off[i, 1] = p.off[1]
                tag = self.outcomes.dense[2 * i + 1] >> 32
                stop[i] = <int8_t>(tag & 15)
                number[i] = <uint8_t>((tag >> 4) & 15)
                played[i] = <uint8_t>((tag >> 8) & 15)

    def __reduce__(self):
        """Pickles (and deep copies) carry the start, the stages and the outcomes."""
        cdef bytes outcomes = (<char*>self.outcomes.dense)[:table_bytes(self.outcomes.size)]
        return (_chain_result_from_state,
                (format_code(&self.base), self.seat, self.chain.is_chain,
                 bytes([self.chain.numbers[k] for k in range(self.chain.n_stages)]),
                 bytes([self.chain.counts[k] for k in range(self.chain.n_stages)]),
                 outcomes, self.table_peak_bytes, self.passes))

    def take(self, Py_ssize_t start, Py_ssize_t stop):
        """A new result holding outcomes ``start:stop`` (a chunk of this one)."""
        cdef Py_ssize_t n = self.outcomes.size
        start = max(0, min(start, n))
        stop = max(start, min(stop, n))
        cdef ChainResult part = self.like()
        part.outcomes.dense = <uint64_t*>malloc(table_bytes(stop - start + 1))
        if part.outcomes.dense == NULL:
            raise MemoryError("out of memory copying chain outcomes")
        memcpy(part.outcomes.dense, self.outcomes.dense + 2 * start, table_bytes(stop - start))
        part.outcomes.size = stop - start
        return part

    cdef ChainResult like(self):
        return new_result(&self.base, self.seat, &self.chain, self.table_peak_bytes, self.passes)

    def steps(self, Py_ssize_t i):
        """One canonical stage-by-stage play reaching outcome ``i``: a tuple of
        per-stage step tuples (stages after a stop are absent)."""
        self.check_index(i)
        cdef Key96 target
        cdef uint64_t tag = self.outcomes.dense[2 * i + 1] >> 32
        cdef Step path[7 * MAX_STAGE_DICE]
        cdef int stage_steps[7]
        cdef KeySet failed
        cdef Pos q = self.base
        cdef int found, k, offset = 0, last = 0
        target.lo = self.outcomes.dense[2 * i]
        target.hi = <uint32_t>self.outcomes.dense[2 * i + 1]
        if (tag & 15) == STOP_GAME_OVER:
            tag = STOP_GAME_OVER         # whichever stage ends the game (RULES §5.6)
        if keyset_init(&failed, 1024, NULL):
            raise MemoryError()
        with nogil:
            found = chain_recover(&q, self.seat, self.chain.numbers, self.chain.counts,
                                  self.chain.n_stages, self.chain.is_chain, 0, target, tag, path,
                                  stage_steps, &failed, &last)
        keyset_free(&failed)
        if found < 0:
            raise MemoryError("out of memory recovering the steps of a chain outcome")
        if found != 1:
            raise RuntimeError("could not recover the steps of a chain outcome")
        result = []
        for k in range(last + 1):
            result.append(tuple([(path[offset + j].frm, path[offset + j].die)
                                 for j in range(stage_steps[k])]))
            offset += stage_steps[k]
        return tuple(result)


cdef ChainResult new_result(const Pos* base, int seat, const ChainStages* chain, size_t peak,
                            int passes):
    """A ChainResult of ``chain``'s stages with no outcomes yet."""
    cdef ChainResult result = ChainResult.__new__(ChainResult)
    result.base = base[0]
    result.seat = seat
    result.chain = chain[0]
    result.table_peak_bytes = peak
    result.passes = passes
    keyset_clear(&result.outcomes, NULL)
    return result


def _chain_result_from_state(str code, int seat, bint is_chain, bytes numbers, bytes counts,
                             bytes outcomes, size_t peak, int passes):
    """A ChainResult from its pickled state (ChainResult.__reduce__)."""
    cdef ChainResult result
    cdef ChainStages chain
    cdef Pos p
    cdef Py_ssize_t n = len(outcomes) // table_bytes(1), k
    if len(numbers) != len(counts) or not 1 <= len(numbers) <= 6 or len(outcomes) % table_bytes(1):
        raise ValueError("not the state of a chain result")
    read_code(code, &p)
    memset(&chain, 0, sizeof(chain))
    chain.is_chain = is_chain
    chain.n_stages = len(numbers)
    for k in range(chain.n_stages):
        chain.numbers[k] = numbers[k]
        chain.counts[k] = counts[k]
    result = new_result(&p, check_seat(seat), &chain, peak, passes)
    result.outcomes.dense = <uint64_t*>malloc(table_bytes(n + 1))
    if result.outcomes.dense == NULL:
        raise MemoryError("out of memory unpickling chain outcomes")
    memcpy(result.outcomes.dense, <const char*>outcomes, table_bytes(n))
    result.outcomes.size = n
    return result


cdef size_t chain_budget(Py_ssize_t max_ends) noexcept:
    """The bytes a chain's tables may hold: max_ends * CHAIN_BYTES_PER_END + CHAIN_BASE_BYTES."""
    cdef size_t per = BYTES_PER_HELD, base = BASE_BYTES
    if max_ends < 0:
        return base
    if <size_t>max_ends > (SIZE_MAX - base) // per:
        return SIZE_MAX
    return <size_t>max_ends * per + base


cdef class ChainRun:
    """One chain or remainder to enumerate, in one pass or several (backend
    object; see gulbara.chains.enumeration). ``run(q, passes)`` enumerates it again,
    keeping the outcomes of pass ``q`` of ``passes`` (a power of 4 up to
    CHAIN_MAX_PASSES): together the passes give every outcome once, in the
    order of the one-pass result. ``stats``: what its enumerations took so far."""
    cdef Pos start
    cdef int seat
    cdef ChainStages chain
    cdef ChainPlan plan              # how it goes about it (read_plan)
    cdef ChainStats seen             # what its enumerations counted, summed (tally)
    cdef int threads
    cdef Py_ssize_t max_held
    cdef size_t budget
    cdef readonly object max_ends
    cdef bint by_stages              # its count found that no diagram applies

    cdef void shared_init(self, Shared* sh):
        """A fresh state for one enumeration: this run's budget and max_held."""
        meter_init(&sh.meter, self.budget)
        memset(&sh.stats, 0, sizeof(ChainStats))
        sh.held = 0
        sh.max_held = self.max_held
        sh.err = CHAIN_OK
        interrupt_init(&sh.intr, POLL_EVERY, MAIN_THREAD)

    cdef void tally(self, const ChainStats* stats):
        """Add one enumeration's counts to the run's (its diagram, if it built one,
        is the run's last)."""
        self.seen.diagram_chains += stats.diagram_chains
        self.seen.small_tries += stats.small_tries
        self.seen.stages_bucketed += stats.stages_bucketed
        self.seen.stages_layered += stats.stages_layered
        self.seen.stages_turned += stats.stages_turned
        if stats.dd_nodes:
            self.seen.dd_nodes = stats.dd_nodes
            self.seen.dd_dead = stats.dd_dead
            self.seen.dd_room = stats.dd_room
            self.seen.dd_cache_slots = stats.dd_cache_slots
            self.seen.dd_bytes = stats.dd_bytes
            self.seen.dd_team = stats.dd_team

    @property
    def stats(self):
        """What this run's enumerations (its passes and its count) took so far:
        ``diagram_chains`` (done by decision diagram), ``small_tries`` (tried stage
        by stage first, up to the plan's small_chain), ``stages_bucketed``,
        ``stages_layered`` and ``stages_turned`` (layered part way: counted in
        both), and ``last_diagram``, None or the last diagram's ``nodes``
        (``dead``: ids a team left unused), ``room`` (for nodes), ``cache_slots``,
        the bytes it ``counted`` in the meter, whether a helper thread built it
        (``team``) and the bytes of a node, a node of room and a cache slot."""
        last = None
        if self.seen.dd_nodes:
            last = dict(nodes=self.seen.dd_nodes, dead=self.seen.dd_dead,
                        team=bool(self.seen.dd_team), room=self.seen.dd_room,
                        cache_slots=self.seen.dd_cache_slots, counted=self.seen.dd_bytes,
                        **diagram_sizes())
        return dict(diagram_chains=self.seen.diagram_chains, small_tries=self.seen.small_tries,
                    stages_bucketed=self.seen.stages_bucketed,
                    stages_layered=self.seen.stages_layered,
                    stages_turned=self.seen.stages_turned, last_diagram=last)

    def run(self, int q, int passes):
        """Pass ``q`` of ``passes``: a ChainResult, or EnumerationLimitError
        (past max_ends or the memory budget), KeyboardInterrupt (Ctrl-C).

        With threads, the tables' peak depends on how the work was shared out, so
        a budget that fitted may not fit again: a pass of the most passes that does
        not fit on several threads is run again on one, whose peak does not depend
        on it (the same outcomes in the same order), before it is refused."""
        cdef Shared sh
        cdef int err, keep_lo, keep_hi, threads = self.threads
        cdef ChainResult result
        if passes < 1 or passes > N_PARTS or N_PARTS % passes or not 0 <= q < passes:
            raise ValueError(f"pass {q} of {passes}: passes must divide {N_PARTS}")
        keep_lo = q * (N_PARTS // passes)
        keep_hi = keep_lo + N_PARTS // passes
        while True:
            self.shared_init(&sh)
            result = new_result(&self.start, self.seat, &self.chain, 0, passes)
            with nogil:
                err = chain_enumerate(&self.start, self.seat, self.chain.numbers,
                                      self.chain.counts, self.chain.n_stages,
                                      self.chain.is_chain, threads, keep_lo, keep_hi,
                                      not self.by_stages, &self.plan, &sh, &result.outcomes)
            result.table_peak_bytes = sh.meter.peak
            self.tally(&sh.stats)
            interrupt_raise(&sh.intr)
            if (err == CHAIN_TOO_MANY and self.max_ends is None and passes == N_PARTS
                    and threads > 1):
                threads = 1
                continue
            break
        if err == CHAIN_TOO_MANY:
            if self.max_ends is not None:
                raise EnumerationLimitError(
                    f"more than max_ends={self.max_ends:,} distinct positions held at once, "
                    f"or more memory than they are allowed ({CHAIN_BYTES_PER_END} bytes each); "
                    f"raise max_ends to allow more")
            raise EnumerationLimitError(
                f"the chain's tables need more than memory={self.budget:,} bytes "
                f"in {passes} pass(es)"
                + (" (on one thread as well)" if threads < self.threads else ""))
        if err:
            raise MemoryError("out of memory in a chain enumeration")
        result.outcomes.meter = NULL
        return result

    def count(self):
        """How many outcomes the chain has, counted on its decision diagram without
        writing them (or, for a small chain, its outcomes enumerated and counted);
        None where the chain goes stage by stage (count the outcomes of its
        passes), or a remainder. KeyboardInterrupt on Ctrl-C."""
        cdef Shared sh
        cdef Py_ssize_t n
        if not self.chain.is_chain:
            return None
        self.shared_init(&sh)
        with nogil:
            n = chain_count_enumerate(&self.start, self.seat, self.chain.numbers,
                                      self.chain.counts, self.chain.n_stages, self.threads,
                                      &self.plan, &sh)
        self.tally(&sh.stats)
        interrupt_raise(&sh.intr)
        if n == -2 and sh.err == CHAIN_NO_MEMORY:
            raise MemoryError("out of memory counting a chain's outcomes")
        # -1: stage by stage; its passes need not try the small first try and the
        # diagram again. -2: past a budget, counted in passes.
        self.by_stages = n == -1
        return n if n >= 0 else None

    def __call__(self):
        """Every outcome: one pass, or as many as the memory budget needs (up to
        CHAIN_MAX_PASSES, each repeating the enumeration); with max_ends set,
        one pass, EnumerationLimitError past it."""
        cdef int passes = 1, q
        cdef Py_ssize_t total, at
        cdef ChainResult whole, part
        while True:
            try:
                if passes == 1:
                    return self.run(0, 1)
                parts = [self.run(q, passes) for q in range(passes)]
                break
            except EnumerationLimitError:
                if self.max_ends is not None or passes >= N_PARTS:
                    raise
                passes *= 4
        total = sum(len(p) for p in parts)
        whole = (<ChainResult>parts[0]).like()
        whole.outcomes.dense = <uint64_t*>malloc(table_bytes(total + 1))
        if whole.outcomes.dense == NULL:
            raise MemoryError("out of memory joining the passes of a chain enumeration")
        at = 0
        for part_object in parts:
            part = <ChainResult>part_object
            memcpy(whole.outcomes.dense + 2 * at, part.outcomes.dense,
                   table_bytes(part.outcomes.size))
            at += part.outcomes.size
            whole.table_peak_bytes = max(whole.table_peak_bytes, part.table_peak_bytes)
        whole.outcomes.size = total
        whole.passes = passes
        return whole


cdef int check_threads(object threads) except -1:
    if threads is None:
        return 1
    return checked_int(threads, "threads", 1, MAX_THREADS)


cdef ChainRun make_run(const Pos* p, int seat, list stages, bint is_chain, object max_ends,
                       object threads, object memory, object plan):
    cdef ChainRun run = ChainRun.__new__(ChainRun)
    cdef int k
    run.start = p[0]
    run.seat = seat
    run.chain.is_chain = is_chain
    run.chain.n_stages = len(stages)
    for k in range(run.chain.n_stages):
        run.chain.numbers[k] = stages[k][0]
        run.chain.counts[k] = stages[k][1]
    run.plan = read_plan(plan)
    memset(&run.seen, 0, sizeof(ChainStats))
    run.threads = check_threads(threads)
    run.max_ends = max_ends
    if max_ends is not None:
        run.max_held = checked_int(max_ends, "max_ends", 1, PY_SSIZE_T_MAX)
        run.budget = chain_budget(run.max_held)
    else:
        run.max_held = PY_SSIZE_T_MAX
        run.budget = checked_int(DEFAULT_CHAIN_MEMORY if memory is None else memory, "memory",
                                 BASE_BYTES, SIZE_MAX)
    return run


cdef list check_remainder_stages(object stages):
    """(number, count) pairs of a remainder, validated (RULES §5.3)."""
    cdef list pairs = []
    cdef int previous = 0
    try:
        items = list(stages)
    except TypeError:
        raise TypeError(f"stages must be a sequence of (number, count) pairs, "
                        f"not {type(stages).__name__}") from None
    if not 1 <= len(items) <= 6:
        raise InvalidDiceError(f"a remainder has 1 to 6 stages, got {len(items)}")
    for item in items:
        try:
            number, count = item
        except (TypeError, ValueError):
            raise InvalidDiceError(f"a remainder stage is a (number, count) pair, "
                                   f"got {item!r}") from None
        for value in (number, count):
            if isinstance(value, bool) or not hasattr(value, "__index__"):
                raise TypeError(f"a remainder stage's number and count are ints, got {item!r}")
        number = _index(number)
        count = _index(count)
        if not 1 <= number <= 6 or not 1 <= count <= MAX_STAGE_DICE:
            raise InvalidDiceError(f"a remainder stage is a number 1..6 and a count 1..4, "
                                   f"got {item!r}")
        if number <= previous:
            raise InvalidDiceError("remainder stages go in ascending order of number")
        previous = number
        pairs.append((number, count))
    return pairs


cdef Pos read_start(object code_or_position) except *:
    cdef Pos p
    if isinstance(code_or_position, Position):
        p = (<Position>code_or_position).pos
    else:
        read_code(code_or_position, &p)
    return p


def chain_run_raw(code_or_position, seat, first, max_ends=None, threads=None, memory=None,
                  plan=None):
    """A ChainRun for an escalating chain from ``first`` up to 6 (RULES §4.3-4.4),
    enumerated as ``plan`` says (None: the default plan)."""
    cdef Pos p = read_start(code_or_position)
    cdef int s = check_seat(seat)
    if isinstance(first, bool) or not hasattr(first, "__index__"):
        raise TypeError(f"first must be an int 1..6, not {type(first).__name__}")
    if not 1 <= _index(first) <= 6:
        raise InvalidDiceError(f"a chain starts at a number 1..6, got {first!r}")
    return make_run(&p, s, [(n, 4) for n in range(_index(first), 7)], True, max_ends, threads,
                    memory, plan)


def remainder_run_raw(code_or_position, seat, stages, max_ends=None, threads=None, memory=None,
                      plan=None):
    """A ChainRun for a remainder's stages (RULES §5.3); ``stages`` as (number, count) pairs."""
    cdef Pos p = read_start(code_or_position)
    cdef int s = check_seat(seat)
    return make_run(&p, s, check_remainder_stages(stages), False, max_ends, threads, memory,
                    plan)


def chain_ends_raw(code_or_position, seat, first, max_ends=None, threads=None, memory=None,
                   plan=None):
    """Every outcome of an escalating chain from ``first`` up to 6 (RULES §4.3-4.4)."""
    return chain_run_raw(code_or_position, seat, first, max_ends, threads, memory, plan)()


def remainder_ends_raw(code_or_position, seat, stages, max_ends=None, threads=None, memory=None,
                       plan=None):
    """Every outcome of a remainder's stages (RULES §5.3); ``stages`` as (number, count) pairs."""
    return remainder_run_raw(code_or_position, seat, stages, max_ends, threads, memory, plan)()



def buffer_pool(max_bytes=None):
    """The reuse of big outcome buffers (see ``gulbara.chains.enumeration.buffer_pool``)."""
    if max_bytes is not None:
        buffer_pool_release(max_bytes)
    return buffer_pool_stats()


def release_buffers():
    """Free the kept outcome buffers; the bytes freed."""
    return buffer_pool_release(None)
