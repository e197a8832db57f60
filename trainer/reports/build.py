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
- the score of every mock interview, oldest first (``MOCK_SCORE_FORMULA``);
- per practised drill with variant axes, which values were passed and which failed,
  and the weakest variant values overall (trainer.practice.variants counts them).

``since`` limits the window of the history-shaped sections (heatmap, trend,
first try, mistakes, totals, mock scores). Mastery, streak, due reviews and the weakest
drills, and the variants, describe the present and use the whole history. Days are calendar days
in the ``tz`` given (the person's local zone in the CLI, UTC in tests).

The records are trainer.reports.model's; the renderers beside this module
(text, md, html, json_data) each draw all of them.
"""
from __future__ import annotations

import math
from collections import Counter, defaultdict
from datetime import date, datetime, timedelta, tzinfo
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from trainer.schedule.streak import streak  # the one definition, shared with the store
from trainer.store.records import UNTIMED_MODES as UNTIMED_MODES, is_timed as timed_attempt  # re-exported
from trainer.reports.model import (
    DUE_DAYS,
    HEATMAP_WEEKS,
    MISTAKES,
    MOCK_POINTS,
    TREND_POINTS,
    WEAKEST,
    DrillInfo,
    DrillTrend,
    DrillVariants,
    DueDay,
    FirstTry,
    HeatCell,
    Heatmap,
    Mistake,
    MockScore,
    Report,
    TopicMastery,
    Totals,
    TrendPoint,
    VariantResult,
    WeakDrill,
)
from trainer.practice.variants import history_of, standings

if TYPE_CHECKING:
    from trainer.store import AttemptRecord, SessionRecord


def local_day(moment: datetime, tz: tzinfo) -> date:
    return moment.astimezone(tz).date()


def counted(attempts: Iterable[AttemptRecord]) -> list[AttemptRecord]:
    """Attempts that count as practice (an ``internal`` verdict is the grader's fault)."""
    return [a for a in attempts if a.verdict != "internal"]


def day_counts(attempts: Iterable[AttemptRecord], tz: tzinfo) -> dict[date, int]:
    """Counted attempts per local day."""
    return dict(Counter(local_day(a.started_at, tz) for a in counted(attempts)))


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


def is_clean_pass(a: AttemptRecord) -> bool:
    return a.verdict == "pass" and not a.revealed


def is_timed(a: AttemptRecord) -> bool:
    """Whether ``seconds`` is a solving time (trainer.store.records.is_timed: the one rule,
    which `drill list`'s best time uses too)."""
    return timed_attempt(getattr(a, "mode", "solve"), getattr(a, "target_seconds", 1), getattr(a, "kind", "write"))


def untimed_passes(attempts: Iterable[AttemptRecord]) -> int:
    return sum(1 for a in attempts if is_clean_pass(a) and not is_timed(a))


def trends(attempts: Iterable[AttemptRecord], drills: Mapping[str, DrillInfo], limit: int = TREND_POINTS) -> list[DrillTrend]:
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


def first_try(attempts: Iterable[AttemptRecord]) -> FirstTry:
    """Pass rate of first submits (an attempt marked first_try; internal verdicts left out)."""
    firsts = [a for a in counted(attempts) if a.first_try]
    return FirstTry(len(firsts), sum(1 for a in firsts if is_clean_pass(a)))


def mistakes(attempts: Iterable[AttemptRecord], drills: Mapping[str, DrillInfo], limit: int = MISTAKES) -> list[Mistake]:
    """Trap ids matched most often, each with where it happened and the drills that drill it."""
    counts: Counter[str] = Counter()
    made_in: dict[str, list[str]] = defaultdict(list)
    under: dict[tuple[str, str], dict[str, str]] = {}  # (trap, drill) -> the variant it was last made under
    for a in attempts:
        for trap in a.traps:
            counts[trap] += 1
            if a.drill not in made_in[trap]:
                made_in[trap].append(a.drill)
            under[(trap, a.drill)] = dict(a.variant or {})
    out = []
    for trap, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]:
        drilling = [d for d, info in drills.items() if any(t == trap for t, _ in info.traps)]
        practise = list(made_in[trap]) + [d for d in drilling if d not in made_in[trap]]
        message = next((msg for d in practise if d in drills for t, msg in drills[d].traps if t == trap), "")
        commands = tuple(practise_command(d, trap, drills.get(d), under.get((trap, d))) for d in practise)
        out.append(Mistake(trap, n, message, tuple(made_in[trap]), tuple(practise), commands))
    return out


def practise_command(drill: str, trap: str, info: DrillInfo | None, made_under: Mapping[str, str] | None) -> str:
    """The command that meets ``trap`` in ``drill``: under the variant the person made it in, or, for a
    trap that exists only under a variant, the value that adds it; else the drill as written."""
    choice = [f"{k}={v}" for k, v in sorted((made_under or {}).items())]
    if not choice and info is not None and info.variant_of(trap):
        choice = [info.variant_of(trap)]
    return f"drill solve {drill}" + "".join(f" --variant {c}" for c in choice)


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


def weakest(attempts: Iterable[AttemptRecord], recall: Mapping[str, float], drills: Mapping[str, DrillInfo],
            limit: int = WEAKEST) -> list[WeakDrill]:
    """The practised drills most in need of work, weakest first (ties by id)."""
    stats: dict[str, list[AttemptRecord]] = defaultdict(list)
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


def variant_results(attempts: Iterable[AttemptRecord], drills: Mapping[str, DrillInfo]) -> list[DrillVariants]:
    """Each practised drill with variant axes, in catalogue order: every value's passes, fails
    and last result (trainer.practice.variants.standings, the rule the scheduler uses)."""
    by_drill: dict[str, list[AttemptRecord]] = defaultdict(list)
    for a in sorted(attempts, key=lambda a: a.started_at):
        by_drill[a.drill].append(a)
    out = []
    for drill, info in drills.items():
        if not info.axes or drill not in by_drill:
            continue
        rows = standings(info.axes, history_of(by_drill[drill]))
        out.append(DrillVariants(drill, tuple(VariantResult(drill, s.axis, s.value, s.default, s.passes, s.fails,
                                                            s.last) for s in rows)))
    return out


def weakest_variants(per_drill: Iterable[DrillVariants], limit: int = WEAKEST) -> list[VariantResult]:
    """The non-default values failed, weakest first: those still failed (last result a fail)
    before those passed since, then by fails less passes, then by drill and label."""
    failed = [v for d in per_drill for v in d.values if v.fails and not v.default]
    failed.sort(key=lambda v: (v.last != "fail", -(v.fails - v.passes), v.drill, v.label))
    return failed[:limit]


def _count(v: Any, top: int) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= top else None


def mock_scores(sessions: Iterable[SessionRecord], tz: tzinfo, limit: int = MOCK_POINTS) -> list[MockScore]:
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
        if not (isinstance(minutes, (int, float)) and not isinstance(minutes, bool) and 0 < minutes < 10_000):
            minutes = None
        out.append(MockScore(s.started_at.astimezone(tz), score, passed, total, None if minutes is None else float(minutes)))
    out.sort(key=lambda m: m.at)
    return out[-limit:] if limit else out


def totals(attempts: Sequence[AttemptRecord], tz: tzinfo) -> Totals:
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
    attempts: Sequence[AttemptRecord],
    due_dates: Iterable[datetime],
    recall: Mapping[str, float],
    drills: Sequence[DrillInfo],
    now: datetime,
    tz: tzinfo,
    since: date | None = None,
    sessions: Iterable[SessionRecord] = (),
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
    per_drill = variant_results(attempts, catalogue)
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
        variants=tuple(per_drill),
        weakest_variants=tuple(weakest_variants(per_drill)),
    )
