"""The report's scheduler section: the FSRS parameters in use (fsrs's defaults, or
the person's own from `drill optimize`, and when they were fitted), and recall
predicted against recall achieved over the last 30 days, like Anki's true
retention. (The reviews due per day for the next 14 days are the report's own
"Reviews due" table.)

Predicted recall is what the parameters in use now give for each review, with
every drill's history replayed from its start; only reviews that come a day or
more after the drill's previous review count (the ones FSRS predicts), and a
review is recalled unless it was rated Again.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from html import escape
from typing import TYPE_CHECKING, Any, Mapping, Sequence

if TYPE_CHECKING:
    from trainer.store import ReviewRecord

WINDOW_DAYS = 30


@dataclass(frozen=True)
class SchedulerSection:
    fitted_at: datetime | None  # None: fsrs's default parameters
    loss_default: float | None  # the held-out log losses `drill optimize` measured
    loss_fitted: float | None
    retention: float            # the desired retention in use
    reviews: int                # scored reviews in the window
    predicted: float | None     # mean predicted recall over them
    actual: float | None        # share recalled

    @property
    def source(self) -> str:
        return "default" if self.fitted_at is None else "fitted"


def scheduler_section(reviews: Sequence[ReviewRecord], fitted: Mapping[str, Any] | None, retention: float,
                      now: datetime, days: int = WINDOW_DAYS) -> SchedulerSection:
    """From the store's review log (``Store.reviews()``), its ``fitted()`` and retention."""
    from trainer.schedule.optimizing import Point, predictions

    points = [Point(r.drill, int(r.rating), r.reviewed_at, r.duration_ms) for r in reviews]
    parameters = fitted["parameters"] if fitted else None
    pairs = predictions(points, parameters, since=now - timedelta(days=days))
    fitted_at = None
    if fitted:
        try:
            fitted_at = datetime.fromisoformat(str(fitted.get("fitted_at")))
        except ValueError:
            fitted_at = now  # a fit without a date: still the person's own parameters
    return SchedulerSection(
        fitted_at=fitted_at,
        loss_default=fitted.get("loss_default") if fitted else None,
        loss_fitted=fitted.get("loss_fitted") if fitted else None,
        retention=retention, reviews=len(pairs),
        predicted=sum(p for p, _ in pairs) / len(pairs) if pairs else None,
        actual=sum(ok for _, ok in pairs) / len(pairs) if pairs else None,
    )


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{round(100 * value)}%"


def lines(section: SchedulerSection) -> list[str]:
    """Plain sentences (text and markdown renderers wrap them)."""
    if section.fitted_at is None:
        params = "FSRS's default parameters (`drill optimize` fits your own once you have enough reviews)"
    else:
        losses = ""
        if section.loss_default is not None and section.loss_fitted is not None:
            losses = f"; held-out log loss {section.loss_fitted:.3f} against {section.loss_default:.3f} for the defaults"
        params = (f"your own parameters, fitted {section.fitted_at.astimezone().strftime('%Y-%m-%d')}"
                  f"{losses} (`drill optimize --reset` returns to the defaults)")
    out = [f"Parameters: {params}.", f"Desired retention: {_pct(section.retention)}."]
    if section.reviews:
        out.append(f"Recall over the last {WINDOW_DAYS} days: predicted {_pct(section.predicted)}, "
                   f"actual {_pct(section.actual)} ({section.reviews} reviews a day or more after the "
                   f"drill's previous one).")
    else:
        out.append(f"Recall over the last {WINDOW_DAYS} days: no review yet that came a day or more after "
                   f"the drill's previous one, so nothing to compare.")
    return out


def html(section: SchedulerSection) -> str:
    return "".join(f"<p>{escape(line)}</p>" for line in lines(section))


def to_dict(section: SchedulerSection) -> dict[str, Any]:
    return {
        "parameters": section.source,
        "fitted_at": section.fitted_at.isoformat() if section.fitted_at else None,
        "loss_default": section.loss_default, "loss_fitted": section.loss_fitted,
        "retention": section.retention,
        "recall_30d": {"reviews": section.reviews,
                       "predicted": None if section.predicted is None else round(section.predicted, 4),
                       "actual": None if section.actual is None else round(section.actual, 4)},
    }
