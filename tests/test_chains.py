"""Whole chains and remainders (RULES §4.3-4.4, §5) against a stage-by-stage expansion.

The compiled enumeration (hash-merged frontiers, a step at a time) must give
exactly the outcomes that iterating ``stage_ends`` stage by stage gives
(``_reference.chain_outcomes``, a slow Python expansion), on hundreds of
(position, first) cases covering every first number, stalls mid-chain,
unstarted chains, bear-offs and game ends mid-chain.
"""

import dataclasses
import functools
import random
from collections import Counter

import numpy as np
import pytest

import gulbara
from gulbara.chains import _chains
from gulbara.chains import enumeration
from gulbara.core import _movegen
from gulbara.core import _reference
from gulbara.chains.enumeration import (BYTES_PER_END, STOP_COMPLETE, STOP_GAME_OVER, STOP_NAMES, STOP_STALLED,
                            STOP_UNSTARTED, ChainPlan)
from gulbara.tools.suites import MID_GAME_11, REAL_GAME_CHAINS
from positions import (bear_off_position, blocked_start_position, prime_position,
                       random_play_positions)

SIZE_LIMIT = 12_000     # outcomes per case the Python expansion handles quickly


# This module's tests check the stage-by-stage enumeration, decision diagrams off:
# its chain calls take this plan unless they name another; the tests of the
# diagrams (at the end) turn them on and compare the two ways.
STAGE_BY_STAGE = ChainPlan(diagrams=False)


def planned(**changes):
    """The stage-by-stage plan with ``changes`` (ChainPlan's fields)."""
    return dataclasses.replace(STAGE_BY_STAGE, **changes)


# Every stage shared between the threads, however small.
EVERY_STAGE_THREADED = planned(threaded_frontier=1)


def _stage_by_stage(call):
    return functools.wraps(call)(functools.partial(call, plan=STAGE_BY_STAGE))


chain_ends = _stage_by_stage(enumeration.chain_ends)
remainder_ends = _stage_by_stage(enumeration.remainder_ends)
chain_count = _stage_by_stage(enumeration.chain_count)
chain_ends_iter = _stage_by_stage(enumeration.chain_ends_iter)
remainder_ends_iter = _stage_by_stage(enumeration.remainder_ends_iter)
chain_best = _stage_by_stage(enumeration.chain_best)


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


@pytest.fixture(params=[1, 2, 3], ids=["1-thread", "2-threads", "3-threads"])
def threads(request):
    """Run a test on 1, 2 and 3 threads (every stage shared between them:
    EVERY_STAGE_THREADED)."""
    return request.param


def checked_chain_outcomes(code, seat, first, threads, plan=EVERY_STAGE_THREADED, stats=None):
    """The chain's outcomes under ``plan`` (None past SIZE_LIMIT), checked distinct
    and equal to the stage-by-stage expansion's."""
    chain = small_chain(code, seat, first, threads=threads, plan=plan, stats=stats)
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
                                    threads=threads, plan=EVERY_STAGE_THREADED)
        except gulbara.EnumerationLimitError:
            continue
        assert core_outcomes(result) == expansion(code, seat, stages, False)
        assert not result.remainder.any()          # RULES §5.4: nothing passes back
        compared += 1
    assert compared >= 40


def stage_plan(bucket_frontier, layered_frontier, layered_duplication, layered_probe=1024,
               turn_duplication=12, threaded_frontier=1):
    """A stage-by-stage plan that buckets and layers at the sizes given, every stage
    shared between the threads unless told."""
    return planned(bucket_frontier=bucket_frontier, layered_frontier=layered_frontier,
                   layered_duplication=layered_duplication, layered_probe=layered_probe,
                   turn_duplication=turn_duplication, threaded_frontier=threaded_frontier)


# The stage plans a test can force on small chains: every stage bucketed and
# expanded at once, or bucketed and a step at a time.
STAGE_PLANS = {"bucketed": stage_plan(1, 1 << 40, 0), "bucketed-layered": stage_plan(1, 1, 0)}
NO_BUCKETS = stage_plan(1 << 40, 1 << 40, 0)


@pytest.fixture(params=[("bucketed", 1), ("bucketed", 3), ("bucketed-layered", 1),
                        ("bucketed-layered", 2)], ids=lambda p: f"{p[0]}-{p[1]}-threads")
def forced_stage_plan(request):
    """Every stage bucketed (RULES §2.1: its positions grouped by their checkers
    per class of points), on the given threads: (name, threads)."""
    return request.param


def test_bucketed_stages_match_the_stage_by_stage_expansion(forced_stage_plan):
    name, threads = forced_stage_plan
    plan = STAGE_PLANS[name]
    stats = {}
    compared = 0
    for code, seat, first in CASES[::3]:
        compared += checked_chain_outcomes(code, seat, first, threads, plan, stats) is not None
    rng = random.Random(19)
    for code, seat in candidate_positions()[1::4]:
        start = rng.randint(2, 6)
        stages = [(start, rng.randint(1, 4))] + [(n, 4) for n in range(start + 1, 7)]
        try:
            result = remainder_ends(code, seat, [[n] * k for n, k in stages],
                                    max_ends=SIZE_LIMIT, threads=threads, plan=plan, stats=stats)
        except gulbara.EnumerationLimitError:
            continue
        assert core_outcomes(result) == expansion(code, seat, stages, False)
        compared += 1
    bucketed, layered = stats["stages_bucketed"], stats["stages_layered"]
    assert compared >= 120
    assert bucketed >= 300                     # the plan was taken
    assert (layered >= 300) == (name == "bucketed-layered")


def test_a_stage_turned_to_layers_part_way_matches_the_stage_by_stage_expansion():
    # A bucketed stage not layered from its start measures its first buckets'
    # ends per distinct end and turns to layers for the rest when they share
    # many (here more than 3 per distinct end, after 4 positions): outcomes and
    # order as without buckets.
    turned = compared = 0
    turning = stage_plan(1, 1, 3, 4, 3)
    for code, seat, first in CASES:
        plain = small_chain(code, seat, first, plan=NO_BUCKETS)
        if plain is None:
            continue
        stats = {}
        assert checked_chain_outcomes(code, seat, first, 1, turning, stats) is not None
        for threads in (1, 2):
            chain = chain_ends(code, seat, first, threads=threads, plan=turning, stats=stats)
            assert outcome_rows(chain) == outcome_rows(plain)
        turned += stats["stages_turned"] > 0
        compared += 1
    assert compared >= 100
    assert turned >= 5                        # the turn was taken


def test_bucketed_stages_give_the_same_outcomes_in_the_same_order():
    # Buckets only order the work: the outcomes and their order are those of
    # the stages expanded as they are read, on any number of threads.
    entry = MID_GAME_11[2]                                   # mid-c
    plain = chain_ends(entry.code, entry.seat, 1, threads=1, plan=NO_BUCKETS)
    assert len(plain) == entry.outcomes[0]
    for plan in STAGE_PLANS.values():
        for threads in (1, 2, 3):
            chain = chain_ends(entry.code, entry.seat, 1, threads=threads, plan=plan)
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
        list(chain_ends_iter(gulbara.START_CODE, 0, 5, chunk=0))
    with pytest.raises(gulbara.GulBaraError, match="k must"):
        chain_best(gulbara.START_CODE, 0, 5, k=0)
    assert len(chain_ends(gulbara.START_CODE, 0, 5, threads=np.int64(2))) == 44


def test_regression_chain_calls_check_their_rules():
    # chain_ends once stored any rules it was given and failed later, with an
    # AttributeError, when the outcome arrays were built.
    for call in (lambda: chain_ends(gulbara.START_CODE, 0, 4, rules="default"),
                 lambda: list(chain_ends_iter(gulbara.START_CODE, 0, 4, rules={})),
                 lambda: remainder_ends(gulbara.START_CODE, 0, [[4, 4]], rules="default"),
                 lambda: list(remainder_ends_iter(gulbara.START_CODE, 0, [[4]],
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
    plan = STAGE_PLANS["bucketed"]
    bucketed = [chain_ends(gulbara.START_CODE, 0, 4, threads=3, plan=plan),
                chain_ends(entry.code, entry.seat, 1, threads=3, plan=plan)]
    plain = [chain_ends(gulbara.START_CODE, 0, 4, threads=1),
             chain_ends(entry.code, entry.seat, 1, threads=1)]
    assert [outcome_rows(c) for c in bucketed] == [outcome_rows(c) for c in plain]
    assert len(plain[0]) == 1601 and len(plain[1]) == entry.outcomes[0]


def outcomes_or_limit(entry, threads=1, memory=None, plan=STAGE_BY_STAGE):
    """The chain's count of outcomes in one pass under ``memory`` bytes (the
    budget refuses every memory take that would pass it, wherever in the chain
    that falls), or "limit" for EnumerationLimitError."""
    run = _chains.chain_run_raw(entry.code, entry.seat, entry.first, None, threads, memory,
                                plan=plan)
    try:
        return len(run.run(0, 1))
    except gulbara.EnumerationLimitError:
        return "limit"


def budgets_along(entry, threads, shares, plan=STAGE_BY_STAGE):
    """Memory budgets of ``shares`` of the chain's one-pass peak (at least the
    smallest budget): the takes refused first fall all along the chain. (A
    budget short of the peak is not always refused: the stages bucketed only
    with room to spare under the budget hold more without buckets.)"""
    peak = chain_ends(entry.code, entry.seat, entry.first, threads=threads,
                      plan=plan)._raw.table_peak_bytes
    return [max(_chains.CHAIN_BASE_BYTES, int(peak * share)) for share in shares]


def test_regression_a_local_set_left_without_a_table_queues_its_waiting_keys():
    """A bucket's LocalSet that could not double was flushed, and when the budget
    then refused it a table of its first size it was left with none but the old
    size: the keys still waiting in its ring were inserted into no table (a
    crash, seen with threads taking what the flush gave back, and with takes 25
    to 28 of this chain refused on one thread). Now a budget that refuses the
    takes past it anywhere along the chain, from a quarter of its peak to
    twice it (the bucketed stages' LocalSets meet it from 1.3), ends in the
    chain's outcomes or EnumerationLimitError (the slow test below tries budgets
    all along a bigger chain)."""
    entry = REAL_GAME_CHAINS[24]                    # 63,492 outcomes, frontiers of 2M
    assert outcomes_or_limit(entry) == entry.outcomes
    results = []
    for memory in budgets_along(entry, 1, (0.25, 0.5, 1.0, 1.3, 1.4, 1.5, 1.6, 1.7, 1.85, 2.0)):
        results.append(outcomes_or_limit(entry, memory=memory))
        assert results[-1] in (entry.outcomes, "limit"), memory
    assert "limit" in results and entry.outcomes in results


@pytest.mark.slow
@pytest.mark.parametrize("threads", [1, 2])
def test_every_budget_ends_in_the_outcomes_or_a_limit(threads):
    """Memory budgets all along a 728,121-outcome chain, from the smallest to three
    times its one-pass peak (121 of them; on two threads the chain needs 2.5 times
    it once the budget leaves no room for buckets): what a full budget can refuse
    anywhere ends cleanly, never in a crash or a wrong count."""
    entry = REAL_GAME_CHAINS[9]
    assert outcomes_or_limit(entry, threads) == entry.outcomes
    results = []
    for memory in budgets_along(entry, threads, [k / 40 for k in range(121)]):
        results.append(outcomes_or_limit(entry, threads, memory))
        assert results[-1] in (entry.outcomes, "limit"), memory
    assert "limit" in results and entry.outcomes in results


def outcome_rows(chain):
    """Every outcome with its tag, in the chain's order."""
    return [(chain.code(i),) + tuple(chain._raw.tag(i)) for i in range(len(chain))]


THREAD_CASES = [(MID_GAME_11[0].code, MID_GAME_11[0].seat, 2),
                (MID_GAME_11[2].code, MID_GAME_11[2].seat, 3),
                (gulbara.START_CODE, 0, 3),
                ("G:,,,,,3,,,,,,-15,,,,,,,,,,,,|0,0|12,0", 0, 1)]


def test_regression_a_budget_one_thread_fits_is_not_refused_on_two():
    """On two threads a chain's tables peak higher than on one, by how the work was shared
    out: budgets of 2 to 4 MB, which one thread fits, were refused on two threads in every
    number of passes (and the stream test failed by it under load). A pass of the most passes
    that does not fit on several threads now runs again on one: the same outcomes."""
    code, seat, first = "G:1,1,2,3,,-2,,,,-3,,-3,,-2,,,1,-2,,1,-2,-1,,6|0,0|0,0", 1, 2
    rows = outcome_rows(chain_ends(code, seat, first, threads=1))
    budget = 2 << 20                            # one thread fits it (the chain peaks at 1.7 MB)
    assert outcome_rows(chain_ends(code, seat, first, threads=1, memory=budget)) == rows
    assert outcome_rows(chain_ends(code, seat, first, threads=2, memory=budget)) == rows
    assert chain_count(code, seat, first, threads=2, memory=budget) == len(rows)
    streamed = chain_ends_iter(code, seat, first, chunk=500, threads=2, memory=budget)
    assert [row for c in streamed for row in outcome_rows(c)] == rows


@pytest.mark.parametrize("code, seat, first", THREAD_CASES)
def test_threads_give_the_same_outcomes_in_the_same_order(code, seat, first):
    results = [outcome_rows(chain_ends(code, seat, first, threads=t, plan=EVERY_STAGE_THREADED))
               for t in (1, 2, 3)]
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
    chunks = list(chain_ends_iter(code, seat, first, chunk=997, threads=threads,
                                          memory=memory))
    assert all(0 < len(c) <= 997 for c in chunks)
    assert [row for c in chunks for row in outcome_rows(c)] == rows
    assert np.array_equal(np.concatenate([c.boards for c in chunks]), whole.boards)
    assert chain_count(code, seat, first, threads=threads, memory=memory) == len(whole)


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
    streamed = list(chain_ends_iter(code, seat, first, threads=2, memory=budget))
    assert sum(len(c) for c in streamed) == len(whole)
    assert chain_count(code, seat, first, threads=2, memory=budget) == len(whole)


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
    chunks = list(remainder_ends_iter(code, seat, stages, chunk=1000, threads=2,
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
    best = chain_best(code, seat, 3, k=5, chunk=300)
    assert [b.outcome for b in best] == [whole[i] for i in ranked]
    assert [b.score for b in best] == [float(scores[i]) for i in ranked]
    position = gulbara.Position.from_code(code)
    for stage in best[0].steps:
        position = position.apply_steps(seat, stage)
    assert position.code() == best[0].outcome.code
    by_pips = chain_best(code, seat, 3, k=1, evaluate=lambda c: -c.borne_off[:, seat])
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
             "gulbara.chain_count(gulbara.START_CODE, 0, 5, "
             "plan=gulbara.chains.ChainPlan(diagrams=False)), "
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
    assert best == chain_best(gulbara.START_CODE, 0, 5, k=1)[0].score
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
            chain_best(gulbara.START_CODE, 0, 5, evaluate=evaluate)


def test_regression_remainder_dice_are_all_type_checked():
    """remainder_ends checked the type of a stage's first die only: [1, True], [4, 4.0] passed."""
    for stage in ([1, True], [4, 4.0], [4, "4"]):
        with pytest.raises(TypeError, match="dice must be ints"):
            remainder_ends(gulbara.START_CODE, 0, [stage])
    assert len(remainder_ends(gulbara.START_CODE, 0, [[4, np.int64(4)]])) == 2


# ---------------------------------------------------------------------------
# Chains by decision diagrams (_chain_dd.pyx) against the stage-by-stage way
# ---------------------------------------------------------------------------


def by_diagram(small_chain=0, **changes):
    """A plan with decision diagrams allowed: past ``small_chain`` positions held
    and, if that is given, with few of the opponent's points in the way (as by
    default); by default for every chain."""
    return planned(diagrams=True, small_chain=small_chain,
                   diagram_contact=24 if small_chain == 0 else 3, **changes)


DIAGRAMS = by_diagram()
AS_BY_DEFAULT = by_diagram(small_chain=30_000)


def stage_by_stage_rows(code, seat, first, limit=200_000):
    """The chain's outcome rows from the stage-by-stage enumeration (None past ``limit``)."""
    chain = small_chain(code, seat, first, limit=limit, plan=STAGE_BY_STAGE)
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
        stats = {}
        for threads in (1, 2):
            assert outcome_rows(chain_ends(code, seat, first, threads=threads,
                                           plan=by_diagram(threaded_frontier=1),
                                           stats=stats)) == want, (code, seat, first, threads)
        used += stats["diagram_chains"] == 2
        compared += 1
    assert compared >= 90 and used >= 50, (compared, used)


@pytest.mark.parametrize("index", [20, pytest.param(42, marks=pytest.mark.slow)])
def test_diagrams_take_the_big_real_game_chains_whole(index):
    """Chains of 33,069 to 1,180,975 outcomes met in play: by diagram, the same outcomes
    in the same order as stage by stage, and streamed and counted in passes alike."""
    entry = REAL_GAME_CHAINS[index]
    stats = {}
    chain = chain_ends(entry.code, entry.seat, entry.first, threads=2, plan=AS_BY_DEFAULT,
                       stats=stats)
    assert stats["diagram_chains"] == 1 and len(chain) == entry.outcomes
    whole = chain_ends(entry.code, entry.seat, entry.first, threads=2)
    for field in ("boards", "stop", "stop_number", "played"):
        assert np.array_equal(getattr(chain, field), getattr(whole, field)), field
    check_passes_and_streams(entry, chain, AS_BY_DEFAULT)


def check_passes_and_streams(entry, chain, plan):
    """The chain in passes under the smallest budget that needs them, streamed and
    counted under it, as ``plan`` says: the one-pass result."""
    peak = chain_ends(entry.code, entry.seat, entry.first, threads=1,
                      plan=plan)._raw.table_peak_bytes
    stats = {}
    for share in (0.3, 0.45, 0.6, 0.75, 0.9):      # the smallest budget that fits in passes
        try:
            passed = chain_ends(entry.code, entry.seat, entry.first, threads=1,
                                memory=int(peak * share), plan=plan, stats=stats)
        except gulbara.EnumerationLimitError:
            continue
        break
    else:
        pytest.fail(f"no budget under the one-pass peak ({peak:,} bytes) fitted")
    assert passed._raw.passes > 1 and outcome_rows(passed) == outcome_rows(chain)
    if entry.outcomes > 500_000:                  # (a small pass may go stage by stage)
        assert stats["diagram_chains"] >= passed._raw.passes     # every pass by diagram
    memory = int(peak * share)
    chunks = list(chain_ends_iter(entry.code, entry.seat, entry.first, chunk=100_000,
                                  threads=1, memory=memory, plan=plan))
    assert np.array_equal(np.concatenate([c.boards for c in chunks]), chain.boards)
    assert chain_count(entry.code, entry.seat, entry.first, threads=1,
                       memory=memory, plan=plan) == entry.outcomes


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
        stats = {}
        chain = chain_ends(code, seat, first, threads=1, plan=DIAGRAMS, stats=stats)
        assert stats["diagram_chains"] == 1, code
        assert outcome_rows(chain) == stage_by_stage_rows(code, seat, first, limit=3_000_000)
        stops.update(STOP_NAMES[s] for s in chain.stop)
    assert all(stops[name] > 0 for name in ("complete", "stalled", "game_over")), stops
    near = "G:3,3,3,3,,,2,,,,,-15,,,,,,,,,,,,1|0,0|0,0"    # three checkers outside home
    stats = {}
    assert (outcome_rows(chain_ends(near, 0, 1, threads=1, plan=DIAGRAMS, stats=stats))
            == stage_by_stage_rows(near, 0, 1))
    assert stats["diagram_chains"] == 0


def test_a_diagram_past_max_ends_falls_back_or_is_refused():
    """The diagram's nodes count as positions held: under a max_ends too small for
    them the chain goes stage by stage, and is refused only where that is refused too."""
    entry = REAL_GAME_CHAINS[20]                      # 33,069 outcomes
    for limit in (1_000, 20_000, 40_000, 80_000):
        try:
            want = len(chain_ends(entry.code, entry.seat, entry.first, threads=1,
                                  max_ends=limit, plan=STAGE_BY_STAGE))
        except gulbara.EnumerationLimitError:
            want = None
        try:
            got = len(chain_ends(entry.code, entry.seat, entry.first, threads=1,
                                 max_ends=limit, plan=DIAGRAMS))
        except gulbara.EnumerationLimitError:
            got = None
        assert got == want or (want is None and got == entry.outcomes), (limit, got, want)


def test_chains_with_the_opponent_in_the_way_go_stage_by_stage():
    """The mid-game 1-1 suite has four to seven of the opponent's points between home and
    the mover's rearmost checker: its diagrams are slower than stage by stage, so by
    default those chains go stage by stage (REAL_GAME_CHAINS[9] too, with four), and
    the chains of the real-game suite with at most three by diagram."""
    stats = {}
    for entry in MID_GAME_11[:2]:
        assert len(chain_ends(entry.code, entry.seat, 1, threads=1, plan=AS_BY_DEFAULT,
                              stats=stats)) == entry.outcomes[0]
    entry = REAL_GAME_CHAINS[9]
    assert len(chain_ends(entry.code, entry.seat, entry.first, threads=2, plan=AS_BY_DEFAULT,
                          stats=stats)) == entry.outcomes
    assert stats["diagram_chains"] == 0
    entry = REAL_GAME_CHAINS[19]
    assert len(chain_ends(entry.code, entry.seat, entry.first, threads=1, plan=AS_BY_DEFAULT,
                          stats=stats)) == entry.outcomes
    assert stats["diagram_chains"] == 1


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
        stats = {}
        want = outcome_rows(chain_ends(code, seat, first, threads=1, plan=DIAGRAMS, stats=stats))
        one = stats["last_diagram"]
        assert not one["team"] and one["dead"] == 0
        for threads in (2, 3):
            assert outcome_rows(chain_ends(code, seat, first, threads=threads, plan=DIAGRAMS,
                                           stats=stats)) == want, (code, seat, first, threads)
            last = stats["last_diagram"]
            assert last["team"], last
            if (code, seat, first) in same_nodes:
                assert last["nodes"] - last["dead"] == one["nodes"], last
            assert chain_count(code, seat, first, threads=threads, plan=DIAGRAMS,
                               stats=stats) == len(want)
        teams += stats["diagram_chains"] == 5
        stops.update(row[1] for row in want)
    assert teams == len(cases)
    assert all(stops[s] > 0 for s in (STOP_COMPLETE, STOP_STALLED, STOP_GAME_OVER)), stops


def test_a_team_whose_memory_runs_out_stops_both_threads():
    """A memory take refused while the helper thread works (growing the tables, the
    walk, the outcomes): the chain on two threads falls back, finishes in passes or
    is refused, never hangs, and what it returns is the one-thread result."""
    entry = REAL_GAME_CHAINS[20]                      # 33,069 outcomes
    want = outcome_rows(chain_ends(entry.code, entry.seat, entry.first, threads=1, plan=DIAGRAMS))
    stats = {}
    assert chain_count(entry.code, entry.seat, entry.first, threads=2, plan=DIAGRAMS,
                       stats=stats) == len(want)
    assert stats["last_diagram"]["team"]
    finished = 0
    for memory in budgets_along(entry, 2, [k / 16 for k in range(1, 25)], DIAGRAMS):
        try:
            chain = chain_ends(entry.code, entry.seat, entry.first, threads=2, memory=memory,
                               plan=DIAGRAMS)
            count = chain_count(entry.code, entry.seat, entry.first, threads=2, memory=memory,
                                plan=DIAGRAMS)
        except gulbara.EnumerationLimitError:
            continue
        assert outcome_rows(chain) == want and count == len(want), memory
        finished += 1
    assert finished > 0


def test_regression_the_diagrams_walk_arrays_are_counted_in_the_meter():
    """The paths, child masks and jumps the outcomes are written from (dd_count_paths:
    34 bytes a node) were allocated outside the memory meter: the bytes a diagram
    counts are its room for nodes, its cache and those arrays, and the chain's peak
    holds them all."""
    entry = REAL_GAME_CHAINS[20]                      # 33,069 outcomes
    stats = {}
    chain = chain_ends(entry.code, entry.seat, entry.first, threads=1, plan=DIAGRAMS, stats=stats)
    last = stats["last_diagram"]
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
        stats = {}
        # (the outcomes by diagram are the stage-by-stage ones: above)
        want = len(chain_ends(code, seat, first, threads=1, plan=DIAGRAMS, stats=stats))
        assert chain_count(code, seat, first, threads=1, plan=DIAGRAMS,
                           stats=stats) == want, (code, seat, first)
        by_diagram += stats["diagram_chains"] == 2
    assert by_diagram >= 40, by_diagram


def test_regression_chain_count_tries_a_diagram_that_does_not_apply_once():
    """chain_count of a chain sent to the diagram whose diagram then did not apply (a
    bear-off) ran the small first try and the diagram twice: in its count, then again
    in the stage-by-stage passes."""
    code = "G:2,3,1,2,3,4,,,,,,,-2,-3,-1,-4,-2,-3,,,,,,|0,0|0,0"
    plan = by_diagram(small_chain=10)
    for first in (1, 2, 3):
        stats = {}
        want = len(chain_ends(code, 0, first, threads=1, plan=plan, stats=stats))
        assert stats["small_tries"] == 1 and stats["diagram_chains"] == 0
        assert want > 10
        stats = {}
        assert chain_count(code, 0, first, threads=1, plan=plan, stats=stats) == want
        assert stats["small_tries"] == 1 and stats["diagram_chains"] == 0


def test_chain_count_of_a_big_chain_needs_no_passes():
    """A chain of 1,180,975 outcomes, counted under a budget chain_ends needs passes
    for: by diagram, in one go, the right count; under budgets too small for the
    diagram, in passes (or EnumerationLimitError), never a wrong count."""
    entry = REAL_GAME_CHAINS[42]
    memory = 24 << 20
    assert chain_ends(entry.code, entry.seat, entry.first, threads=2, memory=memory,
                      plan=AS_BY_DEFAULT)._raw.passes > 1
    stats = {}
    assert chain_count(entry.code, entry.seat, entry.first, threads=2, memory=memory,
                       plan=AS_BY_DEFAULT, stats=stats) == entry.outcomes
    assert stats["diagram_chains"] == 1
    assert stats["last_diagram"]["counted"] < memory
    for budget in range(_chains.CHAIN_BASE_BYTES, memory + 1, memory // 16):
        try:
            count = chain_count(entry.code, entry.seat, entry.first, threads=1, memory=budget,
                                plan=AS_BY_DEFAULT)
        except gulbara.EnumerationLimitError:
            continue
        assert count == entry.outcomes, budget


def remainder_rows(code, seat, stages, threads=1, plan=STAGE_BY_STAGE, stats=None):
    """A remainder's outcome rows (outcome_rows) under ``plan``."""
    return outcome_rows(remainder_ends(code, seat, stages, threads=threads, plan=plan,
                                       stats=stats))


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
        want = remainder_rows(code, seat, stages)
        if len(want) > 200_000:
            continue
        stats = {}
        for threads in (1, 2):
            assert remainder_rows(code, seat, stages, threads, by_diagram(threaded_frontier=1),
                                  stats) == want, (code, seat, stages)
        used += stats["diagram_chains"] == 2
        compared += 1
        stops.update(row[1] for row in want)
    assert compared >= 50 and used >= 40, (compared, used)
    assert stops[STOP_GAME_OVER] > 0 and stops[STOP_COMPLETE] > 0, stops


# ---------------------------------------------------------------------------
# The plan of a call (ChainPlan) and its stats
# ---------------------------------------------------------------------------


def test_the_python_plan_is_the_engines_default():
    """gulbara.chains.ChainPlan() has the fields and defaults of the engine's
    default_plan(), and the bounds the backend checks."""
    assert dataclasses.asdict(ChainPlan()) == _chains.DEFAULT_PLAN
    assert enumeration._PLAN_BOUNDS == _chains.PLAN_BOUNDS
    assert gulbara.chains.ChainPlan is ChainPlan
    with pytest.raises(dataclasses.FrozenInstanceError):
        ChainPlan().diagrams = False


def test_bad_plans_and_stats_are_refused_with_clear_errors():
    for changes, error, words in [(dict(diagrams=1), TypeError, "plan.diagrams"),
                                  (dict(threaded_frontier=0), gulbara.GulBaraError,
                                   "plan.threaded_frontier must be at least 1, got 0"),
                                  (dict(small_chain=-1), gulbara.GulBaraError, "plan.small_chain"),
                                  (dict(diagram_contact=25), gulbara.GulBaraError,
                                   "plan.diagram_contact must be 0..24"),
                                  (dict(turn_duplication=10 ** 7), gulbara.GulBaraError,
                                   "plan.turn_duplication"),
                                  (dict(layered_probe=1.5), TypeError, "plan.layered_probe")]:
        with pytest.raises(error, match=words):
            ChainPlan(**changes)
    assert issubclass(gulbara.GulBaraError, ValueError)
    assert ChainPlan(diagrams=np.bool_(False), bucket_frontier=np.int64(7)) == \
        ChainPlan(diagrams=False, bucket_frontier=7)
    calls = [lambda **kw: enumeration.chain_ends(gulbara.START_CODE, 0, 5, **kw),
             lambda **kw: enumeration.remainder_ends(gulbara.START_CODE, 0, [[5, 5]], **kw),
             lambda **kw: enumeration.chain_count(gulbara.START_CODE, 0, 5, **kw),
             lambda **kw: list(enumeration.chain_ends_iter(gulbara.START_CODE, 0, 5, **kw)),
             lambda **kw: list(enumeration.remainder_ends_iter(gulbara.START_CODE, 0, [[5]], **kw)),
             lambda **kw: enumeration.chain_best(gulbara.START_CODE, 0, 5, **kw)]
    for call in calls:
        for plan in ({"diagrams": False}, _chains.DEFAULT_PLAN, "default", 3):
            with pytest.raises(TypeError, match="plan must be a gulbara.chains.ChainPlan"):
                call(plan=plan)
        with pytest.raises(TypeError, match="stats must be a dict"):
            call(stats=[])
        stats = {}
        call(plan=ChainPlan(threaded_frontier=1), stats=stats)
        assert set(stats) == {"diagram_chains", "small_tries", "stages_bucketed",
                              "stages_layered", "stages_turned", "last_diagram"}
    # the backend's entry points check a plan as well (any object with its fields)
    with pytest.raises(TypeError, match="plan must be"):
        _chains.chain_ends_raw(gulbara.START_CODE, 0, 5, plan=object())
    bad = type("Plan", (), dict(_chains.DEFAULT_PLAN, bucket_frontier=0))()
    with pytest.raises(gulbara.GulBaraError, match="plan.bucket_frontier must be at least 1"):
        _chains.chain_ends_raw(gulbara.START_CODE, 0, 5, plan=bad)


def test_no_plan_changes_the_outcomes_and_none_is_left_behind():
    """The outcomes and their order are those of the default plan under every plan,
    and a plan is for its call alone: the next call without one is the default."""
    entry = MID_GAME_11[2]                                   # mid-c
    want = outcome_rows(enumeration.chain_ends(entry.code, entry.seat, 2, threads=2))
    plans = [ChainPlan(diagrams=False), ChainPlan(small_chain=0, diagram_contact=24),
             ChainPlan(diagrams=False, threaded_frontier=1, bucket_frontier=1,
                       layered_frontier=1, layered_duplication=0),
             ChainPlan(diagrams=False, bucket_frontier=1 << 40, layered_frontier=1 << 40)]
    for plan in plans:
        assert outcome_rows(enumeration.chain_ends(entry.code, entry.seat, 2, threads=2,
                                                   plan=plan)) == want
        assert enumeration.chain_count(entry.code, entry.seat, 2, threads=2,
                                       plan=plan) == len(want)
    stats = {}
    enumeration.chain_ends(entry.code, entry.seat, 2, threads=2, stats=stats)
    fresh = {}
    enumeration.chain_ends(entry.code, entry.seat, 2, threads=2,
                           plan=ChainPlan(diagrams=False), stats=fresh)
    again = {}
    enumeration.chain_ends(entry.code, entry.seat, 2, threads=2, stats=again)
    assert again == stats and fresh["diagram_chains"] == 0
