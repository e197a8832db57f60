"""`drill optimize`: fit FSRS's parameters to the person's own review log.

The fit is `fsrs.optimizer.Optimizer` (the package's own; nothing of FSRS is
re-implemented here). What this module adds is the honest comparison: the
reviews are split by time, the optimizer sees only the earlier part, and the
default and the fitted parameters are both scored by their log loss on the
later, held-out reviews (each drill's whole history is replayed so that the
prediction for a held-out review has its real past). Like fsrs, only reviews
that come a day or more after the drill's previous review are scored or
learnt from (same-day re-reviews say little about memory), and only the first
``MAX_SEQ`` reviews of each drill are used.

The optimizer imports torch, pandas and tqdm (all main dependencies), so it
is imported only when a fit runs.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Sequence

from fsrs import Card, Rating, ReviewLog, Scheduler
from fsrs.scheduler import DEFAULT_PARAMETERS

TRAIN_MINIMUM = 512   # fsrs.optimizer's mini-batch: with fewer it returns the defaults unchanged
HELD_OUT = 0.2        # the latest fifth of the scored reviews is held out
MAX_SEQ = 64          # fsrs.optimizer uses the first 64 reviews of each card


class NotEnoughReviews(Exception):
    def __init__(self, have: int, need: int) -> None:
        self.have, self.need = have, need
        super().__init__(
            f"drill optimize needs at least {need} reviews that come a day or more after the drill's "
            f"previous review (the optimizer learns from those); you have {have}, so {need - have} more "
            f"are needed. Nothing was changed.")


@dataclass(frozen=True)
class Point:
    """One review: which drill, its rating (1-4), when, and how long it took (ms)."""

    drill: str
    rating: int
    at: datetime
    duration_ms: int | None = None


@dataclass(frozen=True)
class Fit:
    parameters: tuple[float, ...]
    loss_default: float
    loss_fitted: float
    loss_current: float | None  # the fitted parameters in use before, when there were any
    trained_on: int             # scored reviews the optimizer learnt from
    held_out: int               # scored reviews held out
    held_out_from: datetime
    retention: float | None = None

    @property
    def best_before(self) -> float:
        return min(self.loss_default, self.loss_current if self.loss_current is not None else math.inf)

    @property
    def better(self) -> bool:
        return self.loss_fitted < self.best_before


def needed() -> int:
    """Scored reviews needed in all: enough that the training part reaches TRAIN_MINIMUM."""
    return math.ceil(TRAIN_MINIMUM / (1 - HELD_OUT))


def _histories(points: Sequence[Point]) -> dict[str, list[Point]]:
    out: dict[str, list[Point]] = {}
    for p in sorted(points, key=lambda p: (p.at, p.drill)):
        out.setdefault(p.drill, []).append(p)
    return {d: h[:MAX_SEQ] for d, h in out.items()}


def scored(points: Sequence[Point]) -> list[Point]:
    """The reviews a day or more after the same drill's previous one (what fsrs scores)."""
    out = []
    for history in _histories(points).values():
        out += [b for a, b in zip(history, history[1:]) if (b.at - a.at).days > 0]
    return sorted(out, key=lambda p: (p.at, p.drill))


def predictions(points: Sequence[Point], parameters: Sequence[float] | None = None,
                since: datetime | None = None) -> list[tuple[float, bool]]:
    """(predicted recall, recalled) for each scored review at or after ``since``, replaying
    every drill's history from its start with ``parameters`` (None: fsrs's defaults).
    Recalled means any rating but Again."""
    scheduler = Scheduler(parameters=tuple(parameters or DEFAULT_PARAMETERS), enable_fuzzing=False)
    out = []
    for drill_index, history in enumerate(_histories(points).values()):
        card = Card(card_id=drill_index + 1, due=history[0].at)
        for p in history:
            if card.last_review is not None and (p.at - card.last_review).days > 0 \
                    and (since is None or p.at >= since):
                out.append((float(scheduler.get_card_retrievability(card, p.at)), p.rating != Rating.Again))
            card, _ = scheduler.review_card(card, Rating(p.rating), p.at)
    return out


def log_loss(points: Sequence[Point], parameters: Sequence[float], since: datetime | None = None) -> tuple[float, int]:
    """Mean binary log loss of the predicted recall on the scored reviews at or after ``since``."""
    pairs = predictions(points, parameters, since)
    total = 0.0
    for r, recalled in pairs:
        r = min(max(r, 1e-6), 1 - 1e-6)
        total -= math.log(r) if recalled else math.log(1 - r)
    return (total / len(pairs) if pairs else math.nan), len(pairs)


def _optimizer() -> Any:
    from fsrs.optimizer import Optimizer  # torch, pandas and tqdm: only when a fit runs

    return Optimizer


def _logs(points: Sequence[Point], ids: dict[str, int]) -> list[ReviewLog]:
    return [ReviewLog(card_id=ids[p.drill], rating=Rating(p.rating), review_datetime=p.at,
                      review_duration=p.duration_ms) for p in points]


def fit(points: Sequence[Point], current: Sequence[float] | None = None, *, retention: bool = False) -> Fit:
    """Fit on the earlier reviews, score on the held-out later ones. Raises NotEnoughReviews
    (before importing anything heavy)."""
    counted = scored(points)
    if len(counted) < needed():
        raise NotEnoughReviews(len(counted), needed())
    Optimizer = _optimizer()
    cut = counted[int(len(counted) * (1 - HELD_OUT))].at
    train = [p for p in points if p.at < cut]
    ids = {d: i + 1 for i, d in enumerate(sorted({p.drill for p in points}))}
    fitted = tuple(float(x) for x in Optimizer(_logs(train, ids)).compute_optimal_parameters())
    loss_default, held = log_loss(points, DEFAULT_PARAMETERS, cut)
    loss_fitted, _ = log_loss(points, fitted, cut)
    loss_current = log_loss(points, current, cut)[0] if current is not None else None
    result = Fit(fitted, loss_default, loss_fitted, loss_current, len(scored(train)), held, cut)
    if retention:
        best = fitted if result.better else (tuple(current) if current is not None and
                                             loss_current is not None and loss_current < loss_default
                                             else DEFAULT_PARAMETERS)
        timed = [p for p in points if p.duration_ms is not None]
        value = Optimizer(_logs(timed, ids)).compute_optimal_retention(list(best)) \
            if len(timed) >= TRAIN_MINIMUM else None
        result = Fit(**{**result.__dict__, "retention": value})
    return result
