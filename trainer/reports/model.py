"""The report's data model: one record per section, and ``Report`` holding them all.

Every renderer (text, md, html, svg, json_data) draws these records and nothing
else, so a new section is a field here plus one function in each renderer. The
numbers themselves are computed in ``trainer.reports.build``.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING, Any, Iterable

from trainer.practice.flows import score_formula

if TYPE_CHECKING:
    from grader.spec import Spec
    from trainer.reports.scheduler import SchedulerSection

HEATMAP_WEEKS = 26
DUE_DAYS = 14
WEAKEST = 5
MISTAKES = 8
TREND_POINTS = 12
MOCK_POINTS = 20

# How trainer.practice.flows.score() scores a mock interview, follow-ups and narrate included (each
# clause says when it applies; tests/trainer/reports/test_reports.py checks the two agree).
MOCK_SCORE_FORMULA = "score out of 100: " + score_formula(followups=True, narrate=True)  # trainer.practice.flows'

# ---------------------------------------------------------------- inputs


@dataclass(frozen=True)
class AxisInfo:
    """One variant axis of a drill (grader.spec's Axis): its name, default value and values in order."""

    name: str
    default: str
    values: tuple[str, ...]


@dataclass(frozen=True)
class DrillInfo:
    """What a report needs of one catalogue spec."""

    id: str
    title: str
    topic: str
    target_seconds: float | None
    traps: tuple[tuple[str, str], ...] = ()  # (trap id, message): every trap, those only a variant adds too
    axes: tuple[AxisInfo, ...] = ()  # its variant axes; () for a drill without variants
    trap_variants: tuple[tuple[str, str], ...] = ()  # (trap id, "axis=value"): a trap only that value adds

    def variant_of(self, trap: str) -> str:
        """`axis=value` when ``trap`` exists only under a variant (the first value that adds it), else ""."""
        return next((v for t, v in self.trap_variants if t == trap), "")


def drill_infos(specs: Iterable[Spec]) -> list[DrillInfo]:
    """DrillInfo for each catalogue spec (anything with id, title, topic, target_seconds, traps, variants)."""
    return [DrillInfo(s.id, s.title, s.topic, float(s.target_seconds) if s.target_seconds else None,
                      _trap_messages(s),
                      tuple(AxisInfo(a.name, a.default, tuple(a.values)) for a in getattr(s, "variants", ())),
                      tuple((t, f"{a.name}={name}") for a in getattr(s, "variants", ())
                            for name, v in a.values.items() for t in v.traps.add))
            for s in specs]


# --------------------------------------------------------------- records


def _trap_messages(spec: Any) -> tuple[tuple[str, str], ...]:
    """Every trap of the spec with its message: the contract's, then those only a variant value adds
    (with the message that value gives it, where it gives one)."""
    out = [(t.id, t.message) for t in spec.traps]
    seen = {t for t, _ in out}
    flipped = {k: m for a in getattr(spec, "variants", ()) for v in a.values.values() for k, m in v.traps.messages.items()}
    for t in getattr(spec, "all_traps", ()) or ():
        if t.id not in seen:
            out.append((t.id, flipped.get(t.id, t.message)))
            seen.add(t.id)
    return tuple(out)


@dataclass(frozen=True)
class TopicMastery:
    topic: str
    mastery: float  # mean retrievability over every drill of the topic (unpractised = 0)
    recall: float | None  # mean retrievability over the practised drills only
    practised: int
    total: int


@dataclass(frozen=True)
class HeatCell:
    day: date
    count: int
    level: int  # 0 (nothing) .. 4 (the busiest days)


@dataclass(frozen=True)
class Heatmap:
    first: date  # the first day shown
    last: date  # the last day shown (today)
    weeks: tuple[tuple[HeatCell | None, ...], ...]  # Monday-first columns of 7; None outside first..last
    max_count: int
    active_days: int


@dataclass(frozen=True)
class TrendPoint:
    at: datetime
    seconds: float


@dataclass(frozen=True)
class DrillTrend:
    drill: str
    title: str
    target: float | None
    points: tuple[TrendPoint, ...]  # passing attempts, oldest first (the last TREND_POINTS)
    passes: int

    @property
    def best(self) -> float:
        return min(p.seconds for p in self.points)

    @property
    def latest(self) -> float:
        return self.points[-1].seconds

    @property
    def on_target(self) -> bool | None:
        return None if self.target is None else self.latest <= self.target


@dataclass(frozen=True)
class FirstTry:
    attempts: int  # attempts that were a first submit
    passes: int

    @property
    def rate(self) -> float | None:
        return self.passes / self.attempts if self.attempts else None


@dataclass(frozen=True)
class Mistake:
    trap: str
    count: int
    message: str
    made_in: tuple[str, ...]  # drills where it happened
    practise: tuple[str, ...]  # drills whose spec drills this trap (made_in first)
    commands: tuple[str, ...] = ()  # the command that meets it in each of `practise` (with --variant where needed)


@dataclass(frozen=True)
class DueDay:
    day: date
    count: int


@dataclass(frozen=True)
class WeakDrill:
    drill: str
    title: str
    topic: str
    recall: float | None  # FSRS recall now; None for a drill never passed (there is nothing to recall)
    attempts: int
    passes: int
    first_tries: int  # attempts that were a first submit
    first_passes: int  # ... and passed
    best: float | None
    target: float | None
    score: float  # 0 (solid) .. 1 (weakest)

    @property
    def command(self) -> str:
        return f"drill solve {self.drill}"

    @property
    def passed(self) -> bool:
        return self.passes > 0


@dataclass(frozen=True)
class VariantResult:
    """One variant value of one drill in the whole history: `last` is "pass", "fail" or None
    (never graded). trainer.practice.variants counts a fail against the non-default values of
    the combination failed, a pass for every value of it."""

    drill: str
    axis: str
    value: str
    default: bool
    passes: int
    fails: int
    last: str | None

    @property
    def label(self) -> str:
        return f"{self.axis}={self.value}"


@dataclass(frozen=True)
class DrillVariants:
    """One practised drill with variant axes: each of its values' results, in the spec's order."""

    drill: str
    values: tuple[VariantResult, ...]

    @property
    def passed(self) -> tuple[VariantResult, ...]:
        return tuple(v for v in self.values if v.passes)

    @property
    def failed(self) -> tuple[VariantResult, ...]:
        """Values whose last result is a fail (failed and not passed since)."""
        return tuple(v for v in self.values if v.last == "fail")

    @property
    def untried(self) -> tuple[VariantResult, ...]:
        return tuple(v for v in self.values if v.last is None)


@dataclass(frozen=True)
class MockScore:
    """One finished mock interview, as its session summary stored it."""

    at: datetime  # when it started, in the report's zone
    score: int  # 0..100, MOCK_SCORE_FORMULA
    passed: int
    total: int
    minutes: float | None


@dataclass(frozen=True)
class Totals:
    attempts: int
    passes: int
    drills: int  # distinct drills attempted
    days: int  # distinct practice days
    seconds: float


@dataclass(frozen=True)
class Report:
    generated_at: datetime
    today: date
    since: date | None
    empty: bool  # no attempt at all, ever: the report only says what to do first
    streak: int
    totals: Totals
    mastery: tuple[TopicMastery, ...]
    heatmap: Heatmap
    trends: tuple[DrillTrend, ...]
    untimed: int  # passes left out of the trends: graded files, whose time is the grader's
    first_try: FirstTry
    mistakes: tuple[Mistake, ...]
    due: tuple[DueDay, ...]
    weakest: tuple[WeakDrill, ...]
    next_steps: tuple[str, ...]  # shell commands, most useful first
    mocks: tuple[MockScore, ...] = ()  # oldest first, the last MOCK_POINTS in the window
    scheduler: SchedulerSection | None = None  # when the store was read
    variants: tuple[DrillVariants, ...] = ()  # practised drills with variant axes, in catalogue order
    weakest_variants: tuple[VariantResult, ...] = ()  # non-default values failed, weakest first

    @property
    def overall_mastery(self) -> float:
        total = sum(m.total for m in self.mastery)
        return sum(m.mastery * m.total for m in self.mastery) / total if total else 0.0
