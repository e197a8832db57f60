"""Reused sandbox children, for `drill validate`'s sample solutions.

A fresh child costs a fork of a torch-sized process, its set-up, and the
copy-on-write faults and cold caches of a first run: ~50 ms, against a few
for the grading itself. `drill validate` grades hundreds of sample files
against the same few prepared jobs, so inside `REUSE.enabled()` a child
forked for a job (grader.sandbox.child._standby_child with reuse) grades one
file of that job after another, each in a fresh module with fresh views of
the arguments, under the same confinement, guards and per-run deadlines.

A child is given the next file only when the last run left everything as it
was: the child says so in its "done" frame (grader.sandbox.clean compares
what a run can change) and the parent checks what it can see itself: a run
that ended normally, no argument byte changed (else the arena would no
longer hold the pristine bytes), an empty scratch folder, one thread, no
tampering. Otherwise the child is finished as after any run, and the next
file gets a fresh one. `drill check`, the REPL and the tests of the sandbox
itself never reuse a child.
"""
from __future__ import annotations

import dataclasses
import os
import time
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterator

from grader import transport
from grader.sandbox import inputs
from grader.sandbox.child import _standby_child
from grader.sandbox.limits import ChildOutcome, Job, Limits
from grader.sandbox.reaping import _alive, proc_stat
from grader.sandbox.spawn import _Child, _close, _finish, _spawn
from grader.sandbox.standby import _job_key
from grader.sandbox.wire import go_message

MAX_RUNS = 64  # files one child grades before it is retired (its CPU-time limit covers this many runs)
MAX_KEPT = 8  # children kept at once (a drill's default and the variant values its samples switch between)


@dataclass
class _Kept:
    child: _Child
    go_w: int
    template: Job  # holds the arguments alive, so the ids in the key stay theirs
    runs: int = 0
    confined: dict[str, str] | None = None  # what its first run reported (how it is finished)


class Reuse:
    """The children kept for their jobs while reuse is on (`enabled()`). One instance, REUSE."""

    def __init__(self) -> None:
        self._kept: OrderedDict[tuple, _Kept] = OrderedDict()
        self._running: dict[int, tuple[tuple, _Kept]] = {}  # child pid -> its key and record, during a run
        self._depth = 0

    @property
    def on(self) -> bool:
        return self._depth > 0

    @contextmanager
    def enabled(self) -> Iterator[None]:
        """Reuse children inside this block; every one kept is finished when it ends."""
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1
            if not self._depth:
                self.discard()

    def take(self, job: Job, limits: Limits, layout: inputs.Layout) -> _Child | None:
        """A child for this job, given its source: the one kept for it, or a new reusable one.
        None when reuse is off (or the job has nothing to reuse for: no calls)."""
        if not self.on or not job.calls:
            return None
        key = _job_key(job, limits)
        kept = self._kept.pop(key, None)
        if kept is not None and not _alive(kept.child.pid):
            self._finish(kept)
            kept = None
        if kept is None:
            kept = self._fork(job, limits, layout)
        try:
            transport.write_all(kept.go_w, go_message(job.source, job.filename))
        except OSError:  # it ended while waiting: a fresh one
            self._finish(kept)
            kept = self._fork(job, limits, layout)
            transport.write_all(kept.go_w, go_message(job.source, job.filename))
        kept.child.t0 = time.monotonic()
        kept.runs += 1
        self._running[kept.child.pid] = (key, kept)
        return kept.child

    def _fork(self, job: Job, limits: Limits, layout: inputs.Layout) -> _Kept:
        template = dataclasses.replace(job, source="", filename="")
        # the kernel's CPU-time backstop covers every run the child may take; each run keeps its own deadlines
        own = dataclasses.replace(limits, total_timeout=limits.total_timeout * MAX_RUNS)
        go_r, go_w = os.pipe()
        arena = layout.arena()
        child = _spawn(own, lambda res_w, out_w, scratch: _standby_child(template, own, res_w, out_w, scratch, go_r,
                                                                         layout, arena, reuse=True),
                       close_in_child=(go_w,), close_in_parent=(go_r,))
        child.arena = arena
        return _Kept(child, go_w, template)

    def keep(self, child: _Child, outcome: ChildOutcome | None, layout: inputs.Layout) -> bool:
        """After a run in a child of ours: keep it for the next file of its job when the run left it as it
        found it (True); False when it is not ours or must be finished (the caller finishes it)."""
        entry = self._running.pop(child.pid, None)
        if entry is None:
            return False
        key, kept = entry
        outcome_ok = outcome is not None and _ended_cleanly(outcome)
        if not (outcome_ok and self.on and kept.runs < MAX_RUNS and layout.untouched(child.arena)
                and _left_clean(child)):
            try:
                os.close(kept.go_w)
            except OSError:
                pass
            return False
        assert outcome is not None
        outcome.reused = kept.runs > 1
        kept.confined = dict(outcome.confined)
        self._kept[key] = kept
        while len(self._kept) > MAX_KEPT:
            self._finish(self._kept.popitem(last=False)[1])
        return True

    def discard(self) -> None:
        while self._kept:
            self._finish(self._kept.popitem(last=False)[1])

    def _finish(self, kept: _Kept) -> None:
        try:
            os.close(kept.go_w)  # the child reads the end of its pipe and exits
        except OSError:
            pass
        _finish(kept.child, ChildOutcome(finished=True, confined=kept.confined) if kept.confined is not None else None)
        _close(kept.child.arena)


def _ended_cleanly(o: ChildOutcome) -> bool:
    return (o.reusable and o.finished and not o.refused and o.protocol_error is None and o.timeout_call is None
            and not (o.output_overflow or o.memory_killed or o.threads_killed or o.disk_overflow or o.hidden_fds)
            and o.exit_status is None and o.signal is None and not o.tampered
            and "processes" in o.confined  # it cannot have started a process that outlives the run
            and not any(c.modified for c in o.calls.values()))


def _left_clean(child: _Child) -> bool:
    """What the parent sees itself: one thread, nothing left in the scratch folder."""
    try:
        threads, _ = proc_stat(child.pid)
        return threads == 1 and not os.listdir(child.scratch)
    except OSError:
        return False


REUSE = Reuse()


def enabled() -> Any:
    """`with sandbox.reuse.enabled():` reuse children for the runs inside (grader.authoring.samples)."""
    return REUSE.enabled()
