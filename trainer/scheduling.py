"""The FSRS adapter: an attempt's verdict, time and hints become a rating, and the
rating moves the drill's card with the `fsrs` package (never re-implemented here).

Rating derivation (``derive_rating``), in this order:

1. verdict ``internal`` (the grader's own fault): no rating at all; the attempt is
   recorded but the card is not touched.
2. any other failed verdict (``wrong``, ``error``, ``timeout``, ``memory``,
   ``output``, ``banned``, ``missing``) or a revealed solution: **Again**.
3. a pass after one or more hints, or a pass slower than the drill's target
   time: **Hard**.
4. a pass on the first try, without hints, in under half the target time: **Easy**.
5. any other pass (within the target): **Good**.

When the target time is unknown (``None``) a pass is Good, or Hard after hints;
Easy needs a known target.

Cards are kept as ``CardState`` (a plain dataclass the store persists); the
fsrs ``Card`` is built from it only for the duration of one review. fsrs 6 has
no "new" state: a drill without a card is new. ``reps`` counts reviews and
``lapses`` counts Again ratings given while the card was in review.

Fuzzing is off so that the same history always gives the same due dates (the
golden tests rely on it; with 32 drills there is no review pile-up to spread).
All datetimes are aware and in UTC.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Callable

from fsrs import Card, Rating, Scheduler, State

from grader.report import SEVERITY

Clock = Callable[[], datetime]

VERDICTS: tuple[str, ...] = tuple(reversed(SEVERITY))  # the one list, grader.report's: pass first
DEFAULT_RETENTION = 0.9
DEFAULT_DAILY_NEW_LIMIT = 3
MIN_RETENTION = 0.7
MAX_RETENTION = 0.97

_STATE_NAMES = {State.Learning: "learning", State.Review: "review", State.Relearning: "relearning"}
_STATE_BY_NAME = {name: state for state, name in _STATE_NAMES.items()}
STATES: tuple[str, ...] = ("new", "learning", "review", "relearning")


def utc_now() -> datetime:
    """The default clock: now, aware, in UTC."""
    return datetime.now(timezone.utc)


def as_utc(moment: datetime) -> datetime:
    """``moment`` converted to UTC; a naive datetime is refused (its zone is unknown)."""
    if moment.tzinfo is None or moment.tzinfo.utcoffset(moment) is None:
        raise ValueError(f"datetime {moment.isoformat()} has no time zone; pass an aware UTC datetime")
    return moment.astimezone(timezone.utc)


@dataclass(frozen=True)
class CardState:
    """One drill's FSRS card as stored (state is one of learning, review, relearning)."""

    drill: str
    state: str
    step: int | None
    stability: float | None
    difficulty: float | None
    due: datetime
    last_review: datetime | None
    reps: int = 0
    lapses: int = 0


@dataclass(frozen=True)
class Review:
    """The outcome of one review: the card after it and the rating that moved it."""

    card: CardState
    rating: Rating
    reviewed_at: datetime
    duration_ms: int | None


def derive_rating(
    verdict: str,
    seconds: float,
    target_seconds: float | None = None,
    *,
    hints: int = 0,
    first_try: bool = True,
    revealed: bool = False,
) -> Rating | None:
    """The FSRS rating an attempt earns (see the module docstring); None for ``internal``."""
    if verdict not in VERDICTS:
        raise ValueError(f"unknown verdict {verdict!r}; expected one of {', '.join(VERDICTS)}")
    if verdict == "internal":
        return None
    if verdict != "pass" or revealed:
        return Rating.Again
    if hints > 0 or (target_seconds is not None and seconds > target_seconds):
        return Rating.Hard
    if first_try and target_seconds is not None and seconds < target_seconds / 2:
        return Rating.Easy
    return Rating.Good


def make_scheduler(desired_retention: float = DEFAULT_RETENTION) -> Scheduler:
    """The fsrs scheduler used everywhere: default parameters, no fuzzing."""
    if not MIN_RETENTION <= desired_retention <= MAX_RETENTION:
        raise ValueError(
            f"retention target {desired_retention} is out of range; "
            f"choose a value from {MIN_RETENTION} to {MAX_RETENTION}"
        )
    return Scheduler(desired_retention=desired_retention, enable_fuzzing=False)


def _to_fsrs(card: CardState | None) -> Card:
    if card is None:
        return Card(card_id=0, due=datetime(1970, 1, 1, tzinfo=timezone.utc))
    return Card(
        card_id=0,
        state=_STATE_BY_NAME[card.state],
        step=card.step,
        stability=card.stability,
        difficulty=card.difficulty,
        due=card.due,
        last_review=card.last_review,
    )


def review(
    drill: str,
    card: CardState | None,
    rating: Rating,
    reviewed_at: datetime,
    *,
    desired_retention: float = DEFAULT_RETENTION,
    duration_ms: int | None = None,
) -> Review:
    """Review ``card`` (None: a new drill) with ``rating`` at ``reviewed_at`` (aware)."""
    when = as_utc(reviewed_at)
    if card is not None and card.last_review is not None and when < card.last_review:
        when = card.last_review  # an out-of-order record never moves time backwards
    scheduler = make_scheduler(desired_retention)
    updated, _log = scheduler.review_card(_to_fsrs(card), rating, when, duration_ms)
    was_review = card is not None and card.state == "review"
    lapsed = 1 if (rating == Rating.Again and was_review) else 0
    new_state = CardState(
        drill=drill,
        state=_STATE_NAMES[updated.state],
        step=updated.step,
        stability=updated.stability,
        difficulty=updated.difficulty,
        due=as_utc(updated.due),
        last_review=as_utc(updated.last_review) if updated.last_review else when,
        reps=(card.reps if card else 0) + 1,
        lapses=(card.lapses if card else 0) + lapsed,
    )
    return Review(card=new_state, rating=rating, reviewed_at=when, duration_ms=duration_ms)


def retrievability(
    card: CardState | None, now: datetime, desired_retention: float = DEFAULT_RETENTION
) -> float:
    """The predicted probability (0..1) of solving the drill at ``now``; 0 for a new drill."""
    if card is None:
        return 0.0
    return float(make_scheduler(desired_retention).get_card_retrievability(_to_fsrs(card), as_utc(now)))


def is_due(card: CardState, now: datetime) -> bool:
    return card.due <= as_utc(now)


def interval(card: CardState) -> timedelta | None:
    """Time from the last review to the due date (None before any review)."""
    return None if card.last_review is None else card.due - card.last_review
