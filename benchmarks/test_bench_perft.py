"""perft benchmarks (STYLE §7, group "perft"): the native perft over full game states.

Each benchmark counts the leaves of one named state at one depth (RULES §10),
asserts the hard-coded count (the values of ``tests/data/start.perft`` and
``tests/data/states.perft``) and stores ``nodes`` and, when timed,
``nodes_per_second_median`` (leaves per second of the median round) in
``extra_info``. The Python perft (through ``Game``, on the core) runs the start
at depth 2 to track the speed-up.

    python3 -m pytest benchmarks/test_bench_perft.py
    python3 -m pytest benchmarks/test_bench_perft.py --benchmark-disable   # once, as tests
"""

import pytest

from gulbara import Game, Rules
from gulbara.game.perft import NATIVE, perft, perft_python
from bench_timing import finish, per_second

assert NATIVE, "the native perft is part of every build"

START = "G:,,,,,,,,,,,-15,,,,,,,,,,,,15|0,0|0,0 next=opening rolls=0,0 stuck=0"

# (name, state code, rules, depth, leaves, rounds)
CASES = [
    ("start-d3", START, Rules(), 3, 262_810, 15),
    ("start-d4", START, Rules(), 4, 43_508_585, 3),
    ("mid-game-roll-d2", "G:1,,,,2,-4,,,,,1,-8,,1,,1,-1,2,2,,-1,-1,,5|0,0|0,0 "
     "next=roll:W rolls=8,8 stuck=0", Rules(), 2, 134_235, 15),
    ("mid-game-roll-d3", "G:1,,,,2,-4,,,,,1,-8,,1,,1,-1,2,2,,-1,-1,,5|0,0|0,0 "
     "next=roll:W rolls=8,8 stuck=0", Rules(), 3, 53_173_422, 3),
    ("mid-game-play-d3", "G:1,,,,2,-4,,,,,1,-8,,1,,1,-1,2,2,,-1,-1,,5|0,0|0,0 "
     "next=play:W stage=5-4 roll=5-4 rolls=9,8 stuck=0", Rules(), 3, 3_187_205, 5),
    ("chain-1-1-d4", "G:2,,-1,,2,-3,,,,-2,2,-6,,1,,-1,-1,1,2,,,-1,1,4|0,0|0,0 "
     "next=chain:B stage=1-1-1-1 index=0 roll=1-1 rolls=11,11 stuck=0", Rules(), 4, 4_069_721, 5),
    ("remainder-d4", "G:3,1,,,,,,,-1,,1,-6,-1,-2,,3,,,-1,-1,-1,-2,,7|0,0|0,0 "
     "next=remainder:B stage=2-2 index=0 then=3x4,4x4,5x4,6x4 roll=2-2 roller=W "
     "rolls=20,19 stuck=0", Rules(), 4, 5_012_850, 5),
    ("bear-off-last-d3", "G:4,,3,,,,,,,,,,-1,,,,,2,1,5,,,,|0,0|0,14 next=roll:W rolls=23,23 "
     "stuck=0", Rules(), 3, 221_671, 15),
]


def _finish(benchmark, nodes, expected):
    benchmark.extra_info["nodes"] = nodes
    finish(benchmark, nodes, expected, nodes, {"nodes_per_second_median": per_second})


@pytest.mark.benchmark(group="perft")
@pytest.mark.parametrize("name, code, rules, depth, expected, rounds", CASES,
                         ids=[case[0] for case in CASES])
def test_perft_native(benchmark, name, code, rules, depth, expected, rounds):
    game = Game.from_state_code(code, rules)
    benchmark.extra_info.update(state=name, depth=depth, engine="native")
    nodes = benchmark.pedantic(perft, (game, depth), rounds=rounds, iterations=1,
                               warmup_rounds=1)
    _finish(benchmark, nodes, expected)


@pytest.mark.benchmark(group="perft-python")
@pytest.mark.parametrize("engine, function, rounds", [("python", perft_python, 5),
                                                      ("native", perft, 50)],
                         ids=["python", "native"])
def test_perft_start_d2(benchmark, engine, function, rounds):
    """The Python perft through Game against the native one, side by side."""
    game = Game.from_state_code(START)
    benchmark.extra_info.update(state="start-d2", depth=2, engine=engine)
    nodes = benchmark.pedantic(function, (game, 2), rounds=rounds, iterations=1)
    _finish(benchmark, nodes, 1576)
