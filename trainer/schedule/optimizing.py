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

**A partial fit, with fewer reviews.** fsrs's optimizer learns nothing from
fewer than 512 scored reviews (it returns the defaults). With at least
``PARTIAL_MINIMUM`` scored reviews, ``fit`` instead fits only the initial
stabilities w0-w3 (the stability after a first Again, Hard, Good, Easy): the
parameters FSRS's own pretrain step (fsrs-rs) fits first, from first reviews,
because little data supports them. Each is fitted only when at least
``MIN_FIRSTS`` drills began with that rating and were reviewed again a day or
more later; the other parameters stay at their base (fsrs's defaults). The
fit minimises the same log loss fsrs's optimizer minimises (fsrs's scheduler
replaying each drill's history, non-same-day reviews scored), over those few
numbers alone, plus a pull toward the base value (``PRIOR_REVIEWS``: a
rating few drills began with moves little), and is judged on the held-out
later reviews as a full fit is.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Sequence

from fsrs import Card, Rating, ReviewLog, Scheduler
from fsrs.scheduler import DEFAULT_PARAMETERS, LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS

TRAIN_MINIMUM = 512   # fsrs.optimizer's mini-batch: with fewer it returns the defaults unchanged
HELD_OUT = 0.2        # the latest fifth of the scored reviews is held out
MAX_SEQ = 64          # fsrs.optimizer uses the first 64 reviews of each card
PARTIAL_MINIMUM = 100  # scored reviews for a partial fit (w0-w3): 20 of them held out
MIN_FIRSTS = 5        # drills that began with a rating (and came back a day later) to fit its w
PRIOR_REVIEWS = 1.0    # the base value counts as this many reviews per unit of log-distance squared
INITIAL = (0, 1, 2, 3)  # w0-w3: the initial stability after a first Again, Hard, Good, Easy
RATING_WORDS = ("Again", "Hard", "Good", "Easy")


class NotEnoughReviews(Exception):
    def __init__(self, have: int, need: int, message: str | None = None) -> None:
        self.have, self.need = have, need
        super().__init__(message or (
            f"drill optimize needs at least {need} reviews that come a day or more after the drill's "
            f"previous review (the optimizer learns from those); you have {have}, so {need - have} more "
            f"are needed (a partial fit of the initial stabilities w0-w3 needs {need}; the full fit, "
            f"{needed()}). Nothing was changed."))


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
    fitted: tuple[int, ...] = tuple(range(len(DEFAULT_PARAMETERS)))  # indices of the parameters fitted
    firsts: tuple[int, ...] = ()  # partial fit: drills that began with each rating (Again..Easy)

    @property
    def partial(self) -> bool:
        return len(self.fitted) < len(DEFAULT_PARAMETERS)

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


def first_ratings(points: Sequence[Point]) -> tuple[int, ...]:
    """Per rating (Again..Easy): drills that began with it and have a scored review later."""
    counts = [0, 0, 0, 0]
    for history in _histories(points).values():
        if any((b.at - a.at).days > 0 for a, b in zip(history, history[1:])):
            counts[history[0].rating - 1] += 1
    return tuple(counts)


def _minimise(loss: Any, lo: float, hi: float) -> float:
    """The value in [lo, hi] with the least ``loss``: a log-spaced grid, then golden-section
    search between the best point's neighbours (in log space)."""
    a, b = math.log(lo), math.log(hi)
    inner = loss
    loss = lambda v: inner(min(max(v, lo), hi))  # noqa: E731 - exp(log(x)) may round past a bound
    grid = [a + (b - a) * i / 12 for i in range(13)]
    values = [loss(math.exp(x)) for x in grid]
    best = min(range(13), key=lambda i: values[i])
    left, right = grid[max(0, best - 1)], grid[min(12, best + 1)]
    ratio = (math.sqrt(5) - 1) / 2
    c, d = right - ratio * (right - left), left + ratio * (right - left)
    fc, fd = loss(math.exp(c)), loss(math.exp(d))
    for _ in range(14):
        if fc < fd:
            right, d, fd = d, c, fc
            c = right - ratio * (right - left)
            fc = loss(math.exp(c))
        else:
            left, c, fc = c, d, fd
            d = left + ratio * (right - left)
            fd = loss(math.exp(d))
    found = min(max(math.exp((left + right) / 2), lo), hi)
    return found if loss(found) <= values[best] else min(max(math.exp(grid[best]), lo), hi)


def fit_initial_stabilities(train: Sequence[Point], base: Sequence[float] = DEFAULT_PARAMETERS
                            ) -> tuple[tuple[float, ...], tuple[int, ...]]:
    """``base`` with w0-w3 fitted to ``train`` where MIN_FIRSTS drills support them: the log
    loss fsrs's optimizer minimises, over those parameters alone. Returns (parameters, indices fitted)."""
    firsts = first_ratings(train)
    chosen = tuple(i for i in INITIAL if firsts[i] >= MIN_FIRSTS)
    params = [float(x) for x in base]
    n = max(1, len(scored(train)))
    for _round in range(2):  # the four are nearly independent: two rounds of coordinate descent
        for i in chosen:
            def loss(value: float, i: int = i) -> float:
                trial = list(params)
                trial[i] = value
                prior = PRIOR_REVIEWS * math.log(value / base[i]) ** 2 / n  # pulled toward the base
                return log_loss(train, trial)[0] + prior

            params[i] = _minimise(loss, LOWER_BOUNDS_PARAMETERS[i], UPPER_BOUNDS_PARAMETERS[i])
    return tuple(params), chosen


def fit(points: Sequence[Point], current: Sequence[float] | None = None, *, retention: bool = False) -> Fit:
    """Fit on the earlier reviews, score on the held-out later ones: fsrs's optimizer with
    ``needed()`` scored reviews, the partial fit of w0-w3 with ``PARTIAL_MINIMUM``. Raises
    NotEnoughReviews (before importing anything heavy)."""
    counted = scored(points)
    if len(counted) < PARTIAL_MINIMUM:
        raise NotEnoughReviews(len(counted), PARTIAL_MINIMUM)
    cut = counted[int(len(counted) * (1 - HELD_OUT))].at
    train = [p for p in points if p.at < cut]
    ids = {d: i + 1 for i, d in enumerate(sorted({p.drill for p in points}))}
    firsts: tuple[int, ...] = ()
    if len(counted) >= needed():
        Optimizer = _optimizer()
        fitted = tuple(float(x) for x in Optimizer(_logs(train, ids)).compute_optimal_parameters())
        which = tuple(range(len(DEFAULT_PARAMETERS)))
    else:
        firsts = first_ratings(train)
        fitted, which = fit_initial_stabilities(train)
        if not which:
            raise NotEnoughReviews(len(counted), PARTIAL_MINIMUM, (
                f"a partial fit needs at least {MIN_FIRSTS} drills that began with the same rating and came "
                f"back a day or more later; in the reviews it would learn from (the held-out ones apart), "
                + ", ".join(f"{n} began with {w}" for n, w in zip(firsts, RATING_WORDS))
                + f". The full fit needs {needed()} scored reviews (you have {len(counted)}). Nothing was changed."))
    loss_default, held = log_loss(points, DEFAULT_PARAMETERS, cut)
    loss_fitted, _ = log_loss(points, fitted, cut)
    loss_current = log_loss(points, current, cut)[0] if current is not None else None
    result = Fit(fitted, loss_default, loss_fitted, loss_current, len(scored(train)), held, cut,
                 fitted=which, firsts=firsts)
    if retention:
        Optimizer = _optimizer()
        best = fitted if result.better else (tuple(current) if current is not None and
                                             loss_current is not None and loss_current < loss_default
                                             else DEFAULT_PARAMETERS)
        timed = [p for p in points if p.duration_ms is not None]
        value = Optimizer(_logs(timed, ids)).compute_optimal_retention(list(best)) \
            if len(timed) >= TRAIN_MINIMUM else None
        result = Fit(**{**result.__dict__, "retention": value})
    return result
