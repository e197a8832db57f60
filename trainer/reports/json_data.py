"""The JSON renderer: `drill report --format json`, the report as plain data.

Dates are ISO-8601 and times are seconds; ``format`` numbers the shape so a
script reading it can tell when it changes.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from trainer.reports.model import MOCK_SCORE_FORMULA, Report, VariantResult
from trainer.reports.words import practise_commands

if TYPE_CHECKING:
    from trainer.reports.scheduler import SchedulerSection


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
                      "practise": list(practise_commands(m))} for m in report.mistakes],
        "due": [{"day": d.day.isoformat(), "count": d.count} for d in report.due],
        "weakest": [{"drill": w.drill, "title": w.title, "topic": w.topic,
                     "recall": None if w.recall is None else round(w.recall, 4),
                     "attempts": w.attempts, "passes": w.passes, "first_tries": w.first_tries,
                     "first_passes": w.first_passes, "best": w.best, "target": w.target,
                     "score": w.score, "command": w.command} for w in report.weakest],
        "mocks": {"formula": MOCK_SCORE_FORMULA,
                  "scores": [{"at": m.at.isoformat(), "score": m.score, "passed": m.passed, "total": m.total,
                              "minutes": m.minutes} for m in report.mocks]},
        "variants": [{"drill": d.drill, "values": [_variant_dict(v) for v in d.values]} for d in report.variants],
        "weakest_variants": [_variant_dict(v) for v in report.weakest_variants],
        "next_steps": list(report.next_steps),
        "scheduler": _scheduler_dict(report.scheduler),
    }


def _variant_dict(v: VariantResult) -> dict[str, Any]:
    return {"drill": v.drill, "axis": v.axis, "value": v.value, "default": v.default, "passes": v.passes,
            "fails": v.fails, "last": v.last}


def _scheduler_dict(section: SchedulerSection | None) -> dict[str, Any] | None:
    from trainer.reports.scheduler import to_dict as scheduler_to_dict

    return None if section is None else scheduler_to_dict(section)
