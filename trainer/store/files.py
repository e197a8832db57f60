"""Where the store lives on disk: ``DRILL_HOME/progress.db`` and ``DRILL_HOME/backups/``.

Finding files only (nothing here opens SQLite or writes), so that both the
error messages (which name the newest backup) and the backup operations can
use it without importing each other.

A backup is ``progress-<kind>-<UTC time>[_n].db``; kinds: ``auto``, ``pre-vN``,
``pre-reset``, ``pre-restore``, ``manual``.
"""
from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from trainer.paths import drill_home

DB_NAME = "progress.db"
BACKUP_DIR = "backups"
TS_FORMAT = "%Y%m%dT%H%M%SZ"


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
    return stamp, int(n) if n.isdigit() else 1


def backup_time(path: Path) -> datetime | None:
    try:
        return datetime.strptime(backup_stamp(path)[0], TS_FORMAT).replace(tzinfo=timezone.utc)
    except ValueError:
        return None


def backup_kind(path: Path) -> str:
    return path.stem[len("progress-"):].rsplit("-", 1)[0]


def list_backups(home: Path | None = None) -> list[Path]:
    """Every backup in DRILL_HOME/backups, newest first."""
    folder = backups_dir(Path(home) if home is not None else drill_home())
    if not folder.is_dir():
        return []
    found = [p for p in folder.glob("progress-*.db") if backup_time(p) is not None]
    return sorted(found, key=lambda p: (backup_time(p), backup_stamp(p)[1], p.stat().st_mtime_ns),
                  reverse=True)


def latest_backup(home: Path | None = None) -> Path | None:
    """The backup to restore after damage: the newest automatic (or pre-migration) copy;
    a pre-reset copy (progress deliberately forgotten) only when there is nothing else."""
    try:
        backups = list_backups(home)
    except OSError:
        return None
    preferred = [p for p in backups if backup_kind(p) != "pre-reset"] or backups
    return preferred[0] if preferred else None
