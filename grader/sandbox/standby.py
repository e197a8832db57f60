"""The standby child: forked, prepared and confined ahead of time.

Forking a torch-sized process costs tens of milliseconds, so a warm worker
calls `prefork()` once it has answered: a child is forked for the job just
run and waits on a pipe. The next `run()` of the same job (same cached
cases, same limits; only the source differs) hands it the source and skips
all of that. Also the atexit hook: a process that graded leaves no child
behind.
"""
from __future__ import annotations

import atexit
import dataclasses
import os
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator

from grader import transport
from grader.sandbox import inputs
from grader.sandbox import scratch as scratch_dir
from grader.sandbox.child import _standby_child
from grader.sandbox.limits import ChildOutcome, Job, Limits
from grader.sandbox.reaping import REAPER, _alive
from grader.sandbox.spawn import _LIVE, _SCRATCH, _Child, _close, _finish, _spawn
from grader.sandbox.wire import go_message
from grader.sandbox.zygote import ZYGOTE, Body


def _job_key(job: Job, limits: Limits) -> tuple:
    """Everything but the source: a standby child fits a job only when this matches.
    Call arguments are compared by identity (the cached prepared cases)."""
    return (tuple((i, f, id(a), tuple(n)) for i, f, a, n in job.calls), tuple(job.functions), id(job.fake),
            *_guard_key(job, limits))


def _guard_key(job: Job, limits: Limits) -> tuple:
    """What a child installs before any job of it runs (guards, counters, limits): the jobs a reused
    child serves (grader.sandbox.reuse) agree on it."""
    return (job.banned, tuple(job.ban_places), tuple(sorted(job.ban_kernels.items())),
            tuple(sorted(job.must_call.items())), tuple(job.count_places), job.trace, job.forget, job.device,
            dataclasses.astuple(limits))


@dataclass
class _Waiting:
    child: _Child
    go_w: int
    key: tuple
    template: Job  # holds the arguments alive, so the ids in `key` stay theirs


class Standby:
    """At most one child forked, prepared and confined ahead of time for the
    job most recently run, waiting on a pipe for its source. A warm worker calls
    `prefork()` after answering, so the next submission skips the fork and the
    child's set-up. The one instance, STANDBY, belongs to this process."""

    def __init__(self) -> None:
        self._waiting: _Waiting | None = None
        self._last: tuple[Job, Limits] | None = None
        self._lock = threading.Lock()

    def remember(self, job: Job, limits: Limits) -> None:
        self._last = (dataclasses.replace(job, source="", filename=""), limits)

    def prefork(self) -> bool:
        """Fork a standby child for the last job run (no-op when one waits already)."""
        with self._lock:
            if self._last is None:
                return False
            template, limits = self._last
            key = _job_key(template, limits)
            if self._waiting is not None:
                if self._waiting.key == key and _alive(self._waiting.child.pid):
                    return True
                self._discard()
            go_r, go_w = os.pipe()
            layout = inputs.layout_for(template.calls)
            arena = layout.arena()
            child = _spawn(limits, Body(_standby_child, {"template": template, "limits": limits, "layout": layout},
                                        go_r=go_r, arenas=[arena], takes_arena=True),
                           close_in_child=(go_w,), close_in_parent=(go_r,))
            child.arena = arena
            self._waiting = _Waiting(child, go_w, key, template)
            return True

    def take(self, job: Job, limits: Limits) -> _Child | None:
        """The standby child, given the job's source, when it fits; else None."""
        with self._lock:
            waiting, self._waiting = self._waiting, None
            if waiting is None:
                return None
            if waiting.key != _job_key(job, limits):
                self._waiting = waiting
                self._discard()
                return None
            message = go_message(job.source, job.filename)
            try:
                transport.write_all(waiting.go_w, message)
            except OSError:  # it died while waiting
                self._waiting = waiting
                self._discard()  # closes go_w
                return None
            os.close(waiting.go_w)  # end of message: the child starts
            waiting.child.t0 = time.monotonic()
            return waiting.child

    def discard(self) -> None:
        with self._lock:
            self._discard()

    @contextmanager
    def aside(self) -> Iterator[None]:
        """Run other jobs (the smallest-case search, grader.judge.smallest) without costing the
        next submission its standby child: the waiting child and the job remembered are put
        back as they were afterwards (a child forked meanwhile is discarded)."""
        with self._lock:
            kept, self._waiting = self._waiting, None
            last = self._last
        try:
            yield
        finally:
            with self._lock:
                self._discard()
                self._waiting, self._last = kept, last

    def _discard(self) -> None:
        waiting, self._waiting = self._waiting, None
        if waiting is None:
            return
        try:
            os.close(waiting.go_w)
        except OSError:
            pass
        _finish(waiting.child, ChildOutcome(finished=True, confined={"processes": "standby"}))
        _close(waiting.child.arena)


STANDBY = Standby()


@atexit.register
def finish_all() -> None:
    """A process that graded leaves no child behind: no standby, every kill reaped,
    no zygote, every scratch folder removed (also when an exception or a signal cut a run short).
    At interpreter exit; a forked worker, which skips atexit, calls it on its way out."""
    STANDBY.discard()
    for child in list(_LIVE.values()):
        _finish(child, None)
    for folder in list(_SCRATCH):  # a run cut short between making its folder and knowing its child
        scratch_dir.remove(folder)
        _SCRATCH.discard(folder)
    ZYGOTE.close()  # ended and reaped here: left to end on its own, it would be re-parented, a zombie
    REAPER.drain()


def prefork() -> bool:
    """Fork a standby child for the job most recently run in this process."""
    return STANDBY.prefork()
