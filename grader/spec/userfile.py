"""Reading a file a person named: regular files only, never more than a cap.

Every path the tool reads on someone's say-so (a drill spec or reference from
DRILL_PATH, a solution, a team session or results file, an import file) goes
through `read_bytes` or `read_text`. A path that is not a regular file is
refused before it is opened; the open uses ``O_NONBLOCK`` so a FIFO swapped in
meanwhile cannot hang it, ``fstat`` on the open descriptor checks again, and
the read stops at the cap plus one byte, so
``/dev/zero`` or a file that grows while being read cannot exhaust memory.

Problems raise `UnreadableFile`, whose message names the path and the reason
in words ("is a FIFO, not a regular file"; "is 120 MiB, over the 1.0 MiB limit").
"""
from __future__ import annotations

import errno
import os
import stat
from typing import BinaryIO

from grader.errors import UsageError
from grader.report import bytes_text

KIB = 1024
MIB = 1024 * KIB


class UnreadableFile(UsageError):
    """A path that cannot be read as a regular file within the cap; ``reason`` is in words."""

    def __init__(self, path: object, reason: str, *, missing: bool = False) -> None:
        self.path = str(path)
        self.reason = reason
        self.missing = missing
        super().__init__(f"cannot read {self.path}: {reason}")


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _not_regular(mode: int) -> str:
    """Why a file of this mode cannot be read: "it is a FIFO, not a regular file"."""
    kind = _kind(mode)
    return f"it is {kind}, not a regular file" if kind != "not a regular file" else "it is not a regular file"


def _open(path: str | os.PathLike, flags: int) -> int:
    """os.open, its failures as UnreadableFile."""
    try:
        return os.open(path, flags)
    except FileNotFoundError:
        raise UnreadableFile(path, "no such file", missing=True) from None
    except IsADirectoryError:
        raise UnreadableFile(path, "it is a folder, not a file") from None
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a socket, or a FIFO opened for writing elsewhere
            raise UnreadableFile(path, "it is not a regular file") from None
        raise UnreadableFile(path, exc.strerror or str(exc)) from None


def read_bytes(path: str | os.PathLike, limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; UnreadableFile otherwise."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    try:  # refuse a device or FIFO before opening it (opening some devices has effects)
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise UnreadableFile(path, "no such file", missing=True) from None
    except (OSError, ValueError) as exc:
        raise UnreadableFile(path, getattr(exc, "strerror", None) or str(exc)) from None
    if stat.S_ISDIR(mode):
        raise UnreadableFile(path, "it is a folder, not a file")
    if not stat.S_ISREG(mode):
        raise UnreadableFile(path, _not_regular(mode))
    fd = _open(path, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnreadableFile(path, _not_regular(info.st_mode))
        if info.st_size > limit:
            raise UnreadableFile(path, f"it is {bytes_text(info.st_size)}, over the {bytes_text(limit)} limit")
        chunks: list[bytes] = []
        total = 0
        while total <= limit:
            try:
                chunk = os.read(fd, min(limit + 1 - total, MIB))
            except BlockingIOError:  # pragma: no cover - regular files do not block
                continue
            except OSError as exc:
                raise UnreadableFile(path, exc.strerror or str(exc)) from None
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > limit:
            raise UnreadableFile(path, f"it grew past the {bytes_text(limit)} limit while being read")
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_text(path: str | os.PathLike, limit: int) -> str:
    """The UTF-8 text of a regular file of at most ``limit`` bytes; UnreadableFile otherwise."""
    return decode_text(read_bytes(path, limit), path)


def read_source(path: str | os.PathLike, limit: int) -> str:
    """A Python file's text the way Python reads it: a UTF-8 byte-order mark dropped,
    CRLF and CR line ends read as LF (a file saved on Windows runs as it does in python)."""
    return python_text(read_text(path, limit))


def python_text(text: str) -> str:
    """Source text as Python's own reader sees it (see read_source)."""
    return text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def decode_text(raw: bytes, name: object) -> str:
    """``raw`` as UTF-8 text; UnreadableFile naming the first bad byte otherwise (the one
    wording every command uses for a file, or stdin, that is not UTF-8)."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnreadableFile(name, f"it is not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start}); "
                                   f"save it as UTF-8 and try again") from None


def read_stream(stream: BinaryIO, limit: int, name: str = "stdin") -> bytes:
    """Up to ``limit`` bytes of a binary stream (stdin); UnreadableFile when there is more."""
    try:
        raw = stream.read(limit + 1)
    except OSError as exc:
        raise UnreadableFile(name, exc.strerror or str(exc)) from None
    if raw is None:
        raw = b""
    if len(raw) > limit:
        raise UnreadableFile(name, f"it holds more than the {bytes_text(limit)} limit")
    return raw


# The caps, one per kind of file (generous for what each holds).
SPEC_LIMIT = 256 * KIB  # a drill spec YAML (the largest built-in one is under 8 KB)
REFERENCE_LIMIT = 256 * KIB  # a drill's reference .py (parsed on every catalogue load; built-in ones are under 16 KB)
SOLUTION_LIMIT = 1 * MIB  # a solution file handed to `drill check` / `team run --file`
SESSION_LIMIT = 64 * KIB  # a team session YAML
IMPORT_LIMIT = 64 * MIB  # a `drill export` JSON file
