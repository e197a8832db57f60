"""The Store: a handle on the progress database, and ``open_store`` that makes one.

Opening creates, checks (``PRAGMA quick_check``), migrates and backs up the
file as needed, then recovers sittings left open by dead processes. Every
write is one ``BEGIN IMMEDIATE`` transaction committed before the method
returns; every method raises StoreError subclasses, never sqlite3 errors. The
SQL of the pieces lives beside it: rows, rating, settings, exchange, backups.
"""
from __future__ import annotations

import functools
import json
import shutil
import sqlite3
import tempfile
import uuid
from contextlib import contextmanager
from dataclasses import replace
from datetime import date, datetime, timedelta, timezone, tzinfo
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, TypeVar

from trainer.paths import drill_home
from trainer.clock import utc_now
from trainer.schedule.adapter import VERDICTS, CardState, as_utc, retrievability
from trainer.store import connection, migrations
from trainer.store import backups, control, notices, schema
from trainer.store.backups import auto_backup, copy_database
from trainer.store.errors import (
    CorruptDatabaseError,
    ForeignSchemaError,
    HomeNotWritableError,
    ImportRefusedError,
    NewerSchemaError,
    NoDatabaseError,
    RestoreRefusedError,
    StoreError,
    UnreadableRowError,
    translated,
)
from trainer.store.exchange import MAX_SEED, export_data, import_data, validate_export
from trainer.store.files import DB_NAME, latest_backup
from trainer.store.owners import owner_alive, owner_token
from trainer.store.rating import rate_sitting
from trainer.store.records import (
    ATTEMPT_KINDS,
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
    TIMED_SQL,
)
from trainer.store.rows import (
    ATTEMPT_COLUMNS,
    CARD_COLUMNS,
    SITTING_COLUMNS,
    attempt_from_row,
    card_from_row,
    insert_attempt,
    insert_sitting,
    iso,
    last_id,
    parse,
    parse_variant,
    read_card,
    sitting_from_row,
)
from trainer.store.settings import (
    PARAMETERS_KEY,
    SETTING_DEFAULTS,
    fitted_parameters,
    read_settings,
    scheduler_config,
    validate_setting,
)
from trainer.schedule.streak import streak
from trainer.clock import Now  # a clock's `now`: a function returning UTC now


_Method = TypeVar("_Method", bound=Callable[..., Any])


def _reads(table: str) -> Callable[[_Method], _Method]:
    """A reader of ``table``'s rows: a stored value it cannot parse (a date that is not one, JSON
    that is not) is UnreadableRowError naming the file and the table, never a traceback."""
    def wrap(method: _Method) -> _Method:
        @functools.wraps(method)
        def reading(self: Store, *args: Any, **kwargs: Any) -> Any:
            try:
                return method(self, *args, **kwargs)
            except (ValueError, TypeError, KeyError, OverflowError, RecursionError) as exc:
                raise UnreadableRowError(self.path, table, f"{type(exc).__name__}: {exc}") from None
        return reading  # type: ignore[return-value]
    return wrap


def open_store(home: Path | None = None, clock: Now | None = None, *, create: bool = True) -> Store:
    """Open (creating, migrating and checking as needed) the progress database.

    ``home`` defaults to ``drill_home()``; ``clock`` returns an aware UTC datetime.
    With ``create=False`` a missing database raises ``NoDatabaseError`` instead of
    being created. Usable as a context manager (closes on exit)."""
    home = Path(home) if home is not None else drill_home()
    clock = clock or utc_now
    path = home / DB_NAME
    if not create and not path.is_file():
        raise NoDatabaseError(path)
    with translated(home):
        if home.exists() and not home.is_dir():
            raise HomeNotWritableError(home, "it is a file, not a folder")
        home.mkdir(parents=True, exist_ok=True)
        if (path.exists() or path.is_symlink()) and not path.is_file():
            raise HomeNotWritableError(home, f"{DB_NAME} there is not a regular file (a folder, FIFO, device "
                                             f"or broken link); move it away")
        conn = connection.connect(path)
    store = Store(conn, home, clock)
    try:
        store._prepare()
    except BaseException:
        conn.close()
        raise
    return store


def restore_backup(home: Path | None = None, backup: Path | None = None, clock: Now | None = None,
                   confirm: Callable[[Path], bool] | None = None) -> tuple[Path, Path | None]:
    """trainer.store.backups.restore_backup, the backup's rows checked too (check_rows)."""
    return backups.restore_backup(home, backup, clock, confirm, check_rows=check_rows)


def check_rows(copy: Path, source: Path) -> None:
    """Refuse (RestoreRefusedError) a backup whose rows drill cannot read or would not have
    written: a copy of it is opened in a scratch folder (an old file migrated there), read whole
    as `drill export` reads it, and held to what `drill import` accepts."""
    with tempfile.TemporaryDirectory(prefix="drill-restore-") as scratch:
        home = Path(scratch)
        shutil.copyfile(copy, home / DB_NAME)
        try:
            with open_store(home, utc_now) as store:
                data = export_data(store)
        except UnreadableRowError as exc:
            raise RestoreRefusedError(source, f"a stored row of {exc.table} cannot be read "
                                              f"({str(exc.__context__ or exc)[:80]!r})") from None
        except StoreError as exc:
            raise RestoreRefusedError(source, f"drill cannot open it ({exc.message})") from None
        except (ValueError, TypeError, KeyError, OverflowError, RecursionError) as exc:
            raise RestoreRefusedError(source, f"a stored row cannot be read ({str(exc)[:80]!r})") from None
    problems = validate_export(data)
    if problems:
        shown = "; ".join(problems[:3]) + (f"; and {len(problems) - 3} more" if len(problems) > 3 else "")
        raise RestoreRefusedError(source, f"its rows are not what drill writes ({shown})")


class Store:
    """A handle on the progress database. Not shared between processes; cheap to open."""

    def __init__(self, conn: sqlite3.Connection, home: Path, clock: Now) -> None:
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
        with translated(self.home):
            connection.set_busy_timeout(self._conn)
            version = self.schema_version()
            self._quick_check()
            if version > migrations.SCHEMA_VERSION:
                raise NewerSchemaError(self.path, version, migrations.SCHEMA_VERSION)
            self._check_schema(version)
            connection.enter_wal(self._conn)
            connection.make_durable(self._conn)
            if version < migrations.SCHEMA_VERSION:
                self._migrate(version)
            auto_backup(self._conn, self.home, self.clock())
        try:
            self.recover_sittings()
        except StoreError:
            pass  # read-only or busy: the next open tries again; nothing is lost meanwhile
        try:
            self.settings()  # a stored setting that cannot be used is said now, before any screen is drawn
        except StoreError:
            pass

    def schema_version(self) -> int:
        return int(self._conn.execute("PRAGMA user_version").fetchone()[0])

    def _quick_check(self) -> None:
        rows = [r[0] for r in self._conn.execute("PRAGMA quick_check").fetchall()]
        if rows != ["ok"]:
            raise CorruptDatabaseError(self.path, "; ".join(rows[:3]), latest_backup(self.home))

    def _check_schema(self, version: int) -> None:
        """The file against drill's schema at its version (trainer.store.schema), before anything
        runs on it. Objects drill never creates (a trigger that deletes history, a view, an index,
        a table) are dropped, after a ``pre-clean`` backup of the file as it was, with a notice;
        drill's own tables missing or changed, or tables in a file drill never stamped, are
        refused (ForeignSchemaError) and the file is left as it is."""
        if version == 0 and not schema.entries(self._conn):
            return  # a new file
        if version == 0:
            raise ForeignSchemaError(self.path, ["schema version 0 with tables drill does not create"])
        diff = schema.compare(self._conn, version)
        if diff.missing or diff.altered:
            raise ForeignSchemaError(self.path, diff.problems())
        if not diff.foreign:
            return
        kept = copy_database(self._conn, self.home, "pre-clean", self.clock())
        with self._transaction() as conn:
            for entry in diff.foreign:
                conn.execute(schema.drop_statement(entry))
        what = ", ".join(e.describe() for e in diff.foreign[:4]) + (
            f" and {len(diff.foreign) - 4} more" if len(diff.foreign) > 4 else "")
        notices.say(f"{self.path} held {what}, which drill did not create; dropped "
                    f"(the file as it was is kept as {kept}).")

    def _has_tables(self) -> bool:
        return self._conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] > 0

    def _migrate(self, version: int) -> None:
        latest = migrations.SCHEMA_VERSION
        if version > 0 or self._has_tables():
            copy_database(self._conn, self.home, f"pre-v{latest}", self.clock())
        for target in range(version + 1, latest + 1):
            with self._transaction():
                if self.schema_version() >= target:  # another process got there first
                    continue
                migrations.apply_step(self._conn, target)

    def backup(self, kind: str = "manual") -> Path:
        """Take a backup now; returns its path."""
        with translated(self.home):
            return copy_database(self._conn, self.home, kind, self.clock())

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with connection.transaction(self._conn) as conn:
            yield conn

    @contextmanager
    def _writing(self) -> Iterator[sqlite3.Connection]:
        with translated(self.home), self._transaction() as conn:
            yield conn

    @contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        with translated(self.home):
            yield self._conn

    # -- settings

    def settings(self) -> Settings:
        """Every setting, each stored row checked as it is read (trainer.store.settings)."""
        with self._reading() as conn:
            known, extra = read_settings(conn)
        return Settings(**known, extra=extra)

    def stored_settings(self) -> dict[str, Any]:
        """The settings a person set (not the defaults), each as it validates; a row that does
        not (not JSON, out of range) is left out."""
        with self._reading() as conn:
            rows = conn.execute("SELECT key, value FROM settings").fetchall()
        out: dict[str, Any] = {}
        for key, text in rows:
            if key not in SETTING_DEFAULTS and key != PARAMETERS_KEY:
                continue
            try:
                out[key] = validate_setting(key, json.loads(text))
            except (TypeError, ValueError):
                continue
        return out

    def get_setting(self, key: str, default: Any = None) -> Any:
        """One setting, checked as it is read (a known key's default when it does not validate)."""
        with self._reading() as conn:
            known, extra = read_settings(conn)
        return known[key] if key in known else extra.get(key, default)

    def set_setting(self, key: str, value: Any) -> None:
        """Store a setting (JSON-serialisable). Known keys are validated (ValueError)."""
        value = validate_setting(key, value)
        with self._writing() as conn:
            conn.execute("INSERT INTO settings(key, value) VALUES (?, ?) "
                         "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                         (key, json.dumps(value)))

    def unset_setting(self, key: str) -> bool:
        """Remove a stored setting (a known key falls back to its default); False if absent."""
        with self._writing() as conn:
            return conn.execute("DELETE FROM settings WHERE key = ?", (key,)).rowcount > 0

    # -- writing attempts

    def record_attempt(self, attempt: NewAttempt) -> RecordResult:
        """Record one attempt, in one transaction committed before returning. In an open
        sitting (``attempt.sitting_id``) the card moves only if this attempt decides the
        sitting's rating (its first pass, or a reveal); without one the attempt is a sitting
        of its own, rated at once. ``internal`` verdicts are recorded but never touch the card.
        ``rating`` in the result is the rating applied now (None: the card did not move)."""
        a = attempt
        if not a.drill or not a.mode:
            raise ValueError("drill and mode must be non-empty")
        if a.seconds < 0 or a.hints < 0:
            raise ValueError("seconds and hints must not be negative")
        if a.verdict not in VERDICTS:
            raise ValueError(f"unknown verdict {a.verdict!r}; expected one of {', '.join(VERDICTS)}")
        if a.seed is not None and not -MAX_SEED - 1 <= a.seed <= MAX_SEED:
            raise ValueError(f"seed {a.seed} does not fit a 64-bit whole number")
        if a.kind not in ATTEMPT_KINDS:
            raise ValueError(f"unknown attempt kind {a.kind!r}; expected one of {', '.join(ATTEMPT_KINDS)}")
        a = replace(a, started_at=as_utc(a.started_at))
        uid = uuid.uuid4().hex
        with self._writing() as conn:
            if a.session_id is not None and not conn.execute(
                    "SELECT 1 FROM sessions WHERE id = ?", (a.session_id,)).fetchone():
                raise ValueError(f"unknown session id {a.session_id}")
            single = a.sitting_id is None
            if a.sitting_id is None:
                sitting_id = insert_sitting(conn, a.drill, a.mode, a.session_id, a.target_seconds,
                                            a.started_at, None)
            else:
                sitting_id = a.sitting_id
                row = conn.execute("SELECT drill, closed_at FROM sittings WHERE id = ?", (sitting_id,)).fetchone()
                if row is None:
                    raise ValueError(f"unknown sitting id {sitting_id}")
                if row[0] != a.drill:
                    raise ValueError(f"sitting {sitting_id} is for drill {row[0]!r}, not {a.drill!r}")
                if row[1] is not None:
                    raise ValueError(f"sitting {sitting_id} is already closed; open a new one")
            attempt_id = insert_attempt(conn, uid, a, sitting_id)
            rating = rate_sitting(conn, sitting_id, closed=single)
            if single:
                conn.execute("UPDATE sittings SET closed_at = opened_at, outcome = 'single' WHERE id = ?",
                             (sitting_id,))
            card = read_card(conn, a.drill)
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
            return insert_sitting(conn, drill, mode, session_id, target_seconds, when, owner_token())

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
                rate_sitting(conn, sitting_id, closed=True)
                conn.execute("UPDATE sittings SET closed_at = ?, outcome = ? WHERE id = ?",
                             (iso(self.clock()), outcome, sitting_id))
        return self.sitting(sitting_id)

    @_reads("sittings")
    def recover_sittings(self) -> list[int]:
        """Close and rate every open sitting whose process is gone (crash, SIGKILL); returns
        their ids. Sittings of live processes (this one included) are left open."""
        with self._reading() as conn:
            rows = conn.execute("SELECT id, owner, opened_at FROM sittings WHERE closed_at IS NULL").fetchall()
        dead = [r[0] for r in rows if not owner_alive(r[1], parse(r[2]), self.clock())]
        closed = []
        for sitting_id in dead:
            with self._writing() as conn:
                if conn.execute("SELECT closed_at FROM sittings WHERE id = ?", (sitting_id,)).fetchone()[0]:
                    continue  # another process recovered it first
                rate_sitting(conn, sitting_id, closed=True)
                conn.execute("UPDATE sittings SET closed_at = ?, outcome = 'abandoned' WHERE id = ?",
                             (iso(self.clock()), sitting_id))
                closed.append(sitting_id)
        return closed

    def sitting(self, sitting_id: int) -> SittingRecord:
        with self._reading() as conn:
            row = conn.execute(f"SELECT {SITTING_COLUMNS} FROM sittings WHERE id = ?", (sitting_id,)).fetchone()
        if row is None:
            raise ValueError(f"unknown sitting id {sitting_id}")
        return sitting_from_row(row)

    @_reads("sittings")
    def sittings(self) -> list[SittingRecord]:
        with self._reading() as conn:
            rows = conn.execute(f"SELECT {SITTING_COLUMNS} FROM sittings ORDER BY opened_at, id").fetchall()
        return [sitting_from_row(r) for r in rows]

    # -- sessions

    def start_session(self, kind: str, meta: Mapping[str, Any] | None = None) -> int:
        """Open a warm-up, mock or team session; returns its id for record_attempt."""
        kind = _session_kind(kind)
        with self._writing() as conn:
            cur = conn.execute("INSERT INTO sessions(uid, kind, started_at, meta) VALUES (?, ?, ?, ?)",
                               (uuid.uuid4().hex, kind, iso(self.clock()), json.dumps(dict(meta or {}))))
            return last_id(cur)

    def end_session(self, session_id: int, summary: Mapping[str, Any]) -> None:
        with self._writing() as conn:
            cur = conn.execute("UPDATE sessions SET ended_at = ?, summary = ? WHERE id = ?",
                               (iso(self.clock()), json.dumps(dict(summary)), session_id))
            if cur.rowcount == 0:
                raise ValueError(f"unknown session id {session_id}")

    @_reads("sessions")
    def sessions(self) -> list[SessionRecord]:
        with self._reading() as conn:
            rows = conn.execute("SELECT id, uid, kind, started_at, ended_at, meta, summary FROM sessions "
                                "ORDER BY started_at, id").fetchall()
        return [SessionRecord(r[0], r[1], r[2], parse(r[3]), parse(r[4]), json.loads(r[5]),
                              json.loads(r[6]) if r[6] is not None else None) for r in rows]

    # -- reading

    @_reads("cards")
    def card(self, drill: str) -> CardState | None:
        with self._reading() as conn:
            return read_card(conn, drill)

    @_reads("cards")
    def cards(self) -> list[CardState]:
        with self._reading() as conn:
            rows = conn.execute(f"SELECT {CARD_COLUMNS} FROM cards ORDER BY drill").fetchall()
        return [card_from_row(r) for r in rows]

    def due(self, now: datetime) -> list[str]:
        """Drills whose card is due at or before ``now``, soonest first; suspended and
        buried drills are left out."""
        cutoff = iso(now)
        with self._reading() as conn:
            rows = conn.execute("SELECT drill FROM cards WHERE due <= ? ORDER BY due, drill",
                                (cutoff,)).fetchall()
        held = self.held(now)
        return [r[0] for r in rows if r[0] not in held]

    # -- card control (trainer.store.control)

    @_reads("holds")
    def holds(self) -> dict[str, control.Hold]:
        """Every stored hold (suspended, or buried until a time that may have passed)."""
        with self._reading() as conn:
            return control.read_holds(conn)

    def held(self, now: datetime) -> dict[str, control.Hold]:
        """The holds in force at ``now``: drills kept out of due lists, new drills and mocks."""
        return {d: h for d, h in self.holds().items() if h.active(now)}

    def suspend(self, drill: str, suspended: bool = True) -> bool:
        """Suspend (or unsuspend) a drill; True when that changed anything."""
        with self._writing() as conn:
            return control.set_suspended(conn, drill, suspended)

    def bury(self, drill: str, until: datetime | None) -> None:
        """Keep a drill out until ``until`` (aware; None lifts the burial)."""
        with self._writing() as conn:
            control.set_buried(conn, drill, as_utc(until) if until is not None else None)

    @_reads("review_logs")
    def last_review(self, drill: str | None = None) -> tuple[str, datetime, int] | None:
        """(drill, reviewed_at, rating) of the newest review (of ``drill``), or None."""
        with self._reading() as conn:
            row = control.last_review(conn, drill)
        return None if row is None else (row[1], parse(row[3]), int(row[2]))

    def undo_last_review(self) -> control.ReviewChange | None:
        """Take back the newest review: its card as it was before, the review and its sitting's
        attempts removed, after a ``pre-undo`` backup. None when there is no review;
        control.CannotChange (a ValueError) when it cannot be undone exactly."""
        with self._reading() as conn:
            row = control.last_review(conn)
        if row is None:
            return None
        control.card_from_row_or_refuse(row)
        backup = self.backup("pre-undo")
        with self._writing() as conn:
            now_row = control.last_review(conn)
            if now_row is None or now_row[0] != row[0]:
                raise control.CannotChange("another review was recorded meanwhile; run `drill undo` again "
                                           "to see which is the newest now; nothing was changed")
            change = control.undo_review(conn, now_row)
        return replace(change, backup=backup)

    def rerate_last_review(self, drill: str, rating: int) -> control.ReviewChange | None:
        """Give the newest review of ``drill`` the rating ``rating`` (1-4) instead, as fsrs would
        have had it then. None when the drill has no review."""
        if rating not in control.RATING_NAMES:
            raise ValueError(f"rating must be 1 to 4, got {rating!r}")
        with self._writing() as conn:
            row = control.last_review(conn, drill)
            if row is None:
                return None
            return control.rerate_review(conn, row, rating)

    @_reads("attempts")
    def attempts(self, since: datetime | None = None, drill: str | None = None) -> list[AttemptRecord]:
        """Attempts in time order, optionally from ``since`` on and for one drill."""
        where, args = [], []
        if since is not None:
            where.append("a.started_at >= ?")
            args.append(iso(since))
        if drill is not None:
            where.append("a.drill = ?")
            args.append(drill)
        sql = (f"SELECT {ATTEMPT_COLUMNS} FROM attempts a LEFT JOIN review_logs r ON r.attempt_id = a.id"
               + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY a.started_at, a.id")
        with self._reading() as conn:
            rows = conn.execute(sql, args).fetchall()
        return [attempt_from_row(r) for r in rows]

    @_reads("review_logs")
    def reviews(self, since: datetime | None = None) -> list[ReviewRecord]:
        sql = "SELECT attempt_id, drill, rating, reviewed_at, duration_ms, sitting_id FROM review_logs"
        args: list[Any] = []
        if since is not None:
            sql += " WHERE reviewed_at >= ?"
            args.append(iso(since))
        with self._reading() as conn:
            rows = conn.execute(sql + " ORDER BY reviewed_at, id", args).fetchall()
        return [ReviewRecord(r[0], r[1], r[2], parse(r[3]), r[4], r[5]) for r in rows]

    @_reads("attempts or cards")
    def drill_summaries(self) -> dict[str, DrillSummary]:
        """Every drill with a card or an attempt; drills absent from the map are new."""
        with self._reading() as conn:
            stats = conn.execute(
                "SELECT drill, count(*), sum(verdict = 'pass'), min(CASE WHEN verdict = 'pass' "
                f"AND NOT revealed AND {TIMED_SQL} THEN seconds END), min(started_at), max(started_at) "
                "FROM attempts GROUP BY drill").fetchall()
            cards = {c.drill: c for c in (card_from_row(r) for r in conn.execute(
                f"SELECT {CARD_COLUMNS} FROM cards"))}
        out: dict[str, DrillSummary] = {}
        by_drill = {r[0]: r for r in stats}
        for drill in sorted(set(by_drill) | set(cards)):
            row = by_drill.get(drill, (drill, 0, 0, None, None, None))
            card = cards.get(drill)
            out[drill] = DrillSummary(
                drill=drill, state=card.state if card else "new", due=card.due if card else None,
                best_seconds=row[3], attempts=int(row[1]), passes=int(row[2] or 0),
                first_attempt=parse(row[4]), last_attempt=parse(row[5]), card=card)
        return out

    @_reads("attempts")
    def passed_variants(self) -> dict[str, list[dict[str, str]]]:
        """Per drill, each variant it was passed under (clean passes; '{}' is the default)."""
        with self._reading() as conn:
            rows = conn.execute("SELECT DISTINCT drill, variant FROM attempts WHERE verdict = 'pass' "
                                "AND NOT revealed ORDER BY drill, variant").fetchall()
        out: dict[str, list[dict[str, str]]] = {}
        for drill, text in rows:
            out.setdefault(drill, []).append(parse_variant(text))
        return out

    @_reads("attempts")
    def streak(self, today: date, tz: tzinfo = timezone.utc) -> int:
        """Consecutive days (in ``tz``) with at least one counted attempt, ending today, or
        yesterday when nothing has been done yet today (trainer.schedule.streak)."""
        with self._reading() as conn:
            rows = conn.execute("SELECT started_at FROM attempts WHERE verdict != 'internal' "
                                "AND started_at >= ?", (iso(datetime.combine(
                                    today - timedelta(days=3660), datetime.min.time(), tz)),)).fetchall()
        return streak({parse(r[0]).astimezone(tz).date() for r in rows}, today)

    @_reads("cards")
    def retrievabilities(self, now: datetime) -> dict[str, float]:
        """FSRS retrievability (0..1) at ``now`` of every drill with a card (for mastery)."""
        retention, parameters = self.scheduler_config()
        return {c.drill: retrievability(c, now, retention, parameters) for c in self.cards()}

    def scheduler_config(self) -> tuple[float, tuple[float, ...] | None]:
        """(desired retention, the fitted FSRS parameters or None for fsrs's defaults)."""
        with self._reading() as conn:
            return scheduler_config(conn)

    def fitted(self) -> dict[str, Any] | None:
        """The `drill optimize` fit in use (parameters, fitted_at, losses), or None (defaults)."""
        with self._reading() as conn:
            return fitted_parameters(conn)

    def counts(self) -> dict[str, int]:
        with self._reading() as conn:
            return {t: int(conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0])
                    for t in ("attempts", "cards", "review_logs", "sessions")}

    # -- export / import / reset

    @_reads("its tables")
    def export(self) -> dict[str, Any]:
        """Everything as the `drill export` JSON (format 1; times UTC ISO-8601)."""
        return export_data(self)

    def import_(self, data: Any, source: str = "the file") -> ImportResult:
        """Merge an export in one transaction. Attempts already present (same uid) are
        skipped; a card is taken when it is newer (later last review) than ours.
        Anything that is not an export raises ImportRefusedError and changes nothing."""
        problems = validate_export(data)
        if problems:
            raise ImportRefusedError(source, problems)
        counts = self.counts()
        backup = self.backup("pre-import") if any(counts.values()) or self.stored_settings() or self.holds() else None
        with self._writing() as conn:
            return replace(import_data(conn, data), backup=backup)

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


def _session_kind(kind: str) -> str:
    normal = kind.strip().lower().replace("-", "").replace("_", "")
    if normal not in SESSION_KINDS:
        raise ValueError(f"unknown session kind {kind!r}; expected one of {', '.join(SESSION_KINDS)}")
    return normal
