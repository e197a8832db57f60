"""`drill export` and `drill import`: the progress as one JSON file, and back.

Format 1: ``{"format": 1, "exported_at", "attempts", "cards", "sessions"}``, times
UTC ISO-8601, attempts linked to their session and sitting by uid. An attempt's
``variant``, ``kind`` and ``debug_trap`` came later: a file without them imports them
as the defaults ({}, "write", null). So did ``settings`` (an object of the settings a
person set, each checked as `drill settings` checks it) and ``holds`` (suspended and
buried drills); a file without them imports none. A setting is taken only where this
database has none of its own (what was chosen here stays); a hold is merged (suspended
when either says so, buried until the later time). Importing
merges in one transaction: attempts already present (same uid) are skipped, a
card is taken when it is newer than ours. A file is checked whole first
(``validate_export``, every field against a range), so anything that is not an
export is refused with its reasons and changes nothing.
"""
from __future__ import annotations

import hashlib
import json
import math
import re
import sqlite3
import uuid
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any, Callable, Mapping

from trainer.schedule.adapter import STATES, VERDICTS, CardState, as_utc, derive_rating
from trainer.store.control import Hold, read_holds, set_buried, set_suspended
from trainer.store.records import ATTEMPT_KINDS, SESSION_KINDS, AttemptRecord, ImportResult, NewAttempt, SessionRecord
from trainer.store.settings import PARAMETERS_KEY, SETTING_DEFAULTS, validate_setting
from trainer.store.rows import insert_attempt, insert_sitting, iso, last_id, parse, read_card, write_card

if TYPE_CHECKING:
    from trainer.store.store import Store

EXPORT_FORMAT = 1
# `drill import` ranges: anything outside is refused with a reason.
MAX_ATTEMPT_SECONDS = 30 * 86400
MAX_HINTS = 1000
MAX_SEED = 2**63 - 1
MAX_COUNT = 10**6  # reps, lapses
MAX_STABILITY = 1e6  # days
MAX_JSON_DEPTH = 8  # nesting inside a session's meta or summary
MAX_JSON_CHARS = 64 * 1024
MIN_YEAR, MAX_YEAR = 1970, 2200
_DRILL_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")  # always fullmatch: `$` would accept a trailing newline
_TRAP_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_UID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_MODE = re.compile(r"[a-z][a-z0-9-]{0,31}")


# ---------------------------------------------------------------- export


def export_data(store: Store) -> dict[str, Any]:
    """Everything in ``store`` as the `drill export` JSON."""
    sessions = {s.id: s for s in store.sessions()}
    sittings = {s.id: s.uid for s in store.sittings()}
    attempts = [_attempt_to_json(a, sessions, sittings) for a in store.attempts()]
    cards = [_card_to_json(c) for c in store.cards()]
    return {
        "format": EXPORT_FORMAT,
        "exported_at": as_utc(store.clock()).isoformat(),
        "attempts": attempts,
        "cards": cards,
        "sessions": [_session_to_json(s) for s in sessions.values()],
        "settings": store.stored_settings(),
        "holds": [_hold_to_json(h) for h in store.holds().values()],
    }


def _hold_to_json(h: Hold) -> dict[str, Any]:
    return {"drill": h.drill, "suspended": h.suspended,
            "buried_until": h.buried_until.isoformat() if h.buried_until else None}


def _attempt_to_json(a: AttemptRecord, sessions: Mapping[int, SessionRecord],
                     sittings: Mapping[int, str] | None = None) -> dict[str, Any]:
    session = sessions.get(a.session_id) if a.session_id is not None else None
    return {
        "sitting": (sittings or {}).get(a.sitting_id) if a.sitting_id is not None else None,
        "drill": a.drill, "mode": a.mode, "started_at": a.started_at.isoformat(), "seconds": a.seconds,
        "verdict": a.verdict, "hints": a.hints, "code": a.code,
        "uid": a.uid, "seed": a.seed, "failing_case": a.failing_case,
        "session": session.uid if session else None, "traps": list(a.traps), "revealed": a.revealed,
        "first_try": a.first_try, "target_seconds": a.target_seconds, "rating": a.rating,
        "variant": dict(a.variant), "kind": a.kind, "debug_trap": a.debug_trap,
    }


def _card_to_json(c: CardState) -> dict[str, Any]:
    return {
        "drill": c.drill, "state": c.state, "due": c.due.isoformat(), "stability": c.stability,
        "difficulty": c.difficulty, "reps": c.reps, "lapses": c.lapses, "step": c.step,
        "last_review": c.last_review.isoformat() if c.last_review else None,
    }


def _session_to_json(s: SessionRecord) -> dict[str, Any]:
    return {
        "uid": s.uid, "kind": s.kind, "started_at": s.started_at.isoformat(),
        "ended_at": s.ended_at.isoformat() if s.ended_at else None, "meta": s.meta, "summary": s.summary,
    }


# ---------------------------------------------------------------- import


def import_data(conn: sqlite3.Connection, data: Mapping[str, Any]) -> ImportResult:
    """Merge a validated export (``validate_export`` found nothing) inside the caller's
    transaction."""
    added = skipped = sessions_added = cards_updated = 0
    session_ids: dict[str, int] = {}
    for s in data["sessions"]:
        row = conn.execute("SELECT id FROM sessions WHERE uid = ?", (s["uid"],)).fetchone()
        if row is None:
            cur = conn.execute(
                "INSERT INTO sessions(uid, kind, started_at, ended_at, meta, summary) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (s["uid"], s["kind"], iso(parse(s["started_at"])),
                 iso(parse(s["ended_at"])) if s.get("ended_at") else None,
                 json.dumps(s.get("meta") or {}),
                 json.dumps(s["summary"]) if s.get("summary") is not None else None))
            sessions_added += 1
            session_ids[s["uid"]] = last_id(cur)
        else:
            session_ids[s["uid"]] = int(row[0])
    for a in data["attempts"]:
        uid = a.get("uid") or _content_uid(a)
        if conn.execute("SELECT 1 FROM attempts WHERE uid = ?", (uid,)).fetchone():
            skipped += 1
            continue
        _import_attempt(conn, uid, a, session_ids.get(a.get("session") or ""))
        added += 1
    for c in data["cards"]:
        incoming = _card_from_json(c)
        current = read_card(conn, incoming.drill)
        if current is None or _newer(incoming, current):
            write_card(conn, incoming)
            cards_updated += 1
    settings_taken = _import_settings(conn, data.get("settings") or {})
    holds_changed = _import_holds(conn, data.get("holds") or [])
    return ImportResult(added, skipped, sessions_added, cards_updated, settings_taken, holds_changed)


def _import_settings(conn: sqlite3.Connection, settings: Mapping[str, Any]) -> int:
    """The file's settings this database has none of (validated already); how many were taken."""
    taken = 0
    for key, value in settings.items():
        if conn.execute("SELECT 1 FROM settings WHERE key = ?", (key,)).fetchone() is None:
            conn.execute("INSERT INTO settings(key, value) VALUES (?, ?)", (key, json.dumps(value)))
            taken += 1
    return taken


def _import_holds(conn: sqlite3.Connection, holds: list[Mapping[str, Any]]) -> int:
    """Suspended when either side says so; buried until the later of the two times. How many drills changed."""
    current = read_holds(conn)
    changed = 0
    for h in holds:
        drill, mine = h["drill"], current.get(h["drill"])
        suspended = bool(h.get("suspended")) or (mine is not None and mine.suspended)
        theirs = as_utc(parse(h["buried_until"])) if h.get("buried_until") else None
        buried = max((t for t in (theirs, mine.buried_until if mine else None) if t is not None), default=None)
        if mine is None or (suspended, buried) != (mine.suspended, mine.buried_until):
            set_suspended(conn, drill, suspended)
            set_buried(conn, drill, buried)
            changed += 1
    return changed


def _import_attempt(conn: sqlite3.Connection, uid: str, a: Mapping[str, Any], session_id: int | None) -> None:
    """One exported attempt, in its sitting (found or made by the export's sitting uid; an
    attempt without one is a sitting of its own), with the review its ``rating`` records."""
    started = parse(a["started_at"])
    end = started + timedelta(seconds=float(a["seconds"]))
    sitting_uid = a.get("sitting")
    row = conn.execute("SELECT id FROM sittings WHERE uid = ?", (sitting_uid,)).fetchone() \
        if sitting_uid else None
    if row is not None:
        sitting_id = int(row[0])
    else:
        sitting_id = insert_sitting(conn, a["drill"], a["mode"], session_id, a.get("target_seconds"),
                                    started, None)
        conn.execute("UPDATE sittings SET closed_at = ?, outcome = 'imported', uid = ? WHERE id = ?",
                     (iso(end), sitting_uid or uuid.uuid4().hex, sitting_id))
    attempt = NewAttempt(
        drill=a["drill"], mode=a["mode"], started_at=started, seconds=float(a["seconds"]), verdict=a["verdict"],
        failing_case=a.get("failing_case"), hints=int(a["hints"]), code=a["code"], seed=a.get("seed"),
        session_id=session_id, target_seconds=a.get("target_seconds"), first_try=bool(a.get("first_try", True)),
        revealed=bool(a.get("revealed", False)), traps=tuple(a.get("traps") or []),
        variant=a.get("variant") or {}, kind=a.get("kind") or "write", debug_trap=a.get("debug_trap"))
    attempt_id = insert_attempt(conn, uid, attempt, sitting_id)
    rating = a["rating"] if "rating" in a else derive_rating(
        a["verdict"], float(a["seconds"]), a.get("target_seconds"), hints=int(a["hints"]),
        first_try=bool(a.get("first_try", True)), revealed=bool(a.get("revealed", False)))
    if rating is not None:
        conn.execute("INSERT INTO review_logs(attempt_id, sitting_id, drill, rating, reviewed_at, duration_ms) "
                     "VALUES (?, ?, ?, ?, ?, ?)",
                     (attempt_id, sitting_id, a["drill"], int(rating), iso(end),
                      int(round(float(a["seconds"]) * 1000))))
        conn.execute("UPDATE sittings SET rating = ? WHERE id = ? AND rating IS NULL", (int(rating), sitting_id))


def _card_from_json(c: Mapping[str, Any]) -> CardState:
    return CardState(drill=c["drill"], state=c["state"], step=c.get("step"), stability=c["stability"],
                     difficulty=c["difficulty"], due=parse(c["due"]), last_review=parse(c.get("last_review")),
                     reps=int(c["reps"]), lapses=int(c["lapses"]))


def _newer(incoming: CardState, current: CardState) -> bool:
    floor = datetime.min.replace(tzinfo=timezone.utc)
    return (incoming.last_review or floor, incoming.reps) > (current.last_review or floor, current.reps)


def _content_uid(a: Mapping[str, Any]) -> str:
    """A stable uid for a hand-made attempt without one, so re-importing it never duplicates."""
    key = json.dumps([a["drill"], a["mode"], iso(parse(a["started_at"])), float(a["seconds"]),
                      a["verdict"], a["code"]])
    return "h" + hashlib.sha256(key.encode()).hexdigest()[:31]


# ---------------------------------------------------------------- validation


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and (isinstance(v, int) or math.isfinite(v))


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _matches(pattern: re.Pattern[str]) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, str) and pattern.fullmatch(v) is not None


def _plain_text(v: Any) -> bool:
    return isinstance(v, str) and len(v) <= 200 and v.isprintable()


def _depth(value: Any) -> int:
    """How deeply lists and objects nest in ``value`` (iterative: never a RecursionError)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, level)
            if level <= MAX_JSON_DEPTH:
                stack.extend((v, level + 1) for v in (item.values() if isinstance(item, dict) else item))
    return deepest


def _small_object(v: Any) -> bool:
    if not isinstance(v, dict) or _depth(v) > MAX_JSON_DEPTH:
        return False
    try:
        return len(json.dumps(v)) <= MAX_JSON_CHARS
    except (TypeError, ValueError, RecursionError):
        return False


def _check_time(v: Any, where: str, problems: list[str], optional: bool = False) -> None:
    if v is None and optional:
        return
    if not isinstance(v, str):
        problems.append(f"{where} must be an ISO-8601 time, got {type(v).__name__}")
        return
    try:
        moment = datetime.fromisoformat(v)
    except ValueError:
        problems.append(f"{where} is not an ISO-8601 time: {v!r:.60}")
        return
    if moment.tzinfo is None:
        problems.append(f"{where} has no time zone: {v!r:.60}")
        return
    try:
        utc = moment.astimezone(timezone.utc)
    except (OverflowError, ValueError):
        problems.append(f"{where} cannot be converted to UTC: {v!r:.60}")
        return
    if not MIN_YEAR <= utc.year <= MAX_YEAR:
        problems.append(f"{where} must lie between the years {MIN_YEAR} and {MAX_YEAR}: {v!r:.60}")


def _check_fields(item: Any, where: str, spec: Mapping[str, tuple[Callable[[Any], bool], str]],
                  required: tuple[str, ...], problems: list[str]) -> bool:
    if not isinstance(item, dict):
        problems.append(f"{where} must be an object")
        return False
    missing = [k for k in required if k not in item]
    if missing:
        problems.append(f"{where} lacks {', '.join(missing)}")
    for key, (ok, wanted) in spec.items():
        if key in item and not ok(item[key]):
            problems.append(f"{where}.{key} must be {wanted}, got {item[key]!r:.40}")
    return not missing


def _opt(check: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda v: v is None or check(v)


_ATTEMPT_SPEC: dict[str, tuple[Callable[[Any], bool], str]] = {
    "drill": (_matches(_DRILL_ID), "a drill id (lower-case words joined by '-')"),
    "mode": (_matches(_MODE), "a mode such as solve, warmup, mock or team"),
    "seconds": (lambda v: _is_number(v) and 0 <= v <= MAX_ATTEMPT_SECONDS,
                f"a number of seconds from 0 to {MAX_ATTEMPT_SECONDS}"),
    "verdict": (lambda v: v in VERDICTS, f"one of {', '.join(VERDICTS)}"),
    "hints": (lambda v: _is_int(v) and 0 <= v <= MAX_HINTS, f"a whole number from 0 to {MAX_HINTS}"),
    "code": (lambda v: isinstance(v, str), "a string"),
    "uid": (_matches(_UID), "up to 64 letters, digits, '-' or '_'"),
    "seed": (_opt(lambda v: _is_int(v) and -MAX_SEED - 1 <= v <= MAX_SEED), "a 64-bit whole number or null"),
    "failing_case": (_opt(_plain_text), "a case name (at most 200 characters, no control characters) or null"),
    "session": (_opt(_matches(_UID)), "a session uid or null"),
    "sitting": (_opt(_matches(_UID)), "a sitting uid or null"),
    "traps": (lambda v: isinstance(v, list) and len(v) <= 20 and all(_matches(_TRAP_ID)(t) for t in v),
              "a list of at most 20 trap ids"),
    "revealed": (lambda v: isinstance(v, bool), "true or false"),
    "first_try": (lambda v: isinstance(v, bool), "true or false"),
    "target_seconds": (_opt(lambda v: _is_number(v) and 0 < v <= MAX_ATTEMPT_SECONDS),
                       f"a number of seconds above 0 and at most {MAX_ATTEMPT_SECONDS}, or null"),
    "rating": (_opt(lambda v: _is_int(v) and 1 <= v <= 4), "1 to 4 or null"),
    "variant": (lambda v: isinstance(v, dict) and len(v) <= 20
                and all(_matches(_TRAP_ID)(k) and _matches(_TRAP_ID)(x) for k, x in v.items()),
                "an object of at most 20 axis names to value names (letters, digits, '.', '-', '_')"),
    "kind": (lambda v: isinstance(v, str) and v in ATTEMPT_KINDS, f"one of {', '.join(ATTEMPT_KINDS)}"),
    "debug_trap": (_opt(_matches(_TRAP_ID)), "a trap id (letters, digits, '.', '-', '_') or null"),
}
_CARD_SPEC: dict[str, tuple[Callable[[Any], bool], str]] = {
    "drill": (_matches(_DRILL_ID), "a drill id (lower-case words joined by '-')"),
    "state": (lambda v: v in STATES[1:], "learning, review or relearning"),
    "stability": (_opt(lambda v: _is_number(v) and 0 < v <= MAX_STABILITY),
                  f"a number above 0 and at most {MAX_STABILITY:g}, or null"),
    "difficulty": (_opt(lambda v: _is_number(v) and 1 <= v <= 10), "a number from 1 to 10, or null"),
    "reps": (lambda v: _is_int(v) and 0 <= v <= MAX_COUNT, f"a whole number from 0 to {MAX_COUNT}"),
    "lapses": (lambda v: _is_int(v) and 0 <= v <= MAX_COUNT, f"a whole number from 0 to {MAX_COUNT}"),
    "step": (_opt(lambda v: _is_int(v) and 0 <= v <= 100), "a whole number from 0 to 100, or null"),
}
_SESSION_SPEC: dict[str, tuple[Callable[[Any], bool], str]] = {
    "uid": (_matches(_UID), "up to 64 letters, digits, '-' or '_'"),
    "kind": (lambda v: isinstance(v, str) and v in SESSION_KINDS, f"one of {', '.join(SESSION_KINDS)}"),
    "meta": (_opt(_small_object),
             f"an object nested at most {MAX_JSON_DEPTH} deep and at most {MAX_JSON_CHARS} characters"),
    "summary": (_opt(_small_object),
                f"an object nested at most {MAX_JSON_DEPTH} deep and at most {MAX_JSON_CHARS} characters, or null"),
}


def _check_attempt(a: Any, where: str, session_uids: set[str], problems: list[str]) -> None:
    if not _check_fields(a, where, _ATTEMPT_SPEC,
                         ("drill", "mode", "started_at", "seconds", "verdict", "hints", "code"), problems):
        return
    _check_time(a["started_at"], f"{where}.started_at", problems)
    if isinstance(a.get("session"), str) and a["session"] and a["session"] not in session_uids:
        problems.append(f"{where}.session {a['session']!r:.70} is not among the file's sessions")
    if a.get("debug_trap") is not None and a.get("kind", "write") != "debug":
        problems.append(f"{where}.debug_trap names a planted trap, so kind must be debug, "
                        f"got {a.get('kind', 'write')!r:.40}")


def validate_export(data: Any) -> list[str]:
    """Every reason ``data`` is not a `drill export` file (empty when it is one)."""
    if not isinstance(data, dict):
        return [f"expected a JSON object as written by `drill export`, got {type(data).__name__}"]
    problems: list[str] = []
    if not _is_int(data.get("format")) or data.get("format") != EXPORT_FORMAT:
        return [f"unsupported format {data.get('format')!r:.40} (this drill reads format {EXPORT_FORMAT})"]
    _check_time(data.get("exported_at"), "exported_at", problems)
    for key in ("attempts", "cards", "sessions"):
        if not isinstance(data.get(key), list):
            problems.append(f"{key} must be a list")
    if problems:
        return problems
    session_uids = set()
    for i, s in enumerate(data["sessions"]):
        if _check_fields(s, f"sessions[{i}]", _SESSION_SPEC, ("uid", "kind", "started_at"), problems):
            _check_time(s["started_at"], f"sessions[{i}].started_at", problems)
            _check_time(s.get("ended_at"), f"sessions[{i}].ended_at", problems, optional=True)
            if isinstance(s["uid"], str):  # an ill-typed uid is already a problem; never hash it
                session_uids.add(s["uid"])
    for i, a in enumerate(data["attempts"]):
        _check_attempt(a, f"attempts[{i}]", session_uids, problems)
    for i, c in enumerate(data["cards"]):
        if _check_fields(c, f"cards[{i}]", _CARD_SPEC,
                         ("drill", "state", "due", "stability", "difficulty", "reps", "lapses"), problems):
            _check_time(c["due"], f"cards[{i}].due", problems)
            _check_time(c.get("last_review"), f"cards[{i}].last_review", problems, optional=True)
    drills = [c.get("drill") for c in data["cards"] if isinstance(c, dict) and isinstance(c.get("drill"), str)]
    if len(drills) != len(set(drills)):
        problems.append("cards lists the same drill twice")
    _check_settings(data.get("settings", {}), problems)
    _check_holds(data.get("holds", []), problems)
    return problems


def _check_settings(settings: Any, problems: list[str]) -> None:
    """Only the settings drill knows, each as `drill settings` would accept it."""
    if not isinstance(settings, dict):
        problems.append("settings must be an object of setting names to values")
        return
    for key, value in settings.items():
        if not isinstance(key, str) or key not in SETTING_DEFAULTS and key != PARAMETERS_KEY:
            problems.append(f"settings has an unknown key {key!r:.40}")
            continue
        try:
            validate_setting(key, value)
        except ValueError as exc:
            problems.append(f"settings.{key}: {str(exc)[:160]}")


_HOLD_SPEC: dict[str, tuple[Callable[[Any], bool], str]] = {
    "drill": (_matches(_DRILL_ID), "a drill id (lower-case words joined by '-')"),
    "suspended": (lambda v: isinstance(v, bool), "true or false"),
}


def _check_holds(holds: Any, problems: list[str]) -> None:
    if not isinstance(holds, list):
        problems.append("holds must be a list")
        return
    seen: set[str] = set()
    for i, h in enumerate(holds):
        if _check_fields(h, f"holds[{i}]", _HOLD_SPEC, ("drill", "suspended"), problems):
            _check_time(h.get("buried_until"), f"holds[{i}].buried_until", problems, optional=True)
            if h["drill"] in seen:
                problems.append(f"holds lists {h['drill']!r:.70} twice")
            seen.add(h["drill"])
