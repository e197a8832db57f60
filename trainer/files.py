"""Writing files so that a crash never leaves half of one behind."""
from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder, fsync and a rename.

    A target that exists and is not a regular file is never renamed over: a character
    device or a pipe (``/dev/stdout``, ``/dev/null``, a FIFO) is written in place, and
    anything else (a folder, a socket) raises OSError naming what it is."""
    path = Path(path)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    except OSError:
        mode = None  # let the write below report the real problem
    if mode is not None and not stat.S_ISREG(mode):
        if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
            _write_in_place(path, text)
            return
        what = "a folder" if stat.S_ISDIR(mode) else "not a regular file"
        raise OSError(errno.EINVAL, f"it is {what}; give the name of a file to write", str(path))
    folder = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _write_in_place(path: Path, text: str) -> None:
    """Write to a device or FIFO as it is; a FIFO nobody reads is an error, never a hang."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise OSError(errno.ENXIO, "it is a FIFO that no program is reading", str(path)) from None
        raise
    os.set_blocking(fd, True)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
