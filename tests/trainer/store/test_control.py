"""Card control: suspend and bury (kept out of due lists, new drills, list, the status and
the report's due calendar), undo the last review, re-rate it once; the v4 migration from
an empty and from a v3 database; and the commands through typer's CliRunner."""
from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from typer.testing import CliRunner

from trainer.schedule.adapter import review as fsrs_review
from trainer.schedule.due import card_dues, read_agenda
from trainer.store import MIGRATIONS, SCHEMA_VERSION, NewAttempt, list_backups, open_store
from trainer.store.control import CannotChange
from fsrs import Rating
from tests.builtin import builtin_catalogue

BUILTIN = len(builtin_catalogue().specs)  # the built-in drills the status counts

T0 = datetime(2025, 3, 3, 8, 0, tzinfo=timezone.utc)


class Clock:
    def __init__(self, now: datetime = T0) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def home(monkeypatch, tmp_path) -> Path:
    path = tmp_path / "home"
    monkeypatch.setenv("DRILL_HOME", str(path))
    return path


def _pass(store, drill="gqa", at=T0, seconds=100.0, verdict="pass"):
    return store.record_attempt(NewAttempt(drill, "solve", at, seconds, verdict, target_seconds=300))


# ------------------------------------------------------------ holds

def test_suspended_and_buried_drills_leave_the_agenda_and_come_back(home):
    clock = Clock()
    with open_store(clock=clock) as store:
        _pass(store, "gqa")
        _pass(store, "top-p")
        later = T0 + timedelta(days=30)  # both due by then
        assert set(store.due(later)) == {"gqa", "top-p"}
        assert store.suspend("gqa") is True and store.suspend("gqa") is False
        store.bury("top-p", later + timedelta(hours=6))
        assert store.due(later) == []
        agenda = read_agenda(store, None, later)
        assert agenda.due == () and agenda.suspended == ("gqa",)
        assert [d for d, _ in agenda.buried] == ["top-p"]
        assert [d for d, _ in agenda.upcoming] == ["top-p"]  # back at the end of the burial
        assert "gqa" not in agenda.fresh and "gqa" not in agenda.new
        assert len(card_dues(store)) == 1  # the suspended card is off the report's calendar
        assert store.due(later + timedelta(hours=7)) == ["top-p"]  # burial over
        store.suspend("gqa", False)
        assert set(store.due(later + timedelta(hours=7))) == {"gqa", "top-p"}
        assert store.holds() == {"top-p": store.holds()["top-p"]}  # unsuspending removed gqa's hold


def test_a_suspended_new_drill_is_not_offered_as_new(home):
    with open_store(clock=Clock()) as store:
        first = read_agenda(store, None, T0).new[0]
        store.suspend(first)
        assert first not in read_agenda(store, None, T0).new


# ------------------------------------------------------------ undo and re-rate

def test_undo_puts_the_card_back_removes_the_sitting_and_keeps_a_backup(home):
    clock = Clock()
    with open_store(clock=clock) as store:
        _pass(store, "gqa", T0)
        before = store.card("gqa")
        _pass(store, "gqa", T0 + timedelta(days=5), verdict="wrong")
        assert store.card("gqa") != before
        change = store.undo_last_review()
        assert change is not None and change.drill == "gqa" and change.rating == 1 and change.attempts_removed == 1
        assert store.card("gqa") == before
        assert [a.verdict for a in store.attempts()] == ["pass"] and len(store.reviews()) == 1
        assert change.backup in list_backups(home) and "pre-undo" in change.backup.name
        change = store.undo_last_review()  # the first review too: the drill is new again
        assert change is not None and change.card is None and store.card("gqa") is None
        assert store.attempts() == [] and store.undo_last_review() is None


def test_undo_of_a_mock_drill_takes_its_share_out_of_the_mock_score(home):
    from trainer.practice.flows import MockReport, MockRow, score

    rows = [MockRow("gqa", "passed", 60.0, 300.0, 1, ()), MockRow("top-p", "passed", 200.0, 300.0, 2, ())]
    report = MockReport(1, 30.0, rows, 2, 2, score(rows), 260.0)
    with open_store(clock=Clock()) as store:
        sid = store.start_session("mock")
        store.record_attempt(NewAttempt("gqa", "mock", T0, 60, "pass", session_id=sid, target_seconds=300))
        store.record_attempt(NewAttempt("top-p", "mock", T0 + timedelta(minutes=2), 200, "pass", session_id=sid,
                                        target_seconds=300, first_try=False))
        store.end_session(sid, report.to_dict())
        before = store.sessions()[-1].summary
        assert before["score"] == report.score == 92  # gqa 1.0, top-p 0.7 + 0.2 * 2/3, second try
        change = store.undo_last_review()
        assert change is not None and change.drill == "top-p"
        after = store.sessions()[-1].summary
        assert after["score"] == 50 and after["passed"] == 1 and after["undone"] == ["top-p"]
        assert [d["status"] for d in after["drills"]] == ["passed", "undone"]


def test_undo_of_a_mock_drill_in_an_old_summary_drops_its_score(home):
    with open_store(clock=Clock()) as store:
        sid = store.start_session("mock")
        store.record_attempt(NewAttempt("gqa", "mock", T0, 60, "pass", session_id=sid, target_seconds=300))
        store.end_session(sid, {"score": 100, "passed": 1, "total": 1, "drills": [{"drill": "gqa", "status": "passed"}]})
        assert store.undo_last_review() is not None
        after = store.sessions()[-1].summary
        assert "score" not in after and after["passed"] == 0 and after["drills"][0]["status"] == "undone"


def test_rerate_reviews_the_card_before_again_with_the_new_rating(home):
    with open_store(clock=Clock()) as store:
        _pass(store, "gqa", T0)
        result = _pass(store, "gqa", T0 + timedelta(days=3))
        first = store.reviews()[0]
        change = store.rerate_last_review("gqa", 1)
        assert change is not None and (change.rating, change.new_rating) == (result.rating, 1)
        # what fsrs gives the card before the second review, rated Again at the same time
        card_before = fsrs_review("gqa", None, Rating(first.rating), first.reviewed_at).card
        expected = fsrs_review("gqa", card_before, Rating.Again, store.reviews()[1].reviewed_at).card
        assert store.card("gqa") == expected
        assert [r.rating for r in store.reviews()] == [first.rating, 1]
        assert store.attempts()[-1].rating == 1
        row = store._conn.execute("SELECT overridden_from FROM review_logs ORDER BY id DESC").fetchone()
        assert row[0] == result.rating
        assert store.rerate_last_review("top-p", 3) is None


def test_a_review_is_re_rated_once(home):
    with open_store(clock=Clock()) as store:
        _pass(store, "gqa", T0)
        assert store.rerate_last_review("gqa", 1) is not None
        card = store.card("gqa")
        with pytest.raises(CannotChange, match="re-rated already .* overridden once"):
            store.rerate_last_review("gqa", 4)
        assert store.card("gqa") == card and [r.rating for r in store.reviews()] == [1]


# ------------------------------------------------------------ migration v4

def test_v4_from_an_empty_file(home):
    home.mkdir()
    (home / "progress.db").write_bytes(b"")
    with open_store(clock=Clock()) as store:
        assert store.schema_version() == SCHEMA_VERSION == 5
        store.suspend("gqa")
        _pass(store, "top-p")
        assert store.undo_last_review() is not None


def test_v4_from_a_v3_file_keeps_everything_and_refuses_an_inexact_undo(home):
    home.mkdir()
    # a real v3 file with one review: made by the v3 steps, the review logged as v3 logged it
    conn = sqlite3.connect(home / "progress.db", isolation_level=None)
    for step in MIGRATIONS[:3]:
        for statement in step:
            statement(conn) if callable(statement) else conn.execute(statement)
    conn.execute("INSERT INTO sittings(uid, drill, mode, opened_at, closed_at, outcome, rating) "
                 "VALUES ('s1', 'gqa', 'solve', '2025-03-01T08:00:00.000000+00:00', "
                 "'2025-03-01T08:02:00.000000+00:00', 'passed', 3)")
    conn.execute("INSERT INTO attempts(uid, drill, mode, started_at, seconds, verdict, sitting_id) "
                 "VALUES ('a1', 'gqa', 'solve', '2025-03-01T08:00:00.000000+00:00', 120, 'pass', 1)")
    conn.execute("INSERT INTO cards VALUES ('gqa', 'learning', 1, 2.3, 5.0, '2025-03-01T08:12:00.000000+00:00', "
                 "'2025-03-01T08:02:00.000000+00:00', 1, 0)")
    conn.execute("INSERT INTO review_logs(attempt_id, sitting_id, drill, rating, reviewed_at, duration_ms) "
                 "VALUES (1, 1, 'gqa', 3, '2025-03-01T08:02:00.000000+00:00', 120000)")
    conn.execute("PRAGMA user_version = 3")
    conn.close()
    with open_store(clock=Clock()) as store:
        assert store.schema_version() == 5
        assert [a.uid for a in store.attempts()] == ["a1"] and store.card("gqa").stability == 2.3
        assert store.holds() == {}
        with pytest.raises(CannotChange, match="recorded without a copy of the card"):
            store.undo_last_review()
        with pytest.raises(CannotChange):
            store.rerate_last_review("gqa", 1)
        assert store.card("gqa").stability == 2.3 and len(store.attempts()) == 1  # nothing changed
        _pass(store, "gqa", T0)  # a review logged from v4 on can be undone
        assert store.undo_last_review() is not None and store.card("gqa").stability == 2.3
    assert any(f"pre-v{SCHEMA_VERSION}" in p.name for p in list_backups(home))


# ------------------------------------------------------------ the commands

@pytest.fixture(scope="module")
def app():
    from trainer.cli import _register, app

    _register()
    return app


def run(app, *args: str):
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "300"})


def test_commands_say_what_they_did(app, home):
    now = datetime.now(timezone.utc)
    with open_store(home) as store:
        store.record_attempt(NewAttempt("gqa", "solve", now - timedelta(days=40), 100, "pass", target_seconds=300))
        store.record_attempt(NewAttempt("top-p", "solve", now - timedelta(days=40), 100, "pass", target_seconds=300))
    status = run(app).output
    assert f"Overall: passed 2/{BUILTIN}, 2 due" in status
    out = run(app, "suspend", "gqa").output
    assert "Suspended gqa" in out and "drill unsuspend gqa" in out
    out = run(app, "bury", "top-p").output
    assert "Buried top-p until tomorrow" in out and "was due" in out
    assert f"Overall: passed 2/{BUILTIN}, 0 due, 1 suspended, 1 buried" in run(app).output
    listing = run(app, "list").output
    assert any("gqa" in line and "suspended" in line for line in listing.splitlines())
    assert any("top-p" in line and "buried" in line for line in listing.splitlines())
    assert "Nothing is due now" in run(app, "list", "--due").output
    assert "Unsuspended gqa. It is due now." in run(app, "unsuspend", "gqa").output
    assert "Dug up top-p" in run(app, "bury", "top-p", "--off").output
    out = run(app, "rate", "gqa", "again")
    assert out.exit_code == 0 and "is now Again (was Easy)" in out.output and "Next review of gqa" in out.output
    out = run(app, "undo", "-y").output
    assert "Undid the review of" in out and "1 attempt was removed" in out and "drill restore` with that file" in out
    bad = run(app, "rate", "gqa", "meh")
    assert bad.exit_code == 2 and "again, hard, good, easy" in bad.output
    assert run(app, "suspend", "no-such-drill").exit_code == 2
