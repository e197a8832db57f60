"""The schema, as the list of steps that builds it: ``MIGRATIONS`` (add-only).

The schema version lives in ``PRAGMA user_version``; ``MIGRATIONS[i]`` takes a
file from version i to i + 1. A step is SQL text or a function of the
connection. The Store runs each step in its own transaction together with the
version bump, after a backup copy of the file, and refuses a file newer than
``SCHEMA_VERSION`` (see Store._migrate). Never edit a released step: add one.
"""
from __future__ import annotations

import sqlite3
from typing import Any

from trainer.store.rating import replay_history

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
        lambda conn: replay_history(conn),
    ),
    (  # v4: card control (trainer.store.control): holds, and the card before each review
        """CREATE TABLE holds (
            drill TEXT PRIMARY KEY,
            suspended INTEGER NOT NULL DEFAULT 0,
            buried_until TEXT
        )""",
        "ALTER TABLE review_logs ADD COLUMN card_before TEXT",
        "ALTER TABLE review_logs ADD COLUMN overridden_from INTEGER",
    ),
    (  # v5: the variant each attempt was graded under (trainer.practice.variants), '{}' = the default;
        # and debug rounds (grader.rounds): what kind of attempt, and the trap planted in a debug round
        "ALTER TABLE attempts ADD COLUMN variant TEXT NOT NULL DEFAULT '{}'",
        "ALTER TABLE attempts ADD COLUMN kind TEXT NOT NULL DEFAULT 'write'",
        "ALTER TABLE attempts ADD COLUMN debug_trap TEXT",
    ),
)
SCHEMA_VERSION = len(MIGRATIONS)


def apply_step(conn: sqlite3.Connection, target: int) -> None:
    """Run the step that takes the schema to version ``target`` and record that version
    (the caller holds the transaction)."""
    for statement in MIGRATIONS[target - 1]:
        if callable(statement):
            statement(conn)
        else:
            conn.execute(statement)
    conn.execute(f"PRAGMA user_version = {target}")
