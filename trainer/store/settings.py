"""Settings kept in the ``settings`` table: their defaults and their checks, and the
scheduler configuration (desired retention, fitted FSRS parameters) read from them.

A known key is validated before it is written (ValueError says what is allowed), and again
when it is read: a row may come from a restored backup or a file edited by hand, so a value
that is not JSON or does not validate (``retention`` NaN, ``daily_new_limit`` 1e30, a ``plan``
that is a path) is said once per command (trainer.store.notices), named, and the default used.
A stored ``fsrs_parameters`` value that no longer validates is ignored, so the defaults apply
rather than a broken fit.
"""
from __future__ import annotations

import json
import re
import sqlite3
from datetime import datetime
from typing import Any

from trainer.store import notices
from trainer.schedule.adapter import (
    DEFAULT_DAILY_NEW_LIMIT,
    DEFAULT_RETENTION,
    MAX_RETENTION,
    MIN_RETENTION,
    as_utc,
    check_parameters,
)

PLAN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")  # data/plans/<name>.yaml: a name, never a path
PARAMETERS_KEY = "fsrs_parameters"  # {"parameters": [21 floats], "fitted_at": ISO time, ...} or absent

SETTING_DEFAULTS: dict[str, Any] = {
    "retention": DEFAULT_RETENTION,
    "daily_new_limit": DEFAULT_DAILY_NEW_LIMIT,
    "vi_mode": False,
    "plan": "default",
    "debug_share": 0.25,  # of a warm-up's reviews of drills already passed, the share served as debug rounds
}


def validate_parameters_setting(value: Any) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, dict) or "parameters" not in value:
        raise ValueError(f"{PARAMETERS_KEY} must be an object with a \"parameters\" list "
                         f"(`drill optimize` writes it; `drill optimize --reset` removes it)")
    out = dict(value)
    out["parameters"] = list(check_parameters(value["parameters"]))
    fitted_at = value.get("fitted_at")
    if fitted_at is not None:
        try:
            as_utc(datetime.fromisoformat(str(fitted_at)))
        except ValueError as exc:
            raise ValueError(f"{PARAMETERS_KEY}.fitted_at must be an ISO-8601 time with a zone") from exc
    return out


def validate_setting(key: str, value: Any) -> Any:
    """``value`` as it is stored for ``key``; ValueError when a known key gets a bad value."""
    if key == PARAMETERS_KEY:
        return validate_parameters_setting(value)
    if key == "retention":
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not MIN_RETENTION <= float(value) <= MAX_RETENTION:
            raise ValueError(f"retention must be a number from {MIN_RETENTION} to {MAX_RETENTION}")
        return float(value)
    if key == "daily_new_limit":
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 32:
            raise ValueError("daily_new_limit must be a whole number from 0 to 32")
        return value
    if key == "debug_share":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= float(value) <= 1:
            raise ValueError("debug_share must be a number from 0 (never) to 1 (every review of a passed drill)")
        return float(value)
    if key == "vi_mode":
        if not isinstance(value, bool):
            raise ValueError("vi_mode must be true or false")
        return value
    if key == "plan":
        if not isinstance(value, str) or not PLAN_NAME.fullmatch(value):
            raise ValueError("plan must be the name of one of drill's study plans (data/plans), not a path")
        return value
    try:
        json.dumps(value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"setting {key!r} must be JSON-serialisable") from exc
    return value


def checked_row(key: Any, text: Any) -> Any:
    """A stored row's value, validated as when it was written; ValueError says why it cannot be used."""
    if not isinstance(key, str) or not isinstance(text, str):
        raise ValueError("not text")
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        raise ValueError("not JSON") from None
    return validate_setting(key, value)


def _said_unusable(key: Any, text: Any, reason: str) -> None:
    shown = f"{text!r:.40}" + ("..." if len(repr(text)) > 40 else "")
    if key in SETTING_DEFAULTS:
        notices.say(f"the stored setting {key} ({shown}) cannot be used: {reason}; using the default "
                    f"{json.dumps(SETTING_DEFAULTS[key])} (`drill settings {key} VALUE` replaces it)")
    else:
        notices.say(f"the stored setting {key!r:.40} ({shown}) cannot be used: {reason}; ignored "
                    f"(`drill settings --unset KEY` removes it)")


def read_settings(conn: sqlite3.Connection) -> tuple[dict[str, Any], dict[str, Any]]:
    """(every known setting, its stored value or its default; the other stored keys), each row
    checked as it is read: a row that does not validate is said (once per command) and left out."""
    known = dict(SETTING_DEFAULTS)
    extra: dict[str, Any] = {}
    for key, text in conn.execute("SELECT key, value FROM settings ORDER BY key"):
        try:
            value = checked_row(key, text)
        except ValueError as exc:
            _said_unusable(key, text, str(exc))
            continue
        (known if key in SETTING_DEFAULTS else extra)[key] = value
    return known, extra


def stored_setting(conn: sqlite3.Connection, key: str) -> Any:
    """One known setting, checked as it is read (the default, said once, when it does not validate)."""
    row = conn.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
    if row is None:
        return SETTING_DEFAULTS[key]
    try:
        return checked_row(key, row[0])
    except ValueError as exc:
        _said_unusable(key, row[0], str(exc))
        return SETTING_DEFAULTS[key]


def fitted_parameters(conn_or_value: Any) -> dict[str, Any] | None:
    """The stored ``fsrs_parameters`` setting when it is valid (else None: the defaults apply).
    Takes a connection or the setting's value."""
    value = conn_or_value
    if isinstance(conn_or_value, sqlite3.Connection):
        row = conn_or_value.execute("SELECT value FROM settings WHERE key = ?", (PARAMETERS_KEY,)).fetchone()
        try:
            value = json.loads(row[0]) if row else None
        except ValueError:
            return None
    try:
        return validate_parameters_setting(value)
    except ValueError:
        return None


def scheduler_config(conn: sqlite3.Connection) -> tuple[float, tuple[float, ...] | None]:
    """(desired retention, fitted parameters or None for fsrs's defaults)."""
    fitted = fitted_parameters(conn)
    return float(stored_setting(conn, "retention")), (tuple(fitted["parameters"]) if fitted else None)
