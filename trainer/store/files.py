"""Where the store lives on disk: ``DRILL_HOME/progress.db`` and ``DRILL_HOME/backups/``.

Finding files only (nothing here opens SQLite or writes), so that both the
error messages (which name the newest backup) and the backup operations can
use it without importing each other.

A backup is ``progress-<kind>-<UTC time>[_n].db``; kinds: ``auto``, ``pre-vN``,
``pre-reset``, ``pre-restore``, ``pre-undo``, ``pre-clean``, ``manual``.

A name is no proof: anyone can drop ``progress-auto-99991231T235959Z.db`` in the folder. A file
is taken for one drill wrote (``own_backups``: counted when pruning, offered by a bare `drill
restore`) only when it is a regular file, begins as an SQLite file does, its name's time is
not in the future and its modification time is the time in its name (drill sets it so when it
writes a backup; copies made by an older drill are within seconds of it). Anything else is
listed with the reason, and never deleted, counted among the kept or restored by default.
"""
from __future__ import annotations

import os
import re
import stat
from datetime import datetime, timedelta, timezone
from pathlib import Path

from trainer.paths import drill_home

DB_NAME = "progress.db"
BACKUP_DIR = "backups"
TS_FORMAT = "%Y%m%dT%H%M%SZ"
SQLITE_MAGIC = b"SQLite format 3\x00"
FUTURE_SLACK = timedelta(minutes=5)  # a clock a little ahead of the one that wrote the name
MTIME_SLACK = timedelta(minutes=10)  # a large copy written by an older drill, which left the mtime alone
_KIND = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")


def database_path(home: Path | None = None) -> Path:
    return (Path(home) if home is not None else drill_home()) / DB_NAME


def database_exists(home: Path | None = None) -> bool:
    """Whether a progress database exists (checking never creates one)."""
    return database_path(home).is_file()


def backups_dir(home: Path) -> Path:
    return home / BACKUP_DIR


def backup_stamp(path: Path) -> tuple[str, int]:
    """('20250303T080000Z', n) from progress-<kind>-20250303T080000Z[_n].db."""
    stamp, _, n = path.stem.rsplit("-", 1)[-1].partition("_")
    return stamp, int(n) if re.fullmatch(r"[0-9]{1,9}", n) else 1


def backup_time(path: Path) -> datetime | None:
    try:
        return datetime.strptime(backup_stamp(path)[0], TS_FORMAT).replace(tzinfo=timezone.utc)
    except ValueError:
        return None


def backup_kind(path: Path) -> str:
    return path.stem[len("progress-"):].rsplit("-", 1)[0]


def _mtime_ns(path: Path) -> int:
    try:
        return path.lstat().st_mtime_ns
    except OSError:
        return 0


def list_backups(home: Path | None = None) -> list[Path]:
    """Every file in DRILL_HOME/backups named as a backup, newest name first (whoever wrote it:
    ``not_drills`` says which are not drill's own)."""
    folder = backups_dir(Path(home) if home is not None else drill_home())
    if not folder.is_dir():
        return []
    found = [p for p in folder.glob("progress-*.db") if backup_time(p) is not None]
    return sorted(found, key=lambda p: (backup_time(p), backup_stamp(p)[1], _mtime_ns(p)), reverse=True)


def not_drills(path: Path, now: datetime | None = None) -> str | None:
    """Why ``path`` is not a backup drill wrote (None when it is one), judged at ``now``."""
    now = now if now is not None else datetime.now(timezone.utc)
    taken = backup_time(path)
    if taken is None or not _KIND.fullmatch(backup_kind(path)):
        return "not a backup's name"
    try:
        info = path.lstat()
        if not stat.S_ISREG(info.st_mode):
            return "not a regular file"
        if taken > now + FUTURE_SLACK:
            return "dated in the future"
        if abs(info.st_mtime - taken.timestamp()) > MTIME_SLACK.total_seconds():
            return "its time is not the time in its name"
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
        try:
            head = os.read(fd, len(SQLITE_MAGIC))
        finally:
            os.close(fd)
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    return None if head == SQLITE_MAGIC else "not an SQLite file"


def own_backups(home: Path | None = None, now: datetime | None = None) -> list[Path]:
    """The backups drill wrote (``not_drills`` is None), newest first."""
    try:
        return [p for p in list_backups(home) if not_drills(p, now) is None]
    except OSError:
        return []


def latest_backup(home: Path | None = None, now: datetime | None = None) -> Path | None:
    """The backup to restore after damage: the newest automatic (or pre-migration) copy drill
    wrote; a pre-reset copy (progress deliberately forgotten) only when there is nothing else.
    A pre-clean copy (it holds what drill dropped) and a file drill did not write: never."""
    backups = [p for p in own_backups(home, now) if backup_kind(p) != "pre-clean"]
    preferred = [p for p in backups if backup_kind(p) != "pre-reset"] or backups
    return preferred[0] if preferred else None
