"""Settings kept in the ``settings`` table: their defaults and their checks, and the
scheduler configuration (desired retention, fitted FSRS parameters) read from them.

A known key is validated before it is written (ValueError says what is allowed);
a stored ``fsrs_parameters`` value that no longer validates is ignored, so the
defaults apply rather than a broken fit.
"""
from __future__ import annotations

import json
import sqlite3
from datetime import datetime
from typing import Any

from trainer.schedule.adapter import (
    DEFAULT_DAILY_NEW_LIMIT,
    DEFAULT_RETENTION,
    MAX_RETENTION,
    MIN_RETENTION,
    as_utc,
    check_parameters,
)

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
    try:
        json.dumps(value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"setting {key!r} must be JSON-serialisable") from exc
    return value


def stored_setting(conn: sqlite3.Connection, key: str) -> Any:
    row = conn.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
    return json.loads(row[0]) if row else SETTING_DEFAULTS[key]


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
