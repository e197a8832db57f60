"""How long each drill took to prove in the last `drill validate`, kept under DRILL_HOME so that
the next run starts the longest first (grader.authoring.proving.longest_first): the last drill to
start then ends near the others. A hint only: what validate proves never depends on it, and a
missing, unreadable or odd file is no hint (a drill it does not name starts first)."""
from __future__ import annotations

import json
import math
from pathlib import Path

FILE = "validate-seconds.json"
_LIMIT = 1 << 18  # bytes read: far above the hint of a thousand drills
_MAX_ENTRIES = 2000


def path() -> Path:
    from trainer.paths import drill_home

    return drill_home() / "cache" / FILE


def load() -> dict[str, float]:
    """The seconds per drill id from the last run; {} when there is no usable file (a link, a FIFO,
    anything not a small regular file of JSON)."""
    from grader.spec.userfile import UnreadableFile, read_bytes

    target = path()
    if target.is_symlink():
        return {}
    try:
        raw = read_bytes(target, _LIMIT)
    except UnreadableFile:
        return {}
    try:
        data = json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return {}
    if not isinstance(data, dict):
        return {}
    out: dict[str, float] = {}
    for key, value in list(data.items())[:_MAX_ENTRIES]:
        if (isinstance(key, str) and len(key) <= 200 and isinstance(value, (int, float))
                and not isinstance(value, bool) and math.isfinite(value) and 0 <= value <= 86400):
            out[key] = float(value)
    return out


def save(seconds: dict[str, float]) -> None:
    """Keep this run's seconds (with the earlier ones of drills it did not prove); a home that cannot
    be written goes without."""
    from trainer.files import write_atomically

    merged = {**load(), **{k: round(v, 3) for k, v in seconds.items()}}
    try:
        target = path()
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_atomically(target, json.dumps(dict(list(merged.items())[-_MAX_ENTRIES:]), sort_keys=True) + "\n")
    except OSError:
        pass
