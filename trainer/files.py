"""Writing files so that a crash never leaves half of one behind."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomically(path: Path, text: str, mode: int | None = None) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder, fsync and a rename.
    The file is private to its owner (0600) unless ``mode`` says otherwise, say 0o644 for a
    file teammates read from a shared folder."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            if mode is not None:
                os.fchmod(fh.fileno(), mode)
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
