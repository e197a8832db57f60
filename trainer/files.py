"""Writing files so that a crash never leaves half of one behind."""
from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path
from typing import IO, Any


def write_atomically(path: Path, text: str | bytes, mode: int | None = None) -> None:
    """Write ``text`` (or bytes) to ``path`` through a temporary file in the same folder, fsync and a rename.
    The file is private to its owner (0600) unless ``mode`` says otherwise, say 0o644 for a
    file teammates read from a shared folder.

    A target that exists and is not a regular file is never renamed over: a character
    device or a pipe (``/dev/stdout``, ``/dev/null``, a FIFO) is written in place, and
    anything else (a folder, a socket) raises OSError naming what it is."""
    path = Path(path)
    try:
        existing: int | None = os.stat(path).st_mode
    except OSError:
        existing = None  # absent, or let the write below report the real problem
    if existing is not None and not stat.S_ISREG(existing):
        if stat.S_ISCHR(existing) or stat.S_ISFIFO(existing):
            _write_in_place(path, text)
            return
        what = "a folder" if stat.S_ISDIR(existing) else "not a regular file"
        raise OSError(errno.EINVAL, f"it is {what}; give the name of a file to write", str(path))
    folder = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        handle: IO[Any] = os.fdopen(fd, "wb") if isinstance(text, bytes) else os.fdopen(fd, "w", encoding="utf-8")
        with handle as fh:
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


def _write_in_place(path: Path, text: str | bytes) -> None:
    """Write to a device or FIFO as it is; a FIFO nobody reads is an error, never a hang."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise OSError(errno.ENXIO, "it is a FIFO that no program is reading", str(path)) from None
        raise
    os.set_blocking(fd, True)
    with os.fdopen(fd, "wb") as fh:
        fh.write(text if isinstance(text, bytes) else text.encode("utf-8"))
