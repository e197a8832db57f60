"""Progress reports: pure functions from store rows to the numbers and series the
renderers draw. Nothing here reads a file, a database or the clock.

``build_report`` gathers everything one `drill report` shows:

- mastery per topic: the mean FSRS retrievability of the topic's drills at
  ``now`` (a drill never practised counts as 0), and the recall of the
  practised ones alone;
- the streak (consecutive days with a counted attempt, ending today, or
  yesterday when nothing was done yet today);
- a calendar heatmap of practice days (Monday-first weeks, levels 0..4);
- the time-to-solve trend of every drill against its target (passes only);
- the first-try pass rate;
- the mistakes made most often (trap ids) with the drills that drill them;
- the reviews due in each of the next 14 days (today includes overdue ones);
- the five weakest drills with the command to practise each;
- the score of every mock interview, oldest first (``MOCK_SCORE_FORMULA``).

``since`` limits the window of the history-shaped sections (heatmap, trend,
first try, mistakes, totals, mock scores). Mastery, streak, due reviews and the weakest
drills describe the present and use the whole history. Days are calendar days
in the ``tz`` given (the person's local zone in the CLI, UTC in tests).

One model, several renderers: ``Report`` holds every section; report_text,
report_md, report_html and ``to_dict`` (JSON) each draw all of it. A new section
is a field here plus one function in each renderer.
"""
from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import date, datetime, timedelta, tzinfo
from typing import Any, Iterable, Mapping, Sequence

from trainer.sessions import SCORE_FORMULA

HEATMAP_WEEKS = 26
DUE_DAYS = 14
WEAKEST = 5
MISTAKES = 8
TREND_POINTS = 12
MOCK_POINTS = 20

# How trainer.sessions.score() scores a mock interview (tests/test_reports.py checks
# the two agree).
MOCK_SCORE_FORMULA = "score out of 100: " + SCORE_FORMULA  # the one formula, trainer.sessions'



# ---------------------------------------------------------------- inputs


@dataclass(frozen=True)
class DrillInfo:
    """What a report needs of one catalogue spec."""

    id: str
    title: str
    topic: str
    target_seconds: float | None
    traps: tuple[tuple[str, str], ...] = ()  # (trap id, message)


def drill_infos(specs: Iterable[Any]) -> list[DrillInfo]:
    """DrillInfo for each catalogue spec (anything with id, title, topic, target_seconds, traps)."""
    return [DrillInfo(s.id, s.title, s.topic, float(s.target_seconds) if s.target_seconds else None,
                      tuple((t.id, t.message) for t in s.traps)) for s in specs]


# --------------------------------------------------------------- records


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
    scheduler: Any = None  # trainer.report_scheduler.SchedulerSection, when the store was read

    @property
    def overall_mastery(self) -> float:
        total = sum(m.total for m in self.mastery)
        return sum(m.mastery * m.total for m in self.mastery) / total if total else 0.0


# ------------------------------------------------------------ computations


def local_day(moment: datetime, tz: tzinfo) -> date:
    return moment.astimezone(tz).date()


def counted(attempts: Iterable[Any]) -> list[Any]:
    """Attempts that count as practice (an ``internal`` verdict is the grader's fault)."""
    return [a for a in attempts if a.verdict != "internal"]


def day_counts(attempts: Iterable[Any], tz: tzinfo) -> dict[date, int]:
    """Counted attempts per local day."""
    return dict(Counter(local_day(a.started_at, tz) for a in counted(attempts)))


def streak(days: Iterable[date], today: date) -> int:
    """Consecutive practice days ending today, or yesterday when today has none yet."""
    from trainer.streak import streak as count_streak  # the one definition, shared with the store

    return count_streak(days, today)


def heat_level(count: int, max_count: int) -> int:
    """0 for no practice, else 1..4 by quarters of the busiest day."""
    if count <= 0 or max_count <= 0:
        return 0
    return max(1, min(4, math.ceil(4 * count / max_count)))


def heatmap(counts: Mapping[date, int], first: date, last: date) -> Heatmap:
    """A Monday-first calendar of ``first``..``last``: one column per week, 7 cells each."""
    if last < first:
        first = last
    start = first - timedelta(days=first.weekday())
    end = last + timedelta(days=6 - last.weekday())
    shown = {d: c for d, c in counts.items() if first <= d <= last and c > 0}
    top = max(shown.values(), default=0)
    weeks: list[tuple[HeatCell | None, ...]] = []
    day = start
    while day <= end:
        week: list[HeatCell | None] = []
        for _ in range(7):
            if first <= day <= last:
                n = shown.get(day, 0)
                week.append(HeatCell(day, n, heat_level(n, top)))
            else:
                week.append(None)
            day += timedelta(days=1)
        weeks.append(tuple(week))
    return Heatmap(first, last, tuple(weeks), top, len(shown))


def heatmap_range(today: date, since: date | None, weeks: int = HEATMAP_WEEKS) -> tuple[date, date]:
    """The days a heatmap shows: from ``since`` (at most a year back) or the last ``weeks`` weeks."""
    default_first = today - timedelta(days=7 * weeks - 1)
    if since is None:
        return default_first, today
    return max(min(since, today), today - timedelta(days=370)), today


def is_clean_pass(a: Any) -> bool:
    return a.verdict == "pass" and not a.revealed


UNTIMED_MODES = ("check", "team", "watch")


def is_timed(a: Any) -> bool:
    """Whether ``seconds`` is a solving time. `drill check --record` and `team run --file`
    record the grader's time with no target; those attempts count as practice, but
    they say nothing about how fast the person solves the drill."""
    return not (getattr(a, "mode", "solve") in UNTIMED_MODES and getattr(a, "target_seconds", 1) is None)


def untimed_passes(attempts: Iterable[Any]) -> int:
    return sum(1 for a in attempts if is_clean_pass(a) and not is_timed(a))


def trends(attempts: Iterable[Any], drills: Mapping[str, DrillInfo], limit: int = TREND_POINTS) -> list[DrillTrend]:
    """Time to solve per drill: its timed passing attempts in time order, in catalogue order."""
    by_drill: dict[str, list[TrendPoint]] = defaultdict(list)
    for a in sorted(attempts, key=lambda a: a.started_at):
        if is_clean_pass(a) and is_timed(a):
            by_drill[a.drill].append(TrendPoint(a.started_at, float(a.seconds)))
    order = {d: i for i, d in enumerate(drills)}
    out = []
    for drill in sorted(by_drill, key=lambda d: (order.get(d, len(order)), d)):
        info = drills.get(drill)
        pts = by_drill[drill]
        out.append(DrillTrend(drill, info.title if info else drill, info.target_seconds if info else None,
                              tuple(pts[-limit:]), len(pts)))
    return out


def first_try(attempts: Iterable[Any]) -> FirstTry:
    """Pass rate of first submits (an attempt marked first_try; internal verdicts left out)."""
    firsts = [a for a in counted(attempts) if a.first_try]
    return FirstTry(len(firsts), sum(1 for a in firsts if is_clean_pass(a)))


def mistakes(attempts: Iterable[Any], drills: Mapping[str, DrillInfo], limit: int = MISTAKES) -> list[Mistake]:
    """Trap ids matched most often, each with where it happened and the drills that drill it."""
    counts: Counter[str] = Counter()
    made_in: dict[str, list[str]] = defaultdict(list)
    for a in attempts:
        for trap in a.traps:
            counts[trap] += 1
            if a.drill not in made_in[trap]:
                made_in[trap].append(a.drill)
    out = []
    for trap, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]:
        drilling = [d for d, info in drills.items() if any(t == trap for t, _ in info.traps)]
        practise = list(made_in[trap]) + [d for d in drilling if d not in made_in[trap]]
        message = next((msg for d in practise if d in drills for t, msg in drills[d].traps if t == trap), "")
        out.append(Mistake(trap, n, message, tuple(made_in[trap]), tuple(practise)))
    return out


def due_per_day(dues: Iterable[datetime], today: date, tz: tzinfo, days: int = DUE_DAYS) -> list[DueDay]:
    """Reviews due on each of the next ``days`` days; today's count includes overdue ones."""
    counts = [0] * days
    for due in dues:
        offset = (local_day(due, tz) - today).days
        if offset < days:
            counts[max(0, offset)] += 1
    return [DueDay(today + timedelta(days=i), n) for i, n in enumerate(counts)]


def mastery(recall: Mapping[str, float], drills: Mapping[str, DrillInfo]) -> list[TopicMastery]:
    """Per topic, in catalogue order: mean retrievability (unpractised drills count 0)."""
    topics: dict[str, list[str]] = {}
    for d, info in drills.items():
        topics.setdefault(info.topic, []).append(d)
    out = []
    for topic, ids in topics.items():
        practised = [recall[d] for d in ids if d in recall]
        out.append(TopicMastery(topic, sum(practised) / len(ids),
                                sum(practised) / len(practised) if practised else None,
                                len(practised), len(ids)))
    return out


def weakness_score(recall: float, attempts: int, passes: int, best: float | None, target: float | None) -> float:
    """0..1, higher is weaker: half forgetting (1 - recall), 0.3 failing, 0.2 slowness.

    Slowness is how far the best timed pass is over the target (capped at double
    the target), full when there is no pass at all, and none when every pass was
    untimed (graded files)."""
    fail = 1 - passes / attempts if attempts else 1.0
    if best is None and passes:
        slow = 0.0
    elif best is None:
        slow = 1.0
    elif target:
        slow = min(1.0, max(0.0, best / target - 1))
    else:
        slow = 0.0
    return round(0.5 * (1 - recall) + 0.3 * fail + 0.2 * slow, 4)


def weakest(attempts: Iterable[Any], recall: Mapping[str, float], drills: Mapping[str, DrillInfo],
            limit: int = WEAKEST) -> list[WeakDrill]:
    """The practised drills most in need of work, weakest first (ties by id)."""
    stats: dict[str, list[Any]] = defaultdict(list)
    for a in counted(attempts):
        stats[a.drill].append(a)
    rows = []
    for drill, tries in stats.items():
        info = drills.get(drill)
        if info is None:
            continue  # a drill no longer in the catalogue cannot be practised
        passes = [a for a in tries if is_clean_pass(a)]
        firsts = [a for a in tries if a.first_try]
        best = min((float(a.seconds) for a in passes if is_timed(a)), default=None)
        # FSRS's recall right after a failed review is high; a drill never passed has nothing to recall
        r = float(recall.get(drill, 0.0)) if passes else None
        rows.append(WeakDrill(drill, info.title, info.topic, r, len(tries), len(passes), len(firsts),
                              sum(1 for a in firsts if is_clean_pass(a)), best, info.target_seconds,
                              weakness_score(r or 0.0, len(tries), len(passes), best, info.target_seconds)))
    rows.sort(key=lambda w: (-w.score, w.drill))
    return rows[:limit]


def _count(v: Any, top: int) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= top else None


def mock_scores(sessions: Iterable[Any], tz: tzinfo, limit: int = MOCK_POINTS) -> list[MockScore]:
    """The finished mock interviews whose summary holds a score, oldest first (the last
    ``limit``). A summary that does not hold one (an interrupted or odd session) is left out."""
    out = []
    for s in sessions:
        summary = getattr(s, "summary", None)
        if getattr(s, "kind", None) != "mock" or not isinstance(summary, dict):
            continue
        score = _count(summary.get("score"), 100)
        total = _count(summary.get("total"), 1000)
        passed = _count(summary.get("passed"), total if total is not None else 0)
        if score is None or total is None or passed is None:
            continue
        minutes = summary.get("minutes")
        ok_minutes = isinstance(minutes, (int, float)) and not isinstance(minutes, bool) and 0 < minutes < 10_000
        out.append(MockScore(s.started_at.astimezone(tz), score, passed, total, float(minutes) if ok_minutes else None))
    out.sort(key=lambda m: m.at)
    return out[-limit:] if limit else out


def totals(attempts: Sequence[Any], tz: tzinfo) -> Totals:
    real = counted(attempts)
    return Totals(len(real), sum(1 for a in real if is_clean_pass(a)), len({a.drill for a in real}),
                  len({local_day(a.started_at, tz) for a in real}), round(sum(float(a.seconds) for a in real), 1))


def next_steps(empty: bool, due_today: int, weak: Sequence[WeakDrill], first_drill: str | None) -> list[str]:
    """The commands worth running next, most useful first."""
    if empty:
        steps = ["drill list"]
        if first_drill:
            steps += [f"drill show {first_drill}", f"drill solve {first_drill}"]
        return steps + ["drill warmup"]
    steps = []
    if due_today:
        steps.append("drill warmup")
    steps += [w.command for w in weak[:2]]
    if not due_today:
        steps.append("drill warmup")
    return steps


def build_report(
    attempts: Sequence[Any],
    due_dates: Iterable[datetime],
    recall: Mapping[str, float],
    drills: Sequence[DrillInfo],
    now: datetime,
    tz: tzinfo,
    since: date | None = None,
    sessions: Iterable[Any] = (),
) -> Report:
    """Everything `drill report` shows, from the whole history (``attempts`` and the
    ``sessions`` records), every card's due date, the retrievability of every drill with
    a card at ``now``, and the catalogue."""
    catalogue = {d.id: d for d in drills}
    today = local_day(now, tz)
    window = [a for a in attempts if since is None or local_day(a.started_at, tz) >= since]
    all_days = day_counts(attempts, tz)
    first, last = heatmap_range(today, since)
    due = due_per_day(due_dates, today, tz)
    weak = weakest(attempts, recall, catalogue)
    empty = not counted(attempts)
    return Report(
        generated_at=now,
        today=today,
        since=since,
        empty=empty,
        streak=streak(all_days, today),
        totals=totals(window, tz),
        mastery=tuple(mastery(recall, catalogue)),
        heatmap=heatmap(day_counts(window, tz), first, last),
        trends=tuple(trends(window, catalogue)),
        untimed=untimed_passes(window),
        first_try=first_try(window),
        mistakes=tuple(mistakes(window, catalogue)),
        due=tuple(due),
        weakest=tuple(weak),
        next_steps=tuple(next_steps(empty, due[0].count if due else 0, weak, drills[0].id if drills else None)),
        mocks=tuple(mock_scores((s for s in sessions if since is None or local_day(s.started_at, tz) >= since), tz)),
    )


# ------------------------------------------------------------ small helpers


def untimed_note(n: int) -> str:
    """The sentence saying why some passes are not in the trend ('' when none)."""
    if not n:
        return ""
    return (f"{plural(n, 'pass')} from graded files (drill check --record, team run --file) "
            f"{'is' if n == 1 else 'are'} left out: {'it times' if n == 1 else 'they time'} the grader, not you.")


def mmss(seconds: float | None) -> str:
    """1:05 for 65 s; an em dash for None."""
    if seconds is None:
        return "—"
    s = max(0, int(round(seconds)))
    return f"{s // 60}:{s % 60:02d}" if s < 3600 else f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


def duration(seconds: float) -> str:
    """Time spent, for people: 45 s, 12 min, 3h 05m."""
    s = int(round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min"
    return f"{s // 3600}h {s % 3600 // 60:02d}m"


def plural(n: int, word: str) -> str:
    """'1 day', '3 days'."""
    return f"{n} {word}{'' if n == 1 else ('es' if word.endswith('s') else 's')}"


def first_try_text(w: WeakDrill) -> str:
    """'1/3' first submits passed, or a dash when no attempt was a first submit."""
    return f"{w.first_passes}/{w.first_tries}" if w.first_tries else "—"


def best_text(w: WeakDrill) -> str:
    """'1:05 / 3:00' (best timed pass against the target), or 'not yet passed'."""
    if not w.passed:
        return "not yet passed"
    return f"{mmss(w.best)} / {mmss(w.target)}"


def percent(value: float | None) -> str:
    return "—" if value is None else f"{round(100 * value)}%"


def to_dict(report: Report) -> dict[str, Any]:
    """The report as plain JSON-ready data (dates ISO-8601, times in seconds)."""
    return {
        "format": 1,
        "generated_at": report.generated_at.isoformat(),
        "today": report.today.isoformat(),
        "since": report.since.isoformat() if report.since else None,
        "empty": report.empty,
        "streak": report.streak,
        "totals": {"attempts": report.totals.attempts, "passes": report.totals.passes,
                   "drills": report.totals.drills, "days": report.totals.days, "seconds": report.totals.seconds},
        "mastery": {"overall": round(report.overall_mastery, 4), "topics": [
            {"topic": m.topic, "mastery": round(m.mastery, 4),
             "recall": None if m.recall is None else round(m.recall, 4),
             "practised": m.practised, "total": m.total} for m in report.mastery]},
        "heatmap": {"first": report.heatmap.first.isoformat(), "last": report.heatmap.last.isoformat(),
                    "max": report.heatmap.max_count, "active_days": report.heatmap.active_days,
                    "days": [{"day": c.day.isoformat(), "count": c.count, "level": c.level}
                             for w in report.heatmap.weeks for c in w if c is not None and c.count]},
        "trends": [{"drill": t.drill, "title": t.title, "target": t.target, "passes": t.passes,
                    "best": t.best, "latest": t.latest, "on_target": t.on_target,
                    "points": [{"at": p.at.isoformat(), "seconds": p.seconds} for p in t.points]}
                   for t in report.trends],
        "untimed_passes": report.untimed,
        "first_try": {"attempts": report.first_try.attempts, "passes": report.first_try.passes,
                      "rate": None if report.first_try.rate is None else round(report.first_try.rate, 4)},
        "mistakes": [{"trap": m.trap, "count": m.count, "message": m.message, "made_in": list(m.made_in),
                      "practise": [f"drill solve {d}" for d in m.practise]} for m in report.mistakes],
        "due": [{"day": d.day.isoformat(), "count": d.count} for d in report.due],
        "weakest": [{"drill": w.drill, "title": w.title, "topic": w.topic,
                     "recall": None if w.recall is None else round(w.recall, 4),
                     "attempts": w.attempts, "passes": w.passes, "first_tries": w.first_tries,
                     "first_passes": w.first_passes, "best": w.best, "target": w.target,
                     "score": w.score, "command": w.command} for w in report.weakest],
        "mocks": {"formula": MOCK_SCORE_FORMULA,
                  "scores": [{"at": m.at.isoformat(), "score": m.score, "passed": m.passed, "total": m.total,
                              "minutes": m.minutes} for m in report.mocks]},
        "next_steps": list(report.next_steps),
        "scheduler": _scheduler_dict(report.scheduler),
    }


def _scheduler_dict(section: Any) -> dict[str, Any] | None:
    from trainer.report_scheduler import to_dict as scheduler_to_dict

    return None if section is None else scheduler_to_dict(section)
