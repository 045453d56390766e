"""Whole escalating chains and remainders (RULES §4.3-4.4, §5), as numpy arrays.

From a player's 4th roll a double n-n is a chain of stages: four n's, four
(n+1)'s, ... up to four 6's, with no dice rolled in between. A bot that
searches wants every position the whole chain can end in: that is
:func:`chain_ends`. The answer can hold millions of positions, so it comes
back as arrays, not as Python objects.

>>> import gulbara
>>> chain = gulbara.chain_ends(gulbara.START_CODE, gulbara.WHITE, 5)
>>> len(chain), chain.boards.shape, chain.boards.dtype.name
(44, (44, 24), 'int8')
>>> sorted(set(chain.stop_reasons()))
['complete']
>>> chain.steps(0)[0]        # one canonical stage-by-stage play of outcome 0
((24, 5), (24, 5), (24, 5), (24, 5))
"""

import dataclasses
import os
from typing import Iterator, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from gulbara.core._backend import BACKEND_NAME, as_position
from gulbara import errors as gulbara_errors
from gulbara.errors import InvalidDiceError
from gulbara.core.play import EndsView
from gulbara.eval.greedy import greedy_scores
from gulbara.rules import DEFAULT_RULES, Rules, checked_rules

if BACKEND_NAME == "reference":     # GULBARA_BACKEND=reference: the rules-literal chains
    from gulbara.core import _reference as backend
else:
    from gulbara.chains import _chains as backend  # type: ignore[no-redef]  # the same API

__all__ = [
    "chain_ends", "remainder_ends", "chain_ends_iter", "remainder_ends_iter", "chain_count",
    "chain_best", "ChainEnds", "ChainOutcome", "BestOutcome", "ChainPlan",
    "STOP_COMPLETE", "STOP_STALLED", "STOP_UNSTARTED", "STOP_GAME_OVER", "STOP_NAMES",
    "BYTES_PER_END", "DEFAULT_MEMORY", "MAX_PASSES", "buffer_pool", "release_buffers",
]

#: Every stage played in full (for a remainder: every stage played).
STOP_COMPLETE = 0
#: A stage not played in full: the chain stops and its rest is the remainder (RULES §4.4, §5.1).
STOP_STALLED = 1
#: Not one die of the chain's first stage could be played (RULES §5.2).
STOP_UNSTARTED = 2
#: The mover bore off its last checker (RULES §5.5).
STOP_GAME_OVER = 3
STOP_NAMES = ("complete", "stalled", "unstarted", "game_over")

#: Memory the compiled enumeration is allowed per distinct position it may
#: hold at once when ``max_ends`` is given (the frontier being expanded, the
#: next one and the outcomes), in bytes: its tables stay within
#: ``max_ends * BYTES_PER_END`` plus 1 MiB.
BYTES_PER_END = backend.CHAIN_BYTES_PER_END
#: The memory budget of one enumeration's tables by default, in bytes (half the
#: machine's memory): past it, the outcomes are found in passes, each keeping a
#: share of them.
DEFAULT_MEMORY = backend.DEFAULT_CHAIN_MEMORY
#: The most passes an enumeration takes (each repeats the stages, keeping 1/N of the outcomes).
MAX_PASSES = backend.CHAIN_MAX_PASSES


def buffer_pool(max_bytes: Optional[int] = None) -> dict:
    """How big outcome buffers are kept for reuse; with ``max_bytes``, set the limit.

    A big enumeration writes its outcomes (16 bytes each) and sorts them in
    buffers of fresh memory, and fresh memory costs the kernel a page fault and
    a clearing per 4 KiB page on every call (page faults on two threads wait on
    each other). So a buffer of 4 MiB or more, once freed (with its
    :class:`ChainEnds`, or the sort's scratch within the call), is kept for the
    next enumeration that needs as much (at most twice its size): at most
    ``max_bytes`` (512 MiB unless set; 0 keeps none) and sixteen buffers, the
    oldest freed first. Setting the limit frees what is kept. Kept buffers are
    outside an enumeration's ``memory`` budget. Returns ``kept`` (buffers),
    ``kept_bytes``, ``max_bytes``, ``live`` (big buffers in use), ``reused``
    (buffers handed out again so far) and ``from_bytes`` (the smallest kept).

    >>> pool = buffer_pool()
    >>> pool["max_bytes"] >= pool["kept_bytes"] >= 0
    True
    """
    if max_bytes is not None:
        max_bytes = gulbara_errors.checked_int(max_bytes, "max_bytes", 0, 1 << 62)
    return dict(backend.buffer_pool(max_bytes))


def release_buffers() -> int:
    """Free the outcome buffers kept for reuse (:func:`buffer_pool`); the bytes freed.

    >>> release_buffers() >= 0
    True
    """
    return int(backend.release_buffers())


@dataclasses.dataclass(frozen=True)
class ChainPlan:
    """How the compiled enumeration goes about a chain: which way it takes and the
    sizes from which it shares, buckets and layers a stage. Only the time taken
    depends on the plan, never the outcomes or their order; the default is the
    one measured best on the benchmark suites. Pass one as ``plan=`` to
    :func:`chain_ends`, :func:`remainder_ends`, :func:`chain_count`, the streams
    and :func:`chain_best` (the reference backend ignores it).

    >>> plan = ChainPlan(diagrams=False)       # every chain stage by stage
    >>> len(chain_ends(START_CODE, 0, 4, plan=plan)) == len(chain_ends(START_CODE, 0, 4))
    True
    >>> ChainPlan(threaded_frontier=0)
    Traceback (most recent call last):
    ...
    gulbara.errors.GulBaraError: plan.threaded_frontier must be at least 1, got 0
    """

    diagrams: bool = True
    """Escalating chains and remainders may go by decision diagram where one applies."""
    small_chain: int = 30_000
    """... but go stage by stage first while they hold at most this many positions at once."""
    diagram_contact: int = 3
    """... and never with more of the opponent's points in the mover's way than this (0..24)."""
    threaded_frontier: int = 2048
    """Stages of fewer frontier positions run on the calling thread alone."""
    bucket_frontier: int = 4096
    """Stages of at least this many frontier positions put their full plays into buckets."""
    layered_frontier: int = 4096
    """Stages of at least this many may be expanded a step at a time (layers) ..."""
    layered_duplication: int = 10
    """... when the stage before made more than this many ends per distinct position
    (0..1,000,000)."""
    layered_probe: int = 1024
    """A bucketed stage not layered measures its ends per distinct end on each thread's
    first buckets of this many positions (or a sixteenth of the frontier) ..."""
    turn_duplication: int = 12
    """... and turns to layers past this many (0..1,000,000)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "diagrams",
                           gulbara_errors.checked_bool(self.diagrams, "plan.diagrams"))
        for name, low, high in _PLAN_BOUNDS:
            object.__setattr__(self, name, gulbara_errors.checked_int(
                getattr(self, name), f"plan.{name}", low, high,
                bounds=f"at least {low}" if high == _MAX_SIZE else None))


_MAX_SIZE = (1 << 63) - 1
# The values each of a plan's sizes may take: (name, least, most).
_PLAN_BOUNDS = (("small_chain", 0, _MAX_SIZE), ("diagram_contact", 0, 24),
                ("threaded_frontier", 1, _MAX_SIZE), ("bucket_frontier", 1, _MAX_SIZE),
                ("layered_frontier", 1, _MAX_SIZE), ("layered_duplication", 0, 1_000_000),
                ("layered_probe", 1, _MAX_SIZE), ("turn_duplication", 0, 1_000_000))


def _checked_plan(plan) -> Optional[ChainPlan]:
    if plan is not None and not isinstance(plan, ChainPlan):
        raise TypeError(f"plan must be a gulbara.chains.ChainPlan or None, "
                        f"not {type(plan).__name__}")
    return plan


def _checked_stats(stats) -> Optional[dict]:
    if stats is not None and not isinstance(stats, dict):
        raise TypeError(f"stats must be a dict or None, not {type(stats).__name__}")
    return stats


def _tally(stats: Optional[dict], run) -> None:
    """Add what ``run``'s enumerations took (``run.stats``) to the caller's ``stats``:
    its counts added to those there, its ``last_diagram`` (if any) put in."""
    if stats is None:
        return
    for name, value in run.stats.items():
        if name == "last_diagram":
            if value is not None or name not in stats:
                stats[name] = value
        else:
            stats[name] = stats.get(name, 0) + value


def default_threads() -> int:
    """The threads a chain uses by default: every core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


class ChainOutcome(NamedTuple):
    """One outcome of a chain or remainder."""

    code: str
    """The end position."""
    stop: str
    """Why it ended: one of :data:`STOP_NAMES`."""
    remainder: Tuple[int, ...]
    """The dice passed to the opponent (RULES §5.1), ascending; empty if none."""
    ends_game: bool
    """Whether the mover bore off its last checker."""


class ChainEnds(EndsView):
    """Every distinct outcome of a chain or remainder, as numpy arrays.

    An outcome is an end position together with why the chain stopped, which
    fixes the remainder; the same position reached by stopping at different
    stages is two outcomes, but a game-ending position passes nothing and is
    one outcome, tagged with the first stage that can end the game (RULES
    §5.6). The order of outcomes is deterministic but not
    meaningful; sort the arrays if you need one.

    Arrays (built on first use, then cached), for ``N = len(self)``:

    * ``boards``: ``N x 24`` ``int8``, White's numbering, positive White, negative Black;
    * ``borne_off``: ``N x 2`` ``uint8``, White's then Black's;
    * ``stop``: ``N`` ``int8``, one of the ``STOP_*`` constants;
    * ``stop_number``: ``N`` ``uint8``, the number of the stage where it stopped;
    * ``played``: ``N`` ``uint8``, dice played in that stage;
    * ``remainder``: ``N x 6`` ``uint8``, dice of each number 1..6 passed on;
    * ``ends_game``: ``N`` ``bool``.
    """

    __slots__ = ("_rules", "_first", "_arrays")

    def __init__(self, raw, rules: Rules, first: Optional[int]) -> None:
        super().__init__(raw)
        self._rules = rules
        self._first = first
        self._arrays = None

    @property
    def rules(self) -> Rules:
        """The rules of the game the outcomes belong to (the ``rules`` argument)."""
        return self._rules

    @property
    def is_chain(self) -> bool:
        """Whether these are an escalating chain's outcomes (:func:`chain_ends`), not a
        remainder's (:func:`remainder_ends`): after a chain the opponent rolls next,
        after a remainder its player (RULES §5.4)."""
        return self._first is not None

    @property
    def stages(self) -> Tuple[Tuple[int, ...], ...]:
        """The stages enumerated, as tuples of equal dice."""
        return self._raw.stages

    def _build(self):
        if self._arrays is None:
            n = len(self._raw)
            boards = np.zeros((n, 24), dtype=np.int8)
            borne_off = np.zeros((n, 2), dtype=np.uint8)
            stop = np.zeros(n, dtype=np.int8)
            number = np.zeros(n, dtype=np.uint8)
            played = np.zeros(n, dtype=np.uint8)
            self._raw.fill(boards, borne_off, stop, number, played)
            remainder = self._remainder_counts(stop, number, played)
            ends_game = stop == STOP_GAME_OVER
            for array in (boards, borne_off, stop, number, played, remainder, ends_game):
                array.flags.writeable = False
            self._arrays = (boards, borne_off, stop, number, played, remainder, ends_game)
        return self._arrays

    def _remainder_counts(self, stop, number, played) -> np.ndarray:
        """Dice passed to the opponent per number: the game's one remainder rule
        (:func:`gulbara.game.state_codes.remainder_stages`, RULES §5.1-5.2) for each kind
        of stop, then looked up per outcome."""
        if self._first is None:    # a remainder never produces a remainder (RULES §5.4)
            return np.zeros((len(stop), 6), dtype=np.uint8)
        from gulbara.game.state_codes import CHAIN, Stage, remainder_stages
        # table[stop, number, played]: the dice of each number passed on
        table = np.zeros((4, 7, 5, 6), dtype=np.uint8)
        for n in range(self._first, 7):
            stage = Stage(CHAIN, (n,) * 4, n - self._first, tuple((k, 4) for k in range(n + 1, 7)))
            for p in range(4):
                kind = STOP_UNSTARTED if (n == self._first and p == 0) else STOP_STALLED
                for k, count in remainder_stages(self._rules, stage, p):
                    table[kind, n, p, k - 1] = count
        # one small key per outcome, looked up in slices: no index arrays wider than a slice
        key = (stop.astype(np.uint16) * 7 + number) * 5 + played
        flat, counts = table.reshape(-1, 6), np.empty((len(stop), 6), dtype=np.uint8)
        for at in range(0, len(stop), 1 << 20):
            np.take(flat, key[at:at + (1 << 20)], axis=0, out=counts[at:at + (1 << 20)])
        return counts

    @property
    def boards(self) -> np.ndarray:
        return self._build()[0]

    @property
    def borne_off(self) -> np.ndarray:
        return self._build()[1]

    @property
    def stop(self) -> np.ndarray:
        return self._build()[2]

    @property
    def stop_number(self) -> np.ndarray:
        return self._build()[3]

    @property
    def played(self) -> np.ndarray:
        return self._build()[4]

    @property
    def remainder(self) -> np.ndarray:
        return self._build()[5]

    @property
    def ends_game(self) -> np.ndarray:
        return self._build()[6]

    def stop_reasons(self) -> list:
        """The stop reasons as names (:data:`STOP_NAMES`)."""
        return [STOP_NAMES[k] for k in self.stop]

    def position(self, i: int):
        """Outcome ``i``'s end position (a backend ``Position``)."""
        return self._raw.position(self._index(i))

    def code(self, i: int) -> str:
        """The end position code of outcome ``i``."""
        return self._raw.code(self._index(i))

    def _index(self, i: int) -> int:
        return gulbara_errors.checked_index(i, len(self._raw), "outcome indices are ints",
                                            "outcomes")

    def __getitem__(self, i: int) -> ChainOutcome:
        i = self._index(i)
        arrays = self._build()
        remainder = tuple(number for number in range(1, 7)
                          for _ in range(int(arrays[5][i, number - 1])))
        return ChainOutcome(self._raw.code(i), STOP_NAMES[arrays[2][i]], remainder,
                            bool(arrays[6][i]))

    def __iter__(self) -> Iterator[ChainOutcome]:
        for i in range(len(self)):
            yield self[i]

    def steps(self, i: int) -> Tuple[Tuple[Tuple[int, int], ...], ...]:
        """One canonical stage-by-stage play reaching outcome ``i``.

        A tuple with one tuple of ``(from, die)`` steps per stage played,
        up to the stage where the chain stopped; it is the first such play
        when each stage's ends are taken in canonical order (RULES §3.8).
        """
        return self._raw.steps(self._index(i))

    def __repr__(self) -> str:
        return f"<ChainEnds seat={self.seat} stages={len(self.stages)} outcomes={len(self)}>"


def _first_number(first) -> int:
    if isinstance(first, bool) or not isinstance(first, (int, np.integer)):
        raise TypeError(f"first must be an int 1..6, not {type(first).__name__}")
    if not 1 <= first <= 6:
        raise InvalidDiceError(f"a chain starts at a number 1..6, got {first}")
    return int(first)


def _remainder_pairs(stages) -> list:
    """(number, count) pairs of a remainder given as lists of equal dice (RULES §5.3)."""
    pairs: list = []
    for stage in stages:
        dice = list(stage)
        for number in dice:                 # every die, as stage_ends checks them
            if isinstance(number, bool) or not isinstance(number, (int, np.integer)):
                raise TypeError(f"dice must be ints, got {gulbara_errors.shown(number)} in "
                                f"{gulbara_errors.shown(dice)}")
        if not 1 <= len(dice) <= 4 or len(set(dice)) != 1:
            raise InvalidDiceError(f"a remainder stage is one to four equal dice, got {dice!r}")
        number = dice[0]
        if not 1 <= number <= 6:
            raise InvalidDiceError(f"a die must be 1 to 6, got {number!r} in {dice!r}")
        if pairs and number <= pairs[-1][0]:
            raise InvalidDiceError(
                f"remainder stages go in ascending order of number, got {list(stages)!r}")
        pairs.append((int(number), len(dice)))
    if not pairs:
        raise InvalidDiceError("a remainder has at least one stage")
    return pairs


def _threads(threads, max_ends=None) -> int:
    """The threads of one enumeration: as given, else every core, but one when
    ``max_ends`` bounds it. Threads hold some positions twice until their
    tables merge, so only on one thread does a bound on the positions held
    mean the same on every machine."""
    if threads is not None:
        return threads
    return 1 if max_ends is not None else default_threads()


def chain_ends(code, seat: int, first: int, rules: Optional[Rules] = None,
               max_ends: Optional[int] = None, *, threads: Optional[int] = None,
               memory: Optional[int] = None, plan: Optional[ChainPlan] = None,
               stats: Optional[dict] = None) -> ChainEnds:
    """Every distinct outcome of an escalating chain from ``first`` up to 6.

    Each stage is judged on its own (RULES §4.3); the chain goes on only
    after a stage played in full and stops at the first that is not, or when
    the game ends (RULES §4.4). ``code`` is a position code, a ``Position``
    or a ``Board``. The remainder of each outcome follows ``rules``
    (``remainder`` and ``unstarted_chain``).

    ``threads`` share each big stage's work (default: every core, or one
    with ``max_ends`` set; ``threads=1`` runs on the calling thread, with the
    GIL released); the outcomes and their order do not depend on it. Memory: the tables are held
    to ``memory`` bytes (default :data:`DEFAULT_MEMORY`); past it the
    enumeration is repeated in passes, each keeping a share of the outcomes
    (up to :data:`MAX_PASSES`), so a chain that fits the machine is not
    refused. With ``max_ends`` set, more than ``max_ends`` positions
    held at once (the frontier being expanded, the next one and the
    outcomes), or more memory than ``max_ends *`` :data:`BYTES_PER_END`
    bytes, raise ``EnumerationLimitError``. On more than one thread a
    position that two threads both reach is held twice until their tables
    are merged, so a chain can need a larger ``max_ends`` on more threads:
    that is why ``max_ends`` without ``threads`` runs on one thread, a bound
    that means the same on every machine. Ctrl-C stops it promptly.

    ``plan``: how the work is done (a :class:`ChainPlan`; None, the default
    one): it changes the time taken, never the outcomes. ``stats``: a dict to
    which the call adds what its enumeration took (diagnostics: counts of
    ``diagram_chains``, ``small_tries``, ``stages_bucketed``,
    ``stages_layered`` and ``stages_turned``, added to any already there, and
    the ``last_diagram`` built, or None; the reference backend counts none).

    >>> chain = chain_ends("G:,,,,,2,2,2,2,2,2,-3,,,,,,,,,,,,3|0,0|0,12", 1, 6)
    >>> list(chain)
    [ChainOutcome(code='G:,,,,,2,2,2,2,2,2,-3,,,,,,,,,,,,3|0,0|0,12', stop='unstarted', remainder=(), ends_game=False)]
    >>> stats = {}
    >>> len(chain_ends(START_CODE, 0, 4, plan=ChainPlan(diagrams=False), stats=stats))
    1601
    >>> stats["diagram_chains"]
    0
    """
    rules = checked_rules(rules, DEFAULT_RULES)
    first = _first_number(first)
    plan, stats = _checked_plan(plan), _checked_stats(stats)
    run = backend.chain_run_raw(as_position(code), seat, first, max_ends,
                                _threads(threads, max_ends), memory, plan=plan)
    try:
        return ChainEnds(run(), rules, first)
    finally:
        _tally(stats, run)


def remainder_ends(code, seat: int, stages: Sequence[Sequence[int]],
                   max_ends: Optional[int] = None, *, threads: Optional[int] = None,
                   memory: Optional[int] = None, rules: Optional[Rules] = None,
                   plan: Optional[ChainPlan] = None, stats: Optional[dict] = None) -> ChainEnds:
    """Every distinct outcome of playing a remainder's stages in order (RULES §5.3).

    ``stages`` are lists of one to four equal dice in ascending order of
    number, e.g. ``[[4, 4], [5, 5, 5, 5], [6, 6, 6, 6]]``. Dice of a stage
    that cannot be played are lost and play goes on with the next stage; a
    stage that ends the game ends it (RULES §5.5). ``max_ends``, ``threads``,
    ``memory``, ``plan`` and ``stats`` as in :func:`chain_ends`. No rule option
    changes a remainder's stages; ``rules`` (the game's) is what the result's
    ``rules`` says, for valuing the outcomes
    (:meth:`gulbara.net.model.ValueNet.outcome_values`).

    >>> outcomes = remainder_ends(START_CODE, 1, [[5, 5]])
    >>> sorted(o.code for o in outcomes)
    ['G:,,,,,,-2,,,,,-13,,,,,,,,,,,,15|0,0|0,0', 'G:,-1,,,,,,,,,,-14,,,,,,,,,,,,15|0,0|0,0']
    """
    rules = checked_rules(rules, DEFAULT_RULES)
    pairs = _remainder_pairs(stages)
    plan, stats = _checked_plan(plan), _checked_stats(stats)
    run = backend.remainder_run_raw(as_position(code), seat, pairs, max_ends,
                                    _threads(threads, max_ends), memory, plan=plan)
    try:
        return ChainEnds(run(), rules, None)
    finally:
        _tally(stats, run)


def _passes(run):
    """The passes of a run, each pass's result in turn: one pass, or as many as
    its memory budget needs (each repeats the stages, keeping a share of the
    outcomes; the shares, in turn, are the one-pass order)."""
    yield from _share(run, 0, 1)


def _share(run, q: int, passes: int):
    """Pass ``q`` of ``passes``; if its share does not fit the budget, that share
    as four passes of ``4 * passes`` in turn (the same outcomes, in the same
    order). With threads, a table's peak depends on how the work was shared
    out, so a budget one pass fits may not fit the next: each share is split
    as far as it needs, up to :data:`MAX_PASSES` (where a pass that does not fit on
    several threads runs again on one: ``ChainRun.run``)."""
    try:
        result = run.run(q, passes)
    except gulbara_errors.EnumerationLimitError:
        if run.max_ends is not None or passes * 4 > MAX_PASSES:
            raise
        for k in range(4):
            yield from _share(run, 4 * q + k, 4 * passes)
        return
    yield result


def _chunks(run, rules, first, chunk, stats):
    try:
        for result in _passes(run):
            if len(result) <= chunk:
                yield ChainEnds(result, rules, first)
            else:
                for start in range(0, len(result), chunk):
                    yield ChainEnds(result.take(start, start + chunk), rules, first)
            del result
    finally:
        _tally(stats, run)          # (once the stream ends or is dropped)


def _check_chunk(chunk) -> int:
    if isinstance(chunk, bool) or not isinstance(chunk, (int, np.integer)):
        raise TypeError(f"chunk must be an int, not {type(chunk).__name__}")
    if chunk < 1:
        raise gulbara_errors.GulBaraError(f"chunk must be at least 1, got {chunk}")
    return int(chunk)


def chain_ends_iter(code, seat: int, first: int, rules: Optional[Rules] = None, *,
                    chunk: int = 1_000_000, threads: Optional[int] = None,
                    memory: Optional[int] = None, plan: Optional[ChainPlan] = None,
                    stats: Optional[dict] = None) -> Iterator[ChainEnds]:
    """The outcomes of :func:`chain_ends`, in the same order, as a stream of
    :class:`ChainEnds` chunks of at most ``chunk`` outcomes.

    The enumeration runs in as few passes as ``memory`` allows (each
    repeating the stages and keeping a share of the outcomes, up to
    :data:`MAX_PASSES`), and each pass's outcomes are handed out and dropped
    before the next pass: what is held at once is the tables (at most
    ``memory`` bytes), one pass's outcomes (16 bytes each) and the chunk.
    ``plan`` and ``stats`` as in :func:`chain_ends` (``stats`` filled when the
    stream ends).

    >>> chunks = list(chain_ends_iter(START_CODE, 0, 4, chunk=500,
    ...                               plan=ChainPlan(bucket_frontier=1)))
    >>> [len(c) for c in chunks]
    [500, 500, 500, 101]
    """
    rules = checked_rules(rules, DEFAULT_RULES)
    first = _first_number(first)
    chunk = _check_chunk(chunk)
    plan, stats = _checked_plan(plan), _checked_stats(stats)
    run = backend.chain_run_raw(as_position(code), seat, first, None, _threads(threads), memory,
                                plan=plan)
    return _chunks(run, rules, first, chunk, stats)


def remainder_ends_iter(code, seat: int, stages: Sequence[Sequence[int]], *,
                        chunk: int = 1_000_000, threads: Optional[int] = None,
                        memory: Optional[int] = None,
                        rules: Optional[Rules] = None, plan: Optional[ChainPlan] = None,
                        stats: Optional[dict] = None) -> Iterator[ChainEnds]:
    """The outcomes of :func:`remainder_ends` as a stream of chunks (see :func:`chain_ends_iter`).

    >>> [len(c) for c in remainder_ends_iter(START_CODE, 1, [[5, 5]], plan=ChainPlan())]
    [2]
    """
    rules = checked_rules(rules, DEFAULT_RULES)
    pairs = _remainder_pairs(stages)
    chunk = _check_chunk(chunk)
    plan, stats = _checked_plan(plan), _checked_stats(stats)
    run = backend.remainder_run_raw(as_position(code), seat, pairs, None, _threads(threads),
                                    memory, plan=plan)
    return _chunks(run, rules, None, chunk, stats)


def chain_count(code, seat: int, first: int, *, threads: Optional[int] = None,
                memory: Optional[int] = None, plan: Optional[ChainPlan] = None,
                stats: Optional[dict] = None) -> int:
    """How many distinct outcomes an escalating chain has (``len(chain_ends(...))``).
    A chain that :func:`chain_ends` takes by decision diagram is counted on the
    diagram, none of its outcomes written (a fraction of its time and memory);
    any other holds the outcomes of one pass at a time (see :func:`chain_ends_iter`).
    ``plan`` and ``stats`` as in :func:`chain_ends`.

    >>> chain_count(START_CODE, 0, 4)
    1601
    >>> chain_count(START_CODE, 0, 4, plan=ChainPlan(diagrams=False))
    1601
    """
    first = _first_number(first)
    plan, stats = _checked_plan(plan), _checked_stats(stats)
    run = backend.chain_run_raw(as_position(code), seat, first, None, _threads(threads), memory,
                                plan=plan)
    try:
        counted = run.count()
        if counted is not None:
            return counted
        return sum(len(result) for result in _passes(run))
    finally:
        _tally(stats, run)


class BestOutcome(NamedTuple):
    """One of the best outcomes of a chain under an evaluator."""

    score: float
    outcome: ChainOutcome
    steps: Tuple[Tuple[Tuple[int, int], ...], ...]
    """One canonical stage-by-stage play reaching it (:meth:`ChainEnds.steps`)."""


def chain_best(code, seat: int, first: int, k: int = 1, rules: Optional[Rules] = None, *,
               evaluate=greedy_scores, chunk: int = 1_000_000, threads: Optional[int] = None,
               memory: Optional[int] = None, plan: Optional[ChainPlan] = None,
               stats: Optional[dict] = None) -> list:
    """The ``k`` best outcomes of an escalating chain under ``evaluate``, best
    first (ties in the order of :func:`chain_ends`), without holding more than
    a chunk of outcome arrays at a time (:func:`chain_ends_iter`).

    ``evaluate(chain)`` takes a :class:`ChainEnds` (a chunk) and returns one
    score per outcome, higher better: :func:`greedy_scores` by default, or the
    value network's native valuation of each outcome after the turn,
    :func:`gulbara.net.model.net_scores` (``evaluate=net_scores(rolls=game.rolls_made)``).
    ``plan`` and ``stats`` as in :func:`chain_ends`.

    >>> best = chain_best(START_CODE, 0, 5, k=2, plan=ChainPlan(threaded_frontier=1))
    >>> [b.outcome.code for b in best]
    ['G:1,,,,,,,,,,,-15,,1,,,,1,1,,,,,11|0,0|0,0', 'G:,1,,,,,,,,,,-15,1,,,,,1,1,,,,,11|0,0|0,0']
    """
    k = gulbara_errors.checked_int(k, "k", 1)
    best_scores = np.zeros(0)
    best: list = []     # (score, order, outcome, steps), at most k
    order = 0
    for part in chain_ends_iter(code, seat, first, rules, chunk=chunk, threads=threads,
                                memory=memory, plan=plan, stats=stats):
        scores = gulbara_errors.checked_scores(evaluate(part), len(part), "evaluate")
        threshold = best_scores.min() if len(best) == k else -np.inf
        candidates = np.flatnonzero(scores >= threshold)
        if len(candidates) > k:
            # the k highest, ties broken by order (stable)
            keep = np.argsort(-scores[candidates], kind="stable")[:k]
            candidates = np.sort(candidates[keep])
        for i in candidates:
            best.append((float(scores[i]), order + int(i), part[int(i)], part.steps(int(i))))
        best.sort(key=lambda item: (-item[0], item[1]))
        del best[k:]
        best_scores = np.array([item[0] for item in best])
        order += len(part)
    return [BestOutcome(score, outcome, steps) for score, _, outcome, steps in best]


from gulbara.core._backend import START_CODE  # noqa: E402,F401  (for the doctests)
