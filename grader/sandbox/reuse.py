"""Reused sandbox children, for `drill validate`'s sample solutions.

A fresh child costs a fork of a torch-sized process, its set-up, and the
copy-on-write faults and cold caches of a first run: ~50 ms, against a few
for the grading itself. `drill validate` grades hundreds of sample files
against a drill's few prepared jobs (the contract's, and each variant
value's), so inside `REUSE.enabled(templates)` one child, forked knowing all
of those jobs (grader.sandbox.child._reused_child), grades one file after
another, each in a fresh module with fresh views of its job's arguments,
under the same confinement, guards and per-run deadlines as a fresh child.
A job that was not given up front gets a child of its own, reused the same way.

A child is given the next file only when the last run left everything as it
was: the child says so in its "done" frame (grader.sandbox.clean compares
what a run can change) and the parent checks what it sees itself: a run
that ended normally, no argument byte changed (the arenas must keep their
pristine bytes), an empty scratch folder, one thread, no tampering, no way
to have started a process. Otherwise the child is finished as after any run
and the next file gets a fresh one. `drill check`, the REPL and the tests of
the sandbox itself never reuse a child.
"""
from __future__ import annotations

import dataclasses
import os
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Iterator, Sequence

from grader import transport
from grader.sandbox import inputs
from grader.sandbox.child import _reused_child
from grader.sandbox.limits import ChildOutcome, Job, Limits
from grader.sandbox.reaping import _alive, proc_stat
from grader.sandbox.spawn import _Child, _close, _finish, _spawn
from grader.sandbox.standby import _guard_key, _job_key
from grader.sandbox.wire import GRADIENT_RUN, GRADIENT_SKIP, go_message
from grader.sandbox.zygote import Body

MAX_RUNS = 64  # files one child grades before it is retired (its CPU-time limit covers this many runs)
MAX_LIVE = 8  # children kept waiting at once


@dataclass
class _Group:
    """Jobs one child serves: templates (source left out), their layouts, and the child while it lives."""

    templates: list[Job]
    layouts: list[inputs.Layout]
    limits: Limits
    arenas: list[Any] = field(default_factory=list)  # the live child's, one per job
    child: _Child | None = None
    go_w: int = -1
    runs: int = 0
    confined: dict[str, str] | None = None  # what its first run reported (how it is finished)
    used: float = 0.0


class Reuse:
    """The children kept for their jobs while reuse is on (`enabled()`). One instance, REUSE."""

    def __init__(self) -> None:
        self._groups: list[_Group] = []
        self._by_key: dict[tuple, tuple[_Group, int]] = {}
        self._running: dict[int, tuple[_Group, int]] = {}  # child pid -> its group and job, during a run
        self._depth = 0

    @property
    def on(self) -> bool:
        return self._depth > 0

    @contextmanager
    def enabled(self, templates: Sequence[tuple[Job, Limits]] = ()) -> Iterator[None]:
        """Reuse children inside this block; `templates` (jobs and their limits) are known up front, so
        one child serves all of them that share their guards. Every child is finished when it ends."""
        self._depth += 1
        try:
            for job, limits in templates:
                self._add(job, limits, inputs.layout_for(job.calls))
            yield
        finally:
            self._depth -= 1
            if not self._depth:
                self.discard()
                self._groups.clear()
                self._by_key.clear()

    def _add(self, job: Job, limits: Limits, layout: inputs.Layout) -> tuple[_Group, int]:
        key = _job_key(job, limits)
        if key in self._by_key:
            return self._by_key[key]
        template = dataclasses.replace(job, source="", filename="")
        group = next((g for g in self._groups if g.child is None and _guard_key(g.templates[0], g.limits)
                      == _guard_key(job, limits)), None)
        if group is None:
            group = _Group([], [], limits)
            self._groups.append(group)
        group.templates.append(template)
        group.layouts.append(layout)
        self._by_key[key] = (group, len(group.templates) - 1)
        return self._by_key[key]

    def take(self, job: Job, limits: Limits, layout: inputs.Layout) -> _Child | None:
        """A child for this job, given its source: its group's, forked now if none waits.
        None when reuse is off (or the job has nothing to reuse for: no calls)."""
        if not self.on or not job.calls:
            return None
        group, index = self._add(job, limits, layout)
        if group.child is not None and not _alive(group.child.pid):
            self._drop(group)
        message = go_message(job.source, job.filename, index)
        for attempt in (0, 1):
            if group.child is None:
                self._fork(group)
            assert group.child is not None
            try:
                transport.write_all(group.go_w, message)
                break
            except OSError:  # it ended while waiting: a fresh one, once
                self._drop(group)
                if attempt:
                    return None
        child = group.child
        assert child is not None
        child.t0 = group.used = time.monotonic()
        child.arena = group.arenas[index]
        group.runs += 1
        self._running[child.pid] = (group, index)
        return child

    def _fork(self, group: _Group) -> None:
        live = sorted((g for g in self._groups if g.child is not None), key=lambda g: g.used)
        for old in live[:max(0, len(live) - MAX_LIVE + 1)]:
            self._drop(old)
        templates, layouts = list(group.templates), list(group.layouts)
        arenas = [layout.arena() for layout in layouts]
        # the kernel's CPU-time backstop covers every run the child may take; each run keeps its own deadlines
        own = dataclasses.replace(group.limits, total_timeout=group.limits.total_timeout * MAX_RUNS)
        go_r, go_w = os.pipe()
        group.child = _spawn(own, Body(_reused_child, {"templates": templates, "limits": own, "layouts": layouts},
                                       go_r=go_r, arenas=arenas, many=True),
                             close_in_child=(go_w,), close_in_parent=(go_r,))
        group.go_w, group.arenas, group.runs, group.confined = go_w, arenas, 0, None

    def owns(self, child: _Child) -> bool:
        """Whether `child` is one of ours, in a run now (grader.sandbox.supervise lets such a run finish)."""
        return child.pid in self._running

    def answer(self, child: _Child, run_it: bool) -> None:
        """Tell a child of ours, at the start of its gradient case, whether to run it (grader.sandbox.child
        waits for one byte on its job pipe there): it is skipped once a real case failed, and the child,
        kept whole, takes the next file."""
        group, _ = self._running[child.pid]
        try:
            transport.write_all(group.go_w, GRADIENT_RUN if run_it else GRADIENT_SKIP)
        except OSError:  # it died meanwhile: its run's ending says so
            pass

    def keep(self, child: _Child, outcome: ChildOutcome | None) -> bool:
        """After a run in a child of ours: keep it for the next file when the run left it as it found it
        (True); False when it is not ours or must be finished (the caller finishes it and closes the
        run's arena, child.arena)."""
        entry = self._running.pop(child.pid, None)
        if entry is None:
            return False
        group, index = entry
        if outcome is not None:
            outcome.reused = group.runs > 1
        if not (outcome is not None and _ended_cleanly(outcome) and self.on and group.runs < MAX_RUNS
                and all(lay.untouched(arena) for lay, arena in zip(group.layouts, group.arenas))
                and _left_clean(child)):
            self._let_go(group, keep_arena=index)
            return False
        group.confined = dict(outcome.confined)
        return True

    def discard(self) -> None:
        for group in self._groups:
            self._drop(group)

    def _drop(self, group: _Group) -> None:
        """Finish a group's waiting child (it reads the end of its pipe and exits)."""
        child = group.child
        if child is None:
            return
        self._let_go(group)
        _finish(child, ChildOutcome(finished=True, confined=group.confined) if group.confined is not None else None)

    def _let_go(self, group: _Group, keep_arena: int | None = None) -> None:
        """Forget the group's child: its pipe closed, its arenas closed (but the one a caller still reads)."""
        try:
            os.close(group.go_w)
        except OSError:
            pass
        for i, arena in enumerate(group.arenas):
            if i != keep_arena:
                _close(arena)
        group.child, group.go_w, group.arenas = None, -1, []


def _ended_cleanly(o: ChildOutcome) -> bool:
    return (o.reusable and o.finished and not o.refused and not o.stopped
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


def enabled(templates: Sequence[tuple[Job, Limits]] = ()) -> Any:
    """`with sandbox.reuse.enabled(templates):` reuse children for the runs inside (grader.authoring.samples)."""
    return REUSE.enabled(templates)
