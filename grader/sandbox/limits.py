"""What a sandbox run is given and what it gives back: the limits, the job,
and the records of each call and of the whole child.

Plain dataclasses, no behaviour: every other module of the sandbox (and the
engine that judges the outcome) shares them.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Callable

from grader.sandbox import confine


@dataclass
class Limits:
    case_timeout: float = 5.0  # seconds per call, wall clock
    total_timeout: float = 60.0  # seconds per submission, wall clock
    memory_bytes: int = 4 * 2**30  # address space on top of the child's size at start; also the RSS budget
    output_bytes: int = 2**20  # stdout + stderr
    result_bytes: int = 512 * 2**20
    file_bytes: int = 16 * 2**20
    rss_bytes: int | None = None  # resident-size budget on top of the parent's size (None: memory_bytes)
    rss_poll: float = 0.05  # seconds between resident-size (and scratch-folder) checks
    scratch_bytes: int = 64 * 2**20  # disk the child may fill in its scratch folder
    scratch_files: int = 2000  # files and folders it may create there
    threads: int = confine.THREADS  # threads the child may run at once (the watchdog stops it above)
    open_files: int = confine.OPEN_FILES  # RLIMIT_NOFILE in the child
    confine: bool = True  # Landlock + seccomp in the child (off only in tests of the outer layers)
    require_confinement: bool = False  # refuse to run a solution when a confinement piece is missing
    hidden: tuple[str, ...] = ()  # folders and files the child may not read (the drills' content; Landlock)


@dataclass
class CallOutcome:
    status: str  # ok | raised | banned
    value: Any = None
    exc: dict[str, Any] | None = None
    modified: list[str] = field(default_factory=list)
    seconds: float = 0.0


@dataclass
class ChildOutcome:
    calls: dict[int, CallOutcome] = field(default_factory=dict)
    load_error: dict[str, Any] | None = None
    missing: list[str] = field(default_factory=list)
    banned: str | None = None
    timeout_call: int | None = None  # index of the call running at the deadline (-1: loading)
    timeout_seconds: float = 0.0
    output_overflow: bool = False
    output_head: str = ""
    exit_status: int | None = None
    signal: int | None = None
    protocol_error: str | None = None
    finished: bool = False
    elapsed: float = 0.0
    pid: int = 0  # the child (also its process group id)
    running_call: int | None = None  # the call under way when the child ended or was stopped
    confined: dict[str, str] = field(default_factory=dict)  # piece -> how it is enforced
    unconfined: dict[str, str] = field(default_factory=dict)  # piece -> why it is not enforced
    refused: bool = False  # require_confinement and a piece was missing: the solution never ran
    memory_killed: bool = False  # the resident-size watchdog stopped the child
    memory_peak: int = 0  # largest resident size seen, bytes
    threads_killed: bool = False  # the watchdog saw more than Limits.threads threads
    threads_peak: int = 0  # most threads seen at once
    disk_overflow: bool = False  # the scratch folder grew past its budget; the child was stopped
    orphans: int = 0  # processes left behind by the child, killed and reaped
    from_standby: bool = False  # ran in a child forked ahead of time (Standby)
    fake: list[dict[str, Any]] | None = None  # grader.fake.checks.run_plan's results, when it ran
    gradients: dict[int, dict[str, Any]] | None = None  # call index -> its gradient frame (grader.cases.gradient)
    fake_failed: str = ""  # the fake-tensor runs themselves failed in the child (why), so they did not check
    # the parent stopped the child at its gradient case, which a real case's failure made moot (grader.sandbox.supervise)
    gradient_skipped: bool = False
    tampered: list[str] = field(default_factory=list)  # grader code the solution replaced in the child (grader.sandbox.intact)
    hidden_fds: bool = False  # the child made its /proc entries unreadable to the watchdog (PR_SET_DUMPABLE)
    reusable: bool = False  # a reused child said the run left it as it found it (grader.sandbox.clean)
    reused: bool = False  # ran in a child that had graded another file of this job before (grader.sandbox.reuse)


    @property
    def stopped(self) -> bool:
        """The parent stopped the child: a deadline, a budget, too much output, or a broken channel."""
        return (self.timeout_call is not None or self.output_overflow or self.memory_killed or self.disk_overflow
                or self.hidden_fds or self.threads_killed or self.protocol_error is not None)

@dataclass
class Job:
    """Everything the child needs; inherited through fork, never serialised."""

    source: str
    filename: str
    functions: list[str]
    calls: list[tuple[int, str, list[Any], list[str]]]  # (index, function, args, arg names)
    banned: tuple[str, ...] = ()
    ban_places: list[tuple[str, str, str]] = field(default_factory=list)
    ban_kernels: dict[str, str] = field(default_factory=dict)  # operator -> banned name (grader.bans.trace)
    trace: bool = False
    must_call: dict[str, int] = field(default_factory=dict)  # name -> exact calls required per call
    count_places: list[tuple[str, str, str]] = field(default_factory=list)
    forget: Callable[[], None] | None = None  # run in the child before the solution: drops what it must not reach
    fake: Any = None  # grader.fake.checks.Plan: run after the calls (device case, memory at scale)
    device: str = "cpu"  # "cuda": inputs copied to the GPU, outputs back to the CPU (grader.fake.cuda)
    warm: Callable[[], None] | None = None  # trusted, run by a standby child before it forgets: faults in the fake-run pages
    gradient: list[Any] = field(default_factory=list)  # grader.cases.gradient.GradCase (for_child): after the calls

    def for_child(self) -> Job:
        """This job as the zygote is sent it (grader.sandbox.zygote): without `forget` and `warm` (the
        grader's own callables, which would carry the grader with them) and with the fake-tensor plan
        stripped of the reference's outputs (grader.fake.checks.for_child)."""
        fake = self.fake
        if fake is not None:
            from grader.fake.checks import for_child

            fake = for_child(fake)
        return dataclasses.replace(self, forget=None, warm=None, fake=fake)
