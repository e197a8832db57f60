"""The SQLite connection the store uses, and how it is set up.

Autocommit mode (every write is an explicit ``BEGIN IMMEDIATE`` transaction), a
busy timeout so two drill processes wait for each other instead of failing,
WAL with ``synchronous=FULL`` (a committed attempt survives a power cut) and
foreign keys on. Kept apart from the Store so the error translation can name
the timeout and tests can shorten it in one place.
"""
from __future__ import annotations

import random
import sqlite3
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

BUSY_TIMEOUT_MS = 15_000


def sqlite_name(exc: sqlite3.Error) -> str:
    return str(getattr(exc, "sqlite_errorname", "") or "")


def connect(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(str(path), isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000,
                           check_same_thread=False)


def set_busy_timeout(conn: sqlite3.Connection) -> None:
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")


def enter_wal(conn: sqlite3.Connection) -> None:
    """Switch to WAL. From a rollback-journal file (a new, restored or v1 file) two
    processes switching at once can deadlock, and SQLite then answers BUSY at once
    without waiting; so wait and retry up to the busy timeout."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL").fetchall()
            return
        except sqlite3.OperationalError as exc:
            busy = sqlite_name(exc).startswith("SQLITE_BUSY") or "locked" in str(exc).lower()
            if not busy or time.monotonic() > deadline:
                raise
            time.sleep(random.uniform(0.01, 0.05))


def make_durable(conn: sqlite3.Connection) -> None:
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute("PRAGMA foreign_keys = ON")


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """``BEGIN IMMEDIATE`` ... ``COMMIT``; rolled back on any exception."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            try:
                conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass
        raise
