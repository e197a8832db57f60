"""The store's errors, and the translation of sqlite3 and OS errors into them.

Every public store function raises ``StoreError`` subclasses (never ``sqlite3``
errors): the message says what is wrong and what to do. They are grader.errors'
``DrillError``s, whose ``exit_code`` only the CLI's edge turns into an exit status.
"""
from __future__ import annotations

import errno
import sqlite3
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from grader.errors import DrillError

from trainer.store import connection
from trainer.store.files import BACKUP_DIR, DB_NAME, latest_backup


class StoreError(DrillError):
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


class ForeignSchemaError(StoreError):
    """progress.db holds drill's tables changed, missing, or none of them: not a file drill wrote."""

    def __init__(self, path: Path, problems: list[str]) -> None:
        self.path, self.problems = path, problems
        shown = "; ".join(problems[:3]) + (f"; and {len(problems) - 3} more" if len(problems) > 3 else "")
        super().__init__(
            f"the progress database {path} is not one drill wrote ({shown}). It was left untouched: "
            f"restore a backup (`drill restore --list` shows them), or move the file aside to start afresh."
        )


class RestoreRefusedError(StoreError):
    """The file offered to `drill restore` is not a drill progress database; nothing was swapped."""

    exit_code = 2

    def __init__(self, source: Path, reason: str) -> None:
        self.source, self.reason = source, reason
        super().__init__(f"refusing to restore {source}: {reason}. Nothing was restored; "
                         f"the current progress is untouched.")


class UnreadableRowError(StoreError):
    """A stored row drill cannot read (a restored backup, a file edited by hand): named, never a traceback."""

    def __init__(self, path: Path, table: str, detail: str) -> None:
        self.path, self.table = path, table
        super().__init__(f"the progress database {path} holds a row of {table} that drill cannot read "
                         f"({detail[:100]!r}). It was left as it is: restore a backup "
                         f"(`drill restore --list` shows them).")


class NothingRestored(StoreError):
    """The person declined the restore (the ``confirm`` of restore_backup); nothing was changed."""

    def __init__(self, source: Path) -> None:
        self.source = source
        super().__init__("Nothing was changed.")


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
            f"{connection.BUSY_TIMEOUT_MS // 1000} s; close the other session and try again."
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


def domain_error(exc: sqlite3.Error, home: Path) -> StoreError:
    """Translate a sqlite3 error into the StoreError that says what to do."""
    path = home / DB_NAME
    name, text = connection.sqlite_name(exc), str(exc)
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


def os_error(exc: OSError, home: Path) -> StoreError:
    detail = exc.strerror or str(exc)
    if exc.errno in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT):
        return DiskFullError(home / DB_NAME, detail)
    return HomeNotWritableError(home, detail)


@contextmanager
def translated(home: Path) -> Iterator[None]:
    """Raise the StoreError for any sqlite3 or OS error inside the block."""
    try:
        yield
    except sqlite3.Error as exc:
        raise domain_error(exc, home) from exc
    except OSError as exc:
        raise os_error(exc, home) from exc
