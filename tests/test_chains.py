"""Whole chains and remainders (RULES §4.3-4.4, §5) against a stage-by-stage expansion.

The compiled enumeration (hash-merged frontiers, a step at a time) must give
exactly the outcomes that iterating ``stage_ends`` stage by stage gives
(``_reference.chain_outcomes``, a slow Python expansion), on hundreds of
(position, first) cases covering every first number, stalls mid-chain,
unstarted chains, bear-offs and game ends mid-chain.
"""

import random
from collections import Counter
from contextlib import contextmanager

import numpy as np
import pytest

import gulbara
from gulbara.chains import _chain_dd_out
from gulbara.chains import _chains
from gulbara.core import _movegen
from gulbara.core import _reference
from gulbara.chains.enumeration import (BYTES_PER_END, STOP_COMPLETE, STOP_GAME_OVER, STOP_NAMES, STOP_STALLED,
                            STOP_UNSTARTED, chain_ends, remainder_ends)
from gulbara.tools.suites import MID_GAME_11, REAL_GAME_CHAINS
from positions import (bear_off_position, blocked_start_position, prime_position,
                       random_play_positions)

SIZE_LIMIT = 12_000     # outcomes per case the Python expansion handles quickly


@pytest.fixture(autouse=True)
def stage_by_stage():
    """This module's tests check the stage-by-stage enumeration, decision diagrams off;
    the tests of the diagrams (at the end) turn them on and compare the two ways."""
    previous = _chains._py_set_diagrams(False)
    try:
        yield
    finally:
        _chains._py_set_diagrams(previous)


def small_chain(code, seat, first, limit=SIZE_LIMIT, **kw):
    """The chain, or None when it holds more than ``limit`` positions at once (cheap to find out).

    One thread unless told: threads hold some positions twice until they are
    merged, so which chains pass would otherwise depend on the machine's cores."""
    kw.setdefault("threads", 1)
    try:
        return chain_ends(code, seat, first, max_ends=limit, **kw)
    except gulbara.EnumerationLimitError:
        return None


def core_outcomes(chain):
    return {(chain.code(i),) + tuple(chain._raw.tag(i)) for i in range(len(chain))}


def reference_outcomes(result):
    """The (code, stop, number, played) rows of a reference ChainResult, in its order."""
    return [(result.code(i),) + tuple(result.tag(i)) for i in range(len(result))]


def expansion(code, seat, stages, is_chain):
    return _reference.chain_outcomes(code, seat, stages, is_chain, generate=_movegen.stage_ends)


def candidate_positions():
    rng = random.Random(404)
    out = []
    for _ in range(40):
        seat = rng.randint(0, 1)
        out.append((bear_off_position(rng, seat), seat))
    for _ in range(15):
        out.append((prime_position(rng), 1))
        out.append((prime_position(rng), 0))
        out.append((blocked_start_position(rng), 1))
    out += random_play_positions(77, 60)
    return out


def chain_cases():
    cases = []
    for code, seat in candidate_positions():
        for first in range(1, 7):
            cases.append((code, seat, first))
    return cases


CASES = chain_cases()


@contextmanager
def stage_plan_forced(*plan):
    """Run the block under a stage plan (_chains._py_set_stage_plan), restored after."""
    old = _chains._py_set_stage_plan(*plan)
    try:
        yield
    finally:
        _chains._py_set_stage_plan(*old)


@contextmanager
def every_stage_threaded():
    """Run the block with every stage shared between the threads, restored after."""
    previous = _chains._py_set_threaded_frontier(1)
    try:
        yield
    finally:
        _chains._py_set_threaded_frontier(previous)


@pytest.fixture(params=[1, 2, 3], ids=["1-thread", "2-threads", "3-threads"])
def threads(request):
    """Run a test on 1, 2 and 3 threads, every stage shared between them."""
    with every_stage_threaded():
        yield request.param


def checked_chain_outcomes(code, seat, first, threads):
    """The chain's outcomes (None past SIZE_LIMIT), checked distinct and equal to
    the stage-by-stage expansion's."""
    chain = small_chain(code, seat, first, threads=threads)
    if chain is None:
        return None
    want = expansion(code, seat, [(n, 4) for n in range(first, 7)], True)
    got = core_outcomes(chain)
    assert len(got) == len(chain), "duplicate outcomes"
    if got != want:
        pytest.fail(f"chain {first}-{first} for seat {seat} from {code}:\n"
                    f"missing {sorted(want - got)[:5]}\nextra {sorted(got - want)[:5]}")
    return got


def test_chains_match_the_stage_by_stage_expansion(threads):
    compared = 0
    seen = Counter()
    firsts = Counter()
    for code, seat, first in CASES:
        got = checked_chain_outcomes(code, seat, first, threads)
        if got is None:
            continue
        compared += 1
        firsts[first] += 1
        for _, stop, number, _ in got:
            seen[(stop, number > first, number < 6)] += 1
    assert compared >= 300
    assert all(firsts[f] >= 20 for f in range(1, 7)), firsts
    assert any(stop == STOP_STALLED and later for (stop, later, _) in seen)      # mid-chain stall
    assert any(stop == STOP_UNSTARTED for (stop, _, _) in seen)
    assert any(stop == STOP_GAME_OVER and before6 for (stop, _, before6) in seen)  # game over mid-chain
    assert any(stop == STOP_COMPLETE for (stop, _, _) in seen)


def test_remainders_match_the_stage_by_stage_expansion(threads):
    rng = random.Random(9)
    compared = 0
    for code, seat in candidate_positions()[::2]:
        start = rng.randint(1, 6)
        stages = [(start, rng.randint(1, 4))] + [(n, 4) for n in range(start + 1, 7)]
        try:
            result = remainder_ends(code, seat, [[n] * k for n, k in stages], max_ends=SIZE_LIMIT,
                                    threads=threads)
        except gulbara.EnumerationLimitError:
            continue
        assert core_outcomes(result) == expansion(code, seat, stages, False)
        assert not result.remainder.any()          # RULES §5.4: nothing passes back
        compared += 1
    assert compared >= 40


# The stage plans a test can force on small chains (_chains._py_set_stage_plan):
# every stage bucketed and expanded at once, or bucketed and a step at a time.
STAGE_PLANS = {"bucketed": (1, 1 << 40, 0), "bucketed-layered": (1, 1, 0)}
NO_BUCKETS = (1 << 40, 1 << 40, 0)



@pytest.fixture(params=[("bucketed", 1), ("bucketed", 3), ("bucketed-layered", 1),
                        ("bucketed-layered", 2)], ids=lambda p: f"{p[0]}-{p[1]}-threads")
def stage_plan(request):
    """Every stage bucketed (RULES §2.1: its positions grouped by their checkers
    per class of points), on the given threads; the plan and the threads are
    restored after."""
    name, threads = request.param
    with every_stage_threaded(), stage_plan_forced(*STAGE_PLANS[name]):
        _chains._py_stage_counts()
        yield name, threads


def test_bucketed_stages_match_the_stage_by_stage_expansion(stage_plan):
    name, threads = stage_plan
    compared = 0
    for code, seat, first in CASES[::3]:
        compared += checked_chain_outcomes(code, seat, first, threads) is not None
    rng = random.Random(19)
    for code, seat in candidate_positions()[1::4]:
        start = rng.randint(2, 6)
        stages = [(start, rng.randint(1, 4))] + [(n, 4) for n in range(start + 1, 7)]
        try:
            result = remainder_ends(code, seat, [[n] * k for n, k in stages],
                                    max_ends=SIZE_LIMIT, threads=threads)
        except gulbara.EnumerationLimitError:
            continue
        assert core_outcomes(result) == expansion(code, seat, stages, False)
        compared += 1
    bucketed, layered, _ = _chains._py_stage_counts()
    assert compared >= 120
    assert bucketed >= 300                     # the plan was taken
    assert (layered >= 300) == (name == "bucketed-layered")


def test_a_stage_turned_to_layers_part_way_matches_the_stage_by_stage_expansion():
    # A bucketed stage not layered from its start measures its first buckets'
    # ends per distinct end and turns to layers for the rest when they share
    # many (here more than 3 per distinct end, after 4 positions): outcomes and
    # order as without buckets.
    turned = compared = 0
    with every_stage_threaded():
        for code, seat, first in CASES:
            with stage_plan_forced(*NO_BUCKETS):
                plain = small_chain(code, seat, first)
            if plain is None:
                continue
            _chains._py_stage_counts()
            with stage_plan_forced(1, 1, 3, 4, 3):
                assert checked_chain_outcomes(code, seat, first, 1) is not None
                for threads in (1, 2):
                    chain = chain_ends(code, seat, first, threads=threads)
                    assert outcome_rows(chain) == outcome_rows(plain)
            turned += _chains._py_stage_counts()[2] > 0
            compared += 1
    assert compared >= 100
    assert turned >= 5                        # the turn was taken


def test_bucketed_stages_give_the_same_outcomes_in_the_same_order():
    # Buckets only order the work: the outcomes and their order are those of
    # the stages expanded as they are read, on any number of threads.
    entry = MID_GAME_11[2]                                   # mid-c
    with every_stage_threaded():
        with stage_plan_forced(*NO_BUCKETS):
            plain = chain_ends(entry.code, entry.seat, 1, threads=1)
        assert len(plain) == entry.outcomes[0]
        for plan in STAGE_PLANS.values():
            with stage_plan_forced(*plan):
                for threads in (1, 2, 3):
                    chain = chain_ends(entry.code, entry.seat, 1, threads=threads)
                    assert outcome_rows(chain) == outcome_rows(plain)


def test_recovered_steps_replay_to_each_outcome_and_match_the_reference():
    rng = random.Random(3)
    replayed = compared = 0
    for code, seat, first in CASES[::5]:
        chain = small_chain(code, seat, first, limit=3000)
        if chain is None:
            continue
        reference = _reference.chain_ends_raw(code, seat, first) if len(chain) <= 40 else None
        for i in rng.sample(range(len(chain)), min(4, len(chain))):
            steps = chain.steps(i)
            position = gulbara.Position.from_code(code)
            for stage in steps:
                position = position.apply_steps(seat, stage)
            assert position.code() == chain.code(i)
            replayed += 1
            if reference is not None:
                j = reference_outcomes(reference).index((chain.code(i),) + tuple(chain._raw.tag(i)))
                assert reference.steps(j) == steps
                compared += 1
    assert replayed >= 200 and compared >= 30, (replayed, compared)


def test_arrays_agree_with_the_codes():
    code = "G:,-2,2,-2,,3,,,-2,,,-8,,1,,,,5,,,,,-1,4|0,0|0,0"
    chain = chain_ends(code, 0, 4)
    assert len(chain) == 3592
    boards, off = chain.boards, chain.borne_off
    assert boards.shape == (3592, 24) and boards.dtype == np.int8
    for i in range(0, len(chain), 97):
        position = gulbara.Position.from_code(chain.code(i))
        assert tuple(boards[i]) == position.points()
        assert tuple(off[i]) == (position.borne_off(0), position.borne_off(1))
    assert (np.abs(boards).sum(axis=1) + off.sum(axis=1) == 30).all()
    assert not boards.flags.writeable


def test_remainder_follows_the_rules():
    """RULES §5.1: an escalating 3-3 that plays four 3's and then only two 4's
    leaves {4,4, 5,5,5,5, 6,6,6,6}; with remainder='lost' nothing passes."""
    found = None
    for code, seat, first in CASES:
        if first != 3:
            continue
        chain = small_chain(code, seat, 3)
        if chain is None:
            continue
        rows = np.nonzero((chain.stop == STOP_STALLED) & (chain.stop_number == 4)
                          & (chain.played == 2))[0]
        if len(rows):
            found = (code, seat, chain, rows[0])
            break
    assert found is not None
    code, seat, chain, row = found
    assert chain[row].remainder == (4, 4, 5, 5, 5, 5, 6, 6, 6, 6)
    assert tuple(chain.remainder[row]) == (0, 0, 0, 2, 4, 4)
    lost = chain_ends(code, seat, 3, rules=gulbara.Rules(remainder="lost"))
    assert not lost.remainder.any()
    assert core_outcomes(lost) == core_outcomes(chain)


def test_unstarted_chain_both_options():
    """RULES §5.2: a chain not even started is lost, or passes whole under the option."""
    prime = "G:,,,,,2,2,2,2,2,2,-3,,,,,,,,,,,,3|0,0|0,12"
    lost = chain_ends(prime, 1, 5)
    assert [(o.stop, o.remainder) for o in lost] == [("unstarted", ())]
    passed = chain_ends(prime, 1, 5, rules=gulbara.Rules(unstarted_chain="to_opponent"))
    assert [(o.stop, o.remainder) for o in passed] == [("unstarted", (5, 5, 5, 5, 6, 6, 6, 6))]


def test_game_over_mid_chain():
    """RULES §5.5: bearing off the last checker ends the chain at once, mid-chain."""
    code = "G:,,,,,3,,,,,,-15,,,,,,,,,,,,|0,0|12,0"
    chain = chain_ends(code, 0, 1)
    assert set(chain.stop_reasons()) == {"game_over"}
    assert chain.ends_game.all()
    assert (chain.stop_number > 1).all() and (chain.stop_number < 6).any()
    assert {o.code for o in chain} == {"G:,,,,,,,,,,,-15,,,,,,,,,,,,|0,0|15,0"}
    steps = chain.steps(0)
    # stop_number is the first stage that can end the game; the canonical
    # play may end it there or later (RULES §5.6)
    assert len(steps) >= int(chain.stop_number[0])
    position = gulbara.Position.from_code(code)
    for stage in steps:
        position = position.apply_steps(0, stage)
    assert position.borne_off(0) == 15


def test_regression_game_ending_outcome_listed_once():
    """RULES §5.6: the last checker can come off at the 3's or the 4's of this
    1-1 chain; the game-ending position passes nothing, so it is one outcome
    (it was listed once per stage)."""
    code = "G:5,3,,,,,,,,,,,-8,-1,-1,,,,,,,,,|0,0|7,5"
    chain = chain_ends(code, 1, 1)
    assert list(chain) == [gulbara.ChainOutcome(
        "G:5,3,,,,,,,,,,,,,,,,,,,,,,|0,0|7,15", "game_over", (), True)]
    assert chain.stop_number.tolist() == [3] and chain.played.tolist() == [4]
    reference = _reference.chain_ends_raw(code, 1, 1)
    assert len(reference) == 1 and reference.tag(0) == (STOP_GAME_OVER, 3, 4)
    assert chain.steps(0) == reference.steps(0)


def test_game_ending_outcomes_once_against_the_reference():
    """Chains and remainders whose game can end at several stages: one
    game-ending outcome each, as the reference's stage-by-stage expansion."""
    rng = random.Random(56)
    several = 0
    for _ in range(100):
        seat = rng.randint(0, 1)
        code = bear_off_position(rng, seat)
        first = rng.randint(1, 4)
        chain = small_chain(code, seat, first, limit=3000)
        if chain is None:
            continue
        stages = [(n, 4) for n in range(first, 7)]
        by_stage = {number for (_, stop, number, _) in _reference.chain_outcomes(
            code, seat, stages, True, generate=_movegen.stage_ends) if stop == STOP_GAME_OVER}
        got = core_outcomes(chain)
        assert got == expansion(code, seat, stages, True)
        assert sum(1 for o in got if o[1] == STOP_GAME_OVER) <= 1
        reference = _reference.chain_ends_raw(code, seat, first)
        assert sorted(got) == sorted(reference_outcomes(reference))
        if chain.ends_game.any():
            i = int(np.flatnonzero(chain.ends_game)[0])
            steps = chain.steps(i)
            assert steps == reference.steps(reference_outcomes(reference).index(
                (chain.code(i),) + tuple(chain._raw.tag(i))))
        several += bool(by_stage) and _game_can_end_at_several_stages(code, seat, first)
    assert several >= 10, several


def _game_can_end_at_several_stages(code, seat, first):
    """Whether stage-by-stage play can bear off the last checker at two different stages."""
    frontier, numbers = {code}, set()
    for number in range(first, 7):
        following = set()
        for here in frontier:
            ends = _movegen.stage_ends(here, seat, [number] * 4)
            if ends.playable_dice < 4:
                continue
            for i in range(len(ends)):
                if ends.ends_game(i):
                    numbers.add(number)
                else:
                    following.add(ends.code(i))
        frontier = following
    return len(numbers) >= 2


def test_max_ends_bound_raises_a_clear_error():
    with pytest.raises(gulbara.EnumerationLimitError, match="max_ends=1,000"):
        chain_ends(gulbara.START_CODE, 0, 3, max_ends=1000)


def smallest_max_ends(code, seat, first, high=10_000_000):
    """The smallest max_ends (within 2%) that lets the chain through (``high`` does),
    on one thread (threads hold some positions twice until they are merged)."""
    low = 1
    while high - low > max(64, low // 50):
        middle = (low + high) // 2
        try:
            chain_ends(code, seat, first, max_ends=middle, threads=1)
            high = middle
        except gulbara.EnumerationLimitError:
            low = middle + 1
    return high


def test_max_ends_counts_the_frontier_being_expanded():
    # mid-a's 4-4 stage expands 89,243 positions into 84,080. A position waiting
    # to be expanded stays held until its bucket is, while the next frontier
    # grows: the bound needed is well over either stage's size. (It was 148,927
    # while the next stage's tables were sized from the frontier, so that the
    # byte budget of max_ends bound first; a bucket's ends now go to a run of
    # 16 bytes each, and the count of positions binds: 114,747.)
    entry = MID_GAME_11[0]
    needed = smallest_max_ends(entry.code, entry.seat, 1)
    assert needed > 89_243 + 20_000
    with pytest.raises(gulbara.EnumerationLimitError, match="held at once"):
        chain_ends(entry.code, entry.seat, 1, max_ends=needed // 2, threads=1)


@pytest.mark.parametrize("name", ["mid-a", "mid-f", "mid-g", "mid-h"])
def test_positions_not_bytes_bound_the_suite_chains(name):
    # The tables are held to max_ends * BYTES_PER_END bytes (plus the smallest
    # tables' 64 KiB). On these chains the count of positions held is what
    # binds, with room to spare in bytes: at the smallest max_ends that lets
    # the chain through, its tables' peak stays under 90% of the byte budget.
    entry = next(e for e in MID_GAME_11 if e.name == name)
    needed = smallest_max_ends(entry.code, entry.seat, 1)
    chain = chain_ends(entry.code, entry.seat, 1, max_ends=needed, threads=1)
    peak = chain._raw.table_peak_bytes
    assert len(chain) * 16 < peak < 0.9 * needed * BYTES_PER_END, (peak, needed, peak / needed)


def test_positions_not_bytes_bound_random_chains():
    rng = random.Random(2611)
    checked = 0
    for code, seat in random_play_positions(31, 120):
        first = rng.randint(1, 4)
        if small_chain(code, seat, first, limit=100_000) is None:
            continue
        needed = smallest_max_ends(code, seat, first, high=100_000)
        peak = chain_ends(code, seat, first, max_ends=needed, threads=1)._raw.table_peak_bytes
        assert peak - _chains.CHAIN_BASE_BYTES < 0.9 * needed * BYTES_PER_END, (
            code, seat, first, peak, needed)
        checked += 1
    assert checked >= 30


def test_bad_arguments():
    with pytest.raises(gulbara.InvalidDiceError):
        chain_ends(gulbara.START_CODE, 0, 7)
    with pytest.raises(TypeError):
        chain_ends(gulbara.START_CODE, 0, "3")
    with pytest.raises(gulbara.InvalidSeatError):
        chain_ends(gulbara.START_CODE, 2, 3)
    with pytest.raises(gulbara.InvalidPositionError):
        chain_ends("G:nonsense", 0, 3)
    with pytest.raises(gulbara.InvalidDiceError):
        remainder_ends(gulbara.START_CODE, 0, [[5, 5], [4]])
    with pytest.raises(gulbara.InvalidDiceError):
        remainder_ends(gulbara.START_CODE, 0, [[5, 4]])
    with pytest.raises(gulbara.InvalidDiceError):
        remainder_ends(gulbara.START_CODE, 0, [])


def test_bad_threads_memory_and_max_ends():
    with pytest.raises(gulbara.GulBaraError, match="threads"):
        chain_ends(gulbara.START_CODE, 0, 5, threads=0)
    with pytest.raises(TypeError, match="threads"):
        chain_ends(gulbara.START_CODE, 0, 5, threads="2")
    with pytest.raises(TypeError, match="max_ends"):
        chain_ends(gulbara.START_CODE, 0, 5, max_ends=True)
    with pytest.raises(gulbara.GulBaraError, match="max_ends"):
        chain_ends(gulbara.START_CODE, 0, 5, max_ends=-1)
    with pytest.raises(gulbara.GulBaraError, match="memory"):
        chain_ends(gulbara.START_CODE, 0, 5, memory=1000)
    with pytest.raises(gulbara.GulBaraError, match="chunk"):
        list(gulbara.chain_ends_iter(gulbara.START_CODE, 0, 5, chunk=0))
    with pytest.raises(gulbara.GulBaraError, match="k must"):
        gulbara.chain_best(gulbara.START_CODE, 0, 5, k=0)
    assert len(chain_ends(gulbara.START_CODE, 0, 5, threads=np.int64(2))) == 44


def test_regression_chain_calls_check_their_rules():
    # chain_ends once stored any rules it was given and failed later, with an
    # AttributeError, when the outcome arrays were built.
    for call in (lambda: chain_ends(gulbara.START_CODE, 0, 4, rules="default"),
                 lambda: list(gulbara.chain_ends_iter(gulbara.START_CODE, 0, 4, rules={})),
                 lambda: remainder_ends(gulbara.START_CODE, 0, [[4, 4]], rules="default"),
                 lambda: list(gulbara.remainder_ends_iter(gulbara.START_CODE, 0, [[4]],
                                                          rules=1))):
        with pytest.raises(TypeError, match="rules must be a gulbara.Rules"):
            call()
    rules = gulbara.Rules(mars=False)
    assert remainder_ends(gulbara.START_CODE, 0, [[4, 4]], rules=rules).rules is rules
    assert chain_ends(gulbara.START_CODE, 0, 4, rules=rules).is_chain
    assert not remainder_ends(gulbara.START_CODE, 0, [[4, 4]]).is_chain


def test_regression_remainder_ends_raw_validates_its_stages():
    """The raw backend function crashed on 64 stages or a die of 9, and took
    (9, 1) and (0, 1) as stages; it validates as remainder_ends does."""
    for stages in ([(1, 1)] * 64, [(1, 9)], [(9, 1)], [(0, 1)], [(5, 2), (4, 1)], [],
                   [(1, 2, 3)], [7]):
        with pytest.raises(gulbara.InvalidDiceError):
            _chains.remainder_ends_raw(gulbara.START_CODE, 0, stages)
    for stages in (5, ["ab"], [(1.5, 2)]):
        with pytest.raises(TypeError):
            _chains.remainder_ends_raw(gulbara.START_CODE, 0, stages)
    assert len(_chains.remainder_ends_raw(gulbara.START_CODE, 0, [(5, 2)])) == 2


def test_regression_bucket_slots_reserved_by_the_block_leave_no_trace():
    # Threads reserve bucket slots BUCKET_BLOCK (256) at a time instead of
    # taking one shared counter per position (which bounced between the cores:
    # two threads spent 1.4x one thread's CPU time on the big real-game
    # chains). Stages far smaller than a block, on three threads, leave most
    # reserved slots empty: no empty slot may become a position, and the bound
    # on positions held (max_ends) may not count them.
    entry = MID_GAME_11[2]                                   # mid-c
    with every_stage_threaded(), stage_plan_forced(*STAGE_PLANS["bucketed"]):
        bucketed = [chain_ends(gulbara.START_CODE, 0, 4, threads=3),
                    chain_ends(entry.code, entry.seat, 1, threads=3)]
    plain = [chain_ends(gulbara.START_CODE, 0, 4, threads=1),
             chain_ends(entry.code, entry.seat, 1, threads=1)]
    assert [outcome_rows(c) for c in bucketed] == [outcome_rows(c) for c in plain]
    assert len(plain[0]) == 1601 and len(plain[1]) == entry.outcomes[0]


@contextmanager
def meter_takes_refused(first, count):
    """Run the block with ``count`` memory takes of every enumeration refused from
    its ``first``, as a full budget refuses them (_chains._py_refuse_meter_takes)."""
    _chains._py_refuse_meter_takes(first, count)
    try:
        yield
    finally:
        _chains._py_refuse_meter_takes(0, 0)


def outcomes_or_limit(entry, threads=1):
    """The chain's count of outcomes, or "limit" for EnumerationLimitError."""
    try:
        return len(chain_ends(entry.code, entry.seat, entry.first, threads=threads))
    except gulbara.EnumerationLimitError:
        return "limit"


def test_regression_a_local_set_left_without_a_table_queues_its_waiting_keys():
    """A bucket's LocalSet that could not double was flushed, and when the budget
    then refused it a table of its first size it was left with none but the old
    size: the keys still waiting in its ring were inserted into no table (a
    crash, seen with threads taking what the flush gave back). Takes 25 to 28
    of this chain refused four at a time did that on one thread; now every
    window ends in the chain's outcomes or EnumerationLimitError (the slow test
    below tries windows all along a chain)."""
    entry = REAL_GAME_CHAINS[24]                    # 63,492 outcomes, frontiers of 2M
    assert outcomes_or_limit(entry) == entry.outcomes
    for first in range(23, 31):
        with meter_takes_refused(first, 4):
            assert outcomes_or_limit(entry) in (entry.outcomes, "limit"), first


@pytest.mark.slow
@pytest.mark.parametrize("count, threads, start, step",
                         [(1, 1, 1, 2), (4, 1, 2, 2), (16, 1, 1, 2), (4, 2, 1, 8)])
def test_every_refused_memory_take_ends_in_the_outcomes_or_a_limit(count, threads, start,
                                                                   step):
    """Windows of refused takes all along a 728,121-outcome chain (about 120 takes
    on one thread, every other one a window's first; far more on two, every
    eighth): what a full budget can refuse anywhere ends cleanly, never in a
    crash or a wrong count."""
    entry = REAL_GAME_CHAINS[9]
    assert outcomes_or_limit(entry, threads) == entry.outcomes
    _, takes = _chains._py_refuse_meter_takes(0, 0)
    assert takes > 50
    for first in range(start, takes + 1, step):
        with meter_takes_refused(first, count):
            assert outcomes_or_limit(entry, threads) in (entry.outcomes, "limit"), first


def outcome_rows(chain):
    """Every outcome with its tag, in the chain's order."""
    return [(chain.code(i),) + tuple(chain._raw.tag(i)) for i in range(len(chain))]


THREAD_CASES = [(MID_GAME_11[0].code, MID_GAME_11[0].seat, 2),
                (MID_GAME_11[2].code, MID_GAME_11[2].seat, 3),
                (gulbara.START_CODE, 0, 3),
                ("G:,,,,,3,,,,,,-15,,,,,,,,,,,,|0,0|12,0", 0, 1)]


@pytest.mark.parametrize("code, seat, first", THREAD_CASES)
def test_threads_give_the_same_outcomes_in_the_same_order(code, seat, first):
    with every_stage_threaded():
        results = [outcome_rows(chain_ends(code, seat, first, threads=t)) for t in (1, 2, 3)]
    assert results[0] == results[1] == results[2]
    assert len(set(results[0])) == len(results[0]) > 0


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("code, seat, first", THREAD_CASES)
def test_passes_and_streams_give_the_one_pass_result(code, seat, first, threads):
    # every call names its thread count: the tables' peak depends on it, so a
    # budget found with one count says nothing about another (and the default
    # is the machine's core count)
    whole = chain_ends(code, seat, first, threads=1)
    rows = outcome_rows(whole)
    # budgets too small for one pass: the enumeration is repeated in passes
    # (passes shrink the outcomes' tables, not the frontiers', so the
    # smallest budgets may not fit at all)
    passes = []
    memory = chain_ends(code, seat, first, threads=threads)._raw.table_peak_bytes
    fitted = []                 # the budgets that fitted twice in a row
    for share in (0.9, 0.75, 0.6, 0.45, 0.3):
        budget = max(_chains.CHAIN_BASE_BYTES, int(memory * share))
        try:
            runs = [chain_ends(code, seat, first, threads=threads, memory=budget)
                    for _ in range(2)]
        except gulbara.EnumerationLimitError:
            continue
        for passed in runs:
            assert outcome_rows(passed) == rows
            passes.append(passed._raw.passes)
        fitted.append(budget)
    if len(whole) > 5000:
        assert max(passes) > 1, passes
    # Stream and count under the largest budget that fitted twice (the default
    # when none did). On two threads the frontiers' peak moves a little with
    # how the work was shared out, and passes do not shrink it: a budget at
    # the frontiers' edge fits one run and not the next, and the smallest one
    # that had fitted once was once refused here in 64 passes.
    memory = max(fitted, default=None)
    chunks = list(gulbara.chain_ends_iter(code, seat, first, chunk=997, threads=threads,
                                          memory=memory))
    assert all(0 < len(c) <= 997 for c in chunks)
    assert [row for c in chunks for row in outcome_rows(c)] == rows
    assert np.array_equal(np.concatenate([c.boards for c in chunks]), whole.boards)
    assert gulbara.chain_count(code, seat, first, threads=threads, memory=memory) == len(whole)


def test_regression_stream_uses_the_thread_count_its_budget_was_found_with():
    # The test above once found a budget with threads=2 and then streamed with
    # the default thread count; on a machine with more cores the stream's
    # tables were bigger and it failed. Streaming and counting with the thread
    # count the budget was found with keeps to it.
    code, seat, first = THREAD_CASES[2]                  # 42,675 outcomes
    whole = chain_ends(code, seat, first, threads=1)
    peak = chain_ends(code, seat, first, threads=2)._raw.table_peak_bytes
    budget = max(_chains.CHAIN_BASE_BYTES, int(peak * 0.6))
    assert chain_ends(code, seat, first, threads=2, memory=budget)._raw.passes > 1
    streamed = list(gulbara.chain_ends_iter(code, seat, first, threads=2, memory=budget))
    assert sum(len(c) for c in streamed) == len(whole)
    assert gulbara.chain_count(code, seat, first, threads=2, memory=budget) == len(whole)


def test_regression_a_stream_pass_that_does_not_fit_is_split_into_finer_passes():
    # With two threads the tables' peak depends on how the work was shared out,
    # so a budget that pass 0 of 4 fitted could fail pass 1 of 4 (CI, once, on
    # test_passes_and_streams_give_the_one_pass_result), and the stream raised.
    # A share that does not fit is now split into four passes of four times as
    # many, in turn: the same outcomes in the same order.
    from gulbara.chains.enumeration import _passes

    class Run:
        max_ends = None

        def __init__(self, failing):
            self.failing = failing
            self.tried = []

        def run(self, q, passes):
            self.tried.append((q, passes))
            if (q, passes) in self.failing:
                raise gulbara.EnumerationLimitError("too big")
            return (q, passes)

    run = Run({(0, 1), (1, 4), (5, 16)})
    shares = list(_passes(run))
    assert shares == [(0, 4), (4, 16), (20, 64), (21, 64), (22, 64), (23, 64), (6, 16),
                      (7, 16), (2, 4), (3, 4)]
    # each share is a contiguous run of the 64 parts, in order, covering them once
    parts = [p for q, n in shares for p in range(q * 64 // n, (q + 1) * 64 // n)]
    assert parts == list(range(64))
    with pytest.raises(gulbara.EnumerationLimitError):
        list(_passes(Run({(0, 1), (0, 4), (0, 16), (0, 64)})))
    stopped = Run({(0, 1)})
    stopped.max_ends = 100            # a bound the caller set: never split
    with pytest.raises(gulbara.EnumerationLimitError):
        list(_passes(stopped))


def test_regression_max_ends_without_threads_is_the_same_bound_on_any_machine(monkeypatch):
    # max_ends counts the positions held, twice when two threads hold one, so a
    # bound given without a thread count once meant more on a machine with fewer
    # cores: the default was every core. It is one thread now. (A 2-2 chain met
    # in play whose positions threads hold twice.)
    entry = next(c for c in REAL_GAME_CHAINS if (c.seed, c.ply) == (4, 20))
    needed = smallest_max_ends(entry.code, entry.seat, entry.first)
    with pytest.raises(gulbara.EnumerationLimitError):
        chain_ends(entry.code, entry.seat, entry.first, max_ends=needed, threads=3)
    monkeypatch.setattr(gulbara.chains.enumeration, "default_threads", lambda: 3)
    assert len(chain_ends(entry.code, entry.seat, entry.first, max_ends=needed)) == entry.outcomes
    stages = [[2] * 2] + [[n] * 4 for n in range(3, 7)]      # a remainder's stages
    low, high = 1, 10_000_000
    while high - low > max(64, low // 50):                 # its bound on one thread
        middle = (low + high) // 2
        try:
            remainder_ends(entry.code, entry.seat, stages, max_ends=middle, threads=1)
            high = middle
        except gulbara.EnumerationLimitError:
            low = middle + 1
    whole = remainder_ends(entry.code, entry.seat, stages, threads=1)
    assert len(remainder_ends(entry.code, entry.seat, stages, max_ends=high)) == len(whole)
    assert len(chain_ends(entry.code, entry.seat, entry.first)) == entry.outcomes   # 3 threads


def test_remainder_streams_give_the_in_memory_result():
    code, seat = MID_GAME_11[1].code, MID_GAME_11[1].seat
    stages = [[2, 2], [3] * 4, [4] * 4, [5] * 4, [6] * 4]      # 6,020 outcomes
    whole = remainder_ends(code, seat, stages, threads=1)
    chunks = list(gulbara.remainder_ends_iter(code, seat, stages, chunk=1000, threads=2,
                                              memory=_chains.CHAIN_BASE_BYTES * 2))
    assert [row for c in chunks for row in outcome_rows(c)] == outcome_rows(whole)
    assert len(whole) > 1000 and len(chunks) > 6


def test_greedy_scores_match_the_python_heuristic():
    from gulbara.eval.greedy import greedy_score
    checked = 0
    for code, seat, first in THREAD_CASES[1:] + [(prime, 1, 5) for prime in
                                                  ["G:,,,,,2,2,2,2,2,2,-3,,,,,,,,,,,,3|0,0|0,12"]]:
        chain = chain_ends(code, seat, first)
        scores = gulbara.eval.greedy.greedy_scores(chain)
        for i in range(0, len(chain), max(1, len(chain) // 150)):
            assert scores[i] == greedy_score(chain._raw.position(i), seat,
                                             bool(chain.ends_game[i])), (code, i)
            checked += 1
    assert checked >= 300


def test_chain_best_is_the_top_of_the_full_result():
    code, seat = MID_GAME_11[0].code, MID_GAME_11[0].seat
    whole = chain_ends(code, seat, 3)
    scores = gulbara.eval.greedy.greedy_scores(whole)
    ranked = sorted(range(len(whole)), key=lambda i: (-scores[i], i))[:5]
    best = gulbara.chain_best(code, seat, 3, k=5, chunk=300)
    assert [b.outcome for b in best] == [whole[i] for i in ranked]
    assert [b.score for b in best] == [float(scores[i]) for i in ranked]
    position = gulbara.Position.from_code(code)
    for stage in best[0].steps:
        position = position.apply_steps(seat, stage)
    assert position.code() == best[0].outcome.code
    by_pips = gulbara.chain_best(code, seat, 3, k=1, evaluate=lambda c: -c.borne_off[:, seat])
    assert len(by_pips) == 1


def test_outcome_views():
    chain = chain_ends(gulbara.START_CODE, 1, 6)
    assert len(chain) == 1
    assert chain[-1] == chain[0]
    assert chain[0].stop in STOP_NAMES
    with pytest.raises(IndexError):
        chain[1]
    assert list(chain) == [chain[0]]
    assert chain.codes() == [chain[0].code]


def test_the_reference_backend_stands_in_for_every_chain_call(tmp_path):
    """GULBARA_BACKEND=reference serves chain_ends, the streams, the count and
    the best K without the compiled core, with the core's outcomes."""
    import json
    import os
    import subprocess
    import sys
    child = ("import gulbara, json; c = gulbara.chain_ends(gulbara.START_CODE, 0, 5); "
             "print(json.dumps([sorted(c.codes()), gulbara.BACKEND_NAME, "
             "gulbara.chain_count(gulbara.START_CODE, 0, 5), "
             "[len(x) for x in gulbara.chain_ends_iter(gulbara.START_CODE, 0, 5, chunk=20)], "
             "gulbara.chain_best(gulbara.START_CODE, 0, 5, k=1)[0].score, "
             "sorted(gulbara.remainder_ends(gulbara.START_CODE, 1, [[5, 5]]).codes())]))")
    # (from a scratch directory: a source tree must not shadow the installed package)
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True,
                          cwd=tmp_path, env=dict(os.environ, GULBARA_BACKEND="reference"),
                          timeout=120)
    assert done.returncode == 0, done.stderr
    codes, name, count, chunks, best, remainder = json.loads(done.stdout)
    core = chain_ends(gulbara.START_CODE, 0, 5)
    assert name == "reference" and codes == sorted(core.codes()) and count == len(core) == 44
    assert chunks == [20, 20, 4]
    assert best == gulbara.chain_best(gulbara.START_CODE, 0, 5, k=1)[0].score
    assert remainder == sorted(remainder_ends(gulbara.START_CODE, 1, [[5, 5]]).codes())


def test_regression_chain_outcomes_are_indexed_by_ints_only():
    chain = chain_ends(gulbara.START_CODE, 0, 5)
    for bad in (True, "a", 1.5, np.bool_(True)):
        with pytest.raises(TypeError, match="outcome indices are ints"):
            chain[bad]
    assert chain[np.int64(3)] == chain[3] == chain[3 - len(chain)]
    with pytest.raises(IndexError):
        chain[len(chain)]


def test_regression_chain_ends_pickle_and_deep_copy():
    """ChainEnds (and the core's ChainResult) round-trip through pickle and
    deepcopy: the same outcomes, tags, arrays and steps."""
    import copy
    import pickle
    for code, seat, first in [(gulbara.START_CODE, 0, 4), (MID_GAME_11[0].code, MID_GAME_11[0].seat, 6),
                              ("G:,,,,,3,,,,,,-15,,,,,,,,,,,,|0,0|12,0", 0, 1)]:
        chain = chain_ends(code, seat, first)
        _ = chain.boards                           # with its arrays built
        for again in (pickle.loads(pickle.dumps(chain)), copy.deepcopy(chain)):
            assert outcome_rows(again) == outcome_rows(chain)
            assert np.array_equal(again.boards, chain.boards)
            assert np.array_equal(again.remainder, chain.remainder)
            assert again.steps(len(chain) - 1) == chain.steps(len(chain) - 1)
    remainder = remainder_ends(gulbara.START_CODE, 1, [[5, 5], [6] * 4])
    assert outcome_rows(pickle.loads(pickle.dumps(remainder))) == outcome_rows(remainder)


def test_regression_chain_best_scores_must_be_real_numbers():
    """chain_best dropped complex scores' imaginary parts and let string scores raise a
    bare ValueError."""
    for evaluate in (lambda c: np.ones(len(c)) * 1j, lambda c: ["a"] * len(c),
                     lambda c: np.full(len(c), np.inf), lambda c: np.zeros(len(c) + 1)):
        with pytest.raises(gulbara.GulBaraError, match="evaluate"):
            gulbara.chain_best(gulbara.START_CODE, 0, 5, evaluate=evaluate)


def test_regression_remainder_dice_are_all_type_checked():
    """remainder_ends checked the type of a stage's first die only: [1, True], [4, 4.0] passed."""
    for stage in ([1, True], [4, 4.0], [4, "4"]):
        with pytest.raises(TypeError, match="dice must be ints"):
            remainder_ends(gulbara.START_CODE, 0, [stage])
    assert len(remainder_ends(gulbara.START_CODE, 0, [[4, np.int64(4)]])) == 2


# ---------------------------------------------------------------------------
# Chains by decision diagrams (_chain_dd.pyx) against the stage-by-stage way
# ---------------------------------------------------------------------------


@contextmanager
def diagrams(enabled, small_chain=0):
    """Run the block with decision diagrams allowed or not (allowed: past
    ``small_chain`` positions held and, if that is given, with few of the
    opponent's points in the way; by default for every chain), restored after."""
    previous = _chains._py_set_diagrams(enabled)
    small = _chains._py_set_small_chain(small_chain, 24 if small_chain == 0 else 3)
    try:
        yield
    finally:
        _chains._py_set_diagrams(previous)
        _chains._py_set_small_chain(*small)


def stage_by_stage_rows(code, seat, first, limit=200_000):
    """The chain's outcome rows from the stage-by-stage enumeration (None past ``limit``)."""
    with diagrams(False):
        chain = small_chain(code, seat, first, limit=limit)
    return None if chain is None else outcome_rows(chain)


def test_diagrams_give_the_stage_by_stage_outcomes_in_the_same_order():
    """Every real-game chain of up to 60,000 outcomes and a fifth of the random cases:
    the same outcomes, tags and order by either way, on one thread and on two (every
    stage shared); the diagrams take most of them."""
    cases = [(c.code, c.seat, c.first) for c in REAL_GAME_CHAINS if c.outcomes <= 60_000]
    used = compared = 0
    for code, seat, first in cases + CASES[::5]:
        want = stage_by_stage_rows(code, seat, first)
        if want is None:
            continue
        _chains._py_diagram_chains()
        with every_stage_threaded(), diagrams(True):
            for threads in (1, 2):
                assert outcome_rows(chain_ends(code, seat, first, threads=threads)) == want, \
                    (code, seat, first, threads)
        used += _chains._py_diagram_chains() == 2
        compared += 1
    assert compared >= 90 and used >= 50, (compared, used)


@pytest.mark.parametrize("index", [20, pytest.param(42, marks=pytest.mark.slow)])
def test_diagrams_take_the_big_real_game_chains_whole(index):
    """Chains of 33,069 to 1,180,975 outcomes met in play: by diagram, the same outcomes
    in the same order as stage by stage, and streamed and counted in passes alike."""
    entry = REAL_GAME_CHAINS[index]
    _chains._py_diagram_chains()
    with diagrams(True, small_chain=30_000):         # as by default
        chain = chain_ends(entry.code, entry.seat, entry.first, threads=2)
    assert _chains._py_diagram_chains() == 1 and len(chain) == entry.outcomes
    whole = chain_ends(entry.code, entry.seat, entry.first, threads=2)
    for field in ("boards", "stop", "stop_number", "played"):
        assert np.array_equal(getattr(chain, field), getattr(whole, field)), field
    with diagrams(True, small_chain=30_000):
        check_passes_and_streams(entry, chain)


def check_passes_and_streams(entry, chain):
    """The chain in passes under the smallest budget that needs them, streamed and
    counted under it: the one-pass result."""
    peak = chain_ends(entry.code, entry.seat, entry.first, threads=1)._raw.table_peak_bytes
    _chains._py_diagram_chains()
    for share in (0.3, 0.45, 0.6, 0.75, 0.9):      # the smallest budget that fits in passes
        try:
            passed = chain_ends(entry.code, entry.seat, entry.first, threads=1,
                                memory=int(peak * share))
        except gulbara.EnumerationLimitError:
            continue
        break
    else:
        pytest.fail(f"no budget under the one-pass peak ({peak:,} bytes) fitted")
    assert passed._raw.passes > 1 and outcome_rows(passed) == outcome_rows(chain)
    if entry.outcomes > 500_000:                  # (a small pass may go stage by stage)
        assert _chains._py_diagram_chains() >= passed._raw.passes     # every pass by diagram
    memory = int(peak * share)
    chunks = list(gulbara.chain_ends_iter(entry.code, entry.seat, entry.first, chunk=100_000,
                                          threads=1, memory=memory))
    assert np.array_equal(np.concatenate([c.boards for c in chunks]), chain.boards)
    assert gulbara.chain_count(entry.code, entry.seat, entry.first, threads=1,
                               memory=memory) == entry.outcomes


def near_home_positions(n, seed):
    """White with 4 to 6 checkers on its points 7..12 and the rest home, Black's 15
    on points White does not hold (every other position: none in White's home):
    chains that go by diagram and can bear off, stall on Black's points, or end
    the game."""
    rng = random.Random(seed)
    codes = []
    for i in range(n):
        points = [0] * 25
        for _ in range(rng.randint(4, 6)):
            points[rng.randint(7, 12)] += 1
        # every third position: a few checkers home and the rest borne off already
        on_board = sum(points) + rng.randint(0, 3) if i % 3 == 0 else 15
        while sum(points) < on_board:
            points[rng.randint(1, 6)] += 1
        free = [p for p in range(1 if i % 2 else 7, 25) if points[p] == 0]
        for _ in range(15):
            points[rng.choice(free)] -= 1
        codes.append("G:" + ",".join(str(v) if v else "" for v in points[1:])
                     + f"|0,0|{15 - on_board},0")
    return codes


def test_positions_that_may_bear_off_are_expanded_one_by_one():
    """Frontier positions with fewer than four checkers outside the home board may bear
    off: the diagram expands them one by one with the stage rules. Real-game chains
    whose last stages hold such positions ([19], [24]) and hand-built ones that bear
    off, stall or end the game: the stage-by-stage outcomes, tags and order. A chain
    that starts near home goes stage by stage."""
    cases = [(REAL_GAME_CHAINS[i].code, REAL_GAME_CHAINS[i].seat, REAL_GAME_CHAINS[i].first)
             for i in (19, 24)]
    cases += [(code, 0, first) for code in near_home_positions(40, 5) for first in (1, 2, 3)]
    stops = Counter()
    for code, seat, first in cases:
        _chains._py_diagram_chains()
        with diagrams(True):
            chain = chain_ends(code, seat, first, threads=1)
        assert _chains._py_diagram_chains() == 1, code
        assert outcome_rows(chain) == stage_by_stage_rows(code, seat, first, limit=3_000_000)
        stops.update(STOP_NAMES[s] for s in chain.stop)
    assert all(stops[name] > 0 for name in ("complete", "stalled", "game_over")), stops
    near = "G:3,3,3,3,,,2,,,,,-15,,,,,,,,,,,,1|0,0|0,0"    # three checkers outside home
    with diagrams(True):
        assert outcome_rows(chain_ends(near, 0, 1, threads=1)) == stage_by_stage_rows(near, 0, 1)
    assert _chains._py_diagram_chains() == 0


def test_a_diagram_past_max_ends_falls_back_or_is_refused():
    """The diagram's nodes count as positions held: under a max_ends too small for
    them the chain goes stage by stage, and is refused only where that is refused too."""
    entry = REAL_GAME_CHAINS[20]                      # 33,069 outcomes
    for limit in (1_000, 20_000, 40_000, 80_000):
        with diagrams(False):
            try:
                want = len(chain_ends(entry.code, entry.seat, entry.first, threads=1,
                                      max_ends=limit))
            except gulbara.EnumerationLimitError:
                want = None
        try:
            with diagrams(True):
                got = len(chain_ends(entry.code, entry.seat, entry.first, threads=1,
                                     max_ends=limit))
        except gulbara.EnumerationLimitError:
            got = None
        assert got == want or (want is None and got == entry.outcomes), (limit, got, want)


def test_chains_with_the_opponent_in_the_way_go_stage_by_stage():
    """The mid-game 1-1 suite has four to seven of the opponent's points between home and
    the mover's rearmost checker: its diagrams are slower than stage by stage, so by
    default those chains go stage by stage (REAL_GAME_CHAINS[9] too, with four), and
    the chains of the real-game suite with at most three by diagram."""
    with diagrams(True, small_chain=30_000):            # as by default
        _chains._py_diagram_chains()
        for entry in MID_GAME_11[:2]:
            assert len(chain_ends(entry.code, entry.seat, 1, threads=1)) == entry.outcomes[0]
        entry = REAL_GAME_CHAINS[9]
        assert len(chain_ends(entry.code, entry.seat, entry.first, threads=2)) == entry.outcomes
        assert _chains._py_diagram_chains() == 0
        entry = REAL_GAME_CHAINS[19]
        assert len(chain_ends(entry.code, entry.seat, entry.first, threads=1)) == entry.outcomes
        assert _chains._py_diagram_chains() == 1


def test_a_team_of_two_threads_builds_the_same_diagram():
    """On two or three threads a helper thread builds the diagram beside the calling
    one, on the same tables: the same outcomes in the same order and the same counts
    as on one thread, for real-game chains and chains that can bear off (their
    positions that may bear off shared out between the threads), stall and end the
    game. Where none may bear off, the same nodes (the live ones: ids a thread took
    and did not use are dead): each set made once whichever thread made it."""
    same_nodes = [(c.code, c.seat, c.first) for c in (REAL_GAME_CHAINS[20], REAL_GAME_CHAINS[43])]
    cases = same_nodes + [(c.code, c.seat, c.first) for c in REAL_GAME_CHAINS
                          if 50_000 < c.outcomes <= 70_000]
    cases += [(code, 0, first) for code in near_home_positions(12, 21) for first in (1, 2)]
    teams = 0
    stops = Counter()
    for code, seat, first in cases:
        _chains._py_diagram_chains()
        with diagrams(True):
            want = outcome_rows(chain_ends(code, seat, first, threads=1))
            one = _chain_dd_out._py_last_diagram()
            assert not one["team"] and one["dead"] == 0
            for threads in (2, 3):
                assert outcome_rows(chain_ends(code, seat, first, threads=threads)) == want, \
                    (code, seat, first, threads)
                last = _chain_dd_out._py_last_diagram()
                assert last["team"], last
                if (code, seat, first) in same_nodes:
                    assert last["nodes"] - last["dead"] == one["nodes"], last
                assert gulbara.chain_count(code, seat, first, threads=threads) == len(want)
        teams += _chains._py_diagram_chains() == 5
        stops.update(row[1] for row in want)
    assert teams == len(cases)
    assert all(stops[s] > 0 for s in (STOP_COMPLETE, STOP_STALLED, STOP_GAME_OVER)), stops


def test_a_team_whose_memory_runs_out_stops_both_threads():
    """A memory take refused while the helper thread works (growing the tables, the
    walk, the outcomes): the chain on two threads falls back, finishes in passes or
    is refused, never hangs, and what it returns is the one-thread result."""
    entry = REAL_GAME_CHAINS[20]                      # 33,069 outcomes
    with diagrams(True):
        want = outcome_rows(chain_ends(entry.code, entry.seat, entry.first, threads=1))
        gulbara.chain_count(entry.code, entry.seat, entry.first, threads=2)
        chain_ends(entry.code, entry.seat, entry.first, threads=2)
        _, takes = _chains._py_refuse_meter_takes(0, 0)
        assert takes > 10
        finished = 0
        for first in range(1, takes + 1, max(1, takes // 16)):
            with meter_takes_refused(first, 3):
                try:
                    chain = chain_ends(entry.code, entry.seat, entry.first, threads=2)
                    count = gulbara.chain_count(entry.code, entry.seat, entry.first, threads=2)
                except gulbara.EnumerationLimitError:
                    continue
            assert outcome_rows(chain) == want and count == len(want), first
            finished += 1
    assert finished > 0


def test_regression_the_diagrams_walk_arrays_are_counted_in_the_meter():
    """The paths, child masks and jumps the outcomes are written from (dd_count_paths:
    34 bytes a node) were allocated outside the memory meter: the bytes a diagram
    counts are its room for nodes, its cache and those arrays, and the chain's peak
    holds them all."""
    entry = REAL_GAME_CHAINS[20]                      # 33,069 outcomes
    with diagrams(True):
        chain = chain_ends(entry.code, entry.seat, entry.first, threads=1)
    last = _chain_dd_out._py_last_diagram()
    assert last["nodes"] > 1_000 and last["walk_bytes"] >= 34
    assert last["counted"] == (last["room"] * last["room_bytes"] + last["nodes"] * last["walk_bytes"]
                               + last["cache_slots"] * last["slot_bytes"])
    assert chain._raw.table_peak_bytes >= last["counted"] + len(chain) * 16


def test_chain_count_counts_the_diagram_without_writing_the_outcomes():
    """chain_count of a chain that goes by diagram counts its roots' paths (and the one
    game-ending outcome), writing none: len(chain_ends(...)) on real-game chains,
    chains that bear off, stall and end the game, and a thirtieth of the random cases."""
    cases = [(c.code, c.seat, c.first) for c in REAL_GAME_CHAINS if c.outcomes <= 60_000]
    cases += [(code, 0, first) for code in near_home_positions(12, 5) for first in (1, 2, 3)]
    by_diagram = 0
    for code, seat, first in cases + CASES[::30]:
        _chains._py_diagram_chains()
        with diagrams(True):        # (the outcomes by diagram are the stage-by-stage ones: above)
            want = len(chain_ends(code, seat, first, threads=1))
            assert gulbara.chain_count(code, seat, first, threads=1) == want, (code, seat, first)
        by_diagram += _chains._py_diagram_chains() == 2
    assert by_diagram >= 40, by_diagram


def test_regression_chain_count_tries_a_diagram_that_does_not_apply_once():
    """chain_count of a chain sent to the diagram whose diagram then did not apply (a
    bear-off) ran the small first try and the diagram twice: in its count, then again
    in the stage-by-stage passes."""
    code = "G:2,3,1,2,3,4,,,,,,,-2,-3,-1,-4,-2,-3,,,,,,|0,0|0,0"
    with diagrams(True, small_chain=10):
        for first in (1, 2, 3):
            _chains._py_small_tries()
            _chains._py_diagram_chains()
            want = len(chain_ends(code, 0, first, threads=1))
            assert _chains._py_small_tries() == 1 and _chains._py_diagram_chains() == 0
            assert want > 10
            assert gulbara.chain_count(code, 0, first, threads=1) == want
            assert _chains._py_small_tries() == 1 and _chains._py_diagram_chains() == 0


def test_chain_count_of_a_big_chain_needs_no_passes():
    """A chain of 1,180,975 outcomes, counted under a budget chain_ends needs passes
    for: by diagram, in one go, the right count; under budgets too small for the
    diagram, in passes (or EnumerationLimitError), never a wrong count."""
    entry = REAL_GAME_CHAINS[42]
    memory = 24 << 20
    with diagrams(True, small_chain=30_000):          # as by default
        assert chain_ends(entry.code, entry.seat, entry.first, threads=2,
                          memory=memory)._raw.passes > 1
        _chains._py_diagram_chains()
        assert gulbara.chain_count(entry.code, entry.seat, entry.first, threads=2,
                                   memory=memory) == entry.outcomes
        assert _chains._py_diagram_chains() == 1
        assert _chain_dd_out._py_last_diagram()["counted"] < memory
        _, takes = _chains._py_refuse_meter_takes(0, 0)
        assert takes > 10
        for first in range(1, takes + 1, max(1, takes // 12)):
            with meter_takes_refused(first, 3):
                try:
                    count = gulbara.chain_count(entry.code, entry.seat, entry.first,
                                                threads=1, memory=memory)
                except gulbara.EnumerationLimitError:
                    continue
            assert count == entry.outcomes, first


def remainder_rows(code, seat, stages, threads=1):
    """A remainder's outcome rows (outcome_rows)."""
    return outcome_rows(remainder_ends(code, seat, stages, threads=threads))


def test_remainders_by_diagram_give_the_stage_by_stage_outcomes_in_the_same_order():
    """RULES §5.3: a remainder's dice that cannot be played are lost and play goes on,
    with 1 to 4 dice a stage. From real-game chain positions and positions that can
    bear off, stall and end the game: the same outcomes, tags and order by diagram
    and stage by stage, on one thread and on two; the diagrams take most of them."""
    rng = random.Random(35)
    starts = [(c.code, c.seat, c.first) for c in REAL_GAME_CHAINS if c.outcomes <= 60_000]
    starts += [(code, 0, rng.randint(1, 3)) for code in near_home_positions(24, 9)]
    used = compared = 0
    stops = Counter()
    for code, seat, first in starts:
        stages = [[first] * rng.randint(1, 4)] + [[n] * 4 for n in range(first + 1, 7)]
        if rng.random() < 0.3:                        # a shorter remainder, a stage missing
            stages = [s for s in stages if s[0] != 4 or len(stages) < 3]
        with diagrams(False):
            want = remainder_rows(code, seat, stages)
        if len(want) > 200_000:
            continue
        _chains._py_diagram_chains()
        with every_stage_threaded(), diagrams(True):
            for threads in (1, 2):
                assert remainder_rows(code, seat, stages, threads) == want, (code, seat, stages)
        used += _chains._py_diagram_chains() == 2
        compared += 1
        stops.update(row[1] for row in want)
    assert compared >= 50 and used >= 40, (compared, used)
    assert stops[STOP_GAME_OVER] > 0 and stops[STOP_COMPLETE] > 0, stops
