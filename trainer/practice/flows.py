"""Warm-up and mock-interview flows: pure logic, no I/O of their own.

Each flow composes a TimedQueue (trainer.practice.timed_queue: items in order, one
clock, a limit) and adds its own plan and summary. The CLI runs the queue
(trainer.cli.timed: the REPL for a drill, a one-line prompt for a quick-fire
question), and at the end asks the flow for the summary. Time comes from an
injected clock (anything with `monotonic()`), randomness from a seed, so tests
are exact.
"""
from __future__ import annotations

import difflib
import random
import re
import textwrap
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Mapping, Sequence, Union

from grader.spec.variants import describe
from trainer.clock import MonotonicClock
from trainer.clock import mmss as _mmss
from trainer.text.markup import printable, printable_lines
from trainer.practice.timed_queue import TimedQueue


# ------------------------------------------------------------------ items


@dataclass(frozen=True)
class DrillItem:
    drill: str
    reason: str  # review | new | mock
    debug: bool = False  # served as a debug round (grader.rounds): a planted bug to find and fix


@dataclass(frozen=True)
class QuizItem:
    drill: str
    index: int  # which of the drill's quiz questions


Item = Union[DrillItem, QuizItem]


@dataclass(frozen=True)
class ItemResult:
    item: Item
    status: str  # drills: passed | failed | skipped | quit | timeout; quiz: right | wrong | unanswered
    seconds: float
    attempts: int = 0
    hints: int = 0
    traps: tuple[str, ...] = ()
    revealed: bool = False
    verdict: str | None = None  # the last grade's verdict (pass, wrong, ...); None when never graded
    failing_case: str | None = None  # the case that decided it
    detail: tuple[str, ...] = ()  # the last grade, rendered compact (plain lines)
    code: str = ""  # the code that grade graded
    variant: Mapping[str, str] = field(default_factory=dict)  # the variant served (non-default choices; {} = default)
    followup: FollowUp | None = None  # a mock's follow-up on this drill, after its pass
    shape_comments: tuple[Mapping[str, Any], ...] = ()  # the passing code's shape comments, as the grader judged them
    unnarrated: tuple[int, ...] = ()  # narrate: lines of the passing code that make a tensor with no shape comment

    @property
    def ok(self) -> bool:
        return self.status in ("passed", "right")


@dataclass(frozen=True)
class FollowUp:
    """The interviewer's follow-up on a drill passed in the mock: a `variant` of it (the person's
    passing code kept to adapt, graded under that variant) or, for a drill without variants, a
    quick-fire `question` from its quiz."""

    kind: str  # variant | question
    ask: str  # one line: what changed ("mask is now ...") or the question
    status: str  # variant: passed | failed | skipped | quit | timeout; question: right | wrong | unanswered
    seconds: float
    variant: Mapping[str, str] = field(default_factory=dict)  # kind variant: the variant asked for
    attempts: int = 0
    verdict: str | None = None
    detail: tuple[str, ...] = ()
    code: str = ""
    given: str = ""  # kind question: the answer typed
    answer: str = ""  # kind question: the canonical answer

    @property
    def ok(self) -> bool:
        return self.status in ("passed", "right")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "ask": self.ask, "status": self.status,
                               "seconds": round(self.seconds, 1)}
        if self.kind == "variant":
            out.update(variant=dict(self.variant), attempts=self.attempts, verdict=self.verdict, code=self.code)
        else:
            out.update(given=self.given, answer=self.answer)
        return out


_BACK_REFERENCE = re.compile(r"\b(that|the same|these|those)\b", re.IGNORECASE)


def askable_alone(quiz: Sequence[Any]) -> list[int]:
    """The indexes of the quiz questions that can be asked alone: a drill's quiz may build one
    question on the one before ("How much memory does that result take ...?"); a warm-up or a
    follow-up asks one with nothing before it, so those whose wording points back (that, the same,
    these, those) are left out while any other is left."""
    alone = [i for i, q in enumerate(quiz) if not _BACK_REFERENCE.search(q.q)]
    return alone or list(range(len(quiz)))


def standalone(quiz: Sequence[Any]) -> list[Any]:
    """The questions `askable_alone` keeps."""
    return [quiz[i] for i in askable_alone(quiz)]


def followup_ask(spec: Any, passed: Mapping[str, str], variant: Mapping[str, str]) -> tuple[str, ...]:
    """The interviewer's words for a follow-up from `passed` to `variant` (one axis changed,
    trainer.practice.variants.followup_variant), from that value's label, source and prompt
    edits: the first paragraph is the one line the summary keeps."""
    from trainer.practice.variants import changed_axis

    base = spec.base or spec
    name = changed_axis(passed, variant)
    axis = next(a for a in base.variants if a.name == name)
    new = axis.values[variant.get(axis.name, axis.default)]
    old = axis.values[passed.get(axis.name, axis.default)]
    out = [f'One thing changes: {axis.name} is now "{new.label}", as in {new.source}.']
    fragments = [to for _, to in new.prompt] if new.prompt else [frm for frm, _ in old.prompt]  # back: undone
    try:
        prompt = " ".join(str(base.under(dict(variant)).prompt).split())
    except Exception:  # noqa: BLE001 - a spec that cannot be put under it: the fragments as they are
        prompt = ""
    said: list[str] = []
    for fragment in fragments:
        whole = sentences_around(prompt, " ".join(fragment.split()))
        if whole not in said:
            said.append(whole)
    return tuple(out + [f"The prompt now says: {w}" for w in said])


_SENTENCE_END = re.compile(r"[.!?:](?=\s|$)")


def sentences_around(prompt: str, fragment: str) -> str:
    """The whole sentences of `prompt` that hold `fragment` (a prompt edit replaces part of a
    sentence: "...that is when" alone is cut mid-sentence); the fragment itself when the prompt
    does not hold it."""
    at = prompt.find(fragment) if fragment else -1
    if at < 0:
        return fragment
    ends = [m.end() for m in _SENTENCE_END.finditer(prompt)]
    start = max((e for e in ends if e <= at), default=0)
    stop = min((e for e in ends if e >= at + len(fragment)), default=len(prompt))
    return prompt[start:stop].strip()


# ---------------------------------------------------------------- warm-up


def interleave(drills: Sequence[str], topics: Mapping[str, str]) -> list[str]:
    """The drills in their order, except that no two of one topic come in a row while another
    topic's drill is still to come: each place takes the first drill left whose topic differs
    from the one before it (the first left when every one left shares that topic)."""
    left = list(drills)
    out: list[str] = []
    while left:
        before = topics.get(out[-1]) if out else None
        pick = next((d for d in left if before is None or topics.get(d) != before), left[0])
        left.remove(pick)
        out.append(pick)
    return out


def plan_warmup(due: Sequence[str], new: Sequence[str], quiz: Mapping[str, Sequence[int]], count: int,
                seed: int, fallback: Sequence[str] = (), topics: Mapping[str, str] | None = None) -> list[Item]:
    """Due reviews first, then new drills, at most `count` drills, topics interleaved (see
    `interleave`: among the due drills when choosing which to take, then over the drills
    taken); one quick-fire question from each drill's quiz goes just before it, drawn from the
    indexes `quiz` gives (`askable_alone`: none that points back to a question not asked). With no
    drill to do, `count` quick-fire questions from `fallback` (drills already met) keep the
    habit going. Without `topics` the order is the due order."""
    rng = random.Random(seed)
    topics = topics or {}
    drills: list[DrillItem] = []
    for d in interleave(list(dict.fromkeys(due)), topics):
        drills.append(DrillItem(d, "review"))
    for d in interleave(list(dict.fromkeys(new)), topics):
        if d not in {x.drill for x in drills}:
            drills.append(DrillItem(d, "new"))
    by_id = {x.drill: x for x in drills[:max(0, count)]}
    drills = [by_id[d] for d in interleave(list(by_id), topics)]
    items: list[Item] = []
    for item in drills:
        if quiz.get(item.drill):
            items.append(QuizItem(item.drill, rng.choice(list(quiz[item.drill]))))
        items.append(item)
    if not drills:
        pool = [d for d in fallback if quiz.get(d)]
        rng.shuffle(pool)
        for d in pool[:max(0, count)]:
            items.append(QuizItem(d, rng.choice(list(quiz[d]))))
    return items


def with_debug_rounds(items: Sequence[Item], debuggable: frozenset[str] | set[str], share: float,
                      seed: int) -> list[Item]:
    """The warm-up's items with some reviews served as debug rounds: each review of a drill in
    `debuggable` (already passed, with rounds) comes as one with probability `share` (the
    debug_share setting), drawn from `seed` (a stream of its own: the quick-fire choices stay)."""
    rng = random.Random(f"debug-rounds:{seed}")
    out: list[Item] = []
    for item in items:
        if isinstance(item, DrillItem) and item.reason == "review" and item.drill in debuggable \
                and rng.random() < share:
            item = DrillItem(item.drill, item.reason, debug=True)
        out.append(item)
    return out


@dataclass
class Warmup:
    """The warm-up: its items under an optional limit (`minutes`)."""

    items: list[Item]
    clock: MonotonicClock
    minutes: float | None = None
    queue: TimedQueue[Item, ItemResult] = field(init=False)

    def __post_init__(self) -> None:
        self.queue = TimedQueue(self.items, self.clock, self.minutes)

    def summary(self, due_tomorrow: Sequence[str]) -> WarmupSummary:
        drills = [r for r in self.queue.results if isinstance(r.item, DrillItem)]
        asked = [r for r in self.queue.results if isinstance(r.item, QuizItem)]
        quiz = [r for r in asked if r.status != "unanswered"]  # a question left with no answer is no score
        left = [i.drill for i in self.queue.not_reached() if isinstance(i, DrillItem)]
        return WarmupSummary(
            done=[(r.item.drill, r.status, r.seconds) for r in drills],
            variants=[dict(r.variant) for r in drills],
            debug=[isinstance(r.item, DrillItem) and r.item.debug for r in drills],
            passed=sum(r.ok for r in drills), drills=len(drills),
            quiz_right=sum(r.ok for r in quiz), quiz_total=len(quiz), quiz_unanswered=len(asked) - len(quiz),
            seconds=self.queue.elapsed(), not_reached=left,
            due_tomorrow=list(due_tomorrow), time_up=self.queue.time_up())


@dataclass(frozen=True)
class WarmupSummary:
    done: list[tuple[str, str, float]]
    passed: int
    drills: int
    quiz_right: int
    quiz_total: int
    seconds: float
    not_reached: list[str]
    due_tomorrow: list[str]
    time_up: bool
    quiz_unanswered: int = 0
    variants: list[dict[str, str]] = field(default_factory=list)  # beside `done`: the variant each was served
    debug: list[bool] = field(default_factory=list)  # beside `done`: served as a debug round

    def _variant(self, i: int) -> dict[str, str]:
        return self.variants[i] if i < len(self.variants) else {}

    def _debug(self, i: int) -> bool:
        return self.debug[i] if i < len(self.debug) else False

    def to_dict(self) -> dict[str, Any]:
        return {"done": [{"drill": d, "status": s, "seconds": round(t, 1), "variant": self._variant(i),
                          "debug": self._debug(i)} for i, (d, s, t) in enumerate(self.done)],
                "passed": self.passed, "drills": self.drills, "quiz_right": self.quiz_right,
                "quiz_total": self.quiz_total, "quiz_unanswered": self.quiz_unanswered, "seconds": round(self.seconds, 1),
                "not_reached": self.not_reached, "due_tomorrow": self.due_tomorrow}

    def lines(self) -> list[str]:
        out = [f"Warm-up done in {_mmss(self.seconds)}" + (" (time is up)" if self.time_up else "") + ":"]
        if not self.done and not self.quiz_total:
            out.append("  nothing was done." if not self.quiz_unanswered else
                       f"  nothing was done ({self.quiz_unanswered} question{'s' if self.quiz_unanswered > 1 else ''}"
                       " left unanswered).")
        for i, (drill, status, seconds) in enumerate(self.done):
            variant = self._variant(i)
            served = f"  variant {describe(variant)}" if variant else ""
            served += "  (debug round)" if self._debug(i) else ""
            out.append(f"  {drill:<28} {status:<8} {_mmss(seconds)}{served}")
        if self.drills:
            out.append(f"  drills passed: {self.passed}/{self.drills}")
        if self.quiz_total:
            left = f" ({self.quiz_unanswered} left unanswered)" if self.quiz_unanswered else ""
            out.append(f"  quick-fire: {self.quiz_right}/{self.quiz_total} right{left}")
        if self.not_reached:
            out.append(f"  not reached: {', '.join(self.not_reached)}")
        if self.due_tomorrow:
            out.append(f"Due tomorrow: {len(self.due_tomorrow)} ({', '.join(self.due_tomorrow[:6])}"
                       + (", ..." if len(self.due_tomorrow) > 6 else "") + ")")
        else:
            out.append("Due tomorrow: nothing.")
        return out


# ------------------------------------------------------------------- mock


def weakness(attempts: int, passes: int, due: datetime | None, now: datetime, lapses: int = 0) -> float:
    """0 (strong) .. 1 (weak): failure rate, lapses, overdue reviews; unseen drills sit at 0.5."""
    if attempts == 0:
        return 0.5
    score = 1.0 - passes / attempts
    score += min(0.3, 0.1 * lapses)
    if due is not None and due <= now:
        score += 0.2
    return max(0.0, min(1.0, score))


def choose_mock_drills(drills: Sequence[tuple[str, str]], weak: Mapping[str, float], count: int,
                       seed: int) -> list[str]:
    """`count` drills from (id, topic) pairs: one topic after another so that topics are
    covered before any repeats, weakest topics first, and within a topic a weighted draw
    that favours weak drills. The same seed gives the same interview."""
    rng = random.Random(seed)
    by_topic: dict[str, list[str]] = {}
    for drill, topic in drills:
        by_topic.setdefault(topic, []).append(drill)

    def topic_weakness(t: str) -> float:
        ids = by_topic[t]
        return sum(weak.get(d, 0.5) for d in ids) / len(ids)

    topics = sorted(by_topic, key=lambda t: (-topic_weakness(t), rng.random()))
    chosen: list[str] = []
    while len(chosen) < count and any(by_topic[t] for t in topics):
        for t in topics:
            pool = by_topic[t]
            if not pool or len(chosen) >= count:
                continue
            weights = [0.15 + weak.get(d, 0.5) for d in pool]
            pick = rng.choices(pool, weights=weights)[0]
            pool.remove(pick)
            chosen.append(pick)
    return chosen


@dataclass
class Mock:
    """The mock interview: its drills under one countdown (`minutes`) that never pauses."""

    drills: list[str]
    minutes: float
    seed: int
    clock: MonotonicClock
    followups: bool = False  # after a pass, a follow-up on the same drill (FollowUp)
    narrate: bool = False  # shape comments required: wrong or missing ones cost points
    queue: TimedQueue[str, ItemResult] = field(init=False)

    def __post_init__(self) -> None:
        self.queue = TimedQueue(self.drills, self.clock, self.minutes)

    def report(self, targets: Mapping[str, float]) -> MockReport:
        rows = []
        done = {r.item.drill: r for r in self.queue.results}
        for drill in self.drills:
            r = done.get(drill)
            if r is None:
                rows.append(MockRow(drill, "not reached", 0.0, targets.get(drill, 0.0), 0, ()))
            else:
                rows.append(MockRow(drill, r.status, r.seconds, targets.get(drill, 0.0), r.attempts, r.traps,
                                    r.verdict, r.failing_case, r.detail, r.code, dict(r.variant), r.followup,
                                    _wrong_comments(r.shape_comments) if self.narrate else (),
                                    tuple(r.unnarrated) if self.narrate else ()))
        passed = sum(1 for r in rows if r.status == "passed")
        return MockReport(self.seed, self.minutes, rows, passed, len(rows),
                          score(rows, followups=self.followups, narrate=self.narrate),
                          min(self.queue.elapsed(), self.minutes * 60),
                          time_up=self.queue.time_up(), followups=self.followups, narrate=self.narrate)


def _wrong_comments(checked: Sequence[Mapping[str, Any]]) -> tuple[str, ...]:
    return tuple(f"line {c.get('line')} says {c.get('says')}; it makes {c.get('makes')}"
                 for c in checked if c.get("ok") is False)


@dataclass(frozen=True)
class MockRow:
    drill: str
    status: str
    seconds: float
    target: float
    attempts: int
    traps: tuple[str, ...]
    verdict: str | None = None
    failing_case: str | None = None
    detail: tuple[str, ...] = ()
    code: str = ""
    variant: Mapping[str, str] = field(default_factory=dict)  # the variant served; {} = the default
    followup: FollowUp | None = None
    wrong_comments: tuple[str, ...] = ()  # narrate: "line 9 says (B, T, H, dh); it makes (B, H, T, dh)"
    unnarrated: tuple[int, ...] = ()  # narrate: lines of the passing code that make a tensor with no shape comment

    @property
    def narration_misses(self) -> int:
        return len(self.wrong_comments) + len(self.unnarrated)


SCORE_FORMULA = ("each drill is worth an equal share of 100; a pass earns 70% of its share, "
                 "up to 20% more for speed (all of it at half the target time or less, none at the "
                 "target or over), and 10% for passing on the first submit; a drill not passed earns 0")
FOLLOWUP_SHARE = 0.2  # of a passed drill's share, for its follow-up
FOLLOWUP_FORMULA = ("with follow-ups, that counts for 80% of the drill's share and its follow-up for the "
                    "other 20% (all of it for a follow-up passed or answered right; none for one failed, "
                    "left, or never reached because the time ran out)")
NARRATE_COST, NARRATE_MOST = 0.05, 0.3  # of a drill's share, per wrong or missing shape comment; at most
NARRATE_FORMULA = ("with narrate, each shape comment in the passing code that is wrong, or missing on a line "
                   "that makes a tensor, takes 5% off the drill's share (at most 30%)")


def score_formula(followups: bool = False, narrate: bool = False) -> str:
    """The formula the score is computed by, in words (the summary states it)."""
    return "; ".join([SCORE_FORMULA] + [FOLLOWUP_FORMULA] * followups + [NARRATE_FORMULA] * narrate)


def score(rows: Sequence[MockRow], followups: bool = False, narrate: bool = False) -> int:
    """Out of 100, by `score_formula`: each drill an equal share (`earned`)."""
    if not rows:
        return 0
    return int(round(100 * sum(earned(r, followups, narrate) for r in rows) / len(rows)))


def earned(r: MockRow, followups: bool = False, narrate: bool = False) -> float:
    """The share of one drill earned, 0 to 1: a pass earns 70% of it, the rest for speed against the
    target (full at half the target) and first-try accuracy; with follow-ups that is 80% and the
    follow-up the other 20%; with narrate each wrong or missing shape comment costs 5% of the share,
    at most 30%. Kept per drill in the summary, so `drill undo` of one drill can take its share back."""
    if r.status != "passed":
        return 0.0
    speed = 1.0 if not r.target else max(0.0, min(1.0, (r.target - r.seconds) / (r.target / 2)))
    first = 1.0 if r.attempts <= 1 else 0.0
    share = 0.7 + 0.2 * speed + 0.1 * first
    if followups:
        share = (1 - FOLLOWUP_SHARE) * share + FOLLOWUP_SHARE * bool(r.followup is not None and r.followup.ok)
    if narrate:
        share = max(0.0, share - min(NARRATE_MOST, NARRATE_COST * r.narration_misses))
    return share


@dataclass(frozen=True)
class MockReport:
    seed: int
    minutes: float
    rows: list[MockRow]
    passed: int
    total: int
    score: int
    seconds: float
    time_up: bool = False
    followups: bool = False
    narrate: bool = False

    @property
    def formula(self) -> str:
        return score_formula(self.followups, self.narrate)

    def followup_counts(self) -> tuple[int, int]:
        """(follow-ups passed or answered right, follow-ups asked)."""
        asked = [r.followup for r in self.rows if r.followup is not None]
        return sum(f.ok for f in asked), len(asked)

    def narration_counts(self) -> tuple[int, int]:
        """(wrong shape comments, lines making a tensor with none) over the passed drills."""
        passed = [r for r in self.rows if r.status == "passed"]
        return sum(len(r.wrong_comments) for r in passed), sum(len(r.unnarrated) for r in passed)

    def mistakes(self) -> list[str]:
        seen: list[str] = []
        for r in self.rows:
            for t in r.traps:
                label = f"{r.drill}: {t}"
                if label not in seen:
                    seen.append(label)
        return seen

    def to_dict(self) -> dict[str, Any]:
        right, asked = self.followup_counts()
        wrong, missing = self.narration_counts()
        return {"seed": self.seed, "minutes": self.minutes, "passed": self.passed, "total": self.total,
                "score": self.score, "score_formula": self.formula, "seconds": round(self.seconds, 1),
                "time_up": self.time_up, "followups": self.followups, "narrate": self.narrate,
                "followups_passed": right, "followups_asked": asked,
                "shape_comments_wrong": wrong, "shape_comments_missing": missing,
                "drills": [{"drill": r.drill, "status": r.status, "seconds": round(r.seconds, 1),
                            "earned": round(earned(r, self.followups, self.narrate), 6),
                            "target": r.target, "attempts": r.attempts, "traps": list(r.traps),
                            "verdict": r.verdict, "failing_case": r.failing_case, "code": r.code,
                            "variant": dict(r.variant),
                            "followup": r.followup.to_dict() if r.followup is not None else None,
                            "wrong_comments": list(r.wrong_comments), "unnarrated": list(r.unnarrated)}
                           for r in self.rows],
                "mistakes": self.mistakes()}

    def lines(self, width: int = 100) -> list[str]:
        """The summary; the score's formula folded to `width`."""
        out = [f"Mock interview: {self.passed}/{self.total} passed, score {self.score}/100, "
               f"{_mmss(self.seconds)} of {_mmss(self.minutes * 60)} used (seed {self.seed})"
               + (" — time ran out" if self.time_up else "")]
        for r in self.rows:
            timing = f"{_mmss(r.seconds)} / {_mmss(r.target)}" if r.status != "not reached" else ""
            tries = f"{r.attempts} submit{'s' if r.attempts != 1 else ''}" if r.attempts else ""
            out.append(f"  {r.drill:<28} {r.status:<12} {timing:<14} {tries}".rstrip())
            f = r.followup
            if f is not None:
                what = f"variant {describe(f.variant)}" if f.kind == "variant" else "question"
                out.append(f"    follow-up ({what}): {f.status} in {_mmss(f.seconds)}")
        if self.followups:
            right, asked = self.followup_counts()
            out.append(f"  follow-ups: {right}/{asked} passed or answered right" if asked else
                       "  follow-ups: none asked (one comes after a pass, while time is left)")
        if self.narrate:
            wrong, missing = self.narration_counts()
            out.append(f"  narrate: {wrong} shape comment{'s' if wrong != 1 else ''} wrong, "
                       f"{missing} line{'s' if missing != 1 else ''} making a tensor without one")
        out += textwrap.wrap(f"Score: {self.formula}.", max(40, width - 1), subsequent_indent="  ")
        for r in self.rows:
            if r.status == "not reached":
                continue
            out.append("")
            if r.verdict is None:
                out.append(f"{r.drill}: nothing submitted.")
                continue
            served = f" (variant {describe(r.variant)})" if r.variant else ""
            out.append(f"{r.drill}{served}:")
            out += [f"  {line}" for line in r.detail]
            if r.code.strip():
                out.append("  code submitted:")
                out += [f"    | {line}" for line in printable_lines(r.code.rstrip())]
            out += [f"  shape comment: {printable(w)}" for w in r.wrong_comments]
            if r.unnarrated:
                one = len(r.unnarrated) == 1
                out.append(f"  no shape comment on line{'' if one else 's'} {', '.join(map(str, r.unnarrated))}, "
                           f"which make{'s' if one else ''} a tensor")
            if r.followup is not None:
                out += _followup_lines(r.followup, r.code)
        mistakes = self.mistakes()
        if mistakes:
            out.append("")
            out.append("Mistakes made: " + "; ".join(mistakes))
        return out


def _followup_lines(f: FollowUp, before: str) -> list[str]:
    """A follow-up in the summary's detail: what was asked, what came of it, and how the code
    changed from `before` (the drill's passing code)."""
    out = [f"  follow-up: {printable(f.ask)}"]
    if f.kind == "question":
        given = printable(f.given.strip()) or "(no answer)"
        out.append(f"    answered {given}: {f.status}" + ("" if f.ok else f"; the answer is {printable(f.answer)}"))
        return out
    if f.verdict is None:
        out.append(f"    {f.status}: nothing submitted.")
        return out
    out += [f"    {line}" for line in f.detail]
    changed = [line for line in difflib.ndiff(printable_lines(before.rstrip()), printable_lines(f.code.rstrip()))
               if line[:1] in "+-"]
    if not changed:
        out.append("    code submitted: your passing code, unchanged")
        return out
    out.append("    code submitted, as changed from your passing code:")
    out += [f"      | {line[:1]} {line[2:]}" for line in changed]
    return out
