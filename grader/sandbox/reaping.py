"""Killing, reaping and reading /proc: what the parent knows about its children.

A finished child is killed at its "done" frame and reaped by a background
thread (`REAPER`), so nobody waits for the kernel to tear a torch-sized
address space down. The grader is a child subreaper, so processes a child
left behind (fork + setsid escapes) are re-parented to it: `reap_orphans`
finds them in /proc by start time and kills them. The /proc readers also
feed the watchdog (resident size, threads, CPU time).
"""
from __future__ import annotations

import os
import queue
import signal
import threading
import time

from grader import threads

_PAGE = os.sysconf("SC_PAGE_SIZE")


_TICKS = os.sysconf("SC_CLK_TCK")


def _alive(pid: int) -> bool:
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return False
    return done == 0


def _boot_ticks() -> int:
    """Clock ticks since boot (the unit of /proc/<pid>/stat start times); 0 off Linux."""
    clock = getattr(time, "CLOCK_BOOTTIME", None)
    return int(time.clock_gettime(clock) * _TICKS) if clock is not None else 0


def _kill_group(pid: int, wait: bool = True) -> None:
    """SIGKILL the child's group. Reap it now, or (wait=False: a finished child,
    whose exit status tells nothing) on a background thread, so the caller does
    not wait for the kernel to tear down a torch-sized address space."""
    for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            target()
        except (ProcessLookupError, PermissionError):
            pass
    if not wait:
        REAPER.reap(pid)
        return
    _reap(pid)


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


class Reaper:
    """One daemon thread that waits for killed children, so the caller does not.
    At interpreter exit it finishes its queue (a CLI leaves no child behind)."""

    def __init__(self) -> None:
        self._queue: queue.Queue[int] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def reap(self, pid: int) -> None:
        self._queue.put(pid)
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threads.start(self._loop, "drill-reaper")

    def drain(self, timeout: float = 5.0) -> None:
        """Wait (bounded) until every queued child is reaped."""
        deadline = time.monotonic() + timeout
        while self._queue.unfinished_tasks and time.monotonic() < deadline:
            time.sleep(0.005)

    def _loop(self) -> None:
        while True:
            pid = self._queue.get()
            try:
                _reap(pid)
            finally:
                self._queue.task_done()


REAPER = Reaper()


def reap_orphans(since_ticks: int, exclude: int = 0, rounds: int = 64, keep: int | None = None) -> int:
    """Kill and reap our children that started at or after `since_ticks` (clock
    ticks since boot): processes a sandbox child left behind, re-parented to
    us because we are a subreaper. `exclude` (the child itself) and `keep` (the
    zygote, grader.sandbox.zygote, which may have started in the same tick) are
    left alone. Returns how many there were."""
    me = os.getpid()
    mine = os.getpgrp()
    total = 0
    for _ in range(rounds):
        found = [(pid, pgid) for pid, ppid, pgid, start in _processes()
                 if ppid == me and start >= since_ticks and pid != exclude and pid != keep]
        if not found:
            break
        for pid, pgid in found:
            if pgid == pid and pgid != mine:
                try:
                    os.killpg(pgid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        for pid, _ in found:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
        total += len(found)
    return total


def _processes() -> list[tuple[int, int, int, int]]:
    """(pid, ppid, pgid, start ticks) of every process we can see."""
    out: list[tuple[int, int, int, int]] = []
    try:
        names = os.listdir("/proc")
    except OSError:  # no /proc (not Linux): nothing to scan
        return out
    for name in names:
        if not name.isdigit():
            continue
        stat = _read_stat(int(name))
        if stat is not None:
            out.append(stat)
    return out


def _read_proc(pid: int, name: str, size: int) -> bytes | None:
    """The start of /proc/<pid>/<name>, or None when the process is gone."""
    try:
        fd = os.open(f"/proc/{pid}/{name}", os.O_RDONLY)
        try:
            return os.read(fd, size)
        finally:
            os.close(fd)
    except OSError:
        return None


def _read_stat(pid: int) -> tuple[int, int, int, int] | None:
    raw = _read_proc(pid, "stat", 4096)
    if raw is None:
        return None
    fields = raw[raw.rfind(b")") + 2:].split()
    try:
        return pid, int(fields[1]), int(fields[2]), int(fields[19])
    except (IndexError, ValueError):
        return None


def proc_stat(pid: int) -> tuple[int, int]:
    """(threads, CPU time in clock ticks) of one process, (0, 0) when it is gone:
    fields 20 and 14 + 15 of /proc/<pid>/stat."""
    raw = _read_proc(pid, "stat", 4096)
    try:
        fields = raw[raw.rfind(b")") + 2:].split() if raw else []
        return int(fields[17]), int(fields[11]) + int(fields[12])
    except (IndexError, ValueError):
        return 0, 0


def _statm(pid: int) -> tuple[int, int]:
    """(address-space size, resident size) of one process in bytes, (0, 0) when it is gone."""
    raw = _read_proc(pid, "statm", 256)
    try:
        size, resident = raw.split()[:2] if raw else (b"0", b"0")
        return int(size) * _PAGE, int(resident) * _PAGE
    except ValueError:
        return 0, 0


def resident_bytes(pid: int) -> int:
    """Resident size of one process (0 when it is gone)."""
    return _statm(pid)[1]
