"""A second, independent way to find a chain's outcomes: per-checker composition.

The compiled engine and the reference (``_reference``) both find a chain's
outcomes stage by stage. This module finds them another way, for the chains
where that is possible, so that the two can be checked against each other.

Within a chain the opponent never moves, and a side's own checkers never
block it (RULES §2.2). While no step can bear off (RULES §2.3), a checker's
path depends only on the dice it is given: how many of each stage's number,
taken in stage order. The stage's equal dice may go in any order. So an end
of the chain is a multiset of per-checker paths. A complete chain
(RULES §4.4) gives every stage's four dice to the checkers. A chain that
stalls at stage ``s`` played its earlier stages in full. Then stage ``s``
could not be played in full, so every checker took all the steps of ``s``'s
number it could (the most a play can use is the sum of the checkers' runs,
RULES §3.4); that end is unique.

:func:`compose_chain` builds the multisets checker by checker. Each state is
(dice used of each stage, the position so far). A state is kept only if the
checkers still to come can use the rest of the dice. It is slow (pure
Python, and it makes far more states than the stage-by-stage expansion; see
``docs/dev/performance.md``). It applies when the mover's checkers need more pips
to reach the home board than the chain has before its last step
(:func:`composable`), so that no step can bear off and the game cannot end.

>>> from gulbara.conventions import OTHER_POINT
>>> outcomes = compose_chain("G:,,,,,,,,,,,-15,,,,,,,,,,,,15|0,0|0,0", 0, 5)
>>> len(outcomes), sorted({stop for _, stop, _, _ in outcomes})
(44, ['complete'])
"""

from typing import Dict, FrozenSet, List, Sequence, Set, Tuple

from gulbara.conventions import OTHER_POINT

__all__ = ["compose_chain", "composable", "checker_paths", "mover_points", "ComposedOutcome"]

#: (the mover's checkers on its own points 1..24, stop name, stop number, dice played there)
ComposedOutcome = Tuple[Tuple[int, ...], str, int, int]

_FIELD = 4      # bits per stage in a packed dice-used vector (values 0..8 must not carry)


def mover_points(code: str, seat: int) -> Tuple[Tuple[int, ...], FrozenSet[int]]:
    """The mover's checkers per own point 1..24 (RULES §1.2), and the own
    points the opponent holds (RULES §2.2).

    >>> counts, held = mover_points("G:,,,,,,,,,,,-15,,,,,,,,,,,,15|0,0|0,0", 1)
    >>> counts[23], sorted(held)
    (15, [12])
    """
    from gulbara.core._backend import Position
    points = Position.from_code(code).points()
    sign = 1 if seat == 0 else -1
    counts = [0] * 24
    held = set()
    for own in range(1, 25):
        value = sign * points[(own if seat == 0 else OTHER_POINT[own - 1]) - 1]
        if value > 0:
            counts[own - 1] = value
        elif value < 0:
            held.add(own)
    return tuple(counts), frozenset(held)


def composable(counts: Sequence[int], first: int) -> bool:
    """Whether no step of an escalating chain from ``first`` can bear off:
    the pips the mover needs to bring every checker home (RULES §2.3) exceed
    the chain's pips before its last step could be played.

    >>> composable((0,) * 23 + (15,), 1), composable((15,) + (0,) * 23, 6)
    (True, False)
    """
    need = sum((point - 6) * n for point, n in enumerate(counts, 1) if point > 6)
    total = 4 * sum(range(first, 7))
    return need > total - first


def checker_paths(start: int, held: FrozenSet[int], numbers: Sequence[int],
                  stall_last: bool = False) -> List[Tuple[int, int]]:
    """Every legal path of one checker from ``start`` through the stages
    ``numbers`` (at most four dice each): (dice used per stage, packed 4 bits
    a stage, end point). A step lands on an open point above 0 (RULES §2.2;
    no bearing off here). With ``stall_last`` the last stage takes the
    checker's whole open run of its number.

    >>> sorted(checker_paths(24, frozenset({22}), [1]))     # 24/23, then 22 is held
    [(0, 24), (1, 23)]
    """
    paths: List[Tuple[int, int]] = []

    def extend(stage: int, point: int, used: int) -> None:
        if stage == len(numbers):
            paths.append((used, point))
            return
        number, shift = numbers[stage], _FIELD * stage
        whole_run = stall_last and stage == len(numbers) - 1
        for run in range(5):
            if not whole_run:
                extend(stage + 1, point, used | (run << shift))
            if run == 4 or point - number < 1 or point - number in held:
                break
            point -= number
        if whole_run:
            extend(stage + 1, point, used | (run << shift))

    extend(0, start, 0)
    return paths


def _full(n_stages: int) -> int:
    """The packed dice-used vector of ``n_stages`` stages each played in full (four dice)."""
    return sum(4 << (_FIELD * k) for k in range(n_stages))


def _fits(used: int, n_stages: int) -> bool:
    """No stage's count of ``used`` is over four."""
    return all((used >> (_FIELD * k)) & 15 <= 4 for k in range(n_stages))


def _compose(counts: Sequence[int], held: FrozenSet[int], numbers: Sequence[int],
             stall_last: bool) -> Dict[int, Set[int]]:
    """The ends (packed dice used -> set of packed positions, 4 bits a point)
    of every way to give the checkers the stages ``numbers``, each stage at
    most four dice, the last one each checker's whole run if ``stall_last``;
    every earlier stage is used in full."""
    n_stages = len(numbers)
    checkers = [point for point in range(24, 0, -1) for _ in range(counts[point - 1])]
    options = [sorted(set(checker_paths(point, held, numbers, stall_last)))
               for point in checkers]
    # reachable[k]: the dice-used vectors checkers k.. can make, each stage at most 4
    reachable: List[Set[int]] = [set() for _ in range(len(checkers) + 1)]
    reachable[-1] = {0}
    for k in range(len(checkers) - 1, -1, -1):
        used_here = {used for used, _ in options[k]}
        reachable[k] = {a + b for a in reachable[k + 1] for b in used_here
                        if _fits(a + b, n_stages)}
    full = _full(n_stages - (1 if stall_last else 0))
    last_shift = _FIELD * (n_stages - 1)
    last_mask = (15 << last_shift) if stall_last else 0
    # least_last[k][earlier stages' dice of a vector of checkers k..]: the
    # fewest dice of the stall stage such a vector takes
    least_last: List[Dict[int, int]] = []
    for vectors in reachable:
        least: Dict[int, int] = {}
        for w in vectors:
            earlier, last = w & ~last_mask, (w & last_mask) >> last_shift
            if last < least.get(earlier, 5):
                least[earlier] = last
        least_last.append(least)

    def wanted(used: int, k: int) -> bool:
        # some vector of the checkers from k on uses the earlier stages' rest in full
        rest = least_last[k].get(full - (used & ~last_mask))
        return rest is not None and ((used & last_mask) >> last_shift) + rest <= 4

    start = sum(n << (4 * (point - 1)) for point, n in enumerate(counts, 1))
    states: Set[Tuple[int, int]] = {(0, start)}
    for k, point in enumerate(checkers):
        memo: Dict[int, bool] = {}
        following = set()
        for used, key in states:
            for dice, end in options[k]:
                total = used + dice
                ok = memo.get(total)
                if ok is None:
                    ok = memo[total] = (_fits(total, n_stages)
                                        and wanted(total, k + 1))
                if ok:
                    following.add((total, key - (1 << (4 * (point - 1)))
                                   + (1 << (4 * (end - 1)))))
        states = following
    ends: Dict[int, Set[int]] = {}
    for used, key in states:
        ends.setdefault(used, set()).add(key)
    return ends


def _unpack(key: int) -> Tuple[int, ...]:
    return tuple((key >> (4 * (point - 1))) & 15 for point in range(1, 25))


def compose_chain(code: str, seat: int, first: int) -> Set[ComposedOutcome]:
    """The outcomes of ``seat``'s escalating chain from ``first`` (RULES
    §4.2-4.4, §5.6), found by per-checker composition: a set of (own-point
    counts, stop, stop number, dice played in that stage). Refused with
    ``ValueError`` unless :func:`composable`."""
    counts, held = mover_points(code, seat)
    if not composable(counts, first):
        raise ValueError("a step of this chain may bear off: per-checker composition "
                         "does not apply")
    numbers = list(range(first, 7))
    outcomes: Set[ComposedOutcome] = set()
    for key in _compose(counts, held, numbers, False).get(_full(len(numbers)), ()):
        outcomes.add((_unpack(key), "complete", 6, 4))
    for stage in range(len(numbers)):
        for used, keys in _compose(counts, held, numbers[:stage + 1], True).items():
            played = (used >> (_FIELD * stage)) & 15
            if played >= 4:
                continue                    # played in full: not a stall here
            stop = "unstarted" if stage == 0 and played == 0 else "stalled"
            for key in keys:
                outcomes.add((_unpack(key), stop, numbers[stage], played))
    return outcomes
