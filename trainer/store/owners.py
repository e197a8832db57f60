"""Who holds an open sitting, and whether that process still lives.

An open sitting stores its owner as ``host:pid:start`` (the start time from
/proc, so a reused pid is not mistaken for the owner). On open, the store
closes and rates the sittings of owners that are gone (crash, SIGKILL, power
cut) and leaves the others alone. A sitting opened on another host (a shared
folder) cannot be asked about, and is presumed dead after a grace period.
"""
from __future__ import annotations

import os
import socket
from datetime import datetime, timedelta
from pathlib import Path

from trainer.schedule.adapter import as_utc

FOREIGN_OWNER_GRACE = timedelta(days=1)  # an open sitting of another host is presumed dead after this


def proc_stat(pid: int) -> tuple[str, str] | None:
    """(state, start time in clock ticks) of a process from /proc (Linux); None elsewhere."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rfind(")") + 2:].split()
    return (fields[0], fields[19]) if len(fields) > 19 else None


def owner_token() -> str:
    """host:pid:start, enough to tell later whether the process that opened a sitting lives."""
    pid = os.getpid()
    stat = proc_stat(pid)
    return f"{socket.gethostname()}:{pid}:{stat[1] if stat else ''}"


def owner_alive(owner: str | None, opened_at: datetime | None, now: datetime) -> bool:
    if not owner:
        return False
    parts = owner.rsplit(":", 2)
    try:
        host, pid, start = parts[0], int(parts[1]), parts[2]
    except (ValueError, IndexError):
        return False
    if host != socket.gethostname():  # a shared folder used from another machine: cannot ask it
        return opened_at is not None and as_utc(now) - opened_at < FOREIGN_OWNER_GRACE
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    except OSError:
        return False
    stat = proc_stat(pid)
    if stat is None:
        return True  # alive, and no /proc to check it is the same process
    return stat[0] not in ("Z", "X") and (not start or stat[1] == start)
