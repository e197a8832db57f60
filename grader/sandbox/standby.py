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
from grader.sandbox import split
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
    """Children forked, prepared and confined ahead of time for the job most recently
    run, waiting on a pipe for its source: one, or the two halves of a split job
    (grader.sandbox.split: the real cases and the gradient case in one, the fake-tensor
    runs in the other). A warm worker calls `prefork()` after answering, so the next
    submission skips the fork and the child's set-up. The one instance, STANDBY,
    belongs to this process."""

    def __init__(self) -> None:
        self._waiting: list[_Waiting] = []
        self._last: tuple[Job, Limits] | None = None
        self._lock = threading.Lock()

    def remember(self, job: Job, limits: Limits) -> None:
        self._last = (dataclasses.replace(job, source="", filename=""), limits)

    def prefork(self, idle: bool = True) -> bool:
        """Fork the standby children for the last job run (no-op when they wait already). `idle`: the
        process expects an idle gap before the next run (a person reading the verdict): the job is split
        in two children that rehearse (grader.sandbox.split, grader.sandbox.rehearse); without one (the
        next of several files, graded at once) one child, not rehearsing, costs less CPU."""
        with self._lock:
            if self._last is None:
                return False
            template, limits = self._last
            jobs = split.parts(template) if idle else [template]
            keys = [_job_key(job, limits) for job in jobs]
            if [w.key for w in self._waiting] == keys and all(_alive(w.child.pid) for w in self._waiting):
                return True
            self._discard()
            for job, key in zip(jobs, keys):
                self._waiting.append(self._fork(job, limits, key, idle))
            return True

    @staticmethod
    def _fork(template: Job, limits: Limits, key: tuple, rehearse: bool) -> _Waiting:
        go_r, go_w = os.pipe()
        layout = inputs.layout_for(template.calls)
        arena = layout.arena()
        child = _spawn(limits, Body(_standby_child, {"template": template, "limits": limits, "layout": layout,
                                                     "rehearse": rehearse},
                                    go_r=go_r, arenas=[arena], takes_arena=True),
                       close_in_child=(go_w,), close_in_parent=(go_r,))
        child.arena = arena
        return _Waiting(child, go_w, key, template)

    def take(self, job: Job, limits: Limits) -> list[_Child]:
        """The standby children, each given the job's source, when they fit (one for the whole job, or
        its two halves, as grader.sandbox.split.parts makes them); else [] (nothing waits any more)."""
        with self._lock:
            waiting, self._waiting = self._waiting, []
            if not waiting:
                return []
            keys = [w.key for w in waiting]
            if keys != [_job_key(job, limits)] and keys != [_job_key(part, limits) for part in split.parts(job)]:
                self._waiting = waiting
                self._discard()
                return []
            message = go_message(job.source, job.filename)
            for w in waiting:
                try:
                    transport.write_all(w.go_w, message)
                except OSError:  # one died while waiting
                    self._waiting = waiting
                    self._discard()  # closes every go_w
                    return []
            for w in waiting:
                os.close(w.go_w)  # end of message: the child starts
                w.child.t0 = time.monotonic()
            return [w.child for w in waiting]

    def discard(self) -> None:
        with self._lock:
            self._discard()

    @contextmanager
    def aside(self) -> Iterator[None]:
        """Run other jobs (the smallest-case search, grader.judge.smallest) without costing the
        next submission its standby children: the waiting children and the job remembered are put
        back as they were afterwards (a child forked meanwhile is discarded)."""
        with self._lock:
            kept, self._waiting = self._waiting, []
            last = self._last
        try:
            yield
        finally:
            with self._lock:
                self._discard()
                self._waiting, self._last = kept, last

    def _discard(self) -> None:
        waiting, self._waiting = self._waiting, []
        for w in waiting:
            try:
                os.close(w.go_w)
            except OSError:
                pass
            _finish(w.child, ChildOutcome(finished=True, confined={"processes": "standby"}))
            _close(w.child.arena)


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


def prefork(idle: bool = True) -> bool:
    """Fork the standby children for the job most recently run in this process (Standby.prefork)."""
    return STANDBY.prefork(idle)
