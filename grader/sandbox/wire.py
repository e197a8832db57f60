"""The child's side of the wire: its descriptors and the frames it sends.

Frames are built by grader.transport (the one framer; grader.sandbox.channel reads
them in the parent). The child holds some frames back so that each call
costs the parent one wake-up, not two. A standby or reused child's job (source
and filename) arrives on GO_FD as one length-prefixed JSON message, written by
`go_message`.
"""
from __future__ import annotations

import json
import os
from collections.abc import Sequence

from grader import transport

RESULT_FD = 3
GO_FD = 4  # a standby child reads its job (source, filename) here
# a reused child (grader.sandbox.reuse) reads one of these on GO_FD as its gradient case starts: run it, or skip
# it (a real case already failed, so it decides nothing: the child stays whole for the next file)
GRADIENT_RUN = b"g"
GRADIENT_SKIP = b"s"


_HELD: list[bytes] = []  # child only: frames waiting to go out with the next one


def _send(header: dict, blobs: Sequence[bytes] = ()) -> None:
    """Send a frame, with any held ones, in one write. Results, "loaded" and
    "missing" are held until the next frame ("start" of the next call, or
    "done"), which is always sent before any of the solution's code runs, so a
    crash never loses them; the parent wakes once per call instead of twice."""
    frame = transport.frame(header, blobs)
    if header.get("type") in ("result", "loaded", "missing", "confined", "fake"):
        _HELD.append(frame)
        return
    data = b"".join(_HELD) + frame
    _HELD.clear()
    transport.write_all(RESULT_FD, data)


def go_message(source: str, filename: str, job: int = 0) -> bytes:
    """What the parent writes on a child's GO_FD: its job, an 8-byte length, then JSON. A standby
    child reads one and the parent closes the pipe; a reused child (grader.sandbox.reuse) reads one
    per run from the same pipe, `job` naming which of its jobs it is."""
    body = json.dumps({"source": source, "filename": filename, "job": job}).encode()
    return len(body).to_bytes(8, "big") + body


_GO_LIMIT = 1 << 26  # far above any source the grader sends (grader.spec.userfile caps them)


def _read_go(fd: int) -> tuple[str, str, int] | None:
    """The next job `go_message` wrote (source, filename, job); None when the pipe ends (discarded,
    or the parent is gone)."""
    head = _read_exactly(fd, 8)
    if head is None:
        return None
    size = int.from_bytes(head, "big")
    body = _read_exactly(fd, size) if size <= _GO_LIMIT else None
    if body is None:
        return None
    try:
        message = json.loads(body)
        return str(message["source"]), str(message["filename"]), int(message.get("job", 0))
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def _gradient_wanted() -> bool:
    """A reused child, its gradient case announced: whether the parent wants it run (one byte on GO_FD).
    A file that closed or replaced GO_FD gets False: if the parent wanted the case, its channel then breaks
    ("done" before the gradients), which is what that file did to it."""
    try:
        return _read_exactly(GO_FD, 1) == GRADIENT_RUN
    except OSError:
        return False


def _read_exactly(fd: int, size: int) -> bytes | None:
    chunks = bytearray()
    while len(chunks) < size:
        data = os.read(fd, min(size - len(chunks), 1 << 20))
        if not data:
            return None
        chunks += data
    return bytes(chunks)
