"""The progress store: the only module that speaks SQL.

One SQLite file, ``DRILL_HOME/progress.db``, in WAL mode with a busy timeout,
``synchronous=FULL`` and foreign keys on. Every attempt is one ``BEGIN
IMMEDIATE`` transaction covering the attempt row, the card update and the
review log, committed before ``record_attempt`` returns: a caller that prints
after the call never reports an attempt that is not on disk.

Attempts are grouped in **sittings** (one drill from opening to pass, skip, leave
or timeout; see trainer.schedule.adapter): ``open_sitting`` -> ``record_attempt(NewAttempt(...,
sitting_id=))`` -> ``close_sitting``. The card moves once per sitting, in the
transaction of the submit (or the closing) that decides its rating. A sitting
left open by a process that died (SIGKILL, crash, power cut) is closed and
rated from its stored attempts the next time any process opens the store
(``recover_sittings``); a sitting whose process still runs is left alone.
``record_attempt`` without a sitting is a sitting of its own.

Schema versions live in ``PRAGMA user_version`` and ``MIGRATIONS`` (add-only;
each step runs in its own transaction together with the version bump, after a
backup copy of the file; a step is SQL text or a function of the connection).
A file newer than this program is refused and left untouched. ``PRAGMA
quick_check`` runs on every open; a damaged file is reported with the newest
backup and the command that restores it.

Backups are whole-database copies in ``DRILL_HOME/backups/`` made with the
SQLite backup API into a temporary file that is then renamed, so a killed
process never leaves a half backup under a real name. Kinds: ``auto`` (at most
one a day, on open), ``pre-vN`` (before migrating to N), ``pre-reset``, ``pre-restore``,
``pre-undo`` and ``pre-clean`` (before dropping what drill did not create); the newest
``KEEP_BACKUPS`` of each kind among the backups drill wrote (files.not_drills) are kept.

Every public method raises ``StoreError`` subclasses (never ``sqlite3`` errors):
their message says what is wrong and what to do. Only the CLI turns them into
exit codes.

The package, one idea a module: ``store`` (open_store, the Store), ``migrations``
(the schema), ``errors``, ``files`` and ``backups``, ``exchange`` (export,
import, validation), ``records`` (NewAttempt and the frozen records), ``rows``,
``rating`` (one review per sitting), ``control`` (suspend, bury, undo, re-rate), ``settings``
(checked when written and when read), ``schema`` (a file against drill's own schema), ``notices``
(one line on stderr, once per command), ``owners``, ``connection``.
Callers import from ``trainer.store``.
"""
from __future__ import annotations

from trainer.store.backups import AUTO_BACKUP_EVERY, KEEP_BACKUPS
from trainer.store.connection import BUSY_TIMEOUT_MS
from trainer.store.errors import (
    CorruptDatabaseError,
    DiskFullError,
    ForeignSchemaError,
    HomeNotWritableError,
    ImportRefusedError,
    NewerSchemaError,
    NoBackupError,
    NoDatabaseError,
    NothingRestored,
    RestoreRefusedError,
    StoreBusyError,
    StoreError,
    StoreWriteError,
)
from trainer.store.exchange import (
    EXPORT_FORMAT,
    MAX_ATTEMPT_SECONDS,
    MAX_COUNT,
    MAX_HINTS,
    MAX_JSON_CHARS,
    MAX_JSON_DEPTH,
    MAX_SEED,
    MAX_STABILITY,
    MAX_YEAR,
    MIN_YEAR,
    validate_export,
)
from trainer.store.files import (
    BACKUP_DIR,
    DB_NAME,
    backups_dir,
    database_exists,
    database_path,
    latest_backup,
    list_backups,
)
from trainer.store.migrations import MIGRATIONS, SCHEMA_VERSION
from trainer.store.owners import FOREIGN_OWNER_GRACE
from trainer.store.records import (
    SESSION_KINDS,
    AttemptRecord,
    DrillSummary,
    ImportResult,
    NewAttempt,
    RecordResult,
    ResetResult,
    ReviewRecord,
    SessionRecord,
    Settings,
    SittingRecord,
)
from trainer.store.rows import MAX_CODE_CHARS, cap_code
from trainer.store.settings import PARAMETERS_KEY, SETTING_DEFAULTS, fitted_parameters
from trainer.store.store import Store, open_store, restore_backup

__all__ = [
    "AUTO_BACKUP_EVERY", "BACKUP_DIR", "BUSY_TIMEOUT_MS", "DB_NAME", "EXPORT_FORMAT", "FOREIGN_OWNER_GRACE",
    "KEEP_BACKUPS", "MAX_ATTEMPT_SECONDS", "MAX_CODE_CHARS", "MAX_COUNT", "MAX_HINTS", "MAX_JSON_CHARS",
    "MAX_JSON_DEPTH", "MAX_SEED", "MAX_STABILITY", "MAX_YEAR", "MIGRATIONS", "MIN_YEAR", "PARAMETERS_KEY",
    "SCHEMA_VERSION", "SESSION_KINDS", "SETTING_DEFAULTS",
    "AttemptRecord", "CorruptDatabaseError", "DiskFullError", "DrillSummary", "ForeignSchemaError",
    "HomeNotWritableError", "ImportRefusedError", "ImportResult", "NewAttempt", "NewerSchemaError", "NoBackupError",
    "NoDatabaseError", "NothingRestored", "RecordResult", "RestoreRefusedError", "ResetResult", "ReviewRecord",
    "SessionRecord", "Settings", "SittingRecord", "Store",
    "StoreBusyError", "StoreError", "StoreWriteError",
    "backups_dir", "cap_code", "database_exists", "database_path", "fitted_parameters", "latest_backup",
    "list_backups", "open_store", "restore_backup", "validate_export",
]
