"""Backups: whole-database copies in ``DRILL_HOME/backups/``, and restoring one.

A copy is made with the SQLite backup API into a temporary file that is then
renamed, so a killed process never leaves a half backup under a real name.
Kinds: ``auto`` (at most one a day, on open, and only when something was practised
since the newest one), ``pre-vN`` (before migrating to N), ``pre-reset``, ``pre-undo`` and
``pre-clean`` (before dropping objects drill did not create); the newest ``KEEP_BACKUPS`` of each
kind among the backups drill wrote are kept (a file drill did not write is neither counted nor
deleted: files.not_drills). A restore checks the file against drill's schema first. Listing
them is in trainer.store.files (the error messages need it).
"""
from __future__ import annotations

import os
import shutil
import sqlite3
import uuid
from datetime import datetime, timedelta
from pathlib import Path
from typing import Callable

from trainer.paths import drill_home
from trainer.clock import utc_now
from trainer.schedule.adapter import as_utc
from trainer.store import schema
from trainer.store.errors import NoBackupError, NothingRestored, RestoreRefusedError, translated
from trainer.store.migrations import SCHEMA_VERSION
from trainer.store.files import (
    DB_NAME,
    TS_FORMAT,
    backup_kind,
    backup_time,
    backups_dir,
    latest_backup,
    own_backups,
)

KEEP_BACKUPS = 5
AUTO_BACKUP_EVERY = timedelta(days=1)


def copy_database(conn: sqlite3.Connection, home: Path, kind: str, now: datetime) -> Path:
    """Back up the open database as a ``kind`` backup taken at ``now``; returns its path."""
    folder = backups_dir(home)
    folder.mkdir(parents=True, exist_ok=True)
    stamp = as_utc(now).strftime(TS_FORMAT)
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
        taken = as_utc(now).timestamp()
        os.utime(tmp, (taken, taken))  # the time in its name: how drill knows its own (files.not_drills)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    prune_backups(home, kind, now)
    return target


def prune_backups(home: Path, kind: str, now: datetime) -> None:
    """Keep the newest KEEP_BACKUPS of ``kind`` among the backups drill wrote; a file drill did not
    write (a name dated in the future, a foreign file) is neither counted nor deleted."""
    same_kind = [p for p in own_backups(home, now) if backup_kind(p) == kind]
    for old in same_kind[KEEP_BACKUPS:]:
        old.unlink(missing_ok=True)
    for stale in backups_dir(home).glob(".tmp-*.db"):
        try:
            if stale.stat().st_mtime < datetime.now().timestamp() - 3600:
                stale.unlink()
        except OSError:
            pass


def auto_backup(conn: sqlite3.Connection, home: Path, now: datetime) -> None:
    """One automatic backup a day, taken on open once there is something to keep.
    A failed automatic backup never blocks recording."""
    try:
        autos = [p for p in own_backups(home, now) if backup_kind(p) == "auto"]
        newest = backup_time(autos[0]) if autos else None
        if newest is not None and abs(now - newest) < AUTO_BACKUP_EVERY:
            return
        if not conn.execute("SELECT EXISTS(SELECT 1 FROM attempts)").fetchone()[0]:
            return
        if autos and _fingerprint_of(autos[0]) == _fingerprint(conn):
            return  # nothing practised since the newest copy: an idle day must not rotate a real one out
        copy_database(conn, home, "auto", now)
    except (OSError, sqlite3.Error):
        pass


_FINGERPRINT = ("SELECT (SELECT count(*) FROM attempts), (SELECT coalesce(max(id), 0) FROM attempts), "
                "(SELECT count(*) FROM sittings), (SELECT group_concat(key || '=' || value) FROM settings)")


def _fingerprint(conn: sqlite3.Connection) -> tuple:
    """What a backup holds, in brief: the attempts, the sittings and the settings."""
    return tuple(conn.execute(_FINGERPRINT).fetchone())


def _fingerprint_of(path: Path) -> tuple | None:
    """The fingerprint of a backup file (read-only), None when it cannot be read."""
    try:
        backup = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            return _fingerprint(backup)
        finally:
            backup.close()
    except sqlite3.Error:
        return None


def restore_backup(home: Path | None = None, backup: Path | None = None,
                   clock: Callable[[], datetime] | None = None,
                   confirm: Callable[[Path], bool] | None = None,
                   check_rows: Callable[[Path, Path], None] | None = None) -> tuple[Path, Path | None]:
    """Put ``backup`` (default: ``latest_backup``) in place of progress.db. The backup is copied and
    the copy checked first (check_restorable: a drill database of a version this drill reads, with
    nothing in it drill did not create); RestoreRefusedError otherwise, before anything is swapped.
    ``check_rows(copy, backup)``, when given, is the check of its rows (trainer.store.store
    passes its own: the file read as drill reads it). ``confirm(backup)``, when given, is asked
    after the checks; False raises NothingRestored, with
    nothing changed. The current file, if any, is kept as ``progress.db.before-restore-<time>``
    (with its -wal/-shm), never deleted.
    Returns (the backup restored, where the old file went)."""
    home = Path(home) if home is not None else drill_home()
    now = (clock or utc_now)()
    chosen = Path(backup) if backup is not None else latest_backup(home, now)
    if chosen is None or not chosen.is_file():
        raise NoBackupError(chosen or backups_dir(home))
    path = home / DB_NAME
    kept: Path | None = None
    with translated(home):
        home.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".restore-{uuid.uuid4().hex}.db")
        try:
            shutil.copyfile(chosen, tmp)
            check_restorable(tmp, chosen)
            if check_rows is not None:
                check_rows(tmp, chosen)
            if confirm is not None and not confirm(chosen):
                raise NothingRestored(chosen)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        # progress.db never goes missing: the old file is copied aside, its -wal/-shm are
        # moved aside (an old WAL must never be replayed onto the restored file), and only
        # then is the checked copy renamed over it.
        stamp = as_utc(now).strftime(TS_FORMAT)
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


def check_restorable(copy: Path, source: Path) -> None:
    """Refuse (RestoreRefusedError, naming ``source``) a copy that is not a drill progress database
    this drill can open as it is: empty, not SQLite, damaged, from a newer drill, another schema,
    or drill's schema with anything added (a trigger, a view, an index, a table) or changed."""
    if copy.stat().st_size == 0:
        raise RestoreRefusedError(source, "it is empty (0 bytes), not a drill progress database")
    try:
        conn = sqlite3.connect(str(copy), isolation_level=None)
    except sqlite3.Error as exc:
        raise RestoreRefusedError(source, f"it cannot be opened as a database ({exc})") from None
    try:
        try:
            damage = "; ".join(r[0] for r in conn.execute("PRAGMA quick_check").fetchall()[:3])
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            if damage != "ok":
                raise RestoreRefusedError(source, f"it is damaged ({damage}); pick another with "
                                                  f"`drill restore --list`")
            if version > SCHEMA_VERSION:
                raise RestoreRefusedError(source, f"it was written by a newer drill (schema version {version}; "
                                                  f"this drill knows up to {SCHEMA_VERSION})")
            found = schema.entries(conn)
            if version < 1 or not found:
                raise RestoreRefusedError(source, "it is not a drill progress database ("
                                          + ("it holds no tables" if not found else
                                             f"schema version {version}, tables drill does not use") + ")")
            diff = schema.compare(conn, version)
            if not diff.same:
                problems = diff.problems()
                raise RestoreRefusedError(source, "it holds more or other than drill's own schema: "
                                          + "; ".join(problems[:3])
                                          + (f"; and {len(problems) - 3} more" if len(problems) > 3 else ""))
            conn.execute("PRAGMA journal_mode = DELETE")
        except sqlite3.Error as exc:
            raise RestoreRefusedError(source, f"it is not a drill progress database ({exc})") from None
    finally:
        conn.close()
