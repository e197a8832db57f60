"""The report's scheduler section: the parameters in use, and recall predicted against
recall achieved over the last 30 days (reviews a day or more after the previous one)."""
from __future__ import annotations


import json
from datetime import datetime, timedelta, timezone

import pytest
from fsrs.scheduler import DEFAULT_PARAMETERS
from typer.testing import CliRunner

from trainer.schedule.optimizing import Point, predictions
from trainer.reports.scheduler import lines, scheduler_section
from trainer.store import PARAMETERS_KEY, NewAttempt, open_store

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)


def at(days_ago: float) -> datetime:
    return NOW - timedelta(days=days_ago)


@pytest.fixture
def app(monkeypatch):
    import trainer.cli.reporting as reporting
    from trainer.cli import _register, app

    _register()
    monkeypatch.setattr(reporting, "now", lambda: NOW)
    monkeypatch.setattr(reporting, "local_zone", lambda: timezone.utc)
    return app


def seed() -> None:
    with open_store(clock=lambda: NOW) as store:
        for days, verdict in ((40, "pass"), (20, "pass"), (10, "pass"), (3, "wrong"), (1, "pass")):
            store.record_attempt(NewAttempt("outer-typo", "solve", at(days), 100, verdict, target_seconds=240))


def test_predicted_against_actual_over_the_last_30_days(app):
    seed()
    with open_store(clock=lambda: NOW) as store:
        section = scheduler_section(store.reviews(), store.fitted(), store.settings().retention, NOW)
        points = [Point(r.drill, r.rating, r.reviewed_at) for r in store.reviews()]
    pairs = predictions(points, None, NOW - timedelta(days=30))
    assert section.reviews == 4 == len(pairs)          # days 20, 10, 3 and 1; day 40 is outside
    assert section.actual == pytest.approx(3 / 4)      # the day-3 fail was rated Again
    assert section.predicted == pytest.approx(sum(p for p, _ in pairs) / 4)
    assert section.source == "default" and "FSRS's default parameters" in lines(section)[0]

    data = json.loads(CliRunner().invoke(app, ["report", "--format", "json"]).stdout)
    assert data["scheduler"]["parameters"] == "default"
    assert data["scheduler"]["recall_30d"] == {"reviews": 4, "predicted": round(section.predicted, 4),
                                               "actual": 0.75}
    text = " ".join(CliRunner().invoke(app, ["report"]).stdout.split())  # the words, wherever the width wraps them
    assert "Scheduler" in text and "actual 75% (4 reviews" in text
    assert "## Scheduler" in CliRunner().invoke(app, ["report", "--format", "md"]).stdout
    assert "<h2>Scheduler" in CliRunner().invoke(app, ["report", "--format", "html"]).stdout


def test_fitted_parameters_are_named_with_their_date(app):
    seed()
    with open_store(clock=lambda: NOW) as store:
        store.set_setting(PARAMETERS_KEY, {"parameters": list(DEFAULT_PARAMETERS), "fitted_at": at(2).isoformat(),
                                           "loss_default": 0.45, "loss_fitted": 0.41})
    data = json.loads(CliRunner().invoke(app, ["report", "--format", "json"]).stdout)
    assert data["scheduler"]["parameters"] == "fitted"
    assert data["scheduler"]["fitted_at"].startswith("2026-11-29")
    text = " ".join(CliRunner().invoke(app, ["report"]).stdout.split())  # the words, wherever the width wraps them
    assert "your own parameters, fitted 2026-11-29" in text and "0.410 against 0.450" in text


def test_no_scored_review_yet_says_so():
    section = scheduler_section([], None, 0.9, NOW)
    assert section.reviews == 0 and section.predicted is None
    assert "nothing to compare" in lines(section)[-1]
