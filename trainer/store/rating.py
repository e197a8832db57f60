"""One review per sitting: applying a sitting's rating to its card, inside the
transaction of the write that decides it, and replaying a whole history through
that rule (the v3 migration).

The rule itself (which submit decides, and how it rates) is
trainer.schedule.adapter.sitting_rating; this module only reads the sitting's
attempts, moves the card and logs the review.
"""
from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta

from trainer.clock import utc_now
from trainer.schedule.adapter import Submit, as_utc, review, sitting_rating
from trainer.store.rows import insert_sitting, iso, parse, read_card, write_card
from trainer.store.settings import scheduler_config


def sitting_submits(conn: sqlite3.Connection, sitting_id: int) -> list[tuple]:
    return conn.execute("SELECT id, started_at, seconds, verdict, hints, revealed, first_try FROM attempts "
                        "WHERE sitting_id = ? ORDER BY id", (sitting_id,)).fetchall()


def _submits(rows: list[tuple]) -> list[Submit]:
    return [Submit(r[3], float(r[2]), int(r[4]), bool(r[5]), bool(r[6])) for r in rows]


def rate_sitting(conn: sqlite3.Connection, sitting_id: int, *, closed: bool,
                 now: datetime | None = None, keep_before: bool = True) -> int | None:
    """Apply the sitting's one rating if it is decided and not yet applied: move the card and
    log the review (dated at the end of the deciding submit), with the card as it was before
    (trainer.store.control: undo and re-rating; ``keep_before=False`` for the v3 replay, which
    runs before that column exists). Returns the rating applied now."""
    drill, target, revealed, applied, closed_at = conn.execute(
        "SELECT drill, target_seconds, revealed, rating, closed_at FROM sittings WHERE id = ?",
        (sitting_id,)).fetchone()
    if applied is not None:
        return None
    rows = sitting_submits(conn, sitting_id)
    decided = sitting_rating(_submits(rows), target, closed=closed, revealed=bool(revealed))
    if decided is None:
        return None
    if decided.index is not None:
        deciding = rows[decided.index]
        attempt_id, seconds = deciding[0], float(deciding[2])
        when = parse(deciding[1]) + timedelta(seconds=seconds)
        duration: int | None = int(round(seconds * 1000))
    else:
        attempt_id, duration = None, None
        when = parse(closed_at) or as_utc(now or utc_now())
    retention, parameters = scheduler_config(conn)
    before = read_card(conn, drill)
    outcome = review(drill, before, decided.rating, when, desired_retention=retention,
                     duration_ms=duration, parameters=parameters)
    write_card(conn, outcome.card)
    cur = conn.execute("INSERT INTO review_logs(attempt_id, sitting_id, drill, rating, reviewed_at, duration_ms) "
                       "VALUES (?, ?, ?, ?, ?, ?)",
                       (attempt_id, sitting_id, drill, int(decided.rating), iso(outcome.reviewed_at), duration))
    if keep_before:
        from trainer.store.control import card_to_json

        conn.execute("UPDATE review_logs SET card_before = ? WHERE id = ?", (card_to_json(before), cur.lastrowid))
    conn.execute("UPDATE sittings SET rating = ? WHERE id = ?", (int(decided.rating), sitting_id))
    return int(decided.rating)


def replay_history(conn: sqlite3.Connection) -> None:
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
        end = max(parse(m[4]) + timedelta(seconds=float(m[5])) for m in members)
        target = next((m[7] for m in members if m[7] is not None), None)
        sitting_id = insert_sitting(conn, drill, mode, session_id, target, parse(started), None)
        outcome = "passed" if any(m[6] == "pass" for m in members) else "failed"
        conn.execute("UPDATE sittings SET closed_at = ?, outcome = ? WHERE id = ?", (iso(end), outcome, sitting_id))
        conn.executemany("UPDATE attempts SET sitting_id = ? WHERE id = ?", [(sitting_id, m[0]) for m in members])
        order.append((end, sitting_id))
    conn.execute("DELETE FROM review_logs")
    conn.execute("DELETE FROM cards WHERE drill IN (SELECT drill FROM attempts WHERE verdict != 'internal')")
    decided: list[tuple[datetime, int]] = []
    for _end, sitting_id in order:
        subs = sitting_submits(conn, sitting_id)
        target = conn.execute("SELECT target_seconds FROM sittings WHERE id = ?", (sitting_id,)).fetchone()[0]
        d = sitting_rating(_submits(subs), target, closed=True)
        if d is not None and d.index is not None:  # closed without a reveal: a submit decided
            deciding = subs[d.index]
            decided.append((parse(deciding[1]) + timedelta(seconds=float(deciding[2])), sitting_id))
    for _when, sitting_id in sorted(decided):
        rate_sitting(conn, sitting_id, closed=True, keep_before=False)
