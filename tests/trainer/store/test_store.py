"""The progress store: pragmas, migrations, corrupt and newer files, read-only homes,
records and reads, export/import, reset, backups and settings."""
from __future__ import annotations

from tests.paths import REPO

import dataclasses
import hashlib
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest

import trainer.store as store_mod
import trainer.store.connection as connection_mod
import trainer.store.migrations as migrations_mod
from trainer.store import (
    KEEP_BACKUPS,
    MIGRATIONS,
    SCHEMA_VERSION,
    NewAttempt,
    CorruptDatabaseError,
    HomeNotWritableError,
    ImportRefusedError,
    NewerSchemaError,
    NoDatabaseError,
    StoreBusyError,
    StoreError,
    database_exists,
    list_backups,
    open_store,
    restore_backup,
    validate_export,
)

T0 = datetime(2025, 3, 3, 8, 0, tzinfo=timezone.utc)


class Clock:
    """A settable fixed clock."""

    def __init__(self, now: datetime = T0) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def home(monkeypatch, tmp_path) -> Path:
    path = tmp_path / "home"
    monkeypatch.setenv("DRILL_HOME", str(path))
    return path


def _record(store, drill="mha-padding", verdict="pass", at=T0, seconds=60.0, **kw):
    return store.record_attempt(NewAttempt(drill, "solve", at, seconds, verdict, target_seconds=300, **kw))


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# ------------------------------------------------------------ opening and pragmas

def test_open_creates_database_in_drill_home_with_pragmas(home):
    with open_store(clock=Clock()) as store:
        conn = store._conn
        assert store.path == home / "progress.db" and store.path.is_file()
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == store_mod.BUSY_TIMEOUT_MS
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        assert store.schema_version() == SCHEMA_VERSION == 5


def test_create_false_does_not_create(home):
    assert not database_exists()
    with pytest.raises(NoDatabaseError):
        open_store(create=False)
    assert not (home / "progress.db").exists()


# ------------------------------------------------------------ migrations

def test_migration_from_an_empty_file(home):
    home.mkdir()
    (home / "progress.db").write_bytes(b"")
    with open_store(clock=Clock()) as store:
        assert store.schema_version() == SCHEMA_VERSION
        _record(store)
        assert store.counts()["attempts"] == 1
    assert list_backups(home) == [] or all("pre-" not in p.name for p in list_backups(home))


def _build_v1(path: Path) -> None:
    """A file exactly as version 1 of the program left it, with data in every table."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    for statement in MIGRATIONS[0]:
        conn.execute(statement)
    conn.execute("INSERT INTO sessions(kind, started_at, meta) VALUES ('mock', '2025-01-01T10:00:00.000000+00:00', '{}')")
    conn.execute("INSERT INTO attempts(uid, drill, mode, started_at, seconds, verdict, hints, code, session_id) "
                 "VALUES ('u1', 'gqa', 'mock', '2025-01-01T10:01:00.000000+00:00', 42.5, 'pass', 0, 'def f(): pass', 1)")
    conn.execute("INSERT INTO cards VALUES ('gqa', 'review', NULL, 8.3, 1.0, "
                 "'2025-01-09T10:01:42.500000+00:00', '2025-01-01T10:01:42.500000+00:00', 1, 0)")
    conn.execute("INSERT INTO review_logs(attempt_id, drill, rating, reviewed_at, duration_ms) "
                 "VALUES (1, 'gqa', 4, '2025-01-01T10:01:42.500000+00:00', 42500)")
    conn.execute("INSERT INTO settings VALUES ('retention', '0.85')")
    conn.execute("PRAGMA user_version = 1")
    conn.close()


def test_migration_from_v1_keeps_data_and_takes_a_backup(home):
    home.mkdir()
    _build_v1(home / "progress.db")
    with open_store(clock=Clock()) as store:
        assert store.schema_version() == SCHEMA_VERSION
        [attempt] = store.attempts()
        # the v3 replay re-rated the pass: v1 kept no target time, so it is Good, not Easy
        assert (attempt.uid, attempt.drill, attempt.seconds, attempt.code, attempt.rating) == (
            "u1", "gqa", 42.5, "def f(): pass", 3)
        assert attempt.traps == () and attempt.revealed is False and attempt.first_try is True
        [session] = store.sessions()
        assert session.kind == "mock" and len(session.uid) == 32 and attempt.session_id == session.id
        assert store.card("gqa").reps == 1 and store.card("gqa").stability != 8.3  # rebuilt by the replay
        assert store.settings().retention == 0.85
        assert store.integrity_check() == "ok"
        _record(store, "gqa", traps=["repeat-tiling"])
        assert store.attempts()[-1].traps == ("repeat-tiling",)
    backups = [p for p in list_backups(home) if f"pre-v{SCHEMA_VERSION}" in p.name]
    assert len(backups) == 1
    old = sqlite3.connect(backups[0])
    assert old.execute("PRAGMA user_version").fetchone()[0] == 1
    assert old.execute("SELECT uid FROM attempts").fetchall() == [("u1",)]
    old.close()


def test_a_failing_migration_step_leaves_the_previous_version_intact(home, monkeypatch):
    home.mkdir()
    _build_v1(home / "progress.db")
    broken = MIGRATIONS + (("ALTER TABLE attempts ADD COLUMN extra TEXT", "THIS IS NOT SQL"),)
    monkeypatch.setattr(migrations_mod, "MIGRATIONS", broken)
    monkeypatch.setattr(migrations_mod, "SCHEMA_VERSION", len(broken))
    with pytest.raises(StoreError):
        open_store(clock=Clock())
    conn = sqlite3.connect(home / "progress.db")
    # the real steps applied, the broken one rolled back
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    columns = [r[1] for r in conn.execute("PRAGMA table_info(attempts)")]
    assert "traps" in columns and "extra" not in columns
    conn.close()


def test_a_newer_schema_is_refused_and_left_untouched(home):
    with open_store(clock=Clock()) as store:
        _record(store)
    conn = sqlite3.connect(home / "progress.db")
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 5}")
    conn.execute("PRAGMA journal_mode = DELETE")
    conn.close()
    before = _sha(home / "progress.db")
    with pytest.raises(NewerSchemaError) as info:
        open_store(clock=Clock())
    assert f"schema version {SCHEMA_VERSION + 5}" in info.value.message
    assert "upgrade drill" in info.value.message and "untouched" in info.value.message
    assert _sha(home / "progress.db") == before


# ------------------------------------------------------------ corruption and restore

def test_a_garbage_file_is_reported_with_no_backup(home):
    home.mkdir()
    (home / "progress.db").write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(CorruptDatabaseError) as info:
        open_store(clock=Clock())
    assert str(home / "progress.db") in info.value.message and "No backup" in info.value.message


def _smash_pages(path: Path) -> None:
    data = bytearray(path.read_bytes())
    page = 4096
    for n in range(1, len(data) // page):
        data[n * page:(n + 1) * page] = bytes([0xA5]) * page
    path.write_bytes(bytes(data))


def test_a_damaged_file_names_the_latest_backup_and_restore_brings_it_back(home):
    clock = Clock()
    with open_store(clock=clock) as store:
        for i in range(30):
            _record(store, f"drill-{i}", code="x = 1\n" * 200)
    clock.now = T0 + timedelta(days=2)
    with open_store(clock=clock) as store:  # the daily automatic backup is taken on open
        assert store.counts()["attempts"] == 30
    [backup] = [p for p in list_backups(home) if "auto" in p.name]
    _smash_pages(home / "progress.db")
    with pytest.raises(CorruptDatabaseError) as info:
        open_store(clock=clock)
    message = info.value.message
    assert str(backup) in message and "drill restore" in message and f"cp '{backup}'" in message
    restored, kept = restore_backup(home, clock=clock)
    assert restored == backup and kept is not None and kept.exists()
    with open_store(clock=clock) as store:
        assert store.counts()["attempts"] == 30 and store.integrity_check() == "ok"


# ------------------------------------------------------------ read-only homes

def test_a_home_that_is_a_file_is_a_clear_error(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    monkeypatch.setenv("DRILL_HOME", str(blocker))
    with pytest.raises(HomeNotWritableError, match="DRILL_HOME"):
        open_store()
    monkeypatch.setenv("DRILL_HOME", str(blocker / "below"))
    with pytest.raises(HomeNotWritableError):
        open_store()
    assert blocker.read_text() == "x"


def test_a_home_under_proc_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("DRILL_HOME", "/proc/self/drill-home")
    with pytest.raises(HomeNotWritableError):
        open_store()


_READ_ONLY_CHILD = textwrap.dedent("""
    import os, sys
    from datetime import datetime, timezone
    from trainer.store import NewAttempt, open_store, StoreError  # imported first: root's Python is not nobody's
    if os.getuid() == 0:
        os.setgid(65534); os.setuid(65534)   # drop root so that permissions apply
    try:
        with open_store() as s:
            s.record_attempt(NewAttempt("gqa", "solve", datetime.now(timezone.utc), 5, "pass"))
    except StoreError as e:
        print(type(e).__name__, e.message)
        sys.exit(3)
    print("WROTE")
""")


def test_a_read_only_home_refuses_writes_and_keeps_the_data():
    """Root ignores chmod, so the writer runs as `nobody` (setuid in a subprocess) against
    a DRILL_HOME of mode 0555 holding a database of mode 0444."""
    if os.getuid() == 0:
        try:
            import pwd
            pwd.getpwnam("nobody")
        except KeyError:
            pytest.skip("no `nobody` user to drop root to")
    base = Path(tempfile.mkdtemp(prefix="drill-ro-"))
    try:
        os.chmod(base, 0o755)
        home = base / "home"
        with open_store(home, clock=Clock()) as store:
            _record(store)
        before = _sha(home / "progress.db")
        for side in home.glob("progress.db-*"):
            side.unlink()
        os.chmod(home / "progress.db", 0o444)
        os.chmod(home, 0o555)
        env = dict(os.environ, DRILL_HOME=str(home), PYTHONPATH=str(REPO))
        done = subprocess.run([sys.executable, "-c", _READ_ONLY_CHILD], env=env, capture_output=True,
                              text=True, timeout=60)
        assert done.returncode == 3, done.stdout + done.stderr
        assert done.stdout.startswith("HomeNotWritableError") and "Traceback" not in done.stderr
        assert _sha(home / "progress.db") == before
    finally:
        os.chmod(base / "home", 0o755)
        subprocess.run(["rm", "-rf", str(base)])
    # (a full disk, a SIGKILLed writer: tests/trainer/store/test_crash.py)


# ------------------------------------------------------------ recording and reading

def test_record_attempt_writes_attempt_card_and_review_log_together(home):
    with open_store(clock=Clock()) as store:
        sid = store.start_session("warm-up", {"count": 3})
        result = _record(store, session_id=sid, hints=1, seed=7, failing_case=None,
                         code="def f(): ...", traps=["scale-by-d"])
        assert result.attempt_id == 1 and result.rating == 2 and result.due.tzinfo is not None
        [a] = store.attempts()
        assert (a.drill, a.mode, a.started_at, a.hints, a.seed, a.session_id, a.traps, a.rating) == (
            "mha-padding", "solve", T0, 1, 7, sid, ("scale-by-d",), 2)
        assert store.counts() == {"attempts": 1, "cards": 1, "review_logs": 1, "sessions": 1}
        [rv] = store.reviews()
        assert rv.attempt_id == 1 and rv.reviewed_at == T0 + timedelta(seconds=60)
        with pytest.raises(ValueError, match="unknown session"):
            _record(store, session_id=999)
        with pytest.raises(ValueError, match="time zone"):
            store.record_attempt(NewAttempt("gqa", "solve", datetime(2025, 1, 1), 1, "pass"))
        with pytest.raises(ValueError, match="verdict"):
            _record(store, verdict="passed")
        assert store.counts()["attempts"] == 1  # refused attempts left no trace


def test_a_new_attempt_is_frozen_and_keeps_its_traps_as_a_tuple():
    attempt = NewAttempt("gqa", "solve", T0, 12.0, "wrong", traps=["scale-by-d"])
    assert attempt.traps == ("scale-by-d",) and attempt.sitting_id is None and attempt.first_try
    with pytest.raises(dataclasses.FrozenInstanceError):
        attempt.seconds = 1.0  # type: ignore[misc]


def test_the_store_and_the_report_count_the_streak_the_same_way(home):
    from trainer.reports import streak as report_streak

    with open_store(clock=Clock()) as store:
        for days in (0, 1, 2, 4):
            _record(store, at=T0 - timedelta(days=days))
        days = {a.started_at.date() for a in store.attempts()}
        for today in (T0.date(), T0.date() + timedelta(days=1), T0.date() + timedelta(days=2)):
            assert store.streak(today) == report_streak(days, today)


def test_internal_is_recorded_but_never_counted(home):
    with open_store(clock=Clock()) as store:
        result = _record(store, verdict="internal")
        assert result.rating is None and result.due is None and store.card("mha-padding") is None
        assert store.counts()["attempts"] == 1 and store.reviews() == []
        assert store.streak(T0.date()) == 0
        assert store.drill_summaries()["mha-padding"].state == "new"


def test_summaries_due_streak_and_since(home):
    with open_store(clock=Clock()) as store:
        _record(store, "gqa", "wrong", at=T0 - timedelta(days=2), seconds=10)
        _record(store, "gqa", "pass", at=T0 - timedelta(days=2, hours=-1), seconds=200)
        _record(store, "gqa", "pass", at=T0 - timedelta(days=1), seconds=90)
        _record(store, "gqa", "pass", at=T0 - timedelta(days=1), seconds=20, revealed=True)
        _record(store, "top-p", "pass", at=T0, seconds=250)
        summaries = store.drill_summaries()
        gqa = summaries["gqa"]
        assert (gqa.attempts, gqa.passes, gqa.best_seconds) == (4, 3, 90.0)
        assert gqa.first_attempt == T0 - timedelta(days=2) and gqa.state == gqa.card.state
        assert set(summaries) == {"gqa", "top-p"}
        assert store.streak(T0.date()) == 3
        assert store.streak(T0.date() + timedelta(days=1)) == 3  # nothing yet today: still alive
        assert store.streak(T0.date() + timedelta(days=2)) == 0
        assert [a.drill for a in store.attempts(since=T0 - timedelta(hours=1))] == ["top-p"]
        assert len(store.attempts(drill="gqa")) == 4
        far = T0 + timedelta(days=400)
        assert sorted(store.due(far)) == ["gqa", "top-p"]
        assert store.due(T0 - timedelta(days=30)) == []
        cards = store.cards()
        assert [c.drill for c in cards] == ["gqa", "top-p"] and cards[0] == store.card("gqa")
        recall = store.retrievabilities(T0 + timedelta(days=3))
        assert set(recall) == {"gqa", "top-p"} and all(0 < r <= 1 for r in recall.values())


def test_streak_counts_local_days(home):
    plus9 = timezone(timedelta(hours=9))
    with open_store(clock=Clock()) as store:
        _record(store, at=datetime(2025, 3, 2, 20, 0, tzinfo=timezone.utc))  # 3 March in UTC+9
        _record(store, at=datetime(2025, 3, 3, 16, 0, tzinfo=timezone.utc))  # 4 March in UTC+9
        assert store.streak(date(2025, 3, 4), plus9) == 2
        assert store.streak(date(2025, 3, 3)) == 2


def test_sessions(home):
    clock = Clock()
    with open_store(clock=clock) as store:
        sid = store.start_session("mock", {"minutes": 45, "seed": 3})
        clock.now = T0 + timedelta(minutes=45)
        store.end_session(sid, {"score": 4, "of": 5})
        [s] = store.sessions()
        assert (s.kind, s.started_at, s.ended_at, s.meta, s.summary) == (
            "mock", T0, T0 + timedelta(minutes=45), {"minutes": 45, "seed": 3}, {"score": 4, "of": 5})
        with pytest.raises(ValueError):
            store.start_session("party")
        with pytest.raises(ValueError):
            store.end_session(999, {})


def test_settings(home):
    with open_store(clock=Clock()) as store:
        s = store.settings()
        assert (s.retention, s.daily_new_limit, s.vi_mode, s.plan) == (0.9, 3, False, "default")
        store.set_setting("retention", 0.85)
        store.set_setting("daily_new_limit", 5)
        store.set_setting("vi_mode", True)
        store.set_setting("editor", "vim -f")
        s = store.settings()
        assert (s.retention, s.daily_new_limit, s.vi_mode, s.extra) == (0.85, 5, True, {"editor": "vim -f"})
        assert store.get_setting("editor") == "vim -f" and store.get_setting("nope", 1) == 1
        for key, bad in [("retention", 0.3), ("retention", True), ("daily_new_limit", -1),
                         ("vi_mode", "yes")]:
            with pytest.raises(ValueError):
                store.set_setting(key, bad)


def test_busy_database_is_a_clear_error(home, monkeypatch):
    monkeypatch.setattr(connection_mod, "BUSY_TIMEOUT_MS", 200)
    with open_store(clock=Clock()) as store:
        _record(store)
    other = sqlite3.connect(home / "progress.db", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        with open_store(clock=Clock()) as store:
            with pytest.raises(StoreBusyError, match="locked"):
                _record(store)
    finally:
        other.execute("ROLLBACK")
        other.close()


# ------------------------------------------------------------ export / import

def _fill(store):
    sid = store.start_session("warmup", {"count": 2})
    _record(store, "gqa", "wrong", failing_case="fp16", traps=["repeat-tiling"], session_id=sid, seed=1)
    _record(store, "gqa", "pass", at=T0 + timedelta(minutes=5), session_id=sid, first_try=False)
    _record(store, "top-p", "pass", at=T0 + timedelta(days=1), seconds=100, hints=2)
    _record(store, "top-p", "internal", at=T0 + timedelta(days=1, hours=1))
    store.end_session(sid, {"passed": 1})


def _without_time(export: dict) -> dict:
    return {k: v for k, v in export.items() if k != "exported_at"}


def test_export_shape(home):
    with open_store(clock=Clock()) as store:
        _fill(store)
        data = json.loads(json.dumps(store.export()))
    assert set(data) == {"format", "exported_at", "attempts", "cards", "sessions", "settings", "holds"}
    assert data["format"] == 1 and datetime.fromisoformat(data["exported_at"]) == T0
    for a in data["attempts"]:
        assert {"drill", "mode", "started_at", "seconds", "verdict", "hints", "code", "uid"} <= set(a)
        assert datetime.fromisoformat(a["started_at"]).utcoffset() == timedelta(0)
    for c in data["cards"]:
        assert {"drill", "state", "due", "stability", "difficulty", "reps", "lapses"} <= set(c)
    assert validate_export(data) == []


def test_export_import_round_trip_and_no_duplicates(home, tmp_path):
    with open_store(clock=Clock()) as store:
        _fill(store)
        original = store.export()
    with open_store(tmp_path / "other", clock=Clock()) as other:
        result = other.import_(original)
        assert (result.attempts_added, result.attempts_skipped, result.sessions_added, result.cards_updated) == (
            4, 0, 1, 2)
        assert _without_time(other.export()) == _without_time(original)
        again = other.import_(original)
        assert (again.attempts_added, again.attempts_skipped, again.sessions_added) == (0, 4, 0)
        assert _without_time(other.export()) == _without_time(original)
        assert other.counts()["review_logs"] == 3


def test_import_merges_histories_and_keeps_the_newer_card(home, tmp_path):
    with open_store(clock=Clock()) as laptop:
        _record(laptop, "gqa", at=T0)
        old = laptop.export()
    with open_store(tmp_path / "desk", clock=Clock()) as desk:
        desk.import_(old)
        _record(desk, "gqa", at=T0 + timedelta(days=9))
        newer = desk.export()
    with open_store(clock=Clock()) as laptop:
        result = laptop.import_(newer)
        assert (result.attempts_added, result.attempts_skipped, result.cards_updated) == (1, 1, 1)
        assert laptop.card("gqa").reps == 2
        assert laptop.import_(old).cards_updated == 0  # an older card never wins


def test_hand_made_attempts_without_uid_are_not_duplicated(home):
    data = {"format": 1, "exported_at": "2025-03-03T08:00:00+00:00", "cards": [], "sessions": [],
            "attempts": [{"drill": "gqa", "mode": "solve", "started_at": "2025-03-03T08:00:00+00:00",
                          "seconds": 12, "verdict": "pass", "hints": 0, "code": ""}] * 2}
    with open_store(clock=Clock()) as store:
        assert store.import_(data).attempts_added == 1
        assert store.import_(data).attempts_added == 0
        assert store.counts()["attempts"] == 1 and store.attempts()[0].rating == 3


@pytest.mark.parametrize("data, reason", [
    ([], "JSON object"),
    ({"format": 2}, "unsupported format"),
    ({"format": 1, "exported_at": "yesterday", "attempts": [], "cards": [], "sessions": []}, "exported_at"),
    ({"format": 1, "exported_at": "2025-01-01T00:00:00+00:00", "attempts": {}, "cards": [], "sessions": []},
     "attempts must be a list"),
    ({"format": 1, "exported_at": "2025-01-01T00:00:00+00:00", "cards": [], "sessions": [],
      "attempts": [{"drill": "gqa", "mode": "solve", "started_at": "2025-01-01T00:00:00", "seconds": -1,
                    "verdict": "great", "hints": True, "code": ""}]},
     "no time zone"),
    ({"format": 1, "exported_at": "2025-01-01T00:00:00+00:00", "attempts": [], "sessions": [],
      "cards": [{"drill": "gqa", "state": "new"}]}, "lacks due"),
])
def test_import_refuses_anything_else_and_changes_nothing(home, data, reason):
    with open_store(clock=Clock()) as store:
        _record(store)
        before = _without_time(store.export())
        with pytest.raises(ImportRefusedError, match=reason) as info:
            store.import_(data, source="f.json")
        assert info.value.exit_code == 2 and "Nothing was imported" in info.value.message
        assert _without_time(store.export()) == before


def test_validator_collects_every_problem():
    problems = validate_export({"format": 1, "exported_at": "2025-01-01T00:00:00+00:00", "cards": [],
                                "sessions": [], "attempts": [{"drill": "", "mode": "solve",
                                                              "started_at": "2025-01-01T00:00:00",
                                                              "seconds": -1, "verdict": "great",
                                                              "hints": True, "code": 3}]})
    joined = " | ".join(problems)
    for field in ("drill", "seconds", "verdict", "hints", "code", "started_at"):
        assert f"attempts[0].{field}" in joined


# ------------------------------------------------------------ reset and backups

def test_reset_one_drill_then_everything_with_backups(home):
    with open_store(clock=Clock()) as store:
        _fill(store)
        result = store.reset("gqa")
        assert (result.attempts_removed, result.cards_removed) == (2, 1) and result.backup.is_file()
        assert store.card("gqa") is None and {a.drill for a in store.attempts()} == {"top-p"}
        assert store.reset("gqa").backup is None  # nothing left: no backup, no change
        everything = store.reset()
        assert (everything.attempts_removed, everything.sessions_removed) == (2, 1)
        assert store.counts() == {"attempts": 0, "cards": 0, "review_logs": 0, "sessions": 0}
        assert store.settings().retention == 0.9
    restore_backup(home, result.backup)
    with open_store(clock=Clock()) as store:
        assert store.counts()["attempts"] == 4


def test_automatic_backups_once_a_day_keeping_the_latest(home):
    clock = Clock()
    with open_store(clock=clock) as store:
        _record(store)
    assert list_backups(home) == []  # the first open had nothing to keep
    for day in range(1, KEEP_BACKUPS + 4):
        clock.now = T0 + timedelta(days=day)
        for _ in range(2):  # a second open the same day takes no second backup
            with open_store(clock=clock):
                pass
        with open_store(clock=clock) as store:  # the day's practice, in the next day's backup
            _record(store)
    autos = [p for p in list_backups(home) if "auto" in p.name]
    assert len(autos) == KEEP_BACKUPS
    assert autos[0].name == f"progress-auto-{(T0 + timedelta(days=KEEP_BACKUPS + 3)):%Y%m%dT%H%M%SZ}.db"


def test_idle_days_do_not_rotate_real_backups_out(home):
    """A week of `drill list` with no practice: the backups of the days that had some stay."""
    clock = Clock()
    for day in range(KEEP_BACKUPS + 1):
        clock.now = T0 + timedelta(days=day)
        with open_store(clock=clock) as store:
            _record(store)
    clock.now = T0 + timedelta(days=KEEP_BACKUPS + 1)
    with open_store(clock=clock):  # the first idle open still copies the last day's practice
        pass
    real = [p for p in list_backups(home) if "auto" in p.name]
    assert len(real) == KEEP_BACKUPS
    for day in range(KEEP_BACKUPS + 2, KEEP_BACKUPS + 12):
        clock.now = T0 + timedelta(days=day)
        with open_store(clock=clock):
            pass
    assert [p for p in list_backups(home) if "auto" in p.name] == real


# ------------------------------------------------------------------ variants (schema v5)

V4_FILE = REPO / "tests" / "fixtures" / "progress-v4.db"
# Written by the v4 release (commit 509d271) through its own Store: mha-padding solved in one
# sitting (wrong, then pass; target 420), gqa passed by `check --record`.


def test_migration_from_v4_records_every_old_attempt_as_the_default_and_takes_a_backup(home):
    home.mkdir()
    (home / "progress.db").write_bytes(V4_FILE.read_bytes())
    old = sqlite3.connect(home / "progress.db")
    assert old.execute("PRAGMA user_version").fetchone()[0] == 4
    assert "variant" not in [r[1] for r in old.execute("PRAGMA table_info(attempts)")]
    before = old.execute("SELECT uid, drill, verdict, seconds, code FROM attempts ORDER BY id").fetchall()
    old.close()
    with open_store(clock=Clock()) as store:
        assert store.schema_version() == SCHEMA_VERSION == 5
        attempts = store.attempts()
        assert [(a.uid, a.drill, a.verdict, a.seconds, a.code) for a in attempts] == before
        assert [a.variant for a in attempts] == [{}, {}, {}]
        assert store.card("mha-padding").reps == 1 and len(store.reviews()) == 2
        _record(store, "mha-padding", at=T0 + timedelta(days=700), variant={"mask": "pad", "layout": "tbd"})
        assert store.attempts()[-1].variant == {"mask": "pad", "layout": "tbd"}
        assert store.card("mha-padding").reps == 2  # one card per drill: the variant is a sibling
        raw = store._conn.execute("SELECT variant FROM attempts ORDER BY id").fetchall()
        assert raw == [("{}",)] * 3 + [('{"layout": "tbd", "mask": "pad"}',)]
    [backup] = [p for p in list_backups(home) if "pre-v5" in p.name]
    kept = sqlite3.connect(backup)
    assert kept.execute("PRAGMA user_version").fetchone()[0] == 4
    assert kept.execute("SELECT uid, drill, verdict, seconds, code FROM attempts ORDER BY id").fetchall() == before
    kept.close()


def test_a_variant_survives_export_and_import_and_a_bad_one_is_refused(home, tmp_path):
    with open_store(clock=Clock()) as store:
        _record(store, "mha-padding", variant={"mask": "pad"})
        _record(store, "gqa")
        data = store.export()
    assert [a["variant"] for a in data["attempts"]] == [{"mask": "pad"}, {}]
    with open_store(tmp_path / "other", clock=Clock()) as other:
        other.import_(data)
        assert [a.variant for a in other.attempts()] == [{"mask": "pad"}, {}]
    data["attempts"][0]["variant"] = {"mask": ["pad"]}
    with pytest.raises(ImportRefusedError, match="variant"):
        with open_store(tmp_path / "third", clock=Clock()) as third:
            third.import_(data)
