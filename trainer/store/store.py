"""The progress store: the only module that speaks SQL.

One SQLite file, ``DRILL_HOME/progress.db``, in WAL mode with a busy timeout,
``synchronous=FULL`` and foreign keys on. Every attempt is one ``BEGIN
IMMEDIATE`` transaction covering the attempt row, the card update and the
review log, committed before ``record_attempt`` returns: a caller that prints
after the call never reports an attempt that is not on disk.

Attempts are grouped in **sittings** (one drill from opening to pass, skip, leave
or timeout; see trainer.scheduling): ``open_sitting`` -> ``record_attempt(...,
sitting_id=)`` -> ``close_sitting``. The card moves once per sitting, in the
transaction of the submit (or the closing) that decides its rating. A sitting
left open by a process that died (SIGKILL, crash, power cut) is closed and
rated from its stored attempts the next time any process opens the store
(``recover_sittings``); a sitting whose process still runs is left alone.
``record_attempt`` without a sitting is a sitting of its own.

Schema versions live in ``PRAGMA user_version`` and ``MIGRATIONS`` (add-only;
each step runs in its own transaction together with the version bump, after a
backup copy of the file; a step is SQL text or a function of the connection).
A file newer than this program is refused and left untouched. ``PRAGMA quick_check`` runs on every open; a damaged file is
reported with the newest backup and the command that restores it.

Backups are whole-database copies in ``DRILL_HOME/backups/`` made with the
SQLite backup API into a temporary file that is then renamed, so a killed
process never leaves a half backup under a real name. Kinds: ``auto`` (at most
one a day, on open), ``pre-vN`` (before migrating to N), ``pre-reset`` and
``pre-restore``; the newest ``KEEP_BACKUPS`` of each kind are kept.

Every public method raises ``StoreError`` subclasses (never ``sqlite3`` errors):
their message says what is wrong and what to do. Only the CLI turns them into
exit codes.
"""
from __future__ import annotations

import errno
import hashlib
import json
import math
import os
import random
import re
import shutil
import socket
import sqlite3
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone, tzinfo
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from trainer.paths import drill_home
from trainer.scheduling import (
    DEFAULT_DAILY_NEW_LIMIT,
    DEFAULT_RETENTION,
    MAX_RETENTION,
    MIN_RETENTION,
    STATES,
    VERDICTS,
    CardState,
    Submit,
    as_utc,
    check_parameters,
    derive_rating,
    retrievability,
    review,
    sitting_rating,
    utc_now,
)

Clock = Callable[[], datetime]

DB_NAME = "progress.db"
BACKUP_DIR = "backups"
KEEP_BACKUPS = 5
AUTO_BACKUP_EVERY = timedelta(days=1)
BUSY_TIMEOUT_MS = 15_000
EXPORT_FORMAT = 1
MAX_CODE_CHARS = 64 * 1024  # a solution stored with an attempt keeps this much of its head
# `drill import` ranges: anything outside is refused with a reason.
MAX_ATTEMPT_SECONDS = 30 * 86400
MAX_HINTS = 1000
MAX_SEED = 2**63 - 1
MAX_COUNT = 10**6  # reps, lapses
MAX_STABILITY = 1e6  # days
MAX_JSON_DEPTH = 8  # nesting inside a session's meta or summary
MAX_JSON_CHARS = 64 * 1024
MIN_YEAR, MAX_YEAR = 1970, 2200
_DRILL_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")  # always fullmatch: `$` would accept a trailing newline
_TRAP_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_UID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_MODE = re.compile(r"[a-z][a-z0-9-]{0,31}")
SESSION_KINDS: tuple[str, ...] = ("warmup", "mock", "team")
PARAMETERS_KEY = "fsrs_parameters"  # {"parameters": [21 floats], "fitted_at": ISO time, ...} or absent
FOREIGN_OWNER_GRACE = timedelta(days=1)  # an open sitting of another host is presumed dead after this
_TS_FORMAT = "%Y%m%dT%H%M%SZ"

# Add-only. MIGRATIONS[i] takes the schema from version i to version i + 1.
MIGRATIONS: tuple[tuple[Any, ...], ...] = (
    (  # v1: attempts, cards, review logs, sessions, settings
        """CREATE TABLE sessions (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL,
            started_at TEXT NOT NULL,
            ended_at TEXT,
            meta TEXT NOT NULL DEFAULT '{}',
            summary TEXT
        )""",
        """CREATE TABLE attempts (
            id INTEGER PRIMARY KEY,
            uid TEXT NOT NULL UNIQUE,
            drill TEXT NOT NULL,
            mode TEXT NOT NULL,
            started_at TEXT NOT NULL,
            seconds REAL NOT NULL,
            verdict TEXT NOT NULL,
            failing_case TEXT,
            hints INTEGER NOT NULL DEFAULT 0,
            code TEXT NOT NULL DEFAULT '',
            seed INTEGER,
            session_id INTEGER REFERENCES sessions(id) ON DELETE SET NULL
        )""",
        "CREATE INDEX attempts_by_drill ON attempts(drill, started_at)",
        """CREATE TABLE cards (
            drill TEXT PRIMARY KEY,
            state TEXT NOT NULL,
            step INTEGER,
            stability REAL,
            difficulty REAL,
            due TEXT NOT NULL,
            last_review TEXT,
            reps INTEGER NOT NULL DEFAULT 0,
            lapses INTEGER NOT NULL DEFAULT 0
        )""",
        """CREATE TABLE review_logs (
            id INTEGER PRIMARY KEY,
            attempt_id INTEGER UNIQUE REFERENCES attempts(id) ON DELETE CASCADE,
            drill TEXT NOT NULL,
            rating INTEGER NOT NULL,
            reviewed_at TEXT NOT NULL,
            duration_ms INTEGER
        )""",
        "CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    ),
    (  # v2: trap ids and rating inputs on attempts, session uids (import), time index
        "ALTER TABLE attempts ADD COLUMN traps TEXT NOT NULL DEFAULT '[]'",
        "ALTER TABLE attempts ADD COLUMN revealed INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE attempts ADD COLUMN first_try INTEGER NOT NULL DEFAULT 1",
        "ALTER TABLE attempts ADD COLUMN target_seconds REAL",
        "ALTER TABLE sessions ADD COLUMN uid TEXT",
        "UPDATE sessions SET uid = lower(hex(randomblob(16))) WHERE uid IS NULL",
        "CREATE UNIQUE INDEX sessions_by_uid ON sessions(uid)",
        "CREATE INDEX attempts_by_time ON attempts(started_at)",
    ),
    (  # v3: sittings (one review per sitting); the history is replayed through the new rule
        """CREATE TABLE sittings (
            id INTEGER PRIMARY KEY,
            uid TEXT NOT NULL UNIQUE,
            drill TEXT NOT NULL,
            mode TEXT NOT NULL,
            session_id INTEGER REFERENCES sessions(id) ON DELETE SET NULL,
            target_seconds REAL,
            opened_at TEXT NOT NULL,
            closed_at TEXT,
            outcome TEXT,
            revealed INTEGER NOT NULL DEFAULT 0,
            hints INTEGER NOT NULL DEFAULT 0,
            rating INTEGER,
            owner TEXT
        )""",
        "CREATE INDEX sittings_open ON sittings(closed_at)",
        "ALTER TABLE attempts ADD COLUMN sitting_id INTEGER REFERENCES sittings(id) ON DELETE SET NULL",
        "CREATE INDEX attempts_by_sitting ON attempts(sitting_id)",
        "ALTER TABLE review_logs ADD COLUMN sitting_id INTEGER REFERENCES sittings(id) ON DELETE CASCADE",
        lambda conn: _replay_history(conn),
    ),
)
SCHEMA_VERSION = len(MIGRATIONS)

SETTING_DEFAULTS: dict[str, Any] = {
    "retention": DEFAULT_RETENTION,
    "daily_new_limit": DEFAULT_DAILY_NEW_LIMIT,
    "vi_mode": False,
    "plan": "default",
}


# ---------------------------------------------------------------- errors


class StoreError(Exception):
    """A problem with the progress store; the message says what is wrong and what to do."""

    exit_code = 1

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class CorruptDatabaseError(StoreError):
    def __init__(self, path: Path, detail: str, backup: Path | None) -> None:
        self.path, self.backup = path, backup
        if backup is not None:
            fix = (
                f"The newest backup is {backup}. Restore it with `drill restore` "
                f"(the damaged file is kept beside it), or by hand: "
                f"cp '{backup}' '{path}' && rm -f '{path}-wal' '{path}-shm'"
            )
        else:
            fix = (
                f"No backup was found in {path.parent / BACKUP_DIR}. Move the file aside "
                f"to start afresh: mv '{path}' '{path}.damaged'"
            )
        super().__init__(f"the progress database {path} is damaged ({detail}). {fix}")


class NewerSchemaError(StoreError):
    def __init__(self, path: Path, found: int, supported: int) -> None:
        self.path, self.found, self.supported = path, found, supported
        super().__init__(
            f"the progress database {path} was written by a newer drill (schema version "
            f"{found}; this program knows up to {supported}). It was left untouched: "
            f"upgrade drill (pip install -U drill) or point DRILL_HOME elsewhere."
        )


class HomeNotWritableError(StoreError):
    def __init__(self, home: Path, detail: str) -> None:
        self.home = home
        super().__init__(
            f"cannot write to the drill data folder {home} ({detail}). Nothing was changed. "
            f"Make it writable, or set DRILL_HOME to a writable folder."
        )


class DiskFullError(StoreError):
    def __init__(self, path: Path, detail: str) -> None:
        self.path = path
        super().__init__(
            f"the disk holding {path} is full ({detail}); the last change was not saved and "
            f"everything saved before it is intact. Free some space and try again."
        )


class StoreWriteError(StoreError):
    def __init__(self, path: Path, detail: str) -> None:
        self.path = path
        super().__init__(
            f"could not write to {path} ({detail}); the last change was not saved and "
            f"everything saved before it is intact. Check free space, file size limits and "
            f"permissions, then try again."
        )


class StoreBusyError(StoreError):
    def __init__(self, path: Path) -> None:
        super().__init__(
            f"the progress database {path} stayed locked by another drill process for "
            f"{BUSY_TIMEOUT_MS // 1000} s; close the other session and try again."
        )


class NoDatabaseError(StoreError):
    def __init__(self, path: Path) -> None:
        self.path = path
        super().__init__(f"no progress database at {path} yet; record an attempt first.")


class NoBackupError(StoreError):
    def __init__(self, where: Path) -> None:
        super().__init__(f"no backup found at {where}.")


class ImportRefusedError(StoreError):
    """The file is not something `drill export` wrote; nothing was imported."""

    exit_code = 2

    def __init__(self, source: str, problems: list[str]) -> None:
        self.problems = problems
        shown = "; ".join(problems[:8]) + (f"; and {len(problems) - 8} more" if len(problems) > 8 else "")
        super().__init__(f"refusing to import {source}: {shown}. Nothing was imported.")


# ---------------------------------------------------------------- records


@dataclass(frozen=True)
class RecordResult:
    """What recording an attempt did. ``rating`` is None (and the card untouched) for
    ``internal``; ``due`` is the drill's next due date (aware UTC), None if it has no card."""

    attempt_id: int
    uid: str
    rating: int | None
    due: datetime | None
    card: CardState | None


@dataclass(frozen=True)
class AttemptRecord:
    id: int
    uid: str
    drill: str
    mode: str
    started_at: datetime
    seconds: float
    verdict: str
    failing_case: str | None
    hints: int
    code: str
    seed: int | None
    session_id: int | None
    traps: tuple[str, ...]
    revealed: bool
    first_try: bool
    target_seconds: float | None
    rating: int | None
    sitting_id: int | None = None


@dataclass(frozen=True)
class ReviewRecord:
    attempt_id: int | None
    drill: str
    rating: int
    reviewed_at: datetime
    duration_ms: int | None
    sitting_id: int | None = None


@dataclass(frozen=True)
class SittingRecord:
    """One sitting. ``rating`` is None while undecided, and for an untouched sitting."""

    id: int
    uid: str
    drill: str
    mode: str
    session_id: int | None
    target_seconds: float | None
    opened_at: datetime
    closed_at: datetime | None
    outcome: str | None
    rating: int | None


@dataclass(frozen=True)
class SessionRecord:
    id: int
    uid: str
    kind: str
    started_at: datetime
    ended_at: datetime | None
    meta: dict[str, Any]
    summary: dict[str, Any] | None


@dataclass(frozen=True)
class DrillSummary:
    """One drill's progress: ``state`` is new, learning, review or relearning."""

    drill: str
    state: str
    due: datetime | None
    best_seconds: float | None
    attempts: int
    passes: int
    first_attempt: datetime | None
    last_attempt: datetime | None
    card: CardState | None


@dataclass(frozen=True)
class Settings:
    retention: float = DEFAULT_RETENTION
    daily_new_limit: int = DEFAULT_DAILY_NEW_LIMIT
    vi_mode: bool = False
    plan: str = "default"
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ImportResult:
    attempts_added: int
    attempts_skipped: int
    sessions_added: int
    cards_updated: int


@dataclass(frozen=True)
class ResetResult:
    attempts_removed: int
    cards_removed: int
    sessions_removed: int
    backup: Path | None


# ---------------------------------------------------------------- helpers


def _iso(moment: datetime) -> str:
    return as_utc(moment).isoformat(timespec="microseconds")


def _parse(text: str | None) -> datetime | None:
    return None if text is None else as_utc(datetime.fromisoformat(text))


def _sqlite_name(exc: sqlite3.Error) -> str:
    return str(getattr(exc, "sqlite_errorname", "") or "")


def _domain_error(exc: sqlite3.Error, home: Path) -> StoreError:
    """Translate a sqlite3 error into the StoreError that says what to do."""
    path = home / DB_NAME
    name, text = _sqlite_name(exc), str(exc)
    low = text.lower()
    if name.startswith("SQLITE_FULL") or "disk is full" in low:
        return DiskFullError(path, text)
    if name.startswith(("SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_PERM")) or "readonly" in low \
            or "unable to open" in low:
        return HomeNotWritableError(home, text)
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in low:
        return StoreBusyError(path)
    if name.startswith("SQLITE_IOERR") or "i/o error" in low:
        return StoreWriteError(path, text)
    if name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")) or "malformed" in low \
            or "not a database" in low:
        return CorruptDatabaseError(path, text, latest_backup(home))
    return StoreError(f"the progress database {path} failed: {text}")


def _os_error(exc: OSError, home: Path) -> StoreError:
    detail = exc.strerror or str(exc)
    if exc.errno in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT):
        return DiskFullError(home / DB_NAME, detail)
    return HomeNotWritableError(home, detail)


@contextmanager
def _translated(home: Path) -> Iterator[None]:
    try:
        yield
    except sqlite3.Error as exc:
        raise _domain_error(exc, home) from exc
    except OSError as exc:
        raise _os_error(exc, home) from exc


def database_path(home: Path | None = None) -> Path:
    return (Path(home) if home is not None else drill_home()) / DB_NAME


def database_exists(home: Path | None = None) -> bool:
    """Whether a progress database exists (checking never creates one)."""
    return database_path(home).is_file()


# ---------------------------------------------------------------- backups


def backups_dir(home: Path) -> Path:
    return home / BACKUP_DIR


def _backup_stamp(path: Path) -> tuple[str, int]:
    """('20250303T080000Z', n) from progress-<kind>-20250303T080000Z[_n].db."""
    stamp, _, n = path.stem.rsplit("-", 1)[-1].partition("_")
    return stamp, int(n) if n.isdigit() else 1


def _backup_time(path: Path) -> datetime | None:
    try:
        return datetime.strptime(_backup_stamp(path)[0], _TS_FORMAT).replace(tzinfo=timezone.utc)
    except ValueError:
        return None


def _backup_kind(path: Path) -> str:
    return path.stem[len("progress-"):].rsplit("-", 1)[0]


def list_backups(home: Path | None = None) -> list[Path]:
    """Every backup in DRILL_HOME/backups, newest first."""
    folder = backups_dir(Path(home) if home is not None else drill_home())
    if not folder.is_dir():
        return []
    found = [p for p in folder.glob("progress-*.db") if _backup_time(p) is not None]
    return sorted(found, key=lambda p: (_backup_time(p), _backup_stamp(p)[1], p.stat().st_mtime_ns),
                  reverse=True)


def latest_backup(home: Path | None = None) -> Path | None:
    """The backup to restore after damage: the newest automatic (or pre-migration) copy;
    a pre-reset copy (progress deliberately forgotten) only when there is nothing else."""
    try:
        backups = list_backups(home)
    except OSError:
        return None
    preferred = [p for p in backups if _backup_kind(p) != "pre-reset"]
    return (preferred or backups or [None])[0]


def _copy_database(conn: sqlite3.Connection, home: Path, kind: str, now: datetime) -> Path:
    folder = backups_dir(home)
    folder.mkdir(parents=True, exist_ok=True)
    stamp = as_utc(now).strftime(_TS_FORMAT)
    target = folder / f"progress-{kind}-{stamp}.db"
    n = 1
    while target.exists():  # never overwrite an earlier backup taken in the same second
        n += 1
        target = folder / f"progress-{kind}-{stamp}_{n}.db"
    tmp = folder / f".tmp-{uuid.uuid4().hex}.db"
    try:
        dest = sqlite3.connect(str(tmp))
        try:
            conn.backup(dest)
            dest.execute("PRAGMA journal_mode = DELETE")  # a self-contained file: cp restores it
        finally:
            dest.close()
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    _prune_backups(home, kind)
    return target


def _prune_backups(home: Path, kind: str) -> None:
    same_kind = [p for p in list_backups(home) if _backup_kind(p) == kind]
    for old in same_kind[KEEP_BACKUPS:]:
        old.unlink(missing_ok=True)
    for stale in backups_dir(home).glob(".tmp-*.db"):
        try:
            if stale.stat().st_mtime < datetime.now().timestamp() - 3600:
                stale.unlink()
        except OSError:
            pass


def restore_backup(home: Path | None = None, backup: Path | None = None, clock: Clock | None = None) -> tuple[Path, Path | None]:
    """Put ``backup`` (default: ``latest_backup``) in place of progress.db. The current file,
    if any, is kept as ``progress.db.before-restore-<time>`` (with its -wal/-shm), never deleted.
    Returns (the backup restored, where the old file went)."""
    home = Path(home) if home is not None else drill_home()
    now = (clock or utc_now)()
    chosen = Path(backup) if backup is not None else latest_backup(home)
    if chosen is None or not chosen.is_file():
        raise NoBackupError(chosen or backups_dir(home))
    path = home / DB_NAME
    kept: Path | None = None
    with _translated(home):
        tmp = path.with_name(f".restore-{uuid.uuid4().hex}.db")
        try:
            shutil.copyfile(chosen, tmp)
            _check_copy_is_healthy(tmp, chosen)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        # progress.db never goes missing: the old file is copied aside, its -wal/-shm are
        # moved aside (an old WAL must never be replayed onto the restored file), and only
        # then is the checked copy renamed over it.
        stamp = as_utc(now).strftime(_TS_FORMAT)
        try:
            if path.exists():
                kept = path.with_name(f"{DB_NAME}.before-restore-{stamp}")
                shutil.copyfile(path, kept)
            for suffix in ("-wal", "-shm"):
                side = path.with_name(DB_NAME + suffix)
                if side.exists():
                    os.replace(side, path.with_name(f"{DB_NAME}.before-restore-{stamp}{suffix}"))
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
    return chosen, kept


def _check_copy_is_healthy(copy: Path, source: Path) -> None:
    conn = sqlite3.connect(str(copy), isolation_level=None)
    try:
        result = "; ".join(r[0] for r in conn.execute("PRAGMA quick_check").fetchall())
        conn.execute("PRAGMA journal_mode = DELETE")
    except sqlite3.DatabaseError as exc:
        result = str(exc)
    finally:
        conn.close()
    if result != "ok":
        raise StoreError(f"the backup {source} is damaged too ({result}); "
                         f"pick another with `drill restore --list` and `drill restore FILE`.")


# ---------------------------------------------------------------- opening


def open_store(home: Path | None = None, clock: Clock | None = None, *, create: bool = True) -> Store:
    """Open (creating, migrating and checking as needed) the progress database.

    ``home`` defaults to ``drill_home()``; ``clock`` returns an aware UTC datetime.
    With ``create=False`` a missing database raises ``NoDatabaseError`` instead of
    being created. Usable as a context manager (closes on exit)."""
    home = Path(home) if home is not None else drill_home()
    clock = clock or utc_now
    path = home / DB_NAME
    if not create and not path.is_file():
        raise NoDatabaseError(path)
    with _translated(home):
        if home.exists() and not home.is_dir():
            raise HomeNotWritableError(home, "it is a file, not a folder")
        home.mkdir(parents=True, exist_ok=True)
        if (path.exists() or path.is_symlink()) and not path.is_file():
            raise HomeNotWritableError(home, f"{DB_NAME} there is not a regular file (a folder, FIFO, device "
                                             f"or broken link); move it away")
        conn = sqlite3.connect(str(path), isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000,
                               check_same_thread=False)
    store = Store(conn, home, clock)
    try:
        store._prepare()
    except BaseException:
        conn.close()
        raise
    return store


class Store:
    """A handle on the progress database. Not shared between processes; cheap to open."""

    def __init__(self, conn: sqlite3.Connection, home: Path, clock: Clock) -> None:
        self._conn = conn
        self.home = home
        self.path = home / DB_NAME
        self.clock = clock

    # -- lifecycle

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._conn.close()

    def _prepare(self) -> None:
        with _translated(self.home):
            self._conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            version = self.schema_version()
            self._quick_check()
            if version > SCHEMA_VERSION:
                raise NewerSchemaError(self.path, version, SCHEMA_VERSION)
            self._enter_wal()
            self._conn.execute("PRAGMA synchronous = FULL")
            self._conn.execute("PRAGMA foreign_keys = ON")
            if version < SCHEMA_VERSION:
                self._migrate(version)
            self._auto_backup()
        try:
            self.recover_sittings()
        except StoreError:
            pass  # read-only or busy: the next open tries again; nothing is lost meanwhile

    def _enter_wal(self) -> None:
        """Switch to WAL. From a rollback-journal file (a new, restored or v1 file) two
        processes switching at once can deadlock, and SQLite then answers BUSY at once
        without waiting; so wait and retry up to the busy timeout."""
        deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
        while True:
            try:
                self._conn.execute("PRAGMA journal_mode = WAL").fetchall()
                return
            except sqlite3.OperationalError as exc:
                busy = _sqlite_name(exc).startswith("SQLITE_BUSY") or "locked" in str(exc).lower()
                if not busy or time.monotonic() > deadline:
                    raise
                time.sleep(random.uniform(0.01, 0.05))

    def schema_version(self) -> int:
        return int(self._conn.execute("PRAGMA user_version").fetchone()[0])

    def _quick_check(self) -> None:
        rows = [r[0] for r in self._conn.execute("PRAGMA quick_check").fetchall()]
        if rows != ["ok"]:
            raise CorruptDatabaseError(self.path, "; ".join(rows[:3]), latest_backup(self.home))

    def _has_tables(self) -> bool:
        return self._conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] > 0

    def _migrate(self, version: int) -> None:
        if version > 0 or self._has_tables():
            _copy_database(self._conn, self.home, f"pre-v{SCHEMA_VERSION}", self.clock())
        for target in range(version + 1, SCHEMA_VERSION + 1):
            with self._transaction():
                if self.schema_version() >= target:  # another process got there first
                    continue
                for statement in MIGRATIONS[target - 1]:
                    if callable(statement):
                        statement(self._conn)
                    else:
                        self._conn.execute(statement)
                self._conn.execute(f"PRAGMA user_version = {target}")

    def _auto_backup(self) -> None:
        """One automatic backup a day, taken on open once there is something to keep.
        A failed automatic backup never blocks recording."""
        now = self.clock()
        try:
            autos = [p for p in list_backups(self.home) if _backup_kind(p) == "auto"]
            newest = _backup_time(autos[0]) if autos else None
            if newest is not None and abs(now - newest) < AUTO_BACKUP_EVERY:
                return
            if not self._conn.execute("SELECT EXISTS(SELECT 1 FROM attempts)").fetchone()[0]:
                return
            _copy_database(self._conn, self.home, "auto", now)
        except (OSError, sqlite3.Error):
            pass

    def backup(self, kind: str = "manual") -> Path:
        """Take a backup now; returns its path."""
        with _translated(self.home):
            return _copy_database(self._conn, self.home, kind, self.clock())

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            yield self._conn
            self._conn.execute("COMMIT")
        except BaseException:
            if self._conn.in_transaction:
                try:
                    self._conn.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
            raise

    @contextmanager
    def _writing(self) -> Iterator[sqlite3.Connection]:
        with _translated(self.home), self._transaction() as conn:
            yield conn

    @contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        with _translated(self.home):
            yield self._conn

    # -- settings

    def settings(self) -> Settings:
        with self._reading() as conn:
            stored = {k: json.loads(v) for k, v in conn.execute("SELECT key, value FROM settings")}
        known = {k: stored.get(k, d) for k, d in SETTING_DEFAULTS.items()}
        extra = {k: v for k, v in stored.items() if k not in SETTING_DEFAULTS}
        return Settings(**known, extra=extra)

    def get_setting(self, key: str, default: Any = None) -> Any:
        with self._reading() as conn:
            row = conn.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        if row is not None:
            return json.loads(row[0])
        return SETTING_DEFAULTS.get(key, default)

    def set_setting(self, key: str, value: Any) -> None:
        """Store a setting (JSON-serialisable). Known keys are validated (ValueError)."""
        value = _validate_setting(key, value)
        with self._writing() as conn:
            conn.execute("INSERT INTO settings(key, value) VALUES (?, ?) "
                         "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                         (key, json.dumps(value)))

    def unset_setting(self, key: str) -> bool:
        """Remove a stored setting (a known key falls back to its default); False if absent."""
        with self._writing() as conn:
            return conn.execute("DELETE FROM settings WHERE key = ?", (key,)).rowcount > 0

    # -- writing attempts

    def record_attempt(
        self,
        drill: str,
        mode: str,
        started_at: datetime,
        seconds: float,
        verdict: str,
        *,
        failing_case: str | None = None,
        hints: int = 0,
        code: str = "",
        seed: int | None = None,
        session_id: int | None = None,
        target_seconds: float | None = None,
        first_try: bool = True,
        revealed: bool = False,
        traps: list[str] | None = None,
        sitting_id: int | None = None,
    ) -> RecordResult:
        """Record one attempt, in one transaction committed before returning. In an open
        sitting (``sitting_id``) the card moves only if this attempt decides the sitting's
        rating (its first pass, or a reveal); without one the attempt is a sitting of its
        own, rated at once. ``internal`` verdicts are recorded but never touch the card.
        ``rating`` in the result is the rating applied now (None: the card did not move)."""
        if not drill or not mode:
            raise ValueError("drill and mode must be non-empty")
        if seconds < 0 or hints < 0:
            raise ValueError("seconds and hints must not be negative")
        if verdict not in VERDICTS:
            raise ValueError(f"unknown verdict {verdict!r}; expected one of {', '.join(VERDICTS)}")
        started = as_utc(started_at)
        uid = uuid.uuid4().hex
        with self._writing() as conn:
            if session_id is not None and not conn.execute(
                    "SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone():
                raise ValueError(f"unknown session id {session_id}")
            single = sitting_id is None
            if single:
                sitting_id = _insert_sitting(conn, drill, mode, session_id, target_seconds, started, None)
            else:
                row = conn.execute("SELECT drill, closed_at FROM sittings WHERE id = ?", (sitting_id,)).fetchone()
                if row is None:
                    raise ValueError(f"unknown sitting id {sitting_id}")
                if row[0] != drill:
                    raise ValueError(f"sitting {sitting_id} is for drill {row[0]!r}, not {drill!r}")
                if row[1] is not None:
                    raise ValueError(f"sitting {sitting_id} is already closed; open a new one")
            attempt_id = self._insert_attempt(conn, uid, drill, mode, started, seconds, verdict,
                                              failing_case, hints, code, seed, session_id,
                                              list(traps or []), revealed, first_try, target_seconds,
                                              sitting_id)
            rating = _rate_sitting(conn, sitting_id, closed=single)
            if single:
                conn.execute("UPDATE sittings SET closed_at = opened_at, outcome = 'single' WHERE id = ?",
                             (sitting_id,))
            card = _read_card(conn, drill)
        return RecordResult(attempt_id, uid, rating, card.due if card else None, card)

    # -- sittings

    def open_sitting(self, drill: str, mode: str, *, session_id: int | None = None,
                     target_seconds: float | None = None, opened_at: datetime | None = None) -> int:
        """Open a sitting of ``drill`` (now, or at ``opened_at``); returns its id for
        ``record_attempt`` and ``close_sitting``. Sittings left open by dead processes are
        closed and rated first."""
        if not drill or not mode:
            raise ValueError("drill and mode must be non-empty")
        if target_seconds is not None and not target_seconds > 0:
            raise ValueError("target_seconds must be a positive number or None")
        when = as_utc(opened_at) if opened_at is not None else as_utc(self.clock())
        self.recover_sittings()
        with self._writing() as conn:
            if session_id is not None and not conn.execute(
                    "SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone():
                raise ValueError(f"unknown session id {session_id}")
            return _insert_sitting(conn, drill, mode, session_id, target_seconds, when, _owner_token())

    def close_sitting(self, sitting_id: int, outcome: str, *, revealed: bool = False,
                      hints: int = 0) -> SittingRecord:
        """Close a sitting (``outcome``: passed, skipped, quit, timeout, ...). An undecided
        sitting is rated now: Again if it had a counted submit or ``revealed``, nothing if
        untouched. Closing a closed sitting changes nothing."""
        outcome = str(outcome or "").strip()[:40] or "closed"
        with self._writing() as conn:
            row = conn.execute("SELECT closed_at FROM sittings WHERE id = ?", (sitting_id,)).fetchone()
            if row is None:
                raise ValueError(f"unknown sitting id {sitting_id}")
            if row[0] is None:
                conn.execute("UPDATE sittings SET revealed = max(revealed, ?), hints = max(hints, ?) "
                             "WHERE id = ?", (int(bool(revealed)), max(0, int(hints)), sitting_id))
                _rate_sitting(conn, sitting_id, closed=True)
                conn.execute("UPDATE sittings SET closed_at = ?, outcome = ? WHERE id = ?",
                             (_iso(self.clock()), outcome, sitting_id))
        return self.sitting(sitting_id)

    def recover_sittings(self) -> list[int]:
        """Close and rate every open sitting whose process is gone (crash, SIGKILL); returns
        their ids. Sittings of live processes (this one included) are left open."""
        with self._reading() as conn:
            rows = conn.execute("SELECT id, owner, opened_at FROM sittings WHERE closed_at IS NULL").fetchall()
        dead = [r[0] for r in rows if not _owner_alive(r[1], _parse(r[2]), self.clock())]
        closed = []
        for sitting_id in dead:
            with self._writing() as conn:
                if conn.execute("SELECT closed_at FROM sittings WHERE id = ?", (sitting_id,)).fetchone()[0]:
                    continue  # another process recovered it first
                _rate_sitting(conn, sitting_id, closed=True)
                conn.execute("UPDATE sittings SET closed_at = ?, outcome = 'abandoned' WHERE id = ?",
                             (_iso(self.clock()), sitting_id))
                closed.append(sitting_id)
        return closed

    def sitting(self, sitting_id: int) -> SittingRecord:
        with self._reading() as conn:
            row = conn.execute(f"SELECT {_SITTING_COLUMNS} FROM sittings WHERE id = ?", (sitting_id,)).fetchone()
        if row is None:
            raise ValueError(f"unknown sitting id {sitting_id}")
        return _sitting_from_row(row)

    def sittings(self) -> list[SittingRecord]:
        with self._reading() as conn:
            rows = conn.execute(f"SELECT {_SITTING_COLUMNS} FROM sittings ORDER BY opened_at, id").fetchall()
        return [_sitting_from_row(r) for r in rows]

    @staticmethod
    def _insert_attempt(conn: sqlite3.Connection, uid: str, drill: str, mode: str, started: datetime,
                        seconds: float, verdict: str, failing_case: str | None, hints: int, code: str,
                        seed: int | None, session_id: int | None, traps: list[str], revealed: bool,
                        first_try: bool, target_seconds: float | None, sitting_id: int | None = None) -> int:
        code = cap_code(code)
        cur = conn.execute(
            "INSERT INTO attempts(uid, drill, mode, started_at, seconds, verdict, failing_case, hints, "
            "code, seed, session_id, traps, revealed, first_try, target_seconds, sitting_id) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (uid, drill, mode, _iso(started), float(seconds), verdict, failing_case, int(hints), code,
             seed, session_id, json.dumps([str(t) for t in traps]), int(bool(revealed)),
             int(bool(first_try)), target_seconds, sitting_id),
        )
        return int(cur.lastrowid)

    # -- sessions

    def start_session(self, kind: str, meta: Mapping[str, Any] | None = None) -> int:
        """Open a warm-up, mock or team session; returns its id for record_attempt."""
        kind = _session_kind(kind)
        with self._writing() as conn:
            cur = conn.execute("INSERT INTO sessions(uid, kind, started_at, meta) VALUES (?, ?, ?, ?)",
                               (uuid.uuid4().hex, kind, _iso(self.clock()), json.dumps(dict(meta or {}))))
            return int(cur.lastrowid)

    def end_session(self, session_id: int, summary: Mapping[str, Any]) -> None:
        with self._writing() as conn:
            cur = conn.execute("UPDATE sessions SET ended_at = ?, summary = ? WHERE id = ?",
                               (_iso(self.clock()), json.dumps(dict(summary)), session_id))
            if cur.rowcount == 0:
                raise ValueError(f"unknown session id {session_id}")

    def sessions(self) -> list[SessionRecord]:
        with self._reading() as conn:
            rows = conn.execute("SELECT id, uid, kind, started_at, ended_at, meta, summary FROM sessions "
                                "ORDER BY started_at, id").fetchall()
        return [SessionRecord(r[0], r[1], r[2], _parse(r[3]), _parse(r[4]), json.loads(r[5]),
                              json.loads(r[6]) if r[6] is not None else None) for r in rows]

    # -- reading

    def card(self, drill: str) -> CardState | None:
        with self._reading() as conn:
            return _read_card(conn, drill)

    def cards(self) -> list[CardState]:
        with self._reading() as conn:
            rows = conn.execute(f"SELECT {_CARD_COLUMNS} FROM cards ORDER BY drill").fetchall()
        return [_card_from_row(r) for r in rows]

    def due(self, now: datetime) -> list[str]:
        """Drills whose card is due at or before ``now``, soonest first."""
        cutoff = _iso(now)
        with self._reading() as conn:
            rows = conn.execute("SELECT drill FROM cards WHERE due <= ? ORDER BY due, drill",
                                (cutoff,)).fetchall()
        return [r[0] for r in rows]

    def attempts(self, since: datetime | None = None, drill: str | None = None) -> list[AttemptRecord]:
        """Attempts in time order, optionally from ``since`` on and for one drill."""
        where, args = [], []
        if since is not None:
            where.append("a.started_at >= ?")
            args.append(_iso(since))
        if drill is not None:
            where.append("a.drill = ?")
            args.append(drill)
        sql = (f"SELECT {_ATTEMPT_COLUMNS} FROM attempts a LEFT JOIN review_logs r ON r.attempt_id = a.id"
               + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY a.started_at, a.id")
        with self._reading() as conn:
            rows = conn.execute(sql, args).fetchall()
        return [_attempt_from_row(r) for r in rows]

    def reviews(self, since: datetime | None = None) -> list[ReviewRecord]:
        sql = "SELECT attempt_id, drill, rating, reviewed_at, duration_ms, sitting_id FROM review_logs"
        args: list[Any] = []
        if since is not None:
            sql += " WHERE reviewed_at >= ?"
            args.append(_iso(since))
        with self._reading() as conn:
            rows = conn.execute(sql + " ORDER BY reviewed_at, id", args).fetchall()
        return [ReviewRecord(r[0], r[1], r[2], _parse(r[3]), r[4], r[5]) for r in rows]

    def drill_summaries(self) -> dict[str, DrillSummary]:
        """Every drill with a card or an attempt; drills absent from the map are new."""
        with self._reading() as conn:
            stats = conn.execute(
                "SELECT drill, count(*), sum(verdict = 'pass'), min(CASE WHEN verdict = 'pass' "
                "AND NOT revealed THEN seconds END), min(started_at), max(started_at) "
                "FROM attempts GROUP BY drill").fetchall()
            cards = {c.drill: c for c in (_card_from_row(r) for r in conn.execute(
                f"SELECT {_CARD_COLUMNS} FROM cards"))}
        out: dict[str, DrillSummary] = {}
        by_drill = {r[0]: r for r in stats}
        for drill in sorted(set(by_drill) | set(cards)):
            row = by_drill.get(drill, (drill, 0, 0, None, None, None))
            card = cards.get(drill)
            out[drill] = DrillSummary(
                drill=drill, state=card.state if card else "new", due=card.due if card else None,
                best_seconds=row[3], attempts=int(row[1]), passes=int(row[2] or 0),
                first_attempt=_parse(row[4]), last_attempt=_parse(row[5]), card=card)
        return out

    def streak(self, today: date, tz: tzinfo = timezone.utc) -> int:
        """Consecutive days (in ``tz``) with at least one counted attempt, ending today, or
        yesterday when nothing has been done yet today."""
        with self._reading() as conn:
            rows = conn.execute("SELECT started_at FROM attempts WHERE verdict != 'internal' "
                                "AND started_at >= ?", (_iso(datetime.combine(
                                    today - timedelta(days=3660), datetime.min.time(), tz)),)).fetchall()
        days = {_parse(r[0]).astimezone(tz).date() for r in rows}
        day = today if today in days else today - timedelta(days=1)
        count = 0
        while day in days:
            count += 1
            day -= timedelta(days=1)
        return count

    def retrievabilities(self, now: datetime) -> dict[str, float]:
        """FSRS retrievability (0..1) at ``now`` of every drill with a card (for mastery)."""
        retention, parameters = self.scheduler_config()
        return {c.drill: retrievability(c, now, retention, parameters) for c in self.cards()}

    def scheduler_config(self) -> tuple[float, tuple[float, ...] | None]:
        """(desired retention, the fitted FSRS parameters or None for fsrs's defaults)."""
        with self._reading() as conn:
            return _scheduler_config(conn)

    def fitted(self) -> dict[str, Any] | None:
        """The `drill optimize` fit in use (parameters, fitted_at, losses), or None (defaults)."""
        with self._reading() as conn:
            return fitted_parameters(conn)

    def counts(self) -> dict[str, int]:
        with self._reading() as conn:
            return {t: int(conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0])
                    for t in ("attempts", "cards", "review_logs", "sessions")}

    # -- export / import / reset

    def export(self) -> dict[str, Any]:
        """Everything as the `drill export` JSON (format 1; times UTC ISO-8601)."""
        sessions = {s.id: s for s in self.sessions()}
        sittings = {s.id: s.uid for s in self.sittings()}
        attempts = [_attempt_to_json(a, sessions, sittings) for a in self.attempts()]
        cards = [_card_to_json(c) for c in self.cards()]
        return {
            "format": EXPORT_FORMAT,
            "exported_at": as_utc(self.clock()).isoformat(),
            "attempts": attempts,
            "cards": cards,
            "sessions": [_session_to_json(s) for s in sessions.values()],
        }

    def import_(self, data: Any, source: str = "the file") -> ImportResult:
        """Merge an export in one transaction. Attempts already present (same uid) are
        skipped; a card is taken when it is newer (later last review) than ours.
        Anything that is not an export raises ImportRefusedError and changes nothing."""
        problems = validate_export(data)
        if problems:
            raise ImportRefusedError(source, problems)
        added = skipped = sessions_added = cards_updated = 0
        with self._writing() as conn:
            session_ids: dict[str, int] = {}
            for s in data["sessions"]:
                row = conn.execute("SELECT id FROM sessions WHERE uid = ?", (s["uid"],)).fetchone()
                if row is None:
                    cur = conn.execute(
                        "INSERT INTO sessions(uid, kind, started_at, ended_at, meta, summary) "
                        "VALUES (?, ?, ?, ?, ?, ?)",
                        (s["uid"], s["kind"], _iso(_parse(s["started_at"])),
                         _iso(_parse(s["ended_at"])) if s.get("ended_at") else None,
                         json.dumps(s.get("meta") or {}),
                         json.dumps(s["summary"]) if s.get("summary") is not None else None))
                    sessions_added += 1
                    session_ids[s["uid"]] = int(cur.lastrowid)
                else:
                    session_ids[s["uid"]] = int(row[0])
            for a in data["attempts"]:
                uid = a.get("uid") or _content_uid(a)
                if conn.execute("SELECT 1 FROM attempts WHERE uid = ?", (uid,)).fetchone():
                    skipped += 1
                    continue
                self._import_attempt(conn, uid, a, session_ids.get(a.get("session") or ""))
                added += 1
            for c in data["cards"]:
                incoming = _card_from_json(c)
                current = _read_card(conn, incoming.drill)
                if current is None or _newer(incoming, current):
                    _write_card(conn, incoming)
                    cards_updated += 1
        return ImportResult(added, skipped, sessions_added, cards_updated)

    def _import_attempt(self, conn: sqlite3.Connection, uid: str, a: Mapping[str, Any],
                        session_id: int | None) -> None:
        """One exported attempt, in its sitting (found or made by the export's sitting uid; an
        attempt without one is a sitting of its own), with the review its ``rating`` records."""
        started = _parse(a["started_at"])
        end = started + timedelta(seconds=float(a["seconds"]))
        sitting_uid = a.get("sitting")
        row = conn.execute("SELECT id FROM sittings WHERE uid = ?", (sitting_uid,)).fetchone() \
            if sitting_uid else None
        if row is not None:
            sitting_id = int(row[0])
        else:
            sitting_id = _insert_sitting(conn, a["drill"], a["mode"], session_id, a.get("target_seconds"),
                                         started, None)
            conn.execute("UPDATE sittings SET closed_at = ?, outcome = 'imported', uid = ? WHERE id = ?",
                         (_iso(end), sitting_uid or uuid.uuid4().hex, sitting_id))
        attempt_id = self._insert_attempt(
            conn, uid, a["drill"], a["mode"], started, float(a["seconds"]), a["verdict"],
            a.get("failing_case"), int(a["hints"]), a["code"], a.get("seed"), session_id,
            list(a.get("traps") or []), bool(a.get("revealed", False)), bool(a.get("first_try", True)),
            a.get("target_seconds"), sitting_id)
        rating = a["rating"] if "rating" in a else derive_rating(
            a["verdict"], float(a["seconds"]), a.get("target_seconds"), hints=int(a["hints"]),
            first_try=bool(a.get("first_try", True)), revealed=bool(a.get("revealed", False)))
        if rating is not None:
            conn.execute("INSERT INTO review_logs(attempt_id, sitting_id, drill, rating, reviewed_at, duration_ms) "
                         "VALUES (?, ?, ?, ?, ?, ?)",
                         (attempt_id, sitting_id, a["drill"], int(rating), _iso(end),
                          int(round(float(a["seconds"]) * 1000))))
            conn.execute("UPDATE sittings SET rating = ? WHERE id = ? AND rating IS NULL", (int(rating), sitting_id))

    def reset(self, drill: str | None = None) -> ResetResult:
        """Forget one drill's progress (attempts, reviews, card) or everything (also
        sessions; settings are kept). A backup is taken first when there is anything to forget."""
        with self._reading() as conn:
            if drill is None:
                n_attempts, n_cards, n_sessions = (self.counts()[k] for k in ("attempts", "cards", "sessions"))
            else:
                n_attempts = conn.execute("SELECT count(*) FROM attempts WHERE drill = ?", (drill,)).fetchone()[0]
                n_cards = conn.execute("SELECT count(*) FROM cards WHERE drill = ?", (drill,)).fetchone()[0]
                n_sessions = 0
        if n_attempts + n_cards + n_sessions == 0:
            return ResetResult(0, 0, 0, None)
        backup = self.backup("pre-reset")
        with self._writing() as conn:
            if drill is None:
                for table in ("review_logs", "attempts", "sittings", "cards", "sessions"):
                    conn.execute(f"DELETE FROM {table}")
            else:
                for table in ("review_logs", "attempts", "sittings", "cards"):
                    conn.execute(f"DELETE FROM {table} WHERE drill = ?", (drill,))
        return ResetResult(int(n_attempts), int(n_cards), int(n_sessions), backup)

    def integrity_check(self) -> str:
        with self._reading() as conn:
            return "; ".join(r[0] for r in conn.execute("PRAGMA integrity_check").fetchall())


# ---------------------------------------------------------------- row mapping

_CARD_COLUMNS = "drill, state, step, stability, difficulty, due, last_review, reps, lapses"
_ATTEMPT_COLUMNS = ("a.id, a.uid, a.drill, a.mode, a.started_at, a.seconds, a.verdict, a.failing_case, "
                    "a.hints, a.code, a.seed, a.session_id, a.traps, a.revealed, a.first_try, "
                    "a.target_seconds, r.rating, a.sitting_id")


def _card_from_row(r: tuple) -> CardState:
    return CardState(drill=r[0], state=r[1], step=r[2], stability=r[3], difficulty=r[4],
                     due=_parse(r[5]), last_review=_parse(r[6]), reps=int(r[7]), lapses=int(r[8]))


def _read_card(conn: sqlite3.Connection, drill: str) -> CardState | None:
    row = conn.execute(f"SELECT {_CARD_COLUMNS} FROM cards WHERE drill = ?", (drill,)).fetchone()
    return _card_from_row(row) if row else None


def _write_card(conn: sqlite3.Connection, c: CardState) -> None:
    conn.execute(
        f"INSERT OR REPLACE INTO cards({_CARD_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (c.drill, c.state, c.step, c.stability, c.difficulty, _iso(c.due),
         _iso(c.last_review) if c.last_review else None, c.reps, c.lapses))


_SITTING_COLUMNS = "id, uid, drill, mode, session_id, target_seconds, opened_at, closed_at, outcome, rating"


def _sitting_from_row(r: tuple) -> SittingRecord:
    return SittingRecord(id=r[0], uid=r[1], drill=r[2], mode=r[3], session_id=r[4], target_seconds=r[5],
                         opened_at=_parse(r[6]), closed_at=_parse(r[7]), outcome=r[8], rating=r[9])


def _insert_sitting(conn: sqlite3.Connection, drill: str, mode: str, session_id: int | None,
                    target_seconds: float | None, opened_at: datetime, owner: str | None) -> int:
    cur = conn.execute("INSERT INTO sittings(uid, drill, mode, session_id, target_seconds, opened_at, owner) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?)",
                       (uuid.uuid4().hex, drill, mode, session_id, target_seconds, _iso(opened_at), owner))
    return int(cur.lastrowid)


def fitted_parameters(conn_or_value: Any) -> dict[str, Any] | None:
    """The stored ``fsrs_parameters`` setting when it is valid (else None: the defaults apply).
    Takes a connection or the setting's value."""
    value = conn_or_value
    if isinstance(conn_or_value, sqlite3.Connection):
        row = conn_or_value.execute("SELECT value FROM settings WHERE key = ?", (PARAMETERS_KEY,)).fetchone()
        try:
            value = json.loads(row[0]) if row else None
        except ValueError:
            return None
    try:
        return _validate_parameters_setting(value)
    except ValueError:
        return None


def _scheduler_config(conn: sqlite3.Connection) -> tuple[float, tuple[float, ...] | None]:
    """(desired retention, fitted parameters or None for fsrs's defaults)."""
    fitted = fitted_parameters(conn)
    return float(_stored_setting(conn, "retention")), (tuple(fitted["parameters"]) if fitted else None)


def _sitting_submits(conn: sqlite3.Connection, sitting_id: int) -> list[tuple]:
    return conn.execute("SELECT id, started_at, seconds, verdict, hints, revealed, first_try FROM attempts "
                        "WHERE sitting_id = ? ORDER BY id", (sitting_id,)).fetchall()


def _rate_sitting(conn: sqlite3.Connection, sitting_id: int, *, closed: bool,
                  now: datetime | None = None) -> int | None:
    """Apply the sitting's one rating if it is decided and not yet applied: move the card and
    log the review (dated at the end of the deciding submit). Returns the rating applied now."""
    drill, target, revealed, applied, closed_at = conn.execute(
        "SELECT drill, target_seconds, revealed, rating, closed_at FROM sittings WHERE id = ?",
        (sitting_id,)).fetchone()
    if applied is not None:
        return None
    rows = _sitting_submits(conn, sitting_id)
    decided = sitting_rating([Submit(r[3], float(r[2]), int(r[4]), bool(r[5]), bool(r[6])) for r in rows],
                             target, closed=closed, revealed=bool(revealed))
    if decided is None:
        return None
    if decided.index is not None:
        deciding = rows[decided.index]
        attempt_id, seconds = deciding[0], float(deciding[2])
        when = _parse(deciding[1]) + timedelta(seconds=seconds)
        duration: int | None = int(round(seconds * 1000))
    else:
        attempt_id, duration = None, None
        when = _parse(closed_at) or as_utc(now or utc_now())
    retention, parameters = _scheduler_config(conn)
    outcome = review(drill, _read_card(conn, drill), decided.rating, when, desired_retention=retention,
                     duration_ms=duration, parameters=parameters)
    _write_card(conn, outcome.card)
    conn.execute("INSERT INTO review_logs(attempt_id, sitting_id, drill, rating, reviewed_at, duration_ms) "
                 "VALUES (?, ?, ?, ?, ?, ?)",
                 (attempt_id, sitting_id, drill, int(decided.rating), _iso(outcome.reviewed_at), duration))
    conn.execute("UPDATE sittings SET rating = ? WHERE id = ?", (int(decided.rating), sitting_id))
    return int(decided.rating)


def _replay_history(conn: sqlite3.Connection) -> None:
    """Migration to v3: group the stored attempts into sittings (same drill, mode, session and
    opening time: the REPL stamps every submit with the drill's opening time), then rebuild
    every card and the review log through the one-review-per-sitting rule. The attempts'
    own fields are left as they were; only their new ``sitting_id`` is filled in."""
    rows = conn.execute("SELECT id, drill, mode, session_id, started_at, seconds, verdict, target_seconds "
                        "FROM attempts ORDER BY started_at, id").fetchall()
    groups: dict[tuple, list[tuple]] = {}
    for r in rows:
        groups.setdefault((r[1], r[2], r[3], r[4]), []).append(r)
    order: list[tuple[datetime, int]] = []
    for (drill, mode, session_id, started), members in groups.items():
        end = max(_parse(m[4]) + timedelta(seconds=float(m[5])) for m in members)
        target = next((m[7] for m in members if m[7] is not None), None)
        sitting_id = _insert_sitting(conn, drill, mode, session_id, target, _parse(started), None)
        outcome = "passed" if any(m[6] == "pass" for m in members) else "failed"
        conn.execute("UPDATE sittings SET closed_at = ?, outcome = ? WHERE id = ?", (_iso(end), outcome, sitting_id))
        conn.executemany("UPDATE attempts SET sitting_id = ? WHERE id = ?", [(sitting_id, m[0]) for m in members])
        order.append((end, sitting_id))
    conn.execute("DELETE FROM review_logs")
    conn.execute("DELETE FROM cards WHERE drill IN (SELECT drill FROM attempts WHERE verdict != 'internal')")
    decided: list[tuple[datetime, int]] = []
    for end, sitting_id in order:
        subs = _sitting_submits(conn, sitting_id)
        target = conn.execute("SELECT target_seconds FROM sittings WHERE id = ?", (sitting_id,)).fetchone()[0]
        d = sitting_rating([Submit(r[3], float(r[2]), int(r[4]), bool(r[5]), bool(r[6])) for r in subs],
                           target, closed=True)
        if d is not None:
            deciding = subs[d.index]
            decided.append((_parse(deciding[1]) + timedelta(seconds=float(deciding[2])), sitting_id))
    for _when, sitting_id in sorted(decided):
        _rate_sitting(conn, sitting_id, closed=True)


def _proc_stat(pid: int) -> tuple[str, str] | None:
    """(state, start time in clock ticks) of a process from /proc (Linux); None elsewhere."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rfind(")") + 2:].split()
    return (fields[0], fields[19]) if len(fields) > 19 else None


def _owner_token() -> str:
    """host:pid:start, enough to tell later whether the process that opened a sitting lives."""
    pid = os.getpid()
    stat = _proc_stat(pid)
    return f"{socket.gethostname()}:{pid}:{stat[1] if stat else ''}"


def _owner_alive(owner: str | None, opened_at: datetime | None, now: datetime) -> bool:
    if not owner:
        return False
    parts = owner.rsplit(":", 2)
    try:
        host, pid, start = parts[0], int(parts[1]), parts[2]
    except (ValueError, IndexError):
        return False
    if host != socket.gethostname():  # a shared folder used from another machine: cannot ask it
        return opened_at is not None and as_utc(now) - opened_at < FOREIGN_OWNER_GRACE
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    except OSError:
        return False
    stat = _proc_stat(pid)
    if stat is None:
        return True  # alive, and no /proc to check it is the same process
    return stat[0] not in ("Z", "X") and (not start or stat[1] == start)


def _stored_setting(conn: sqlite3.Connection, key: str) -> Any:
    row = conn.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
    return json.loads(row[0]) if row else SETTING_DEFAULTS[key]


def _attempt_from_row(r: tuple) -> AttemptRecord:
    return AttemptRecord(
        id=r[0], uid=r[1], drill=r[2], mode=r[3], started_at=_parse(r[4]), seconds=r[5], verdict=r[6],
        failing_case=r[7], hints=r[8], code=r[9], seed=r[10], session_id=r[11],
        traps=tuple(json.loads(r[12] or "[]")), revealed=bool(r[13]), first_try=bool(r[14]),
        target_seconds=r[15], rating=r[16], sitting_id=r[17])


def _newer(incoming: CardState, current: CardState) -> bool:
    floor = datetime.min.replace(tzinfo=timezone.utc)
    return (incoming.last_review or floor, incoming.reps) > (current.last_review or floor, current.reps)


def _session_kind(kind: str) -> str:
    normal = kind.strip().lower().replace("-", "").replace("_", "")
    if normal not in SESSION_KINDS:
        raise ValueError(f"unknown session kind {kind!r}; expected one of {', '.join(SESSION_KINDS)}")
    return normal


def _validate_parameters_setting(value: Any) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, dict) or "parameters" not in value:
        raise ValueError(f"{PARAMETERS_KEY} must be an object with a \"parameters\" list "
                         f"(`drill optimize` writes it; `drill optimize --reset` removes it)")
    out = dict(value)
    out["parameters"] = list(check_parameters(value["parameters"]))
    fitted_at = value.get("fitted_at")
    if fitted_at is not None:
        try:
            as_utc(datetime.fromisoformat(str(fitted_at)))
        except ValueError as exc:
            raise ValueError(f"{PARAMETERS_KEY}.fitted_at must be an ISO-8601 time with a zone") from exc
    return out


def _validate_setting(key: str, value: Any) -> Any:
    if key == PARAMETERS_KEY:
        return _validate_parameters_setting(value)
    if key == "retention":
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not MIN_RETENTION <= float(value) <= MAX_RETENTION:
            raise ValueError(f"retention must be a number from {MIN_RETENTION} to {MAX_RETENTION}")
        return float(value)
    if key == "daily_new_limit":
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 32:
            raise ValueError("daily_new_limit must be a whole number from 0 to 32")
        return value
    if key == "vi_mode":
        if not isinstance(value, bool):
            raise ValueError("vi_mode must be true or false")
        return value
    try:
        json.dumps(value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"setting {key!r} must be JSON-serialisable") from exc
    return value


# ---------------------------------------------------------------- export JSON


def _attempt_to_json(a: AttemptRecord, sessions: Mapping[int, SessionRecord],
                     sittings: Mapping[int, str] | None = None) -> dict[str, Any]:
    session = sessions.get(a.session_id) if a.session_id is not None else None
    return {
        "sitting": (sittings or {}).get(a.sitting_id) if a.sitting_id is not None else None,
        "drill": a.drill, "mode": a.mode, "started_at": a.started_at.isoformat(), "seconds": a.seconds,
        "verdict": a.verdict, "hints": a.hints, "code": a.code,
        "uid": a.uid, "seed": a.seed, "failing_case": a.failing_case,
        "session": session.uid if session else None, "traps": list(a.traps), "revealed": a.revealed,
        "first_try": a.first_try, "target_seconds": a.target_seconds, "rating": a.rating,
    }


def _card_to_json(c: CardState) -> dict[str, Any]:
    return {
        "drill": c.drill, "state": c.state, "due": c.due.isoformat(), "stability": c.stability,
        "difficulty": c.difficulty, "reps": c.reps, "lapses": c.lapses, "step": c.step,
        "last_review": c.last_review.isoformat() if c.last_review else None,
    }


def _session_to_json(s: SessionRecord) -> dict[str, Any]:
    return {
        "uid": s.uid, "kind": s.kind, "started_at": s.started_at.isoformat(),
        "ended_at": s.ended_at.isoformat() if s.ended_at else None, "meta": s.meta, "summary": s.summary,
    }


def _card_from_json(c: Mapping[str, Any]) -> CardState:
    return CardState(drill=c["drill"], state=c["state"], step=c.get("step"), stability=c["stability"],
                     difficulty=c["difficulty"], due=_parse(c["due"]), last_review=_parse(c.get("last_review")),
                     reps=int(c["reps"]), lapses=int(c["lapses"]))


def _content_uid(a: Mapping[str, Any]) -> str:
    """A stable uid for a hand-made attempt without one, so re-importing it never duplicates."""
    key = json.dumps([a["drill"], a["mode"], _iso(_parse(a["started_at"])), float(a["seconds"]),
                      a["verdict"], a["code"]])
    return "h" + hashlib.sha256(key.encode()).hexdigest()[:31]


def cap_code(code: str) -> str:
    """A solution as stored with an attempt: at most MAX_CODE_CHARS of its head, and a last
    line saying it was cut when it was longer."""
    if len(code) <= MAX_CODE_CHARS:
        return code
    return (code[:MAX_CODE_CHARS] + f"\n# [drill: cut here; the file had {len(code)} characters, "
            f"only the first {MAX_CODE_CHARS} are stored]\n")


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and (isinstance(v, int) or math.isfinite(v))


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _matches(pattern: re.Pattern[str]) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, str) and pattern.fullmatch(v) is not None


def _plain_text(v: Any) -> bool:
    return isinstance(v, str) and len(v) <= 200 and v.isprintable()


def _depth(value: Any) -> int:
    """How deeply lists and objects nest in ``value`` (iterative: never a RecursionError)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, level)
            if level <= MAX_JSON_DEPTH:
                stack.extend((v, level + 1) for v in (item.values() if isinstance(item, dict) else item))
    return deepest


def _small_object(v: Any) -> bool:
    if not isinstance(v, dict) or _depth(v) > MAX_JSON_DEPTH:
        return False
    try:
        return len(json.dumps(v)) <= MAX_JSON_CHARS
    except (TypeError, ValueError, RecursionError):
        return False


def _check_time(v: Any, where: str, problems: list[str], optional: bool = False) -> None:
    if v is None and optional:
        return
    if not isinstance(v, str):
        problems.append(f"{where} must be an ISO-8601 time, got {type(v).__name__}")
        return
    try:
        moment = datetime.fromisoformat(v)
    except ValueError:
        problems.append(f"{where} is not an ISO-8601 time: {v!r:.60}")
        return
    if moment.tzinfo is None:
        problems.append(f"{where} has no time zone: {v!r:.60}")
        return
    try:
        utc = moment.astimezone(timezone.utc)
    except (OverflowError, ValueError):
        problems.append(f"{where} cannot be converted to UTC: {v!r:.60}")
        return
    if not MIN_YEAR <= utc.year <= MAX_YEAR:
        problems.append(f"{where} must lie between the years {MIN_YEAR} and {MAX_YEAR}: {v!r:.60}")


def _check_fields(item: Any, where: str, spec: Mapping[str, tuple[Callable[[Any], bool], str]],
                  required: tuple[str, ...], problems: list[str]) -> bool:
    if not isinstance(item, dict):
        problems.append(f"{where} must be an object")
        return False
    missing = [k for k in required if k not in item]
    if missing:
        problems.append(f"{where} lacks {', '.join(missing)}")
    for key, (ok, wanted) in spec.items():
        if key in item and not ok(item[key]):
            problems.append(f"{where}.{key} must be {wanted}, got {item[key]!r:.40}")
    return not missing


def _opt(check: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda v: v is None or check(v)


_ATTEMPT_SPEC: dict[str, tuple[Callable[[Any], bool], str]] = {
    "drill": (_matches(_DRILL_ID), "a drill id (lower-case words joined by '-')"),
    "mode": (_matches(_MODE), "a mode such as solve, warmup, mock or team"),
    "seconds": (lambda v: _is_number(v) and 0 <= v <= MAX_ATTEMPT_SECONDS,
                f"a number of seconds from 0 to {MAX_ATTEMPT_SECONDS}"),
    "verdict": (lambda v: v in VERDICTS, f"one of {', '.join(VERDICTS)}"),
    "hints": (lambda v: _is_int(v) and 0 <= v <= MAX_HINTS, f"a whole number from 0 to {MAX_HINTS}"),
    "code": (lambda v: isinstance(v, str), "a string"),
    "uid": (_matches(_UID), "up to 64 letters, digits, '-' or '_'"),
    "seed": (_opt(lambda v: _is_int(v) and -MAX_SEED - 1 <= v <= MAX_SEED), "a 64-bit whole number or null"),
    "failing_case": (_opt(_plain_text), "a case name (at most 200 characters, no control characters) or null"),
    "session": (_opt(_matches(_UID)), "a session uid or null"),
    "sitting": (_opt(_matches(_UID)), "a sitting uid or null"),
    "traps": (lambda v: isinstance(v, list) and len(v) <= 20 and all(_matches(_TRAP_ID)(t) for t in v),
              "a list of at most 20 trap ids"),
    "revealed": (lambda v: isinstance(v, bool), "true or false"),
    "first_try": (lambda v: isinstance(v, bool), "true or false"),
    "target_seconds": (_opt(lambda v: _is_number(v) and 0 < v <= MAX_ATTEMPT_SECONDS),
                       f"a number of seconds above 0 and at most {MAX_ATTEMPT_SECONDS}, or null"),
    "rating": (_opt(lambda v: _is_int(v) and 1 <= v <= 4), "1 to 4 or null"),
}
_CARD_SPEC: dict[str, tuple[Callable[[Any], bool], str]] = {
    "drill": (_matches(_DRILL_ID), "a drill id (lower-case words joined by '-')"),
    "state": (lambda v: v in STATES[1:], "learning, review or relearning"),
    "stability": (_opt(lambda v: _is_number(v) and 0 < v <= MAX_STABILITY),
                  f"a number above 0 and at most {MAX_STABILITY:g}, or null"),
    "difficulty": (_opt(lambda v: _is_number(v) and 1 <= v <= 10), "a number from 1 to 10, or null"),
    "reps": (lambda v: _is_int(v) and 0 <= v <= MAX_COUNT, f"a whole number from 0 to {MAX_COUNT}"),
    "lapses": (lambda v: _is_int(v) and 0 <= v <= MAX_COUNT, f"a whole number from 0 to {MAX_COUNT}"),
    "step": (_opt(lambda v: _is_int(v) and 0 <= v <= 100), "a whole number from 0 to 100, or null"),
}
_SESSION_SPEC: dict[str, tuple[Callable[[Any], bool], str]] = {
    "uid": (_matches(_UID), "up to 64 letters, digits, '-' or '_'"),
    "kind": (lambda v: isinstance(v, str) and v in SESSION_KINDS, f"one of {', '.join(SESSION_KINDS)}"),
    "meta": (_opt(_small_object),
             f"an object nested at most {MAX_JSON_DEPTH} deep and at most {MAX_JSON_CHARS} characters"),
    "summary": (_opt(_small_object),
                f"an object nested at most {MAX_JSON_DEPTH} deep and at most {MAX_JSON_CHARS} characters, or null"),
}


def validate_export(data: Any) -> list[str]:
    """Every reason ``data`` is not a `drill export` file (empty when it is one)."""
    if not isinstance(data, dict):
        return [f"expected a JSON object as written by `drill export`, got {type(data).__name__}"]
    problems: list[str] = []
    if not _is_int(data.get("format")) or data.get("format") != EXPORT_FORMAT:
        return [f"unsupported format {data.get('format')!r:.40} (this drill reads format {EXPORT_FORMAT})"]
    _check_time(data.get("exported_at"), "exported_at", problems)
    for key in ("attempts", "cards", "sessions"):
        if not isinstance(data.get(key), list):
            problems.append(f"{key} must be a list")
    if problems:
        return problems
    session_uids = set()
    for i, s in enumerate(data["sessions"]):
        if _check_fields(s, f"sessions[{i}]", _SESSION_SPEC, ("uid", "kind", "started_at"), problems):
            _check_time(s["started_at"], f"sessions[{i}].started_at", problems)
            _check_time(s.get("ended_at"), f"sessions[{i}].ended_at", problems, optional=True)
            if isinstance(s["uid"], str):  # an ill-typed uid is already a problem; never hash it
                session_uids.add(s["uid"])
    for i, a in enumerate(data["attempts"]):
        where = f"attempts[{i}]"
        if _check_fields(a, where, _ATTEMPT_SPEC,
                         ("drill", "mode", "started_at", "seconds", "verdict", "hints", "code"), problems):
            _check_time(a["started_at"], f"{where}.started_at", problems)
            if isinstance(a.get("session"), str) and a["session"] and a["session"] not in session_uids:
                problems.append(f"{where}.session {a['session']!r:.70} is not among the file's sessions")
    for i, c in enumerate(data["cards"]):
        if _check_fields(c, f"cards[{i}]", _CARD_SPEC,
                         ("drill", "state", "due", "stability", "difficulty", "reps", "lapses"), problems):
            _check_time(c["due"], f"cards[{i}].due", problems)
            _check_time(c.get("last_review"), f"cards[{i}].last_review", problems, optional=True)
    drills = [c.get("drill") for c in data["cards"] if isinstance(c, dict) and isinstance(c.get("drill"), str)]
    if len(drills) != len(set(drills)):
        problems.append("cards lists the same drill twice")
    return problems
