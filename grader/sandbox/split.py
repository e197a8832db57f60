"""One run in two children at once: the real cases and the gradient case in one, the fake-tensor
runs (the device case, memory at scale) in the other.

The two halves do not depend on each other, and a warm verdict waits for both, so on a machine
with two free CPUs they run side by side: the verdict waits for the longer half, not the sum
(bench/stages.py times each). Only standby children are split (grader.sandbox.standby forks the
pair ahead of time); a fresh fork or a reused child (grader.sandbox.reuse) runs the whole job
in one.

`merge` gives the outcome the one child would have given. That child runs the real cases, then
the fake-tensor runs, then the gradient case (grader.sandbox.child._run_job), so:
- a main child stopped before its gradient case (a file that did not load, a crash, a deadline
  in a real case) never reached the fake-tensor runs: the side's report is dropped;
- otherwise the side's report is the outcome's; a side that was stopped, crashed or broke its
  channel is the run stopped there, as one child would have been: its gradient case never ran;
- a banned call, a replaced grader name or the resident size seen in either child count.
"""
from __future__ import annotations

import dataclasses
import os

from grader.fake import FAKE_CALL, GRADIENT_CALL
from grader.sandbox.limits import ChildOutcome, Job

_STOPS = ("timeout_call", "timeout_seconds", "output_overflow", "memory_killed", "disk_overflow", "hidden_fds",
          "threads_killed", "protocol_error", "signal", "exit_status")


def cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def parts(job: Job) -> list[Job]:
    """[main, side] when the job is worth splitting (it has fake-tensor runs and real cases, and this
    process may use two CPUs); else [job]."""
    if job.fake is None or not job.calls or cpus() < 2:
        return [job]
    return [dataclasses.replace(job, fake=None), dataclasses.replace(job, calls=[], gradient=[])]


def reached_fake(main: ChildOutcome) -> bool:
    """Whether one child would have got to its fake-tensor runs: the main child ran every real case
    (it finished, or it reached its gradient case, or was stopped at it)."""
    if main.refused or main.load_error is not None:
        return False
    return main.finished or main.gradient_skipped or main.gradients is not None or main.running_call == GRADIENT_CALL


def merge(main: ChildOutcome, side: ChildOutcome) -> ChildOutcome:
    """The outcome of the whole job from its two halves (the module's docstring); `main` is updated."""
    main.memory_peak = max(main.memory_peak, side.memory_peak)
    main.threads_peak = max(main.threads_peak, side.threads_peak)
    main.orphans += side.orphans
    main.elapsed = max(main.elapsed, side.elapsed)
    for piece, why in side.unconfined.items():
        main.unconfined.setdefault(piece, why)
    if not reached_fake(main):
        return main
    main.banned = main.banned or side.banned
    main.tampered += [name for name in side.tampered if name not in main.tampered]
    main.fake, main.fake_failed = side.fake, side.fake_failed
    if side.finished and side.load_error is None and not side.stopped:
        return main
    if side.load_error is not None:  # the same file loaded in the main child: a file that loads only sometimes
        main.fake = None
        main.fake_failed = "the file did not load again for the fake-tensor runs"
        return main
    # the side was stopped or died in its fake-tensor runs: so would one child have been, before its gradient case
    for name in _STOPS:
        setattr(main, name, getattr(side, name))
    if main.timeout_call is not None:
        main.timeout_call = FAKE_CALL
    main.running_call = FAKE_CALL
    main.finished = False
    main.gradients = None
    main.gradient_skipped = False
    return main
