"""Drill content run first in a forked child that this process stops at a deadline.

A drill's reference, input builders and oracle are called in the grader's own
process (grader.cases.prepare), where nothing can stop a call that never returns:
a thread cannot be killed, and a SIGALRM deadline (prepare.deadline) works only in
the main thread, waits for C code to return, and can be blocked by the code it
guards. So a call the grader cannot vouch for, such as a case built again at
sizes no case had (grader.cases.resize, for the smallest-case search and `:try`),
or a DRILL_PATH file's first import (grader.cases.trial), runs here first: in a
forked child, its own process group, killed from outside once the job has used
`Limit.cpu` seconds of the child's CPU time (a loaded machine does not stretch
that) or `Limit.wall` seconds on the wall clock (a wait, not work). Only what
finished there is done again in-process. The child sends back one line per job,
never a value: nothing it made is read here.

One child runs many jobs in turn (one fork, about 15 ms here: bench/latency.py's
floor); a job that is stopped, or that ends the child, takes only that child with
it, and the jobs after it go on in a new one.
"""
from __future__ import annotations

import os
import select
import signal
import sys
import time
from dataclasses import dataclass
from typing import Callable, Sequence

_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_POLL = 0.02  # seconds between looks at the child's CPU time


@dataclass(frozen=True)
class Limit:
    cpu: float  # seconds of the child's CPU time one job may use
    wall: float  # seconds on the wall clock one job may take (waiting counts here only)


@dataclass(frozen=True)
class Ran:
    """How one job went in the child: `done` when it returned; else `why` (raised, stopped, ended)."""

    done: bool
    why: str = ""
    stopped: bool = False  # it used up its limit (a loop, or a wait), or the caller's time ran out
    late: bool = False  # the caller's time (`until`) ran out first: nothing is known of the job


def each(jobs: Sequence[Callable[[], object]], limit: Limit, until: float | None = None,
         to_first_stop: bool = False) -> list[Ran]:
    """Run every job in a forked child, one after another, each under `limit`; stop everything
    at `until` (time.monotonic()), or after the first job stopped (`to_first_stop`), the jobs
    not reached then marked stopped too. One Ran per job."""
    out: list[Ran] = []
    while len(out) < len(jobs):
        if (until is not None and time.monotonic() >= until) or (to_first_stop and out and out[-1].stopped):
            late = until is not None and time.monotonic() >= until
            out += [Ran(False, "not tried", stopped=True, late=late)] * (len(jobs) - len(out))
            break
        out += _one_child(jobs, len(out), limit, until)
    return out


def _one_child(jobs: Sequence[Callable[[], object]], first: int, limit: Limit, until: float | None) -> list[Ran]:
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        _child(jobs, first, write_fd)
    os.close(write_fd)
    try:
        return _watch(pid, read_fd, len(jobs) - first, limit, until)
    finally:
        os.close(read_fd)
        _kill(pid)


def _child(jobs: Sequence[Callable[[], object]], first: int, write_fd: int) -> None:
    """In the child: each job from `first` on, one line per job ("ok" or "raised <type>")."""
    try:
        os.setpgid(0, 0)
        for sig in (signal.SIGALRM, signal.SIGPROF):  # the parent's deadlines are not this child's
            signal.signal(sig, signal.SIG_DFL)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.setitimer(signal.ITIMER_PROF, 0)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        if "torch" in sys.modules:  # a forked child hangs on its first parallel op otherwise (docs/ARCHITECTURE.md)
            sys.modules["torch"].set_num_threads(1)
        for job in jobs[first:]:
            try:
                job()
                line = "ok"
            except BaseException as exc:  # noqa: BLE001 - what it raised is its outcome, said to the parent
                line = f"raised {type(exc).__name__}"[:200]
            os.write(write_fd, line.encode() + b"\n")
    except BaseException:  # noqa: BLE001, S110 - the parent reads a closed pipe as "ended the process"
        pass
    finally:
        os._exit(0)


def _watch(pid: int, read_fd: int, count: int, limit: Limit, until: float | None) -> list[Ran]:
    """The child's lines as they come, each job stopped at its limit; at the first job stopped
    (or one that ends the child), what was known so far plus that job's Ran."""
    out: list[Ran] = []
    buf = b""
    started, cpu_at = time.monotonic(), _cpu(pid)
    while len(out) < count:
        now = time.monotonic()
        if until is not None and now >= until:
            return out + [Ran(False, "stopped: the time was up", stopped=True, late=True)]
        cpu = _cpu(pid)
        if cpu - cpu_at > limit.cpu:
            return out + [Ran(False, f"did not finish within {limit.cpu:g} s of CPU time", stopped=True)]
        if now - started > limit.wall:
            return out + [Ran(False, f"did not finish within {limit.wall:g} s", stopped=True)]
        ready, _, _ = select.select([read_fd], [], [], _POLL)
        if not ready:
            continue
        data = os.read(read_fd, 4096)
        if not data:
            return out + [Ran(False, "ended the process it ran in")]
        buf += data
        while b"\n" in buf and len(out) < count:
            line, buf = buf.split(b"\n", 1)
            text = line.decode(errors="replace")
            out.append(Ran(True) if text == "ok" else Ran(False, text))
            started, cpu_at = time.monotonic(), _cpu(pid)
    return out


def _cpu(pid: int) -> float:
    """The child's CPU time so far (user + system, all its threads), in seconds; 0 when unknown."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            raw = f.read(4096)
        fields = raw[raw.rfind(b")") + 2:].split()
        return (int(fields[11]) + int(fields[12])) / _TICKS
    except (OSError, IndexError, ValueError):
        return 0.0


def _kill(pid: int) -> None:
    """Kill the child and what it left in its group, and reap it."""
    for target in (-pid, pid):
        try:
            os.kill(target, signal.SIGKILL)
        except OSError:
            pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass
