"""The real-game chain suite (gulbara.tools.suites.REAL_GAME_CHAINS) is what the games give.

The suite's positions are every escalating 1-1, 2-2 and 3-3 first stage of
the seeded greedy-against-greedy games 0..11; their hard-coded outcome counts
are checked here for the chains that are quick to enumerate (all of them by
the benchmarks), against the core and, for the small ones, against the
stage-by-stage expansion.
"""

import gulbara
from gulbara.core import _movegen
from gulbara.core import _reference
from gulbara.tools.suites import REAL_GAME_CHAINS, STRESS_CHAINS, chain_decisions


def test_the_suite_is_every_chain_decision_of_games_0_to_11():
    sampled = [d[:5] for d in chain_decisions(range(12))]
    assert sampled == [d[:5] for d in REAL_GAME_CHAINS]
    assert len(REAL_GAME_CHAINS) >= 40
    assert {d.first for d in REAL_GAME_CHAINS} == {1, 2, 3}
    assert sum(d.outcomes > 10_000 for d in REAL_GAME_CHAINS) >= 10
    # early-game ones too: a side's first escalating roll (its 4th) within 20 plays
    assert sum(d.ply <= 20 for d in REAL_GAME_CHAINS) >= 5


def test_the_quick_chains_have_the_counted_outcomes():
    checked = 0
    for d in REAL_GAME_CHAINS:
        if d.outcomes <= 20_000:
            assert len(gulbara.chain_ends(d.code, d.seat, d.first)) == d.outcomes, d
            checked += 1
    assert checked >= 30


def test_the_small_chains_match_the_stage_by_stage_expansion():
    compared = 0
    for d in REAL_GAME_CHAINS:
        if d.outcomes <= 2_000:
            stages = [(n, 4) for n in range(d.first, 7)]
            want = _reference.chain_outcomes(d.code, d.seat, stages, True,
                                             generate=_movegen.stage_ends)
            chain = gulbara.chain_ends(d.code, d.seat, d.first)
            got = {(chain.code(i),) + tuple(chain._raw.tag(i)) for i in range(len(chain))}
            assert got == want and len(want) == d.outcomes, d
            compared += 1
    assert compared >= 20


def test_the_stress_chain_is_an_escalating_roll():
    for d in STRESS_CHAINS:
        assert gulbara.Position.from_code(d.code).borne_off(d.seat) == 0
        assert 1 <= d.first <= 3
