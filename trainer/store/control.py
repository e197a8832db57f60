"""Card control: holds (suspend, bury), undoing the last review and overriding a
review's rating once ("that pass was a guess").

A **hold** keeps a drill out of the day's work without touching its card: a
suspended drill stays out until unsuspended; a buried drill stays out until its
``buried_until`` (the next local midnight, chosen by the caller). Both apply to
new drills too (a drill with no card yet).

Every review logged from schema v4 on keeps the card as it was before it
(``review_logs.card_before``: JSON of the card, ``null`` for a new drill), so
the last review can be taken back exactly, and re-rated: the card before it is
reviewed again by fsrs, at the same time, with the new rating. A review logged
before v4 has no such copy and is refused with that reason.
"""
from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from trainer.schedule.adapter import CardState, as_utc, review
from trainer.store.rows import iso, parse, write_card
from trainer.store.settings import scheduler_config

RATING_NAMES = {1: "Again", 2: "Hard", 3: "Good", 4: "Easy"}


@dataclass(frozen=True)
class Hold:
    """A drill kept out of the day's work: suspended, or buried until ``buried_until``."""

    drill: str
    suspended: bool
    buried_until: datetime | None

    def active(self, now: datetime) -> bool:
        return self.suspended or (self.buried_until is not None and self.buried_until > as_utc(now))


@dataclass(frozen=True)
class ReviewChange:
    """What undo or re-rating did to one review."""

    drill: str
    reviewed_at: datetime
    rating: int  # the rating the review had
    new_rating: int | None  # re-rated: the rating it has now; None: undone
    card: CardState | None  # the card now (None: the drill is new again)
    attempts_removed: int = 0
    backup: Any = None  # the backup taken first (undo), a Path


class CannotChange(ValueError):
    """The review cannot be undone or re-rated; the message says why."""


def card_to_json(card: CardState | None) -> str:
    if card is None:
        return "null"
    return json.dumps({"state": card.state, "step": card.step, "stability": card.stability,
                       "difficulty": card.difficulty, "due": iso(card.due),
                       "last_review": iso(card.last_review) if card.last_review else None,
                       "reps": card.reps, "lapses": card.lapses})


def card_from_json(drill: str, text: str) -> CardState | None:
    data = json.loads(text)
    if data is None:
        return None
    return CardState(drill=drill, state=data["state"], step=data["step"], stability=data["stability"],
                     difficulty=data["difficulty"], due=parse(data["due"]), last_review=parse(data["last_review"]),
                     reps=int(data["reps"]), lapses=int(data["lapses"]))


# ---------------------------------------------------------------- holds


def read_holds(conn: sqlite3.Connection) -> dict[str, Hold]:
    rows = conn.execute("SELECT drill, suspended, buried_until FROM holds").fetchall()
    return {r[0]: Hold(r[0], bool(r[1]), parse(r[2])) for r in rows}


def set_suspended(conn: sqlite3.Connection, drill: str, suspended: bool) -> bool:
    """Suspend or unsuspend; True when that changed anything."""
    before = conn.execute("SELECT suspended FROM holds WHERE drill = ?", (drill,)).fetchone()
    was = bool(before[0]) if before else False
    conn.execute("INSERT INTO holds(drill, suspended) VALUES (?, ?) "
                 "ON CONFLICT(drill) DO UPDATE SET suspended = excluded.suspended", (drill, int(suspended)))
    _drop_empty(conn, drill)
    return was != suspended


def set_buried(conn: sqlite3.Connection, drill: str, until: datetime | None) -> None:
    conn.execute("INSERT INTO holds(drill, buried_until) VALUES (?, ?) "
                 "ON CONFLICT(drill) DO UPDATE SET buried_until = excluded.buried_until",
                 (drill, iso(until) if until is not None else None))
    _drop_empty(conn, drill)


def _drop_empty(conn: sqlite3.Connection, drill: str) -> None:
    conn.execute("DELETE FROM holds WHERE drill = ? AND NOT suspended AND buried_until IS NULL", (drill,))


# ---------------------------------------------------------------- undo and re-rate


_LAST = ("SELECT r.id, r.drill, r.rating, r.reviewed_at, r.card_before, r.sitting_id, r.duration_ms, "
         "r.overridden_from FROM review_logs r")


def last_review(conn: sqlite3.Connection, drill: str | None = None) -> tuple | None:
    if drill is None:
        return conn.execute(_LAST + " ORDER BY r.reviewed_at DESC, r.id DESC LIMIT 1").fetchone()
    return conn.execute(_LAST + " WHERE r.drill = ? ORDER BY r.reviewed_at DESC, r.id DESC LIMIT 1",
                        (drill,)).fetchone()


def card_from_row_or_refuse(row: tuple) -> CardState | None:
    """The card before review ``row``; CannotChange when the review kept none (before v4)."""
    return _card_before(row)


def _card_before(row: tuple) -> CardState | None:
    if row[4] is None:
        raise CannotChange(f"the last review of {row[1]} ({iso(parse(row[3]))[:16].replace('T', ' ')} UTC) was "
                           f"recorded without a copy of the card as it was before it (by an older drill, or imported "
                           f"from an export), so it cannot be changed exactly; nothing was changed")
    return card_from_json(row[1], row[4])


def undo_review(conn: sqlite3.Connection, row: tuple) -> ReviewChange:
    """Put the card back as it was before review ``row`` and remove the review and its
    sitting's attempts (the caller took a backup first and holds the transaction)."""
    review_id, drill, rating, reviewed_at, _, sitting_id = row[:6]
    before = _card_before(row)
    if sitting_id is not None:
        open_ = conn.execute("SELECT closed_at FROM sittings WHERE id = ?", (sitting_id,)).fetchone()
        if open_ is not None and open_[0] is None:
            raise CannotChange(f"{drill} is still open in a drill window; finish or leave it there first; "
                               f"nothing was changed")
    if before is None:
        conn.execute("DELETE FROM cards WHERE drill = ?", (drill,))
    else:
        write_card(conn, before)
    conn.execute("DELETE FROM review_logs WHERE id = ?", (review_id,))
    removed = 0
    if sitting_id is not None:
        session = conn.execute("SELECT session_id FROM sittings WHERE id = ?", (sitting_id,)).fetchone()
        removed = conn.execute("DELETE FROM attempts WHERE sitting_id = ?", (sitting_id,)).rowcount
        conn.execute("DELETE FROM sittings WHERE id = ?", (sitting_id,))
        if session is not None and session[0] is not None:
            _undo_in_mock(conn, int(session[0]), drill)
    return ReviewChange(drill, parse(reviewed_at), int(rating), None, before, removed)


def _undo_in_mock(conn: sqlite3.Connection, session_id: int, drill: str) -> None:
    """An undone drill of a mock interview no longer counts in its score: its row says `undone`,
    its share (`earned`, kept per drill by trainer.practice.flows) is taken back and the score is
    that of the rest. A summary written before shares were kept has its score removed instead
    (the report leaves such a mock out rather than show a score that counts the undone drill)."""
    row = conn.execute("SELECT summary FROM sessions WHERE id = ? AND kind = 'mock'", (session_id,)).fetchone()
    try:
        summary = json.loads(row[0]) if row is not None and row[0] else None
    except ValueError:
        return
    if not isinstance(summary, dict):
        return
    drills = summary.get("drills")
    if not isinstance(drills, list) or not drills or not all(isinstance(d, dict) for d in drills):
        return
    hit = next((d for d in drills if d.get("drill") == drill and d.get("status") != "undone"), None)
    if hit is None:
        return
    kept = all(isinstance(x, (int, float)) and not isinstance(x, bool) and 0 <= x <= 1
               for x in (d.get("earned") for d in drills))
    hit["status"], hit["earned"] = "undone", 0.0
    summary["passed"] = sum(1 for d in drills if d.get("status") == "passed")
    summary["undone"] = [*summary.get("undone", []), drill] if isinstance(summary.get("undone"), list) else [drill]
    shares = [d["earned"] for d in drills]
    if kept:
        summary["score"] = int(round(100 * sum(shares) / len(drills)))
    else:
        summary.pop("score", None)
    conn.execute("UPDATE sessions SET summary = ? WHERE id = ?", (json.dumps(summary), session_id))


def rerate_review(conn: sqlite3.Connection, row: tuple, rating: int) -> ReviewChange:
    """Review the card as it was before ``row`` again, at the same time, with ``rating``; the
    log keeps the rating it first had (``overridden_from``). Once: a review already re-rated
    raises CannotChange. The caller holds the transaction."""
    review_id, drill, old, reviewed_at, _, sitting_id, duration, overridden_from = row
    if overridden_from is not None:
        raise CannotChange(f"the review of {drill} was re-rated already ({RATING_NAMES.get(int(overridden_from), '?')} "
                           f"-> {RATING_NAMES.get(int(old), '?')}); a review's rating is overridden once. "
                           f"`drill undo` takes the whole review back")
    before = _card_before(row)
    retention, parameters = scheduler_config(conn)
    from fsrs import Rating

    outcome = review(drill, before, Rating(rating), parse(reviewed_at), desired_retention=retention,
                     duration_ms=duration, parameters=parameters)
    write_card(conn, outcome.card)
    conn.execute("UPDATE review_logs SET rating = ?, overridden_from = coalesce(overridden_from, ?) WHERE id = ?",
                 (rating, old, review_id))
    if sitting_id is not None:
        conn.execute("UPDATE sittings SET rating = ? WHERE id = ?", (rating, sitting_id))
    return ReviewChange(drill, parse(reviewed_at), int(old), rating, outcome.card)
