"""The named chain suite of the benchmarks: positions where a whole escalating
chain is enumerated (RULES §4.3-4.4).

``MID_GAME_11`` are eight positions from seeded random games (two random dice
a roll, a uniformly chosen end, 20 to 50 plies in), chosen to span small to
large 1-1 chains. Every entry carries, hard-coded, the number of distinct
outcomes of its chain from each first number 1..6 (computed once with the
core, and the smaller ones confirmed with the stage-by-stage expansion of
``gulbara._reference.chain_outcomes``); the benchmarks assert them.
"""

from typing import NamedTuple, Tuple


class ChainEntry(NamedTuple):
    name: str
    code: str
    seat: int
    outcomes: Tuple[int, int, int, int, int, int]   # chain from first = 1, 2, ..., 6


MID_GAME_11: Tuple[ChainEntry, ...] = (
    ChainEntry("mid-a", "G:1,1,2,3,,-2,,,,-3,,-3,,-2,,,1,-2,,1,-2,-1,,6|0,0|0,0", 1, (11653, 3141, 2797, 315, 147, 5)),
    ChainEntry("mid-b", "G:-2,1,2,2,,-1,1,-3,4,3,,1,,-3,-2,-3,,,1,,,,-1,|0,0|0,0", 1, (14683, 6997, 1577, 7, 9, 1)),
    ChainEntry("mid-c", "G:2,3,,,-2,-1,1,1,,-1,,-5,-3,-3,1,2,,,,,,,,5|0,0|0,0", 1, (31346, 6385, 170, 1, 1, 15)),
    ChainEntry("mid-d", "G:-3,-2,1,,1,1,,-2,1,3,-1,,2,2,2,,-1,-3,-1,-1,,-1,,2|0,0|0,0", 0, (37708, 31601, 19527, 299, 127, 19)),
    ChainEntry("mid-e", "G:1,1,,,-1,-4,-4,1,,3,,-1,-1,1,,-2,,7,,,,1,-1,-1|0,0|0,0", 0, (61269, 6343, 4709, 228, 1, 4)),
    ChainEntry("mid-f", "G:2,-1,2,,-2,,,4,,,1,-4,-3,,-1,2,-2,3,,1,-1,-1,,|0,0|0,0", 1, (68196, 75730, 24245, 471, 431, 18)),
    ChainEntry("mid-g", "G:,1,3,-1,-1,-1,,-1,-2,1,1,-4,-1,-3,1,,,1,,1,-1,,,6|0,0|0,0", 0, (131540, 19205, 1, 195, 5, 1)),
    ChainEntry("mid-h", "G:1,,1,1,,-2,-2,,1,-1,3,-2,-2,-2,,,1,3,-1,-3,,1,,3|0,0|0,0", 0, (148042, 34715, 372, 1, 1, 26)),
)
