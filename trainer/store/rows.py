"""Rows <-> records: the column lists, the time format, and the inserts shared by
recording, importing and the v3 migration.

Times are stored as UTC ISO-8601 text with microseconds (``iso``), so that text
order is time order and SQL can compare them.
"""
from __future__ import annotations

import json
import sqlite3
import uuid
from datetime import datetime
from typing import Mapping, cast, overload

from trainer.schedule.adapter import CardState, as_utc
from trainer.store.records import AttemptRecord, NewAttempt, SittingRecord

MAX_CODE_CHARS = 64 * 1024  # a solution stored with an attempt keeps this much of its head

CARD_COLUMNS = "drill, state, step, stability, difficulty, due, last_review, reps, lapses"
ATTEMPT_COLUMNS = ("a.id, a.uid, a.drill, a.mode, a.started_at, a.seconds, a.verdict, a.failing_case, "
                   "a.hints, a.code, a.seed, a.session_id, a.traps, a.revealed, a.first_try, "
                   "a.target_seconds, r.rating, a.sitting_id, a.variant, a.kind, a.debug_trap")
SITTING_COLUMNS = "id, uid, drill, mode, session_id, target_seconds, opened_at, closed_at, outcome, rating"


def iso(moment: datetime) -> str:
    return as_utc(moment).isoformat(timespec="microseconds")


@overload
def parse(text: str) -> datetime: ...
@overload
def parse(text: None) -> None: ...
@overload
def parse(text: str | None) -> datetime | None: ...


def parse(text: str | None) -> datetime | None:
    return None if text is None else as_utc(datetime.fromisoformat(text))


def last_id(cur: sqlite3.Cursor) -> int:
    """The id of the row an INSERT just made (typed Optional by sqlite3; set after an INSERT)."""
    return int(cast(int, cur.lastrowid))


def cap_code(code: str) -> str:
    """A solution as stored with an attempt: at most MAX_CODE_CHARS of its head, and a last
    line saying it was cut when it was longer."""
    if len(code) <= MAX_CODE_CHARS:
        return code
    return (code[:MAX_CODE_CHARS] + f"\n# [drill: cut here; the file had {len(code)} characters, "
            f"only the first {MAX_CODE_CHARS} are stored]\n")


def card_from_row(r: tuple) -> CardState:
    return CardState(drill=r[0], state=r[1], step=r[2], stability=r[3], difficulty=r[4],
                     due=parse(r[5]), last_review=parse(r[6]), reps=int(r[7]), lapses=int(r[8]))


def read_card(conn: sqlite3.Connection, drill: str) -> CardState | None:
    row = conn.execute(f"SELECT {CARD_COLUMNS} FROM cards WHERE drill = ?", (drill,)).fetchone()
    return card_from_row(row) if row else None


def write_card(conn: sqlite3.Connection, c: CardState) -> None:
    conn.execute(
        f"INSERT OR REPLACE INTO cards({CARD_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (c.drill, c.state, c.step, c.stability, c.difficulty, iso(c.due),
         iso(c.last_review) if c.last_review else None, c.reps, c.lapses))


def sitting_from_row(r: tuple) -> SittingRecord:
    return SittingRecord(id=r[0], uid=r[1], drill=r[2], mode=r[3], session_id=r[4], target_seconds=r[5],
                         opened_at=parse(r[6]), closed_at=parse(r[7]), outcome=r[8], rating=r[9])


def insert_sitting(conn: sqlite3.Connection, drill: str, mode: str, session_id: int | None,
                   target_seconds: float | None, opened_at: datetime, owner: str | None) -> int:
    cur = conn.execute("INSERT INTO sittings(uid, drill, mode, session_id, target_seconds, opened_at, owner) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?)",
                       (uuid.uuid4().hex, drill, mode, session_id, target_seconds, iso(opened_at), owner))
    return last_id(cur)


def attempt_from_row(r: tuple) -> AttemptRecord:
    return AttemptRecord(
        id=r[0], uid=r[1], drill=r[2], mode=r[3], started_at=parse(r[4]), seconds=r[5], verdict=r[6],
        failing_case=r[7], hints=r[8], code=r[9], seed=r[10], session_id=r[11],
        traps=tuple(json.loads(r[12] or "[]")), revealed=bool(r[13]), first_try=bool(r[14]),
        target_seconds=r[15], rating=r[16], sitting_id=r[17], variant=parse_variant(r[18]),
        kind=r[19], debug_trap=r[20])


def parse_variant(text: str | None) -> dict[str, str]:
    """The stored JSON text of a variant; anything but an object of strings reads as the default."""
    try:
        value = json.loads(text or "{}")
    except ValueError:
        return {}
    return {k: v for k, v in value.items() if isinstance(k, str) and isinstance(v, str)} \
        if isinstance(value, dict) else {}


def variant_text(variant: Mapping[str, str]) -> str:
    """A variant as stored: JSON text of the non-default choices, keys sorted ('{}' = the default)."""
    return json.dumps(dict(sorted(variant.items())))


def insert_attempt(conn: sqlite3.Connection, uid: str, a: NewAttempt, sitting_id: int | None) -> int:
    """The attempt row (its code capped), in sitting ``sitting_id``; returns its id."""
    cur = conn.execute(
        "INSERT INTO attempts(uid, drill, mode, started_at, seconds, verdict, failing_case, hints, "
        "code, seed, session_id, traps, revealed, first_try, target_seconds, sitting_id, variant, kind, debug_trap) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (uid, a.drill, a.mode, iso(a.started_at), float(a.seconds), a.verdict, a.failing_case, int(a.hints),
         cap_code(a.code), a.seed, a.session_id, json.dumps([str(t) for t in a.traps]), int(bool(a.revealed)),
         int(bool(a.first_try)), a.target_seconds, sitting_id, variant_text(a.variant), a.kind,
         a.debug_trap),
    )
    return last_id(cur)
