"""Progress that survives hostile files (issue 34, items 1 to 3): a backup or progress.db carrying
objects drill did not create, files that are no drill database, backups whose names lie, and
stored settings that do not validate. Real SQLite files throughout."""
from __future__ import annotations

from tests.paths import REPO

import hashlib
import sqlite3
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from trainer.store import (
    SCHEMA_VERSION,
    ForeignSchemaError,
    NewAttempt,
    RestoreRefusedError,
    list_backups,
    open_store,
    restore_backup,
)
from trainer.store import notices

T0 = datetime(2025, 3, 3, 8, 0, tzinfo=timezone.utc)
WIPE = ("CREATE TRIGGER wipe AFTER INSERT ON attempts BEGIN DELETE FROM attempts WHERE id != new.id; END")


class Clock:
    def __init__(self, now: datetime = T0) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def home(monkeypatch, tmp_path) -> Path:
    path = tmp_path / "home"
    monkeypatch.setenv("DRILL_HOME", str(path))
    notices.forget()
    return path


def _record(store, drill="mha-padding", at=T0, verdict="pass"):
    return store.record_attempt(NewAttempt(drill, "solve", at, 60.0, verdict, target_seconds=300))


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _genuine_backup(home: Path, clock: Clock, n: int = 2) -> Path:
    with open_store(home, clock) as store:
        for i in range(n):
            _record(store, at=clock.now + timedelta(minutes=i))
        return store.backup("manual")


def _tamper(path: Path, *sql: str) -> None:
    conn = sqlite3.connect(path)
    for statement in sql:
        conn.execute(statement)
    conn.commit()
    conn.close()


# ------------------------------------------------------------ restore refuses foreign schemas


def test_a_backup_with_a_trigger_added_is_refused_before_the_swap(home):
    clock = Clock()
    backup = _genuine_backup(home, clock)
    _tamper(backup, WIPE)
    with open_store(home, clock) as store:
        _record(store, at=T0 + timedelta(hours=1))
    before = _sha(home / "progress.db")
    with pytest.raises(RestoreRefusedError) as caught:
        restore_backup(home, backup, clock=clock)
    message = str(caught.value)
    assert "trigger 'wipe' on 'attempts' that drill did not create" in message
    assert "the current progress is untouched" in message and caught.value.exit_code == 2
    assert _sha(home / "progress.db") == before and not list(home.glob("progress.db.before-restore-*"))
    assert not list(home.glob(".restore-*"))


@pytest.mark.parametrize("extra, words", [
    ("CREATE VIEW v AS SELECT * FROM attempts", "view 'v' that drill did not create"),
    ("CREATE UNIQUE INDEX one_a_drill ON attempts(drill, seconds, started_at)",
     "index 'one_a_drill' on 'attempts' that drill did not"),
    ("CREATE TABLE notes (x)", "table 'notes' that drill did not create"),
    ("DROP INDEX attempts_by_time", "no index 'attempts_by_time'"),
])
def test_a_backup_with_anything_else_added_or_missing_is_refused(home, extra, words):
    backup = _genuine_backup(home, Clock())
    _tamper(backup, extra)
    with pytest.raises(RestoreRefusedError, match=words):
        restore_backup(home, backup)


def test_a_backup_whose_table_was_changed_is_refused(home, tmp_path):
    forged = tmp_path / "forged.db"
    conn = sqlite3.connect(forged)
    from trainer.store.migrations import apply_step
    for target in range(1, SCHEMA_VERSION + 1):
        apply_step(conn, target)
    conn.execute("DROP TABLE settings")
    conn.execute("CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL, CHECK (0))")
    conn.commit()
    conn.close()
    with pytest.raises(RestoreRefusedError, match="table 'settings' that is not drill's"):
        restore_backup(home, forged)


@pytest.mark.parametrize("content, words", [
    (b"", "it is empty (0 bytes)"),
    (b"x", "not a drill progress database (it holds no tables)"),  # SQLite reads a 1-byte file as empty
    (b"not sqlite" * 500, "not a drill progress database (file is not a database)"),
])
def test_an_empty_or_one_byte_file_is_refused_and_progress_is_untouched(home, tmp_path, content, words):
    clock = Clock()
    _genuine_backup(home, clock)
    before = _sha(home / "progress.db")
    bad = tmp_path / "bad.db"
    bad.write_bytes(content)
    with pytest.raises(RestoreRefusedError) as caught:
        restore_backup(home, bad, clock=clock)
    assert words in str(caught.value) and "the current progress is untouched" in str(caught.value)
    assert _sha(home / "progress.db") == before
    with open_store(home, clock) as store:
        assert store.counts()["attempts"] == 2


def test_another_schema_and_a_future_version_are_refused(home, tmp_path):
    other = tmp_path / "other.db"
    _tamper(other, "CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT)")
    with pytest.raises(RestoreRefusedError, match="not a drill progress database"):
        restore_backup(home, other)
    stamped = tmp_path / "stamped.db"
    _tamper(stamped, "CREATE TABLE photos (id)", "PRAGMA user_version = 3")
    with pytest.raises(RestoreRefusedError, match="table 'photos' that drill did not create"):
        restore_backup(home, stamped)
    future = _genuine_backup(home, Clock())
    _tamper(future, f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(RestoreRefusedError, match=f"newer drill \\(schema version {SCHEMA_VERSION + 1}"):
        restore_backup(home, future)
    assert not list(home.glob("progress.db.before-restore-*"))


@pytest.mark.parametrize("version", [2, 4])
def test_old_genuine_files_are_still_restored_and_upgraded(home, version):
    old = REPO / "tests" / "fixtures" / f"progress-v{version}.db"
    _genuine_backup(home, Clock())
    restored, kept = restore_backup(home, old)
    assert restored == old and kept is not None
    with open_store(home, Clock()) as store:
        assert store.schema_version() == SCHEMA_VERSION and store.counts()["attempts"] > 0


# ------------------------------------------------------------ opening progress.db


def test_a_trigger_in_progress_db_is_dropped_after_a_backup_and_said_once(home, capsys):
    clock = Clock()
    _genuine_backup(home, clock)
    _tamper(home / "progress.db", WIPE, "CREATE VIEW everything AS SELECT * FROM attempts")
    with open_store(home, clock) as store:
        _record(store, at=T0 + timedelta(hours=2))
        assert store.counts()["attempts"] == 3  # nothing deleted by the trigger
        names = {r[0] for r in store._conn.execute("SELECT name FROM sqlite_master WHERE type IN ('trigger', 'view')")}
        assert names == set()
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "trigger 'wipe' on 'attempts'" in err and "view 'everything'" in err
    assert "which drill did not create; dropped" in err
    [kept] = [p for p in list_backups(home) if "pre-clean" in p.name]
    assert kept.name in err
    conn = sqlite3.connect(kept)
    assert conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'wipe'").fetchone()[0] == 1
    conn.close()
    with open_store(home, clock):
        pass
    assert capsys.readouterr().err == ""  # nothing foreign is left to say


def test_a_progress_db_with_drills_tables_changed_is_refused_and_left_as_it_is(home):
    _genuine_backup(home, Clock())
    _tamper(home / "progress.db", "DROP INDEX attempts_by_drill")
    before = _sha(home / "progress.db")
    with pytest.raises(ForeignSchemaError, match="no index 'attempts_by_drill'") as caught:
        open_store(home, Clock())
    assert "left untouched" in str(caught.value) and "drill restore --list" in str(caught.value)
    assert _sha(home / "progress.db") == before


def test_a_foreign_database_as_progress_db_is_refused_not_migrated_into(home):
    home.mkdir()
    _tamper(home / "progress.db", "CREATE TABLE photos (id)")
    with pytest.raises(ForeignSchemaError, match="schema version 0 with tables"):
        open_store(home, Clock())
    conn = sqlite3.connect(home / "progress.db")
    assert [r[0] for r in conn.execute("SELECT name FROM sqlite_master")] == ["photos"]
    conn.close()


# ------------------------------------------------------------ backups whose names lie


def _daily_autos(home: Path, clock: Clock, days: int) -> list[Path]:
    """``days`` days of practice, each taken into the next day's automatic backup."""
    with open_store(home, clock) as store:
        _record(store, at=clock.now)
    for day in range(1, days + 1):
        clock.now = T0 + timedelta(days=day)
        with open_store(home, clock) as store:
            _record(store, at=clock.now)
    return [p for p in list_backups(home) if "-auto-" in p.name]


def test_future_dated_and_foreign_files_never_push_genuine_backups_out(home):
    clock = Clock()
    genuine = _daily_autos(home, clock, 4)
    assert len(genuine) == 4
    folder = home / "backups"
    fakes = [folder / "progress-auto-99991231T235959Z.db"] + [
        folder / f"progress-auto-99991231T235959Z_{n}.db" for n in range(2, 6)]
    for fake in fakes:
        fake.write_bytes(genuine[0].read_bytes())  # even a real database's bytes: the name is the lie
    past = folder / f"progress-auto-{clock.now + timedelta(hours=1):%Y%m%dT%H%M%SZ}.db"
    past.write_bytes(genuine[0].read_bytes())  # a plausible name, written now (its mtime says so)
    clock.now = T0 + timedelta(days=5)
    with open_store(home, clock) as store:  # the fifth genuine automatic backup, then the pruning
        _record(store, at=clock.now)
    autos = [p for p in list_backups(home) if "-auto-" in p.name]
    assert all(p.exists() for p in genuine)  # every genuine backup kept
    assert all(p.exists() for p in fakes) and past.exists()  # and nothing drill did not write deleted
    assert len([p for p in autos if p not in fakes and p != past]) == 5
    from trainer.store import latest_backup
    newest = latest_backup(home, clock.now)
    assert newest is not None and newest not in fakes and newest != past and "-auto-" in newest.name
    clock.now = T0 + timedelta(days=6)
    with open_store(home, clock):  # a sixth: now the oldest genuine one goes, and only it
        pass
    assert not genuine[-1].exists() and all(p.exists() for p in genuine[:-1]) and all(p.exists() for p in fakes)


def test_a_backup_is_written_with_the_time_of_its_name(home):
    clock = Clock()
    backup = _genuine_backup(home, clock)
    assert backup.stat().st_mtime == T0.timestamp()
    from trainer.store.files import not_drills
    assert not_drills(backup, T0) is None
    assert not_drills(backup, T0 - timedelta(hours=1)) == "dated in the future"


# ------------------------------------------------------------ stored settings checked when read


def test_an_attempt_is_recorded_under_a_hostile_retention_row_with_the_default(home, capsys):
    clock = Clock()
    _genuine_backup(home, clock, 1)
    _tamper(home / "progress.db", "INSERT OR REPLACE INTO settings(key, value) VALUES ('retention', 'NaN')")
    with open_store(home, clock) as store:
        _record(store, drill="gqa", at=T0 + timedelta(hours=1))
        assert store.card("gqa") is not None and store.scheduler_config()[0] == 0.9
        assert store.settings().retention == 0.9 and store.get_setting("retention") == 0.9
    err = capsys.readouterr().err
    assert err.count("the stored setting retention ('NaN') cannot be used") == 1


def test_a_seed_the_store_cannot_hold_is_a_value_error_not_an_overflow(home):
    with open_store(home, Clock()) as store:
        store.record_attempt(NewAttempt("gqa", "solve", T0, 60.0, "pass", seed=2**63 - 1))
        with pytest.raises(ValueError, match="does not fit a 64-bit whole number"):
            store.record_attempt(NewAttempt("gqa", "solve", T0, 60.0, "pass", seed=10**30))
        assert store.counts()["attempts"] == 1


@pytest.mark.parametrize("update, words", [
    ("UPDATE attempts SET started_at = 'yesterday'", "a stored row of attempts cannot be read"),
    ("UPDATE attempts SET traps = '{not json'", "a stored row of attempts cannot be read"),
    ("UPDATE attempts SET verdict = 'excellent'", "its rows are not what drill writes"),
    ("UPDATE attempts SET seconds = -5", "its rows are not what drill writes"),
])
def test_a_backup_whose_rows_drill_would_not_write_is_refused_before_the_swap(home, update, words):
    clock = Clock()
    backup = _genuine_backup(home, clock)
    _tamper(backup, update)
    before = _sha(home / "progress.db")
    with pytest.raises(RestoreRefusedError, match=words):
        restore_backup(home, backup, clock=clock)
    assert _sha(home / "progress.db") == before and not list(home.glob("progress.db.before-restore-*"))


def test_a_backup_with_a_bad_settings_row_is_restored_and_the_row_read_as_its_default(home, capsys):
    clock = Clock()
    backup = _genuine_backup(home, clock)
    _tamper(backup, "INSERT INTO settings(key, value) VALUES ('daily_new_limit', '1e30')")
    restore_backup(home, backup, clock=clock)
    with open_store(home, clock) as store:
        assert store.settings().daily_new_limit == 3 and store.counts()["attempts"] == 2
    assert "the stored setting daily_new_limit ('1e30') cannot be used" in capsys.readouterr().err
