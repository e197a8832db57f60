"""The FSRS adapter: a sitting's submits become one rating, and the rating moves the
drill's card with the `fsrs` package (never re-implemented here).

**One review per sitting.** A sitting is one drill opened in `solve`, a
warm-up, a mock or a team run (or one `check --record` run, or one `watch
--record` from its start to the first pass or Ctrl-C), from opening until it is
passed, skipped, left or out of time. Every graded submit is stored as an
attempt, but the card moves once per sitting, with the rating of the whole
sitting (``sitting_rating``):

1. ``internal`` verdicts (the grader's own fault) do not count as submits.
2. The first pass decides, at once: **Easy** if it was the first submit (no
   counted submit before it, and not marked a retry), without hints, in under
   half the target time; **Hard** after failed submits or hints,
   or over the target time; otherwise **Good** (passed within the target).
3. A revealed solution before any pass decides at once: **Again**.
4. A sitting that closes without a pass (skipped, left, out of time, crashed)
   after at least one counted submit: **Again**.
5. A sitting with no counted submit and no reveal (untouched) moves nothing.

Times are measured from the opening of the sitting. When the target time is
unknown (``None``: graded after the fact, as by `check`) a pass is Good, or
Hard after hints or failed submits; Easy needs a known target. The review is
dated at the end of the deciding submit. ``derive_rating`` is the same rule for
a sitting of one submit.

Cards are kept as ``CardState`` (a plain dataclass the store persists); the
fsrs ``Card`` is built from it only for the duration of one review. fsrs 6 has
no "new" state: a drill without a card is new. ``reps`` counts reviews and
``lapses`` counts Again ratings given while the card was in review.

The scheduler uses fsrs's default parameters unless `drill optimize` fitted
the person's own (``parameters``; 21 numbers within fsrs's bounds).
Fuzzing is off so that the same history always gives the same due dates (the
golden tests rely on it; with 32 drills there is no review pile-up to spread).
All datetimes are aware and in UTC.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Sequence

from fsrs import Card, Rating, Scheduler, State
from fsrs.scheduler import DEFAULT_PARAMETERS, LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS

from grader.report import SEVERITY

VERDICTS: tuple[str, ...] = tuple(reversed(SEVERITY))  # the one list, grader.report's: pass first
DEFAULT_RETENTION = 0.9
DEFAULT_DAILY_NEW_LIMIT = 3
MIN_RETENTION = 0.7
MAX_RETENTION = 0.97

_STATE_NAMES = {State.Learning: "learning", State.Review: "review", State.Relearning: "relearning"}
_STATE_BY_NAME = {name: state for state, name in _STATE_NAMES.items()}
STATES: tuple[str, ...] = ("new", "learning", "review", "relearning")


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
    """The rating of a sitting of one submit (see the module docstring); None for ``internal``."""
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


@dataclass(frozen=True)
class Submit:
    """One recorded attempt of a sitting, as the rating sees it (``seconds`` from the opening)."""

    verdict: str
    seconds: float
    hints: int = 0
    revealed: bool = False
    first_try: bool = True


@dataclass(frozen=True)
class SittingRating:
    """The rating a sitting earned and the index (in its submits) of the submit that decided
    it; ``index`` is None when a reveal reported only at closing decided it."""

    rating: Rating
    index: int | None


def sitting_rating(submits: Sequence[Submit], target_seconds: float | None = None, *,
                   closed: bool, revealed: bool = False) -> SittingRating | None:
    """The one rating of a sitting (rules in the module docstring). None while an open
    sitting is undecided, and for an untouched sitting."""
    counted = 0
    last_counted: int | None = None
    for i, s in enumerate(submits):
        if s.verdict not in VERDICTS:
            raise ValueError(f"unknown verdict {s.verdict!r}; expected one of {', '.join(VERDICTS)}")
        if s.verdict == "internal":
            continue
        if s.revealed:
            return SittingRating(Rating.Again, i)
        if s.verdict == "pass":
            rating = derive_rating("pass", s.seconds, target_seconds, hints=s.hints,
                                   first_try=s.first_try and counted == 0)
            assert rating is not None  # only an `internal` verdict has no rating
            if counted and rating in (Rating.Easy, Rating.Good):
                rating = Rating.Hard  # passed after failed submits
            return SittingRating(rating, i)
        counted += 1
        last_counted = i
    if not closed:
        return None
    if revealed:
        return SittingRating(Rating.Again, last_counted)
    return SittingRating(Rating.Again, last_counted) if counted else None


def check_parameters(parameters: Sequence[float]) -> tuple[float, ...]:
    """``parameters`` as a tuple of 21 floats within fsrs's bounds (ValueError otherwise)."""
    values = list(parameters)
    if len(values) != len(DEFAULT_PARAMETERS):
        raise ValueError(f"FSRS parameters must be {len(DEFAULT_PARAMETERS)} numbers, got {len(values)}")
    out = []
    for i, (v, lo, hi) in enumerate(zip(values, LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not lo <= float(v) <= hi:
            raise ValueError(f"FSRS parameter w{i} must be a number from {lo} to {hi}, got {v!r:.20}")
        out.append(float(v))
    return tuple(out)


def make_scheduler(desired_retention: float = DEFAULT_RETENTION,
                   parameters: Sequence[float] | None = None) -> Scheduler:
    """The fsrs scheduler used everywhere: the given (fitted) or default parameters, no fuzzing."""
    if not MIN_RETENTION <= desired_retention <= MAX_RETENTION:
        raise ValueError(
            f"retention target {desired_retention} is out of range; "
            f"choose a value from {MIN_RETENTION} to {MAX_RETENTION}"
        )
    params = DEFAULT_PARAMETERS if parameters is None else check_parameters(parameters)
    return Scheduler(parameters=params, desired_retention=desired_retention, enable_fuzzing=False)


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
    parameters: Sequence[float] | None = None,
) -> Review:
    """Review ``card`` (None: a new drill) with ``rating`` at ``reviewed_at`` (aware)."""
    when = as_utc(reviewed_at)
    if card is not None and card.last_review is not None and when < card.last_review:
        when = card.last_review  # an out-of-order record never moves time backwards
    scheduler = make_scheduler(desired_retention, parameters)
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
    card: CardState | None, now: datetime, desired_retention: float = DEFAULT_RETENTION,
    parameters: Sequence[float] | None = None,
) -> float:
    """The predicted probability (0..1) of solving the drill at ``now``; 0 for a new drill."""
    if card is None:
        return 0.0
    return float(make_scheduler(desired_retention, parameters).get_card_retrievability(_to_fsrs(card), as_utc(now)))


def is_due(card: CardState, now: datetime) -> bool:
    return card.due <= as_utc(now)


def interval(card: CardState) -> timedelta | None:
    """Time from the last review to the due date (None before any review)."""
    return None if card.last_review is None else card.due - card.last_review
