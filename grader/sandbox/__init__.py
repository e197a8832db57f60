"""The sandbox child: runs one submission on every prepared call.

The parent (the grader process, torch already imported and the cases built)
forks a child per submission. The child puts itself in its own process
group, closes stdin and every inherited descriptor except its result pipe,
sends stdout and stderr to a capped pipe, sets its resource limits, chdirs
into a fresh scratch folder and confines itself (confine: Landlock +
seccomp; what could not be applied is reported on the result stream first),
installs the banned-call guards, runs the solution and sends each result
back as dtype + shape + raw bytes (grader.transport).

The parent enforces from outside: the wall-clock deadlines (per call and per
submission; what is waiting on the pipes is read before the clock is looked
at, and a stall of this process, Ctrl-Z, gives the child back the time it did
not spend on the CPU), a watchdog polling /proc (resident size, thread count,
the scratch folder plus deleted files the child still holds open or mapped),
the output cap; it reads the result channel strictly (grader.sandbox.channel: a
forged, out-of-order or ill-typed frame is the solution's error), decides
in-place modification itself from the call arguments, which live in shared
memory (grader.sandbox.inputs); it kills the whole process group, and, being a child
subreaper, kills and reaps any process the child left behind (fork + setsid
escapes; only looked for when seccomp did not already forbid new processes).
Scratch folders (grader.sandbox.scratch) are removed iteratively whatever they hold;
SIGTERM and SIGHUP unwind like Ctrl-C; folders of a grader killed outright
are swept at the next start.

Latency: forking a torch-sized process costs tens of milliseconds here, so a
warm worker calls `prefork()` once it has answered: a *standby* child is
forked, prepared, confined and given its guards for the job just run, and
waits on a pipe. The next `run()` of the same job (same cached cases, same
limits; only the source differs) hands it the source and skips all of that.
With two CPUs the job is split between two standby children that run side by
side (split), each having rehearsed common tensor work (rehearse).
A finished child is killed at its "done" frame and reaped by a background
thread, so nobody waits for the kernel to tear its address space down.

The package, one module per job (as DMOJ's cptbox/):

- limits      Limits, Job and the records a run gives back;
- spawn       forking a child, finishing it, SIGTERM/SIGHUP;
- prepare     the isolation every child gets before untrusted code;
- wire        the child's descriptors and frames (grader.transport framing);
- solution    loading a source as a module, describing an exception
              (shared with grader.trace);
- child       the grading child's runtime: guards, calls, device, fake runs;
- supervise   the one select loop in the parent: frames, deadlines, budgets;
              `run` and `run_json`;
- standby     the pre-forked warm children and the atexit hook;
- split       a standby job's two halves (the real cases and the gradient case;
              the fake-tensor runs) in two children side by side, merged;
- rehearse    a standby child's warm-up: common tensor work before its source;
- reaping     killing, reaping, orphans and the /proc readers;
- confine     Landlock + seccomp + capabilities in the child (with
              landlock, seccomp and syscalls below it).

This module re-exports the names the grader, the CLI and the tests use.
"""
from __future__ import annotations

from grader.sandbox.child import DeviceError
from grader.sandbox.limits import CallOutcome, ChildOutcome, Job, Limits
from grader.sandbox.prepare import forget_references
from grader.sandbox.reaping import REAPER, Reaper, proc_stat, reap_orphans, resident_bytes
from grader.sandbox.solution import describe_exception
from grader.sandbox.spawn import Terminated, parent_ready
from grader.sandbox.standby import STANDBY, Standby, prefork
from grader.sandbox.supervise import run, run_json
from grader.sandbox.wire import GO_FD, RESULT_FD
from grader.sandbox.zygote import ZYGOTE, Zygote

__all__ = [
    "GO_FD", "REAPER", "RESULT_FD", "STANDBY", "CallOutcome", "ChildOutcome", "DeviceError", "Job", "Limits",
    "Reaper", "Standby", "Terminated", "describe_exception", "forget_references", "parent_ready", "prefork",
    "proc_stat", "reap_orphans", "resident_bytes", "run", "run_json",
    "ZYGOTE", "Zygote",
]
