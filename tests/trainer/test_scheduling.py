"""Rating derivation and golden FSRS intervals (fixed UTC dates, fuzzing off).

The pinned due dates were computed once with fsrs 6.3.2 (default parameters)
and are pinned here so that a change of package version or of the adapter
shows up as a failing test, not as silently different schedules."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from fsrs import Rating

from trainer.schedule.adapter import derive_rating, make_scheduler, retrievability, review
from trainer.store import NewAttempt, open_store

T0 = datetime(2025, 1, 6, 9, 0, tzinfo=timezone.utc)


@pytest.fixture(autouse=True)
def _home(monkeypatch, tmp_path):
    monkeypatch.setenv("DRILL_HOME", str(tmp_path / "home"))


# ------------------------------------------------------------ rating derivation

@pytest.mark.parametrize(
    "verdict, seconds, target, hints, first_try, revealed, expected",
    [
        ("wrong", 10, 100, 0, True, False, Rating.Again),
        ("error", 10, 100, 0, True, False, Rating.Again),
        ("timeout", 10, 100, 0, True, False, Rating.Again),
        ("memory", 10, 100, 0, True, False, Rating.Again),
        ("output", 10, 100, 0, True, False, Rating.Again),
        ("banned", 10, 100, 0, True, False, Rating.Again),
        ("missing", 10, 100, 0, True, False, Rating.Again),
        ("pass", 10, 100, 0, True, True, Rating.Again),      # revealed solution
        ("pass", 101, 100, 0, True, False, Rating.Hard),     # over target
        ("pass", 30, 100, 1, True, False, Rating.Hard),      # after a hint, even if fast
        ("pass", 49, 100, 0, True, False, Rating.Easy),      # first try, under half
        ("pass", 50, 100, 0, True, False, Rating.Good),      # exactly half is not under half
        ("pass", 49, 100, 0, False, False, Rating.Good),     # fast but not first try
        ("pass", 100, 100, 0, True, False, Rating.Good),     # exactly on target
        ("pass", 10, None, 0, True, False, Rating.Good),     # no target: never Easy
        ("pass", 10, None, 2, True, False, Rating.Hard),
    ],
)
def test_derive_rating(verdict, seconds, target, hints, first_try, revealed, expected):
    assert derive_rating(verdict, seconds, target, hints=hints, first_try=first_try,
                         revealed=revealed) == expected


def test_internal_has_no_rating_and_unknown_verdict_is_refused():
    assert derive_rating("internal", 1, 100) is None
    with pytest.raises(ValueError, match="unknown verdict"):
        derive_rating("passed", 1, 100)


def test_naive_datetimes_and_bad_retention_are_refused():
    with pytest.raises(ValueError, match="time zone"):
        review("x", None, Rating.Good, datetime(2025, 1, 6, 9, 0))
    with pytest.raises(ValueError, match="retention"):
        make_scheduler(0.5)


# ------------------------------------------------------------ golden intervals

@pytest.mark.parametrize("rating, state, step, delay", [
    (Rating.Again, "learning", 0, timedelta(minutes=1)),
    (Rating.Hard, "learning", 0, timedelta(minutes=5, seconds=30)),
    (Rating.Good, "learning", 1, timedelta(minutes=10)),
    (Rating.Easy, "review", None, timedelta(days=8)),
])
def test_golden_first_review(rating, state, step, delay):
    card = review("mha-padding", None, rating, T0).card
    assert (card.state, card.step, card.due - T0) == (state, step, delay)
    assert card.last_review == T0 and card.reps == 1 and card.lapses == 0


def test_golden_chain_of_goods_then_a_lapse():
    expected = [
        ("learning", "2025-01-06T09:10:00+00:00"),
        ("review", "2025-01-08T09:10:00+00:00"),
        ("review", "2025-01-19T09:10:00+00:00"),
        ("review", "2025-03-06T09:10:00+00:00"),
        ("review", "2025-08-16T09:10:00+00:00"),
        ("review", "2026-12-27T09:10:00+00:00"),
    ]
    card, when = None, T0
    for state, due in expected:
        card = review("gqa", card, Rating.Good, when).card
        assert (card.state, card.due.isoformat()) == (state, due)
        when = card.due
    card = review("gqa", card, Rating.Again, when).card
    assert (card.state, card.due.isoformat(), card.reps, card.lapses) == (
        "relearning", "2026-12-27T09:20:00+00:00", 7, 1)
    card = review("gqa", card, Rating.Good, card.due).card
    assert (card.state, card.due.isoformat(), card.reps, card.lapses) == (
        "review", "2027-01-03T09:20:00+00:00", 8, 1)


@pytest.mark.parametrize("retention, due", [
    (0.8, "2025-02-03T09:00:00+00:00"),
    (0.9, "2025-01-14T09:00:00+00:00"),
    (0.95, "2025-01-09T09:00:00+00:00"),
])
def test_golden_retention_target_changes_the_interval(retention, due):
    assert review("x", None, Rating.Easy, T0, desired_retention=retention).card.due.isoformat() == due


def test_golden_through_the_store_with_fixed_clock(tmp_path):
    """End to end: attempts recorded with fixed UTC times move the card exactly as pinned,
    the retention setting is honoured, and `internal` never touches the card."""
    with open_store(tmp_path / "h", clock=lambda: T0) as store:
        r1 = store.record_attempt(NewAttempt("top-p", "solve", T0, 30.0, "pass", target_seconds=300))
        assert r1.rating == Rating.Easy and r1.due == T0 + timedelta(seconds=30, days=8)
        t1 = r1.due
        r2 = store.record_attempt(NewAttempt("top-p", "solve", t1, 400.0, "pass", target_seconds=300))
        assert r2.rating == Rating.Hard and r2.card.state == "review"
        pinned_due = r2.due
        r3 = store.record_attempt(NewAttempt("top-p", "solve", t1 + timedelta(hours=1), 5, "internal"))
        assert r3.rating is None and r3.due == pinned_due and store.card("top-p") == r2.card
        r4 = store.record_attempt(NewAttempt("top-p", "solve", pinned_due, 20.0, "wrong", target_seconds=300))
        assert (r4.rating, r4.card.state, r4.card.lapses) == (Rating.Again, "relearning", 1)
        assert r4.due == pinned_due + timedelta(seconds=20, minutes=10)
        assert r2.due.isoformat() == "2025-02-10T09:07:10+00:00"

        store.set_setting("retention", 0.8)
        r5 = store.record_attempt(NewAttempt("gqa", "solve", T0, 30.0, "pass", target_seconds=300))
        assert r5.due == datetime(2025, 2, 3, 9, 0, 30, tzinfo=timezone.utc)


def test_retrievability():
    assert retrievability(None, T0) == 0.0
    card = review("x", None, Rating.Easy, T0).card
    assert retrievability(card, T0) == pytest.approx(1.0)
    at_due = retrievability(card, card.due)
    assert 0.88 < at_due < 0.92
    assert retrievability(card, card.due + timedelta(days=30)) < at_due
