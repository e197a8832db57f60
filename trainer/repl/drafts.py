"""Drafts: the buffer of an unfinished drill, kept in DRILL_HOME/drafts/<id>.py.

Written on every change, on exit and on a closed terminal (SIGHUP), so that
no typed line is ever lost; offered back the next time the drill opens. A draft
written under a variant keeps it beside it (<id>.variant: `axis=value ...`), so it is
offered back as what it is: the code of another convention says so.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from grader.spec.userfile import SOLUTION_LIMIT, UnreadableFile, read_text


@dataclass(frozen=True)
class Draft:
    text: str
    saved_at: datetime
    variant: dict[str, str] = field(default_factory=dict)  # the variant it was written under; {} = the default


def variant_words(variant: dict[str, str]) -> str:
    """`layout=tbd mask=pad`, or "the contract as written" for {}."""
    return " ".join(f"{k}={v}" for k, v in sorted(variant.items())) or "the contract as written"


class Drafts:
    def __init__(self, home: Path):
        self.folder = Path(home) / "drafts"

    def path(self, drill_id: str) -> Path:
        return self.folder / f"{drill_id}.py"

    def save(self, drill_id: str, text: str, variant: dict[str, str] | None = None) -> None:
        """Atomic write: a crash mid-write leaves the previous draft whole. `variant`: the one it is
        written under (kept beside it; none for the default)."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            target = self.path(drill_id)
            self._write(target, text)
            side = self._variant_path(drill_id)
            if variant:
                self._write(side, " ".join(f"{k}={v}" for k, v in sorted(variant.items())) + "\n")
            elif side.exists():
                side.unlink()
        except OSError:
            pass  # a read-only home must not break the editor; the buffer is still in memory

    @staticmethod
    def _write(target: Path, text: str) -> None:
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, target)

    def _variant_path(self, drill_id: str) -> Path:
        return self.folder / f"{drill_id}.variant"

    def _variant(self, drill_id: str) -> dict[str, str]:
        """The variant a draft was written under: `axis=value` words (anything else in the file ignored)."""
        try:
            words = read_text(self._variant_path(drill_id), 4096).split()
        except (OSError, UnreadableFile):
            return {}
        return dict(w.split("=", 1) for w in words[:20] if w.count("=") == 1 and all(w.split("=")))

    def load(self, drill_id: str) -> Draft | None:
        path = self.path(drill_id)
        try:
            text = read_text(path, SOLUTION_LIMIT)
            mtime = path.stat().st_mtime
        except (OSError, UnreadableFile):
            return None
        return Draft(text, datetime.fromtimestamp(mtime, timezone.utc), self._variant(drill_id))

    def set_aside(self, drill_id: str) -> None:
        """Keep a declined draft as <id>.prev.py instead of overwriting it."""
        path = self.path(drill_id)
        try:
            os.replace(path, path.with_name(f"{drill_id}.prev.py"))
            self._variant_path(drill_id).unlink(missing_ok=True)
        except OSError:
            pass

    def clear(self, drill_id: str) -> None:
        for path in (self.path(drill_id), self._variant_path(drill_id)):
            try:
                path.unlink()
            except OSError:
                pass
