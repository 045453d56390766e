"""Checking another move generator against gulbara, over the ``gulbara ends`` protocol.

The other engine runs as a subprocess (:class:`gulbara.tools.protocol.EngineProcess`)
and answers stage requests; every answer is compared with gulbara's own
(:func:`expected_answer`), and each difference is named by the rule it breaks
(:func:`compare_answer`): missing ends, extra ends, wrong canonical steps,
wrong order, wrong playable dice, wrong game-end flags, or a malformed answer.
The requests (:func:`verify_cases`) are the bundled peer vectors, hand-worked
edge cases of the stage rules, the named suites of :mod:`gulbara.tools.suites`, and
positions reached by seeded random play, each with all 21 rolls and a partial
stage of 1-3 equal dice.

:func:`locate_perft` compares perft divides level by level, down to the first
subtree where the two engines part, and then checks that stage.

``gulbara verify`` (:mod:`gulbara.cli.verify`) is the command; docs/user/verify.md
describes the protocol and how to read a report.

>>> case = Case("edge", "larger die", LARGER_DIE, 0, (6, 5))
>>> expected = expected_answer(case)
>>> compare_answer(case, expected, json.dumps(expected))
[]
>>> smaller = {"position": _code({19: 1, 13: -15}, (14, 0)), "steps": [[24, 5]], "end": "none"}
>>> wrong = dict(expected, ends=expected["ends"] + [smaller])
>>> [(f.kind, f.rule) for f in compare_answer(case, expected, json.dumps(wrong))]
[('extra ends', 'larger-die rule (RULES §3.5)')]
"""

import heapq
import json
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple, cast

from gulbara.core._backend import Position, raw_stage_ends
from gulbara.bots.simple import RandomBot
from gulbara.tools.protocol import ends_as_case
from gulbara.errors import GulBaraError
from gulbara.game.driver import Game
from gulbara.core.play import format_steps
from gulbara.tools.protocol import (EngineError, EngineProcess, _clip, divide_choices,
                                    perft_request, stage_request)
from gulbara.rules import DEFAULT_RULES, Rules
from gulbara.tools.suites import DOUBLE_STAGES, NONDOUBLE_ROLLS, SUITE

__all__ = ["Case", "Finding", "Failure", "VerifyReport", "PerftReport", "verify_cases",
           "peer_vector_cases", "edge_cases", "suite_cases", "play_cases", "expected_answer",
           "compare_answer", "run_verify", "locate_perft", "RULES_NAMED"]

# The rules a difference can be named by.
RULE_PROTOCOL = "protocol (docs/user/verify.md)"
RULE_STEPS = "legal steps (RULES §2, §3.2)"
RULE_GAME_END = "game-ending step (RULES §3.3)"
RULE_MAXIMAL = "maximal plays (RULES §3.4)"
RULE_LARGER_DIE = "larger-die rule (RULES §3.5)"
RULE_EMPTY = "the empty play (RULES §3.6)"
RULE_DISTINCT = "distinct ends (RULES §3.7)"
RULE_CANONICAL_STEPS = "canonical steps (RULES §3.8)"
RULE_ORDER = "canonical order (RULES §3.8)"
RULE_PERFT = "perft and the game's turn structure (RULES §4-5, §10)"
#: Every rule name a report can give, in the order of RULES.
RULES_NAMED = (RULE_PROTOCOL, RULE_STEPS, RULE_GAME_END, RULE_MAXIMAL, RULE_LARGER_DIE,
               RULE_EMPTY, RULE_DISTINCT, RULE_CANONICAL_STEPS, RULE_ORDER, RULE_PERFT)

_SEAT = ("White", "Black")
_PEER_VECTORS = Path(__file__).resolve().parent.parent / "data" / "peer-vectors.jsonl"
#: The 21 rolls as stages: the 15 non-doubles, then the doubles as four dice.
ROLL_STAGES: Tuple[Tuple[int, ...], ...] = NONDOUBLE_ROLLS + DOUBLE_STAGES
#: Every partial stage: one to three equal dice (RULES §3.1, §5.3).
PARTIAL_STAGES: Tuple[Tuple[int, ...], ...] = tuple(
    (d,) * n for d in range(1, 7) for n in (1, 2, 3))


class Case(NamedTuple):
    """One stage request: where it comes from (``group``, ``name``) and what it asks."""
    group: str
    name: str
    code: str
    seat: int
    dice: Tuple[int, ...]

    def request(self) -> str:
        return stage_request(self.code, self.seat, self.dice)

    def describe(self) -> str:
        return f"{_SEAT[self.seat]} to play {'-'.join(map(str, self.dice))} at {self.code}"


class Finding(NamedTuple):
    """One difference in an answer: ``kind`` (``"missing ends"``, ``"extra ends"``,
    ``"wrong canonical steps"``, ``"wrong order"``, ``"wrong playable dice"``,
    ``"wrong end flag"``, ``"duplicate ends"``, ``"bad answer"``), the ``rule`` it
    breaks, and ``detail``."""
    kind: str
    rule: str
    detail: str


#: The most of an engine's answer a failure keeps: the whole line up to this many characters
#: (above the largest of gulbara's stage answers, 83 KB) for the :data:`FULL_FAILURES`
#: smallest failures (those a report shows first), an excerpt of :data:`EXCERPT_CHARS` for
#: the others, so that a run's memory is bounded whatever the engine answers.
KEPT_ANSWER_CHARS = 128 * 1024
FULL_FAILURES = 200
EXCERPT_CHARS = 300


def _negated(size: Tuple[int, int, int]) -> Tuple[int, int, int]:
    return (-size[0], -size[1], -size[2])


def _their_ends(line: str) -> int:
    try:
        return len(json.loads(line).get("ends", ()))
    except (ValueError, AttributeError, TypeError, RecursionError):
        return 0


class Failure(NamedTuple):
    """A request whose answer differs: its ``number`` in the run, the findings (the first
    names the rule), the engine's answer (all of it, or an excerpt: :data:`KEPT_ANSWER_CHARS`),
    gulbara's expected answer and how many ends the engine's answer listed."""
    case: Case
    number: int
    findings: Tuple[Finding, ...]
    answer: str
    expected: Dict
    their_ends: int = -1

    @classmethod
    def kept(cls, case: Case, number: int, findings, line: str, expected: Dict) -> "Failure":
        """The failure with the engine's ``line``, cut to :data:`KEPT_ANSWER_CHARS`."""
        return cls(case, number, tuple(findings), _clip(line, KEPT_ANSWER_CHARS), expected,
                   _their_ends(line))

    def excerpt(self) -> "Failure":
        """The same failure keeping an excerpt of :data:`EXCERPT_CHARS` of the answer."""
        return self._replace(answer=_clip(self.answer, EXCERPT_CHARS))

    @property
    def size(self) -> Tuple[int, int, int]:
        """The sort key of "smallest failing case first": ends on both sides, dice, number."""
        theirs = self.their_ends if self.their_ends >= 0 else _their_ends(self.answer)
        return (len(self.expected["ends"]) + theirs, len(self.case.dice), self.number)


# ---------------------------------------------------------------------------
# The requests
# ---------------------------------------------------------------------------

def _code(counts: Dict[int, int], off: Tuple[int, int] = (0, 0)) -> str:
    """A position code from ``{White's point: signed count}`` and the borne-off counts."""
    values = [counts.get(q, 0) for q in range(1, 25)]
    return "G:" + ",".join("" if n == 0 else str(n) for n in values) + f"|0,0|{off[0]},{off[1]}"


#: One White checker on 24 (14 off), Black on 13: 6-5 plays either die alone, never
#: both, so only the 6 is legal (RULES §3.5).
LARGER_DIE = _code({24: 1, 13: -15}, (14, 0))

#: Hand-worked edge cases of the stage rules: (name, code, seat, dice), each answer
#: checked against the naive reference by tests/test_verify.py.
EDGE_CASES: Tuple[Tuple[str, str, int, Tuple[int, ...]], ...] = (
    ("larger die (RULES §3.5)", LARGER_DIE, 0, (6, 5)),
    ("larger die, Black (RULES §3.5)", _code({12: -1, 1: 15}, (0, 14)), 1, (6, 5)),
    ("only the smaller die plays (RULES §3.5)", _code({24: 1, 18: -8, 13: -7}, (14, 0)), 0,
     (6, 5)),
    ("the last checker off with the first die (RULES §3.3)", _code({4: 1, 13: -15}, (14, 0)),
     0, (6, 2)),
    ("two checkers off with two of four dice (RULES §3.3)", _code({1: 2, 13: -15}, (13, 0)),
     0, (3, 3, 3, 3)),
    ("the game ends after three of four dice (RULES §2.3, §3.3)",
     _code({5: 1, 3: 2, 13: -15}, (12, 0)), 0, (6, 6, 6, 6)),
    ("a six-point prime: the empty play (RULES §3.6)",
     _code({24: 15, 18: -2, 19: -2, 20: -2, 21: -2, 22: -2, 23: -2, 12: -3}), 0, (6, 5)),
    ("nothing left to move (RULES §3.6)", _code({13: -15}, (15, 0)), 0, (6, 5)),
    ("a partial stage stopped by a held point (RULES §3.4)",
     _code({24: 1, 18: -8, 13: -7}, (14, 0)), 0, (2, 2, 2)),
)


def edge_cases() -> List[Case]:
    """The hand-worked edge cases (:data:`EDGE_CASES`)."""
    return [Case("edge", name, code, seat, dice) for name, code, seat, dice in EDGE_CASES]


def peer_vector_cases() -> List[Case]:
    """The 67 Gul Bara cases of the bundled peer vectors (gulbara/data/peer-vectors.jsonl).

    gulbara's answer to each is the vector itself, byte for byte (tests/test_vectors.py);
    a difference here would be gulbara's own bug and raises ``RuntimeError``.
    """
    cases = []
    for number, line in enumerate(_PEER_VECTORS.read_text(encoding="utf-8").splitlines(), 1):
        vector = json.loads(line)
        case = Case("vectors", f"peer vector {number}", vector["position"], vector["seat"],
                    tuple(vector["dice"]))
        if expected_answer(case) != vector:
            raise RuntimeError(f"gulbara's own answer differs from peer vector {number}")
        cases.append(case)
    return cases


def suite_cases() -> List[Case]:
    """Every entry of the named stage suite (:data:`gulbara.tools.suites.SUITE`: the start,
    contact, primes, a race, bear-offs, a blocked start, the vectors' positions) with
    the 21 rolls and the 18 partial stages."""
    return [Case("suite", entry.name, entry.code, entry.seat, dice)
            for entry in SUITE for dice in ROLL_STAGES + PARTIAL_STAGES]


def play_cases(positions: int, seed: int = 1, rules: Rules = DEFAULT_RULES) -> List[Case]:
    """``positions`` positions reached by seeded random play under ``rules`` (random-bot
    games, a fifth of the decisions kept), each with the 21 rolls and one random
    partial stage of 1-3 equal dice: ``positions * 22`` cases."""
    rng = random.Random(seed)
    found: List[Tuple[str, int]] = []
    while len(found) < positions:
        game = Game(rules, seed=rng.randrange(2**32))
        bot = RandomBot(seed=rng.randrange(2**32))
        for _ in range(2000):            # no game lasts that long; a bound all the same
            if game.is_over() or len(found) >= positions:
                break
            if rng.random() < 0.2:
                decision = game.decision
                assert decision is not None          # a game that goes on waits for a stage
                found.append((game.code(), decision.seat))
            game.play(bot.choose(game))
    cases = []
    for index, (code, seat) in enumerate(found):
        partial = PARTIAL_STAGES[rng.randrange(len(PARTIAL_STAGES))]
        for dice in ROLL_STAGES + (partial,):
            cases.append(Case("play", f"position {index + 1}", code, seat, dice))
    return cases


def verify_cases(positions: int = 200, seed: int = 1, rules: Rules = DEFAULT_RULES) -> List[Case]:
    """Every request of a ``gulbara verify`` run, in the order they are sent."""
    return peer_vector_cases() + edge_cases() + suite_cases() + play_cases(positions, seed, rules)


def expected_answer(case: Case) -> Dict:
    """gulbara's answer to a stage request, as the parsed JSON object ``gulbara ends`` writes."""
    return ends_as_case(case.code, raw_stage_ends(case.code, case.seat, list(case.dice)))


# ---------------------------------------------------------------------------
# Comparing one answer
# ---------------------------------------------------------------------------

class _End(NamedTuple):
    position: str
    steps: Tuple[Tuple[int, int], ...]
    ends_game: bool


def _canonical_code(code) -> Optional[str]:
    try:
        return Position.from_code(code).code()
    except (GulBaraError, TypeError, ValueError):
        return None


def _read_ends(answer) -> Tuple[Optional[List[_End]], Optional[str]]:
    """The engine's ends, normalised, or a description of what is malformed."""
    ends = answer.get("ends")
    if not isinstance(ends, list):
        return None, "'ends' is missing or not a list"
    out = []
    for i, end in enumerate(ends):
        if not isinstance(end, dict):
            return None, f"ends[{i}] is not an object"
        code = _canonical_code(end.get("position"))
        if code is None:
            return None, f"ends[{i}].position is not a valid position code: {end.get('position')!r}"
        steps = end.get("steps")
        if (not isinstance(steps, list) or not all(
                isinstance(s, list) and len(s) == 2 and all(
                    isinstance(x, int) and not isinstance(x, bool) for x in s) for s in steps)):
            return None, f"ends[{i}].steps is not a list of [from, die] pairs: {steps!r}"
        if end.get("end") not in ("none", "borneOff"):
            return None, f"ends[{i}].end must be 'none' or 'borneOff', got {end.get('end')!r}"
        out.append(_End(code, tuple(tuple(s) for s in steps), end["end"] == "borneOff"))
    return out, None


def _show(end: _End) -> str:
    try:
        notation = format_steps(end.steps)
    except (GulBaraError, TypeError, ValueError, IndexError):
        notation = repr([list(s) for s in end.steps])
    flag = " (ends the game)" if end.ends_game else ""
    return f"{notation} -> {end.position}{flag}"


def _listed(ends: Sequence[_End], limit: int = 4) -> str:
    shown = "; ".join(_show(e) for e in ends[:limit])
    return shown + (f"; and {len(ends) - limit} more" if len(ends) > limit else "")


def _replay(case: Case, steps) -> Tuple[Optional[str], Optional[str]]:
    """(the position the steps reach, or None; the problem, if a step is illegal)."""
    dice = Counter(case.dice)
    used = Counter(die for _, die in steps)
    if any(used[d] > dice[d] for d in used):
        return None, f"the steps use dice {sorted(used.elements())} not in the stage"
    try:
        return Position.from_code(case.code).apply_steps(case.seat, steps).code(), None
    except (GulBaraError, TypeError, ValueError) as exc:
        return None, str(exc)


def _ending_shortens(expected: Dict, dice) -> bool:
    """Whether a game-ending play of fewer steps than dice is among the legal ones."""
    return any(e["end"] == "borneOff" and len(e["steps"]) < len(dice) for e in expected["ends"])


def _larger_die_excludes(case: Case, playable: int, ends: Sequence[_End]) -> bool:
    """Whether the larger-die rule is at work: two different dice, one playable, and the
    legal plays use the larger die."""
    return (len(case.dice) == 2 and case.dice[0] != case.dice[1] and playable == 1
            and any(e.steps and e.steps[0][1] == max(case.dice) for e in ends))


def _extra_rule(case: Case, playable: int, want: Sequence[_End], end: _End) -> Tuple[str, str]:
    reached, problem = _replay(case, end.steps)
    if problem is not None:
        return RULE_STEPS, f"its steps are illegal: {problem}"
    if reached != end.position:
        return RULE_STEPS, f"its steps reach {reached}, not the position given"
    if (_larger_die_excludes(case, playable, want) and len(end.steps) == 1
            and end.steps[0][1] == min(case.dice)):
        return RULE_LARGER_DIE, "only the smaller die, while a play of the larger die exists"
    if not end.ends_game and len(end.steps) < playable:
        return RULE_MAXIMAL, f"it uses {len(end.steps)} dice where {playable} can be played"
    return RULE_MAXIMAL, "not a legal play of the stage"


def _missing_rule(case: Case, playable: int, end: _End) -> str:
    if end.ends_game:
        return RULE_GAME_END
    if not end.steps:
        return RULE_EMPTY
    if (len(case.dice) == 2 and case.dice[0] != case.dice[1] and playable == 1
            and end.steps[0][1] == min(case.dice)):
        return RULE_LARGER_DIE     # the larger die cannot be played, so the smaller one is
    return RULE_DISTINCT


def _grouped(kind: str, items: List[Tuple[str, str, _End]]) -> List[Finding]:
    """One finding per rule: ``items`` are (rule, note, end)."""
    by_rule: Dict[str, List[Tuple[str, _End]]] = {}
    for rule, note, end in items:
        by_rule.setdefault(rule, []).append((note, end))
    findings = []
    for rule, entries in by_rule.items():
        shown = "; ".join(_show(end) + (f" [{note}]" if note else "") for note, end in entries[:4])
        more = f"; and {len(entries) - 4} more" if len(entries) > 4 else ""
        findings.append(Finding(kind, rule, f"{kind} ({len(entries)}): {shown}{more}"))
    return findings


def compare_answer(case: Case, expected: Dict, line: str) -> List[Finding]:
    """The differences between the engine's answer ``line`` and gulbara's ``expected``
    answer to ``case``; ``[]`` when they agree. Positions are compared as positions
    (any valid spelling of a code), the rest exactly."""
    try:
        answer = json.loads(line)
    except (ValueError, RecursionError):
        return [Finding("bad answer", RULE_PROTOCOL, f"not JSON: {line[:300]!r}")]
    if not isinstance(answer, dict):
        return [Finding("bad answer", RULE_PROTOCOL, f"not a JSON object: {line[:300]!r}")]
    if "error" in answer:
        return [Finding("bad answer", RULE_PROTOCOL,
                        f"the engine answered an error: {str(answer['error'])[:300]!r}")]
    for key, asked in (("position", case.code), ("seat", case.seat), ("dice", list(case.dice))):
        if key in answer:
            given = answer[key]
            if key == "position":
                given = _canonical_code(given)
            elif key == "dice" and isinstance(given, list):      # any order of the dice
                given, asked = sorted(given, key=repr), sorted(cast(List[int], asked), key=repr)
            if given != asked:
                return [Finding("bad answer", RULE_PROTOCOL,
                                f"the answer is for another request: {key} {answer[key]!r}, "
                                f"asked {asked!r} (is the engine out of step?)")]
    got_ends, problem = _read_ends(answer)
    playable = answer.get("playableDice")
    if problem is None and (isinstance(playable, bool) or not isinstance(playable, int)):
        problem = f"'playableDice' is missing or not an integer: {playable!r}"
    if problem is not None:
        return [Finding("bad answer", RULE_PROTOCOL, problem)]
    assert got_ends is not None                     # read without a problem
    want_ends = [_End(e["position"], tuple(tuple(s) for s in e["steps"]), e["end"] == "borneOff")
                 for e in expected["ends"]]
    want_playable = expected["playableDice"]
    findings: List[Finding] = []
    if playable != want_playable:
        rule = RULE_GAME_END if _ending_shortens(expected, case.dice) else RULE_MAXIMAL
        findings.append(Finding("wrong playable dice", rule,
                                f"playableDice {playable}, expected {want_playable}"))
    want_at = {e.position: e for e in want_ends}
    got_at: Dict[str, _End] = {}
    duplicates = []
    for end in got_ends:
        if end.position in got_at:
            duplicates.append((RULE_DISTINCT, "listed twice", end))
        got_at.setdefault(end.position, end)
    missing = [(_missing_rule(case, want_playable, e), "", e) for e in want_ends
               if e.position not in got_at]
    extra = []
    for end in got_at.values():
        if end.position not in want_at:
            rule, note = _extra_rule(case, want_playable, want_ends, end)
            extra.append((rule, note, end))
    findings += _grouped("missing ends", missing) + _grouped("extra ends", extra)
    findings += _grouped("duplicate ends", duplicates)
    wrong_steps, wrong_flags = [], []
    for want in want_ends:
        got = got_at.get(want.position)
        if got is None:
            continue
        if got.ends_game != want.ends_game:
            wrong_flags.append((RULE_GAME_END, f"end {'borneOff' if got.ends_game else 'none'}",
                                want))
        if got.steps != want.steps:
            reached, problem = _replay(case, got.steps)
            if problem is not None or reached != want.position:
                rule = RULE_STEPS
                note = problem or f"the engine's steps reach {reached}"
            else:
                rule = RULE_GAME_END if want.ends_game else RULE_CANONICAL_STEPS
                note = "the engine's steps: " + _show(got).split(" -> ")[0]
            wrong_steps.append((rule, note, want))
    findings += _grouped("wrong canonical steps", wrong_steps)
    findings += _grouped("wrong end flag", wrong_flags)
    common_want = [e.position for e in want_ends if e.position in got_at]
    seen = set()
    common_got = []
    for end in got_ends:
        if end.position in want_at and end.position not in seen:
            seen.add(end.position)
            common_got.append(end.position)
    if common_got != common_want:
        first = next(i for i, (a, b) in enumerate(zip(common_got, common_want)) if a != b)
        findings.append(Finding(
            "wrong order", RULE_ORDER,
            f"from end {first + 1} on: the engine lists {_show(got_at[common_got[first]])} "
            f"where gulbara lists {_show(want_at[common_want[first]])}"))
    return findings


# ---------------------------------------------------------------------------
# A whole run
# ---------------------------------------------------------------------------

@dataclass
class VerifyReport:
    """The outcome of :func:`run_verify`."""
    engine: str
    requests: int                      # requests planned
    answered: int = 0                  # answers received and compared
    failures: List[Failure] = field(default_factory=list)
    error: Optional[EngineError] = None
    seconds: float = 0.0
    groups: Dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.failures and self.error is None and self.answered == self.requests

    @property
    def exit_status(self) -> int:
        """0: every answer matched; 1: some differ; 3: the engine failed (also with differences)."""
        if self.error is not None:
            return 3
        return 0 if self.ok else 1

    def smallest_first(self) -> List[Failure]:
        return sorted(self.failures, key=lambda f: f.size)

    def by_rule(self) -> Counter:
        """How many failing requests each rule is the first finding of."""
        return Counter(f.findings[0].rule for f in self.failures)

    def format(self, show: int = 5) -> str:
        """The report as text: the failures, smallest first (``show`` of them), a summary."""
        groups = ", ".join(f"{n} {group}" for group, n in self.groups.items())
        lines = [f"gulbara verify: engine {self.engine!r}",
                 f"requests: {self.requests} ({groups})"]
        failures = self.smallest_first()
        for rank, failure in enumerate(failures[:show], 1):
            lines.append("")
            lines.extend(_format_failure(rank, len(failures), failure))
        if self.error is not None:
            lines += ["", "ENGINE FAILURE:", self.error.describe()]
        lines.append("")
        matched = self.answered - len(self.failures)
        if self.ok:
            lines.append(f"OK: all {self.answered} answers match gulbara's "
                         f"({self.seconds:.1f} s)")
            return "\n".join(lines)
        lines.append(f"FAILED: {matched} of {self.answered} answers match, "
                     f"{len(self.failures)} differ"
                     + (f", {self.requests - self.answered} requests not answered"
                        if self.answered < self.requests else "") + f" ({self.seconds:.1f} s)")
        if failures:
            first = failures[0].findings[0]
            lines.append(f"first mismatch: {first.rule}: {first.kind}")
            for rule, n in sorted(self.by_rule().items(), key=lambda item: -item[1]):
                lines.append(f"  {n:6d} requests: {rule}")
        return "\n".join(lines)


def _format_failure(rank: int, total: int, failure: Failure) -> List[str]:
    case = failure.case
    lines = [f"#{rank} of {total}: {case.group} {case.name!r}, request #{failure.number}: "
             f"{case.describe()}"]
    for finding in failure.findings:
        lines.append(f"  {finding.rule}: {finding.detail}")
    expected = failure.expected
    want = [_End(e["position"], tuple(map(tuple, e["steps"])), e["end"] == "borneOff")
            for e in expected["ends"]]
    lines.append(f"  gulbara: playableDice {expected['playableDice']}, ends ({len(want)}): "
                 f"{_listed(want)}")
    try:
        answer = json.loads(failure.answer)
        got, problem = _read_ends(answer) if isinstance(answer, dict) else (None, "")
    except (ValueError, RecursionError):
        got = None
    if got is not None:
        lines.append(f"  engine:  playableDice {answer.get('playableDice')!r}, ends ({len(got)}): "
                     f"{_listed(got)}")
    else:
        lines.append(f"  engine wrote: {_clip(failure.answer, EXCERPT_CHARS)!r}")
    return lines


def _ask(engine: EngineProcess, case: Case, report):
    """gulbara's answer to ``case`` and the engine's line; None if the engine failed (the
    failure goes to ``report.error``)."""
    expected = expected_answer(case)
    try:
        return expected, engine.request(case.request())
    except EngineError as exc:
        report.error = exc
        return None


def run_verify(engine: EngineProcess, cases: Sequence[Case],
               progress: Optional[Callable[[int, int], None]] = None) -> VerifyReport:
    """Send every case to ``engine``, compare each answer; stops at an engine failure
    (reported in ``error``) and never waits longer than the engine's timeout."""
    report = VerifyReport(engine.command, len(cases), groups=dict(Counter(c.group for c in cases)))
    whole: List[Tuple[Tuple[int, int, int], int]] = []    # the largest kept whole on top
    start = time.perf_counter()
    for number, case in enumerate(cases, 1):
        asked = _ask(engine, case, report)
        if asked is None:
            break
        expected, line = asked
        report.answered += 1
        if line != json.dumps(expected, separators=(",", ":"), ensure_ascii=False):
            findings = compare_answer(case, expected, line)
            if findings:
                failure = Failure.kept(case, number, findings, line, expected)
                report.failures.append(failure)
                # the smallest failures keep their answers whole; the others an excerpt
                heapq.heappush(whole, (_negated(failure.size), len(report.failures) - 1))
                if len(whole) > FULL_FAILURES:
                    _, k = heapq.heappop(whole)
                    report.failures[k] = report.failures[k].excerpt()
        if progress is not None and number % 250 == 0:
            progress(number, len(cases))
    report.seconds = time.perf_counter() - start
    return report


# ---------------------------------------------------------------------------
# perft, level by level
# ---------------------------------------------------------------------------

@dataclass
class PerftReport:
    """The outcome of :func:`locate_perft`.

    ``verdict`` is ``"match"``, ``"parted"`` (the engines' choices differ at a stage:
    ``stage`` names it and ``findings`` holds the stage check), ``"transition"`` (the
    same counts from a state asked directly, but not from its parent's play: they part in
    what follows a play, RULES §4-5), ``"bad answer"`` or ``"engine failure"``.
    ``levels`` are ``(state, depth, gulbara's nodes, engine's nodes, choice followed)``.
    """
    depth: int
    state: str
    rules: Rules
    verdict: str = "match"
    levels: List[Tuple[str, int, int, Optional[int], str]] = field(default_factory=list)
    stage: Optional[Case] = None
    missing: List[str] = field(default_factory=list)
    extra: List[str] = field(default_factory=list)
    findings: List[Finding] = field(default_factory=list)
    message: str = ""
    error: Optional[EngineError] = None

    @property
    def exit_status(self) -> int:
        return {"match": 0, "engine failure": 3}.get(self.verdict, 1)

    def format(self) -> str:
        lines = [f"gulbara verify --perft {self.depth}: from {self.state}"]
        for level, (state, depth, ours, theirs, followed) in enumerate(self.levels):
            lines.append(f"level {level}, depth {depth}: {state}")
            lines.append(f"  nodes: gulbara {ours}, engine {theirs}"
                         + (f"; first differing choice: {followed}" if followed else ""))
        if self.verdict == "match":
            lines.append("OK: the engine's perft and divide match gulbara's")
            return "\n".join(lines)
        if self.stage is not None:
            lines.append(f"the engines part at the stage: {self.stage.describe()}")
            for label in self.missing[:8]:
                lines.append(f"  missing choice: {label}")
            for label in self.extra[:8]:
                lines.append(f"  extra choice:   {label}")
            for finding in self.findings:
                lines.append(f"  stage check: {finding.rule}: {finding.detail}")
        if self.message:
            lines.append(self.message)
        if self.error is not None:
            lines += ["ENGINE FAILURE:", self.error.describe()]
        lines.append(f"FAILED: {self.verdict}")
        return "\n".join(lines)


def _choice_label(roll, steps, code) -> str:
    try:
        notation = format_steps(tuple(tuple(s) for s in steps)) if steps is not None else "?"
    except (GulBaraError, TypeError, ValueError, IndexError):
        notation = repr(steps)
    prefix = "" if roll is None else f"{roll[0]}-{roll[1]} "
    return f"{prefix}{notation} -> {code}"


def _read_divide(line: str) -> Tuple[Optional[int], Optional[Dict], str]:
    """(nodes, {(roll, position): (nodes, steps)}, problem) of a perft answer."""
    try:
        answer = json.loads(line)
    except (ValueError, RecursionError):
        return None, None, f"not JSON: {line[:300]!r}"
    if not isinstance(answer, dict):
        return None, None, f"not a JSON object: {line[:300]!r}"
    if "error" in answer:
        return None, None, f"the engine answered an error: {str(answer['error'])[:300]!r}"
    nodes, divide = answer.get("nodes"), answer.get("divide")
    if isinstance(nodes, bool) or not isinstance(nodes, int) or not isinstance(divide, list):
        return None, None, "a perft answer needs an integer 'nodes' and a list 'divide'"
    entries: Dict = {}
    for i, entry in enumerate(divide):
        if not isinstance(entry, dict):
            return None, None, f"divide[{i}] is not an object"
        code = _canonical_code(entry.get("position"))
        count = entry.get("nodes")
        roll = entry.get("roll")
        if code is None or isinstance(count, bool) or not isinstance(count, int):
            return None, None, f"divide[{i}] needs a valid 'position' and an integer 'nodes'"
        if roll is not None:
            if not (isinstance(roll, list) and len(roll) == 2
                    and all(isinstance(d, int) and 1 <= d <= 6 for d in roll)):
                return None, None, f"divide[{i}].roll must be two dice, got {roll!r}"
            roll = tuple(sorted(roll, reverse=True))
        key = (roll, code)
        if key in entries:
            label = _choice_label(roll, None, code)
            return None, None, f"divide[{i}] lists the choice {label} twice"
        entries[key] = (count, entry.get("steps"))
    return nodes, entries, ""


def locate_perft(engine: EngineProcess, depth: int, state: Optional[str] = None,
                 rules: Rules = DEFAULT_RULES, timeout: Optional[float] = None) -> PerftReport:
    """Compare perft ``depth`` from ``state`` (default: the start, RULES §10.5) with the
    engine's, following the first differing choice down to where the engines part;
    then check that stage as :func:`run_verify` would. ``timeout`` is per perft request."""
    game = Game.from_state_code(state, rules) if state else Game.new_perft_root(rules)
    report = PerftReport(depth, game.state_code(), rules)
    level_depth = depth
    while True:
        code = game.state_code()
        ours = divide_choices(game, level_depth) if level_depth >= 1 else []
        our_nodes = sum(c.nodes for c in ours) if ours else 1
        try:
            line = engine.request(perft_request(code, level_depth, rules), timeout)
        except EngineError as exc:
            report.levels.append((code, level_depth, our_nodes, None, ""))
            report.verdict, report.error = "engine failure", exc
            return report
        nodes, theirs, problem = _read_divide(line)
        if theirs is None:
            report.levels.append((code, level_depth, our_nodes, None, ""))
            report.verdict, report.message = "bad answer", f"perft answer: {problem}"
            return report
        keyed = {(c.roll, c.play.code): c for c in ours}
        missing = [c for key, c in keyed.items() if key not in theirs]
        extra = [(key, value) for key, value in theirs.items() if key not in keyed]
        if missing or extra:
            report.levels.append((code, level_depth, our_nodes, nodes, ""))
            return _parted(engine, report, game, missing, extra)
        differing = [c for c in ours if theirs[(c.roll, c.play.code)][0] != c.nodes]
        if not differing:
            report.levels.append((code, level_depth, our_nodes, nodes, ""))
            if nodes != our_nodes and not ours:
                report.verdict = "bad answer"
                report.message = (f"gulbara counts {our_nodes} here (depth 0, or a finished "
                                  f"game: RULES §10.1, §10.4), the engine {nodes}")
            elif nodes != our_nodes:
                report.verdict = "bad answer"
                report.message = (f"the engine's divide sums to {our_nodes}, as gulbara's, "
                                  f"but its 'nodes' says {nodes}")
            elif len(report.levels) > 1:
                report.verdict = "transition"
                report.message = (
                    "asked from this state directly the engine counts as gulbara does, but "
                    "its divide at the level above gave this choice another count: the "
                    "engines part in what follows that play (the next stage of a chain, a "
                    "remainder, roll counting, the end of the game: RULES §4-5, §7)")
            return report
        first = differing[0]
        label = _choice_label(first.roll, first.play.steps, first.play.code)
        their_count = theirs[(first.roll, first.play.code)][0]
        report.levels.append((code, level_depth, our_nodes, nodes,
                              f"{label} (gulbara {first.nodes}, engine {their_count})"))
        if level_depth <= 1:
            report.verdict = "bad answer"
            report.message = (f"at depth 1 every choice counts 1 (RULES §10.1); the engine "
                              f"counts {their_count} for {label}")
            return report
        game = game.copy(auto_roll=False)
        if first.roll is not None:
            game.roll(*first.roll)
        game.play(first.play)
        level_depth -= 1


def _parted(engine: EngineProcess, report: PerftReport, game: Game, missing, extra) -> PerftReport:
    """The choices differ at this level: find the first stage (in gulbara's order) whose
    choices differ and check it as a stage request."""
    report.verdict = "parted"
    rolls = [c.roll for c in missing] + [key[0] for key, _ in extra]
    order = game.chance_rolls() if game.is_chance() else (None,)
    roll = next(r for r in order if r in rolls) if any(r in rolls for r in order) else rolls[0]
    report.missing = [_choice_label(c.roll, c.play.steps, c.play.code)
                      for c in missing if c.roll == roll]
    report.extra = [_choice_label(key[0], value[1], key[1])
                    for key, value in extra if key[0] == roll]
    work = game.copy(auto_roll=False)
    if work.is_over():
        report.message = "the engine lists choices after the end of the game (RULES §10.4)"
        return report
    if roll is None and work.is_chance():
        report.message = "the engine lists choices without a roll at a chance node (RULES §10.2)"
        return report
    if roll is not None:
        if not work.is_chance():
            report.message = f"the engine lists a roll {roll} at a decision node (RULES §10.3)"
            return report
        if roll not in work.chance_rolls():
            report.message = (f"the engine lists the roll {roll[0]}-{roll[1]}, which this "
                              f"chance node does not have (RULES §10.2, §10.5)")
            return report
        work.roll(*roll)
    decision = work.decision
    assert decision is not None                     # neither over nor at a chance node
    case = Case("perft", "the stage where the engines part", work.code(), decision.seat,
                tuple(decision.dice))
    report.stage = case
    asked = _ask(engine, case, report)
    if asked is None:
        return report
    expected, line = asked
    report.findings = compare_answer(case, expected, line)
    if not report.findings:
        report.message = ("the engine's answer to this stage as a request matches gulbara's: "
                          "its perft enumerates another stage here (the dice of the stage, "
                          "RULES §4-5), or its perft and its stage answers disagree")
    return report
