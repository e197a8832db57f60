"""Drafts: the buffer of an unfinished drill, kept in DRILL_HOME/drafts/<id>.py.

Written on every change, on exit and on a closed terminal (SIGHUP), so that
no typed line is ever lost; offered back the next time the drill opens.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from grader.spec.userfile import SOLUTION_LIMIT, UnreadableFile, read_text


@dataclass(frozen=True)
class Draft:
    text: str
    saved_at: datetime


class Drafts:
    def __init__(self, home: Path):
        self.folder = Path(home) / "drafts"

    def path(self, drill_id: str) -> Path:
        return self.folder / f"{drill_id}.py"

    def save(self, drill_id: str, text: str) -> None:
        """Atomic write: a crash mid-write leaves the previous draft whole."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            target = self.path(drill_id)
            tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, target)
        except OSError:
            pass  # a read-only home must not break the editor; the buffer is still in memory

    def load(self, drill_id: str) -> Draft | None:
        path = self.path(drill_id)
        try:
            text = read_text(path, SOLUTION_LIMIT)
            mtime = path.stat().st_mtime
        except (OSError, UnreadableFile):
            return None
        return Draft(text, datetime.fromtimestamp(mtime, timezone.utc))

    def set_aside(self, drill_id: str) -> None:
        """Keep a declined draft as <id>.prev.py instead of overwriting it."""
        path = self.path(drill_id)
        try:
            os.replace(path, path.with_name(f"{drill_id}.prev.py"))
        except OSError:
            pass

    def clear(self, drill_id: str) -> None:
        try:
            self.path(drill_id).unlink()
        except OSError:
            pass
