"""Writing files so that a crash never leaves half of one behind."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder, fsync and a rename."""
    path = Path(path)
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


def not_utf8(path: object, exc: UnicodeDecodeError) -> str:
    """The one message for a file that is not UTF-8 text (check, watch, import, :edit)."""
    from trainer.markup import printable

    byte = exc.object[exc.start:exc.start + 1] if isinstance(exc.object, (bytes, bytearray)) else b""
    where = f" (byte 0x{byte[0]:02x} at offset {exc.start})" if byte else ""
    return f"{printable(path)} is not UTF-8 text{where}; save it as UTF-8 and try again"
