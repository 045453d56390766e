"""The fixed, named position suites of the benchmarks and of ``gulbara bench`` (STYLE §7).

Stage suite:

Every entry is a literal position code (RULES §9.1) with the side to move and,
hard-coded, the number of distinct ends summed over the 15 non-double rolls
(``NONDOUBLE_ROLLS``) and over the 6 doubles played as four equal dice
(``DOUBLE_STAGES``). Nothing here is computed at import time from the
generator, so the suite cannot change silently: if a count stops matching, a
benchmark fails.

How the literals were made (once, by a throw-away script; do not regenerate
them casually):

* ``early-contact``, ``mid-game`` and ``mid-game-busy`` come from random play
  from the start with ``random.Random(seed)``: two ``randint(1, 6)`` dice per
  turn (a double as four dice), a uniformly chosen end, seeds/plies 5/7, 2/31
  and 4/40.
* ``primed``, ``race``, ``bear-off``, ``bear-off-last`` and ``blocked-start``
  were written by hand.
* ``vectors-1..3`` are the three positions of
  ``tests/data/moves-gyulbara.json`` (an independent engine's vectors).

The counts were computed with the naive reference (``gulbara.core._reference``)
and cross-checked stage by stage against the core (``gulbara.core._movegen``):
same ends, same order, same canonical steps, same game-end flags, same
playable dice. For ``vectors-1..3`` they also match the vectors' own end
lists on every roll the vectors cover.
"""

from typing import NamedTuple, Tuple

from gulbara.conventions import DOUBLE_STAGES, OPENING_ROLLS


class Entry(NamedTuple):
    name: str
    code: str
    seat: int            # the side to move: 0 White, 1 Black
    nondouble_ends: int  # distinct ends summed over the 15 non-double rolls
    double_ends: int     # distinct ends summed over the 6 doubles as four dice
    about: str


#: The 15 non-double rolls, larger die first (RULES §10.2).
NONDOUBLE_ROLLS = OPENING_ROLLS

SUITE: Tuple[Entry, ...] = (
    Entry("start", "G:,,,,,,,,,,,-15,,,,,,,,,,,,15|0,0|0,0", 0, 30, 23,
          "the start position, White to move"),
    Entry("early-contact", "G:-1,,,,-1,-2,,,-1,,,-10,,,1,1,,,,1,,1,,11|0,0|0,0", 1, 255, 265,
          "seven plies in, Black to move, Black's runners among White's home points"),
    Entry("mid-game", "G:,-2,1,2,,3,,,-1,,1,-6,-1,-1,1,-1,,1,,,,-1,-2,6|0,0|0,0", 1, 271, 222,
          "31 plies in, Black to move"),
    Entry("mid-game-busy", "G:1,-1,1,-2,,-1,-1,-1,2,,,2,,1,2,-7,,,,1,1,1,-2,3|0,0|0,0", 0, 547, 681,
          "40 plies in, White to move, many loose points: the heaviest entry"),
    Entry("primed", "G:,,,2,2,2,2,2,2,-2,-3,,1,,-2,2,-2,,,-3,,,,-3|0,0|0,0", 1, 101, 109,
          "White's 6-prime on its 4..9 traps Black's checkers on White's 10 and 11"),
    Entry("race", "G:2,2,1,3,2,2,,1,1,,1,,-2,-2,-2,-3,-1,-2,,-1,,-1,,-1|0,0|0,0", 0, 378, 448,
          "no contact left, White to move"),
    Entry("bear-off", "G:2,2,3,1,2,2,,,,,,,,-3,-2,-3,-2,-2,-1,,,,,|0,0|3,2", 0, 156, 153,
          "White bearing off, twelve checkers home"),
    Entry("bear-off-last", "G:1,1,,1,,,,,,,,,,-3,-2,-3,-2,-2,-1,,,,,|0,0|12,2", 0, 32, 8,
          "White's last three checkers: game-ending plays (RULES §3.3)"),
    Entry("blocked-start", "G:,,,,,,2,2,2,,2,-15,,,,,,,,,,,,7|0,0|0,0", 1, 16, 6,
          "Black still on its start, White holding White's 7, 8, 9 and 11 in front of it"),
    Entry("vectors-1", "G:,-2,2,-2,-1,2,,,-1,,,-9,,,,1,,1,,,,,,9|0,0|0,0", 0, 155, 128,
          "tests/data/moves-gyulbara.json, first position"),
    Entry("vectors-2", "G:,-2,2,-2,,3,,,-2,,,-8,,1,,,,5,,,,,-1,4|0,0|0,0", 0, 159, 148,
          "tests/data/moves-gyulbara.json, second position"),
    Entry("vectors-3", "G:1,-2,2,-2,,3,1,,-2,,1,-8,,3,,,,2,1,,,,-1,1|0,0|0,0", 1, 138, 63,
          "tests/data/moves-gyulbara.json, third position"),
)

#: Expected totals over the whole suite.
NONDOUBLE_TOTAL = sum(entry.nondouble_ends for entry in SUITE)   # 2238
DOUBLE_TOTAL = sum(entry.double_ends for entry in SUITE)         # 2254

#: The flat (code, seat, dice) work lists of one benchmark round.
NONDOUBLE_JOBS = tuple((e.code, e.seat, dice) for e in SUITE for dice in NONDOUBLE_ROLLS)
DOUBLE_JOBS = tuple((e.code, e.seat, dice) for e in SUITE for dice in DOUBLE_STAGES)

assert len(SUITE) == len({e.name for e in SUITE}) == 12
assert len(NONDOUBLE_ROLLS) == 15 and len(DOUBLE_STAGES) == 6
assert (NONDOUBLE_TOTAL, DOUBLE_TOTAL) == (2238, 2254)

__all__ = ["count_with", "count_boards", "ChainEntry", "MID_GAME_11", "ChainDecision",
           "REAL_GAME_CHAINS", "STRESS_CHAINS", "chain_decisions", "Entry", "SUITE", "NONDOUBLE_ROLLS", "DOUBLE_STAGES", "NONDOUBLE_TOTAL",
           "DOUBLE_TOTAL", "NONDOUBLE_JOBS", "DOUBLE_JOBS"]


# ---------------------------------------------------------------------------
# The chain suite
# ---------------------------------------------------------------------------
#
# The named chain suite of the benchmarks: positions where a whole escalating
# chain is enumerated (RULES §4.3-4.4).
#
# ``MID_GAME_11`` are eight positions from seeded random games (two random dice
# a roll, a uniformly chosen end, 20 to 50 plies in), chosen to span small to
# large 1-1 chains. Every entry carries, hard-coded, the number of distinct
# outcomes of its chain from each first number 1..6 (computed once with the
# core, and the smaller ones confirmed with the stage-by-stage expansion of
# ``gulbara.core._reference.chain_outcomes``); the benchmarks assert them.

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


def count_with(stage_ends, jobs) -> int:
    """Sum of ``len(stage_ends(code, seat, dice))`` over (code, seat, dice) jobs: one benchmark pass."""
    total = 0
    for code, seat, dice in jobs:
        total += len(stage_ends(code, seat, dice))
    return total


def count_boards(jobs) -> int:
    """Sum of ``len(board.stage_ends(dice))`` over (board, dice) jobs."""
    total = 0
    for board, dice in jobs:
        total += len(board.stage_ends(dice))
    return total


#: The self-play suite: (policy, seed, games, total decisions, total rolls) of the
#: native loop from the start under the default rules. tests/test_selfplay.py
#: checks the native games move for move against the Python driver.
SELFPLAY_SUITE = (
    ("random", 2026, 4000, 269_607, 196_010),
    ("greedy", 2026, 400, 28_564, 20_657),
)

#: The parallel self-play suite (the same layout): enough games (20 blocks of
#: CHUNK_GAMES) that starting the worker processes is a small part of the time.
SELFPLAY_PARALLEL = ("random", 2026, 40_000, 2_701_446, 1_964_300)


def selfplay_totals(policy: str, seed: int, games: int, workers: int = 1):
    """(total decisions, total rolls) of a self-play run, every game finished."""
    from gulbara.selfplay.games import play_games
    result = play_games(games, policy, seed=seed, workers=workers)
    if result.unfinished or result.games != games:
        raise AssertionError("self-play: games left unfinished")
    return int(result.column("decisions").sum()), int(result.column("rolls").sum())


# ``REAL_GAME_CHAINS`` are whole-chain decisions met in play: every first
# stage of an escalating 1-1, 2-2 or 3-3 (a side's 4th roll or later, RULES
# §4.2) in the seeded greedy-against-greedy games 0..11 (``chain_decisions``),
# in the order they are played, none left out. Each carries, hard-coded, its
# number of distinct outcomes (RULES §5.6), as printed by
# ``python3 benchmarks/sample_chains.py --seeds 0:12 --count``;
# ``tests/test_suites.py`` plays the games again and checks the positions.

class ChainDecision(NamedTuple):
    """A whole-chain decision met in play, with its number of outcomes."""

    seed: int            # the game: greedy against greedy on suite_game(seed)'s dice
    ply: int             # plays made before this decision
    code: str
    seat: int            # the side playing the chain
    first: int           # the chain's first number (1, 2 or 3)
    outcomes: int        # distinct outcomes of the whole chain


def suite_game(seed: int):
    """The game of a suite's ``seed``: its dice drawn by Python's ``random.Random(seed)``, one
    ``randrange(6)`` per die. The suites were sampled from such games, and keep them so that a
    suite never changes; ``gulbara.Game(seed=seed)`` draws from the self-play generator."""
    import random

    import gulbara
    draw = random.Random(seed).randrange
    return gulbara.Game(draw=lambda: draw(6))


def chain_decisions(seeds, numbers=(1, 2, 3)):
    """The first stages of escalating chains of ``numbers`` met in the seeded
    greedy-against-greedy games ``seeds``, as ChainDecision (outcomes 0)."""
    from gulbara.bots.simple import GreedyBot
    bot = GreedyBot()
    for seed in seeds:
        game = suite_game(seed)
        while not game.is_over():
            decision = game.decision
            if (decision.is_escalating and decision.stage == 0 and not decision.is_remainder
                    and decision.dice[0] in numbers):
                yield ChainDecision(seed, len(game.plays), game.code(), decision.seat,
                                    decision.dice[0], 0)
            game.play(bot.choose(game))


REAL_GAME_CHAINS: Tuple[ChainDecision, ...] = (
    ChainDecision(0, 31, 'G:-1,-3,-2,-2,-1,-1,-1,-1,-1,,1,1,1,3,1,1,1,1,1,1,1,1,1,-2|0,0|0,0', 0, 2, 1705),
    ChainDecision(0, 38, 'G:-1,-2,-1,-1,-1,-1,-1,-1,-1,4,3,1,3,3,1,,,-1,,,-1,-1,-1,-1|0,0|0,0', 0, 1, 26),
    ChainDecision(0, 58, 'G:,-1,-1,-1,-1,-1,2,1,2,5,5,,-3,-5,-1,,,,,-1,,,,|0,0|0,0', 0, 2, 45),
    ChainDecision(0, 68, 'G:1,,1,,,2,5,1,4,1,,,-4,-5,-2,-3,-1,,,,,,,|0,0|0,0', 1, 2, 3),
    ChainDecision(1, 15, 'G:,,-1,-1,1,-1,-2,-1,-2,-1,-1,-5,1,1,1,1,1,3,1,2,1,1,,1|0,0|0,0', 0, 1, 1351),
    ChainDecision(2, 12, 'G:,,-1,-1,,-1,-2,-2,-1,-1,-1,-5,1,,,1,,1,2,1,2,1,1,5|0,0|0,0', 1, 1, 7771),
    ChainDecision(2, 22, 'G:-3,-7,-3,-1,-1,,,,,,,,1,,1,1,1,1,2,1,2,1,1,3|0,0|0,0', 0, 2, 11837942),
    ChainDecision(2, 29, 'G:-1,-7,-3,-1,-1,2,1,,1,1,1,,,1,1,1,1,1,1,1,1,1,-1,-1|0,0|0,0', 1, 2, 66),
    ChainDecision(2, 62, 'G:1,1,1,4,1,,,,,,,,-5,-4,-1,,,,,,,,,|0,0|7,5', 0, 3, 1),
    ChainDecision(3, 12, 'G:,-1,,,-1,-1,-2,-1,-1,-2,-1,-5,1,,1,1,1,1,1,,,1,1,7|0,0|0,0', 1, 2, 728121),
    ChainDecision(3, 30, 'G:-2,-1,-2,-2,-1,-1,-1,,,1,,1,1,-2,1,2,2,2,1,1,-3,1,1,1|0,0|0,0', 1, 1, 15),
    ChainDecision(3, 72, 'G:6,5,1,1,1,,,,,,,,-1,-9,-1,-2,-2,,,,,,,|0,0|1,0', 0, 1, 1),
    ChainDecision(4, 20, 'G:-1,-1,-1,-1,-1,-1,-1,-1,-3,-1,-2,-1,,1,1,1,1,1,1,2,1,2,3,1|0,0|0,0', 1, 2, 1013),
    ChainDecision(4, 38, 'G:-8,-4,-3,,3,1,,,,,,,,1,1,1,1,1,1,1,1,1,1,1|0,0|0,0', 0, 1, 2877232),
    ChainDecision(4, 67, 'G:-1,-1,-1,7,5,2,1,,,,,,-1,-3,-1,-3,-1,-1,-1,-1,,,,|0,0|0,0', 0, 1, 4),
    ChainDecision(4, 78, 'G:1,1,1,10,2,,,,,,,,-2,-3,,,,,,,,,,|0,0|0,10', 1, 3, 1),
    ChainDecision(5, 18, 'G:1,-1,-1,-1,-1,-1,-1,-2,-1,-3,-1,-2,,,1,1,1,1,1,1,1,3,2,2|0,0|0,0', 0, 2, 2461),
    ChainDecision(5, 23, 'G:1,-1,-1,-1,-1,-1,-1,-2,-1,-3,-1,-2,4,3,3,2,1,1,,,,,,|0,0|0,0', 1, 1, 3038128),
    ChainDecision(5, 29, 'G:1,-1,-1,-2,-1,-1,-1,-1,-1,,,,4,3,3,2,1,1,-1,-1,-1,-1,-1,-1|0,0|0,0', 0, 2, 369),
    ChainDecision(5, 35, 'G:1,-1,-1,-1,-1,-1,-1,-1,,4,1,4,4,1,-1,,-1,-2,-1,-1,-1,,-1,|0,0|0,0', 1, 2, 59004),
    ChainDecision(5, 40, 'G:1,,-1,-1,,,,,,4,1,4,4,1,-2,-4,-4,-2,,,-1,,,|0,0|0,0', 0, 3, 33069),
    ChainDecision(5, 46, 'G:3,4,-1,-1,3,2,,,1,1,,,1,,-2,-6,-4,-1,,,,,,|0,0|0,0', 1, 2, 39),
    ChainDecision(5, 63, 'G:5,,,,,,,,,,,,-1,-3,-3,,,,,,,,,|0,0|10,8', 1, 3, 1),
    ChainDecision(6, 24, 'G:-1,-1,-1,-1,-1,-2,-1,-1,-1,-1,-1,-1,3,4,1,2,1,1,1,1,1,,-1,-1|0,0|0,0', 1, 1, 5200),
    ChainDecision(6, 42, 'G:,1,3,1,1,1,1,,,,,,1,1,1,1,1,1,1,-1,-2,-5,-5,-2|0,0|0,0', 0, 1, 63492),
    ChainDecision(6, 58, 'G:6,5,2,1,,,,,,,,,-1,,-1,-1,-1,-1,-1,-1,-2,-4,-1,-1|0,0|1,0', 1, 2, 2018),
    ChainDecision(7, 36, 'G:-6,-6,-3,,1,,,1,,,,1,1,1,1,1,1,1,1,1,1,1,1,1|0,0|0,0', 1, 3, 1),
    ChainDecision(7, 37, 'G:-6,-6,-3,,1,,,1,,,,1,1,1,1,1,1,1,1,1,1,1,1,1|0,0|0,0', 0, 2, 8596377),
    ChainDecision(7, 48, 'G:-6,-2,-1,4,1,1,1,1,,,1,,1,1,1,1,1,1,,-1,-1,-2,-1,-1|0,0|0,0', 1, 1, 648),
    ChainDecision(7, 63, 'G:3,2,1,3,1,1,,,,,1,,-7,1,1,1,,,,-4,-1,-3,,|0,0|0,0', 0, 3, 108),
    ChainDecision(7, 70, 'G:4,4,1,,,,,,,,,,-7,,-1,-1,-1,-1,,-2,-1,-1,,|0,0|6,0', 0, 1, 1),
    ChainDecision(8, 42, 'G:,-1,-1,-1,-1,-1,-1,-1,-1,2,12,1,,,-1,-1,-2,-2,,-1,,,,|0,0|0,0', 1, 2, 2915362),
    ChainDecision(8, 71, 'G:1,2,1,3,2,1,1,1,1,1,1,,-6,-5,,,,,,,,,,|0,0|0,4', 0, 1, 114),
    ChainDecision(9, 14, 'G:,-1,,-1,-1,-1,-1,-1,-1,-3,-1,-4,1,1,1,1,1,5,2,1,1,,,1|0,0|0,0', 0, 2, 395),
    ChainDecision(9, 20, 'G:-1,-1,,-1,-1,-1,-1,-1,-1,-3,-1,-2,4,4,4,2,1,-1,,,,,,|0,0|0,0', 1, 1, 5393884),
    ChainDecision(9, 35, 'G:-1,-1,-1,-1,-1,-1,-1,1,1,2,3,1,4,1,1,1,-1,-4,,,-1,-1,,-1|0,0|0,0', 1, 3, 880),
    ChainDecision(9, 51, 'G:2,1,1,3,1,1,1,1,,,,,1,1,1,1,-5,-8,-1,-1,,,,|0,0|0,0', 1, 2, 1),
    ChainDecision(9, 67, 'G:7,1,,,,,,,,,,,-3,-1,-1,-3,-5,-1,,,,,,|0,0|7,1', 0, 2, 1),
    ChainDecision(10, 23, 'G:-1,-1,-2,-1,-1,-1,-1,-4,-1,-1,-1,,1,1,1,1,1,1,1,2,3,1,1,1|0,0|0,0', 1, 2, 499),
    ChainDecision(10, 48, 'G:-1,-3,-1,-1,4,3,1,1,,,1,,1,1,1,1,1,,-1,-1,-2,-1,-3,-1|0,0|0,0', 1, 1, 910),
    ChainDecision(10, 69, 'G:7,5,1,,,,,,,,,,-1,-2,-1,-1,-1,-6,-1,-1,,-1,,|0,0|2,0', 0, 3, 1),
    ChainDecision(11, 17, 'G:-1,-1,-1,-1,-1,-2,-2,-1,-1,,-1,-3,1,1,1,1,1,2,2,1,1,2,1,1|0,0|0,0', 0, 1, 4032),
    ChainDecision(11, 23, 'G:-1,-1,-1,-1,-1,-2,-2,-1,-1,7,-1,-3,1,1,2,1,1,1,1,,,,,|0,0|0,0', 1, 2, 1180975),
    ChainDecision(11, 39, 'G:-1,-1,-1,-1,-1,-1,-1,-1,3,8,1,1,1,1,-1,-1,-1,-2,-2,,,,,|0,0|0,0', 1, 3, 47168),
    ChainDecision(11, 60, 'G:2,2,2,4,2,1,,1,,,,,1,-1,-5,-5,-3,,,,,,,|0,0|0,1', 0, 3, 20),
    ChainDecision(11, 67, 'G:6,,,,,,,,,,,,-2,-1,-6,-4,-1,,,,,,,|0,0|9,1', 0, 2, 1),
)

# ``STRESS_CHAINS`` are harder than play usually brings: a side's first
# escalating roll early in a game, many singles spread out, nothing blocked.
STRESS_CHAINS: Tuple[ChainDecision, ...] = (
    ChainDecision(-1, 0, "G:,,,-4,,,,,,,,-11,1,1,1,,1,,,,,,,11|0,0|0,0", 0, 1, 27_070_371),
)
