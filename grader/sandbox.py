"""The sandbox child: runs one submission on every prepared call.

The parent (the grader process, torch already imported and the cases built)
forks a child per submission. The child puts itself in its own process
group, closes stdin and every inherited descriptor except its result pipe,
sends stdout and stderr to a capped pipe, sets its resource limits, chdirs
into a fresh scratch folder and confines itself (grader.confine: Landlock +
seccomp; what could not be applied is reported on the result stream first),
installs the banned-call guards, runs the solution and sends each result
back as dtype + shape + raw bytes (grader.transport).

The parent enforces from outside: the wall-clock deadlines (per call and per
submission; what is waiting on the pipes is read before the clock is looked
at, and a stall of this process, Ctrl-Z, gives the child back the time it did
not spend on the CPU), a watchdog polling /proc (resident size, thread count,
the scratch folder plus deleted files the child still holds open or mapped),
the output cap; it reads the result channel strictly (grader.channel: a
forged, out-of-order or ill-typed frame is the solution's error), decides
in-place modification itself from the call arguments, which live in shared
memory (grader.inputs); it kills the whole process group, and, being a child
subreaper, kills and reaps any process the child left behind (fork + setsid
escapes; only looked for when seccomp did not already forbid new processes).
Scratch folders (grader.scratch) are removed iteratively whatever they hold;
SIGTERM and SIGHUP unwind like Ctrl-C; folders of a grader killed outright
are swept at the next start.

Latency: forking a torch-sized process costs tens of milliseconds here, so a
warm worker calls `prefork()` once it has answered: a *standby* child is
forked, prepared, confined and given its guards for the job just run, and
waits on a pipe. The next `run()` of the same job (same cached cases, same
limits; only the source differs) hands it the source and skips all of that.
A finished child is killed at its "done" frame and reaped by a background
thread, so nobody waits for the kernel to tear its address space down.
"""
from __future__ import annotations

import atexit
import dataclasses
import fcntl
import functools
import gc
import json
import os
import queue
import selectors
import signal
import struct
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable

from grader import channel, confine, inputs, transport
from grader import scratch as scratch_dir

RESULT_FD = 3
GO_FD = 4  # a standby child reads its job (source, filename) here
_PAGE = os.sysconf("SC_PAGE_SIZE")
_TICKS = os.sysconf("SC_CLK_TCK")


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
    fake: list[dict[str, Any]] | None = None  # grader.fake.run_plan's results, when it ran


@dataclass
class Job:
    """Everything the child needs; inherited through fork, never serialised."""

    source: str
    filename: str
    functions: list[str]
    calls: list[tuple[int, str, list[Any], list[str]]]  # (index, function, args, arg names)
    banned: tuple[str, ...] = ()
    ban_places: list[tuple[str, str, str]] = field(default_factory=list)
    ban_kernels: dict[str, str] = field(default_factory=dict)  # operator -> banned name (grader.ban_trace)
    trace: bool = False
    must_call: dict[str, int] = field(default_factory=dict)  # name -> exact calls required per call
    count_places: list[tuple[str, str, str]] = field(default_factory=list)
    forget: Callable[[], None] | None = None  # run in the child before the solution: drops what it must not reach
    fake: Any = None  # grader.fake.Plan: run after the calls (device case, memory at scale)
    device: str = "cpu"  # "cuda": inputs copied to the GPU, outputs back to the CPU (grader.cuda)
    warm: Callable[[], None] | None = None  # trusted, run by a standby child before it forgets: faults in the fake-run pages


# ------------------------------------------------------------------ parent


@functools.lru_cache(maxsize=1)
def parent_ready() -> bool:
    """Once per process: become a child subreaper and load what the child's
    confinement needs (so the hot path forks a warm process). Returns whether
    orphans will be re-parented to us."""
    confine.warm()
    for name in ("grader.bans", "grader.cases", "linecache", "torch.overrides"):
        __import__(name)
    scratch_dir.sweep_stale()  # folders left by a grader that was killed before it could clean up
    _exit_on_signals()
    return confine.become_subreaper()


class Terminated(SystemExit):
    """SIGTERM or SIGHUP arrived: unwind like Ctrl-C (every child killed, every
    scratch folder removed, at the latest by the atexit hook), exit 128 + signal."""


_EXIT_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


def _exit_on_signals() -> None:
    """SIGTERM and SIGHUP clean up like SIGINT, where nobody handles them already
    (the REPL has its own handlers; only the main thread may set them)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for sig in (signal.SIGTERM, signal.SIGHUP):
        try:
            if signal.getsignal(sig) is signal.SIG_DFL:
                signal.signal(sig, _on_exit_signal)
        except (ValueError, OSError):
            pass


_TERMINATING: list[int] = []  # the signal that arrived, once


def _on_exit_signal(signum: int, _frame: Any) -> None:
    if _TERMINATING:
        return  # once: the clean-up under way is not interrupted again
    _TERMINATING.append(signum)
    raise Terminated(128 + signum)


def _check_terminated() -> None:
    """Raise the pending Terminated again: a handler's exception can be swallowed
    (one raised inside an os.fork() at-fork callback is only printed)."""
    if _TERMINATING:
        raise Terminated(128 + _TERMINATING[0])


@dataclass
class _Child:
    pid: int
    res_r: int
    out_r: int
    scratch: str
    since_ticks: int
    t0: float
    arena: Any = None  # the shared mapping holding its call arguments (grader.inputs)


def _spawn(limits: Limits, body: Callable[[int, int, str], None], close_in_child: tuple[int, ...] = (),
           close_in_parent: tuple[int, ...] = ()) -> _Child:
    """Fork a child that prepares itself and runs `body(res_w, out_w, scratch)`."""
    parent_ready()
    scratch = scratch_dir.make()
    _SCRATCH.add(scratch)  # from now on the atexit hook removes it, whatever interrupts what follows
    res_r, res_w = os.pipe()
    out_r, out_w = os.pipe()
    since = _boot_ticks()
    t0 = time.monotonic()
    thaw = gc.get_freeze_count() == 0
    parent = os.getpid()
    gc.freeze()  # the child's collections then leave the parent's objects (and their pages) alone
    pid = -1
    # SIGTERM/SIGHUP wait until the fork is over: a handler raising inside an at-fork
    # callback would only be printed, with its traceback
    held = signal.pthread_sigmask(signal.SIG_BLOCK, _EXIT_SIGNALS)
    try:
        pid = os.fork()
    finally:
        if pid != 0 and thaw:
            gc.unfreeze()
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
    if pid == 0:  # child
        try:
            confine.die_with_parent(parent)
            for fd in (res_r, out_r, *close_in_child):
                os.close(fd)
            body(res_w, out_w, scratch)
        finally:
            os._exit(70)
    for fd in (res_w, out_w, *close_in_parent):
        os.close(fd)
    try:
        os.setpgid(pid, pid)
    except OSError:
        pass
    child = _LIVE[pid] = _Child(pid, res_r, out_r, scratch, since, t0)
    _check_terminated()  # now that _LIVE knows the child, so the atexit hook finishes it
    return child


_LIVE: dict[int, _Child] = {}  # children not finished yet: the atexit hook finishes them
_SCRATCH: set[str] = set()  # scratch folders not removed yet

def _job_key(job: Job, limits: Limits) -> tuple:
    """Everything but the source: a standby child fits a job only when this matches.
    Call arguments are compared by identity (the cached prepared cases)."""
    return (tuple((i, f, id(a), tuple(n)) for i, f, a, n in job.calls), tuple(job.functions), job.banned,
            tuple(job.ban_places), tuple(sorted(job.ban_kernels.items())), tuple(sorted(job.must_call.items())),
            tuple(job.count_places), job.trace, job.forget, id(job.fake), job.device, dataclasses.astuple(limits))


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
            child = _spawn(limits, lambda res_w, out_w, scratch: _standby_child(template, limits, res_w, out_w,
                                                                                scratch, go_r, layout, arena),
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
            message = json.dumps({"source": job.source, "filename": job.filename}).encode()
            try:
                transport._write_all(waiting.go_w, message)
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
def _at_exit() -> None:
    """A process that graded leaves no child behind: no standby, every kill reaped,
    every scratch folder removed (also when an exception or a signal cut a run short)."""
    STANDBY.discard()
    for child in list(_LIVE.values()):
        _finish(child, None)
    for folder in list(_SCRATCH):  # a run cut short between making its folder and knowing its child
        scratch_dir.remove(folder)
        _SCRATCH.discard(folder)
    REAPER.drain()


def prefork() -> bool:
    """Fork a standby child for the job most recently run in this process."""
    return STANDBY.prefork()


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


def _finish(child: _Child, outcome: ChildOutcome | None) -> None:
    """Kill the group, reap it and anything it left behind, remove the scratch folder."""
    finished = outcome is not None and outcome.finished and outcome.exit_status is None and outcome.signal is None
    could_fork = outcome is None or "processes" not in outcome.confined
    # a child that could fork is reaped now: only once it is gone are its own children re-parented to us
    _kill_group(child.pid, wait=could_fork or not finished)
    for fd in (child.res_r, child.out_r):
        try:
            os.close(fd)
        except OSError:
            pass
    child.res_r = child.out_r = -1  # closed once: a second _finish (atexit) never closes a reused number
    if could_fork:
        orphans = reap_orphans(child.since_ticks, exclude=child.pid)
        if outcome is not None:
            outcome.orphans = orphans
    scratch_dir.remove(child.scratch)
    _SCRATCH.discard(child.scratch)
    _LIVE.pop(child.pid, None)


def run(job: Job, limits: Limits) -> ChildOutcome:
    """Run the job in a child (the standby one when it was forked for this very
    job, else a fresh fork) and supervise it until it finishes or is killed."""
    layout = inputs.layout_for(job.calls)
    child = STANDBY.take(job, limits)
    from_standby = child is not None
    if child is None:
        arena = layout.arena()
        child = _spawn(limits, lambda res_w, out_w, scratch: _child(job, limits, res_w, out_w, scratch, layout,
                                                                    arena))
        child.arena = arena
    STANDBY.remember(job, limits)
    outcome: ChildOutcome | None = None
    try:
        outcome = _supervise(child, limits, job)
        outcome.from_standby = from_standby
        outside = confine.watched()  # what the watchdog enforces from here
        outcome.confined.update(outside.enforced)
        outcome.unconfined.update(outside.missing)
        return outcome
    finally:
        _finish(child, outcome)
        if outcome is not None:
            _modified_in_parent(outcome, layout, child.arena)
        _close(child.arena)


def _modified_in_parent(outcome: ChildOutcome, layout: inputs.Layout, arena: Any) -> None:
    """In-place modification, decided here from the shared arguments' bytes (the
    child is gone or stopped), added to what the child said about metadata."""
    if layout.untouched(arena):
        return
    for index, call in outcome.calls.items():
        if call.status == "ok":
            call.modified += [n for n in layout.modified(arena, index) if n not in call.modified]


def _close(arena: Any) -> None:
    if arena is not None:
        try:
            arena.close()
        except (BufferError, OSError):
            pass


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
                self._thread = threading.Thread(target=self._loop, name="drill-reaper", daemon=True)
                self._thread.start()

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


def reap_orphans(since_ticks: int, exclude: int = 0, rounds: int = 64) -> int:
    """Kill and reap our children that started at or after `since_ticks` (clock
    ticks since boot): processes a sandbox child left behind, re-parented to
    us because we are a subreaper. Returns how many there were."""
    me = os.getpid()
    mine = os.getpgrp()
    total = 0
    for _ in range(rounds):
        found = [(pid, pgid) for pid, ppid, pgid, start in _processes()
                 if ppid == me and start >= since_ticks and pid != exclude]
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
    out = []
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


class _Watch:
    """Deadlines, the resident-size, thread and disk budgets of one child."""

    def __init__(self, child: _Child, limits: Limits):
        self.child = child
        self.limits = limits
        self.total_deadline = child.t0 + limits.total_timeout
        self.rss_budget = resident_bytes(os.getpid()) + (limits.rss_bytes or limits.memory_bytes)
        self.vm_start = _statm(os.getpid())[0]  # the child's address-space size at fork
        self.next_poll = child.t0 + limits.rss_poll
        self.polls = 0
        self.cpu = 0  # the child's CPU time at the last poll, clock ticks

    def over_budget(self, outcome: ChildOutcome, now: float) -> bool:
        """True when the child must be stopped: too much resident memory
        (memory_killed), too many threads (threads_killed) or too much held on
        disk (disk_overflow: its scratch folder plus deleted files it holds)."""
        if now < self.next_poll:
            return False
        self.next_poll = now + self.limits.rss_poll
        self.polls += 1
        rss = resident_bytes(self.child.pid)
        outcome.memory_peak = max(outcome.memory_peak, rss)
        if rss > self.rss_budget:
            outcome.memory_killed = True
            return True
        # deleted files it still maps: read every 4th poll (/proc/<pid>/maps of a torch process costs ~1 ms)
        return self._threads_over(outcome) or self._disk_over(outcome, with_maps=self.polls % 4 == 1)

    def over_at_end(self, outcome: ChildOutcome) -> bool:
        """At "done": what the child still holds (threads, deleted files) counts too,
        so a solution cannot fill the machine and return before the next poll."""
        grown = _statm(self.child.pid)[0] - self.vm_start > self.limits.scratch_bytes
        return self._threads_over(outcome) or self._disk_over(outcome, with_maps=grown)

    def _threads_over(self, outcome: ChildOutcome) -> bool:
        threads, self.cpu = proc_stat(self.child.pid)
        outcome.threads_peak = max(outcome.threads_peak, threads)
        if threads > self.limits.threads:
            outcome.threads_killed = True
        return outcome.threads_killed

    def _disk_over(self, outcome: ChildOutcome, with_maps: bool) -> bool:
        if scratch_dir.over_budget(self.child.scratch, self.child.pid, self.limits.scratch_bytes,
                                   self.limits.scratch_files, self.limits.file_bytes, with_maps=with_maps):
            outcome.disk_overflow = True
        return outcome.disk_overflow

    def stalled(self, seconds: float) -> float:
        """This process did not run for `seconds` (stopped by Ctrl-Z or SIGSTOP, or
        the machine suspended): the time the child did not spend on the CPU
        meanwhile is given back to it. Returns the seconds given back."""
        before = self.cpu
        _, self.cpu = proc_stat(self.child.pid)
        back = max(0.0, seconds - (self.cpu - before) / _TICKS)
        self.total_deadline += back
        self.next_poll += back
        return back


_STALL = 0.5  # a loop turn this much longer than its wait: this process was stopped meanwhile


def _supervise(child: _Child, limits: Limits, job: Job) -> ChildOutcome:
    outcome = ChildOutcome(pid=child.pid)
    watch = _Watch(child, limits)
    reader = transport.FrameReader(limits.result_bytes)
    frames_in = channel.Channel(outcome, [(i, f, n) for i, f, _, n in job.calls], job.functions,
                                fake=job.fake is not None)
    sel = selectors.DefaultSelector()
    sel.register(child.res_r, selectors.EVENT_READ, "result")
    sel.register(child.out_r, selectors.EVENT_READ, "output")
    out_count = 0
    out_head = bytearray()
    call_started = child.t0
    open_fds = 2
    wait = 0.0
    mark = child.t0  # since when this process has been waiting (this turn's select, or the start)
    while open_fds:
        _check_terminated()
        events = sel.select(timeout=wait)
        stall = time.monotonic() - mark - wait
        if stall > _STALL:  # stopped meanwhile (Ctrl-Z, SIGSTOP, a suspend)
            call_started += watch.stalled(stall)
        # what is waiting is read before the clock is looked at: a child that answered
        # while this process was stopped has answered in time
        for key, _ in events:
            try:
                data = os.read(key.fd, 1 << 20)
            except OSError:
                data = b""
            if not data:
                sel.unregister(key.fd)
                open_fds -= 1
                continue
            if key.data == "output":
                out_count += len(data)
                if len(out_head) < 4096:
                    out_head += data[: 4096 - len(out_head)]
                if out_count > limits.output_bytes:
                    outcome.output_overflow = True
                    open_fds = 0
                    break
                continue
            try:
                for header, blobs in reader.feed(data):
                    starts = frames_in.starts
                    frames_in.feed(header, blobs)
                    if frames_in.starts != starts:
                        call_started = time.monotonic()
            except (OverflowError, ValueError, channel.ProtocolError) as exc:
                outcome.protocol_error = str(exc)[:200]
                open_fds = 0
                break
            if outcome.finished:
                # done: do not wait for the pipes to close (a left-behind process may hold them)
                out_count = _drain(child.out_r, out_head, out_count, outcome, limits)
                watch.over_at_end(outcome)
                open_fds = 0
                break
        if not open_fds:
            break
        now = mark = time.monotonic()
        current = frames_in.current
        call_deadline = call_started + limits.case_timeout if current is not None else watch.total_deadline
        deadline = min(watch.total_deadline, call_deadline)
        if now >= deadline:
            outcome.timeout_call = current if current is not None else -1
            outcome.timeout_seconds = limits.case_timeout if call_deadline <= watch.total_deadline else limits.total_timeout
            break
        if watch.over_budget(outcome, now):
            break
        wait = max(0.0, min(deadline, watch.next_poll) - now)
    sel.close()
    current = frames_in.current
    outcome.running_call = current
    outcome.output_head = out_head.decode("utf-8", "replace")
    outcome.elapsed = time.monotonic() - child.t0
    stopped = (outcome.timeout_call is not None or outcome.output_overflow or outcome.memory_killed
               or outcome.disk_overflow or outcome.threads_killed or outcome.protocol_error is not None)
    if outcome.finished and not stopped:
        return outcome  # nothing more to learn: _finish kills it and reaps it in the background
    if not stopped:
        # the pipes closed before "done": the child died (learn how) or closed them (wait it out)
        until = min(watch.total_deadline, call_started + limits.case_timeout)
        status = _wait_exit(child.pid, until)
        if status is not None:
            _record_status(outcome, status)
            return outcome
        if not outcome.finished:
            outcome.timeout_call = current if current is not None else -1
            outcome.timeout_seconds = limits.case_timeout
    _kill_group(child.pid)
    return outcome


def _drain(fd: int, head: bytearray, count: int, outcome: ChildOutcome, limits: Limits) -> int:
    """Read what output is already waiting, without blocking."""
    sel = selectors.DefaultSelector()
    sel.register(fd, selectors.EVENT_READ)
    try:
        while count <= limits.output_bytes and sel.select(timeout=0):
            try:
                data = os.read(fd, 1 << 20)
            except OSError:
                break
            if not data:
                break
            count += len(data)
            if len(head) < 4096:
                head += data[: 4096 - len(head)]
    finally:
        sel.close()
    if count > limits.output_bytes:
        outcome.output_overflow = True
    return count


def _wait_exit(pid: int, until: float) -> int | None:
    """The exit status of `pid` if it ends before `until`, else None."""
    pause = 0.0005
    while True:
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return None
        if done:
            return status
        if time.monotonic() >= until:
            return None
        time.sleep(pause)
        pause = min(pause * 2, 0.02)


def _record_status(outcome: ChildOutcome, status: int) -> None:
    if os.WIFSIGNALED(status):
        outcome.signal = os.WTERMSIG(status)
    elif os.WIFEXITED(status):
        outcome.exit_status = os.WEXITSTATUS(status)


# ------------------------------------------------------------------- child


def _child(job: Job, limits: Limits, res_w: int, out_w: int, scratch: str, layout: inputs.Layout,
           arena: Any) -> None:
    if not _child_prepare(limits, res_w, out_w, scratch):
        return
    _child_setup(job)
    _run_job(job, None, layout.arguments(arena))  # the arguments exist before the solution is loaded


def _standby_child(template: Job, limits: Limits, res_w: int, out_w: int, scratch: str, go_r: int,
                   layout: inputs.Layout, arena: Any) -> None:
    """Prepared and confined ahead of time; waits for the source, then runs it."""
    if not _child_prepare(limits, res_w, out_w, scratch, go_r):
        return
    counts = _install_guards(template)
    if template.warm is not None:
        try:
            template.warm()  # the reference's own fake run, off the clock: the solution's then costs less
        except BaseException:  # noqa: BLE001 - only a warm-up
            pass
    _child_setup(template)
    copies = layout.arguments(arena)
    _warm(template, copies)
    message = _read_go(GO_FD)
    os.close(GO_FD)
    if message is None:
        os._exit(0)  # discarded, or the parent is gone
    _run_job(dataclasses.replace(template, source=message[0], filename=message[1]), counts, copies)


def _warm(job: Job, copies: dict[int, list[Any]]) -> None:
    """Touch each call's arguments once, ahead (this faults in the pages the first
    tensor work touches, off the clock)."""
    for index, _, args, _ in job.calls:
        _same(args, copies[index])


def _read_go(fd: int) -> tuple[str, str] | None:
    chunks = bytearray()
    while True:
        data = os.read(fd, 1 << 20)
        if not data:
            break
        chunks += data
    try:
        message = json.loads(bytes(chunks))
        return str(message["source"]), str(message["filename"])
    except (ValueError, KeyError, TypeError):
        return None


def _child_setup(job: Job) -> None:
    if job.forget is not None:
        job.forget()
    forget_references()


def forget_references() -> None:
    """Child only: make the reference modules unreachable, even through
    gc.unfreeze() + gc.get_objects(). The parent froze its objects before the
    fork (gc.freeze), so a reference dropped here would stay listed as frozen
    garbage; emptying each module's namespace frees its functions now instead
    (a full collection would cost ~200 ms of copy-on-write faults)."""
    import linecache

    for name in [n for n in sys.modules if n.startswith("_drill_ref_")]:
        module = sys.modules.pop(name)  # the references are not the solution's to import
        try:
            linecache.cache.pop(getattr(module, "__file__", None) or "", None)  # its source, if a traceback read it
            module.__dict__.clear()
            module.__dict__["__name__"] = "emptied"  # still a module, holding nothing of the reference
        except Exception:  # noqa: BLE001 - a module without a namespace has nothing to drop
            pass
    sys.stdin = open(os.devnull)  # noqa: SIM115
    os.environ["OMP_NUM_THREADS"] = "1"
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _max_fd() -> int:
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        return min(soft if soft > 0 else 1024, 65536)
    except Exception:  # noqa: BLE001
        return 1024


def _vm_size() -> int:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _set_limits(limits: Limits) -> None:
    import resource

    def lim(res: int, value: int) -> None:
        try:
            resource.setrlimit(res, (value, value))
        except (ValueError, OSError):
            pass

    lim(resource.RLIMIT_AS, _vm_size() + limits.memory_bytes)
    lim(resource.RLIMIT_CPU, int(limits.total_timeout) + 2)
    lim(resource.RLIMIT_FSIZE, limits.file_bytes)
    lim(resource.RLIMIT_CORE, 0)
    tasks = _tasks_now()
    if tasks:  # a kernel backstop under the thread watchdog (it counts the user's tasks; root is exempt)
        lim(resource.RLIMIT_NPROC, tasks + 4 * limits.threads)


def _tasks_now() -> int:
    """Tasks on the whole machine now (/proc/loadavg): at least this user's, so a
    per-user limit a little above it leaves the child only a few threads more."""
    try:
        with open("/proc/loadavg") as fh:
            return int(fh.read().split()[3].split("/")[1])
    except (OSError, IndexError, ValueError):
        return 0


_HELD: list[bytes] = []  # child only: frames waiting to go out with the next one


def _send(header: dict, blobs: list[bytes] = ()) -> None:
    """Send a frame, with any held ones, in one write. Results, "loaded" and
    "missing" are held until the next frame ("start" of the next call, or
    "done"), which is always sent before any of the solution's code runs, so a
    crash never loses them; the parent wakes once per call instead of twice."""
    frame = _frame(header, blobs)
    if header.get("type") in ("result", "loaded", "missing", "confined", "fake"):
        _HELD.append(frame)
        return
    data = b"".join(_HELD) + frame
    _HELD.clear()
    transport._write_all(RESULT_FD, data)


def _frame(header: dict, blobs: list[bytes] = ()) -> bytes:
    """The bytes transport.write_frame would write."""
    header = dict(header)
    header["blob_sizes"] = [len(b) for b in blobs]
    head = json.dumps(header).encode()
    return struct.pack(">I", len(head)) + head + b"".join(blobs)


def describe_exception(exc: BaseException, filename: str) -> dict[str, Any]:
    """Type, message and the person's own line, with no grader frames."""
    tb = traceback.extract_tb(exc.__traceback__)
    mine = [f for f in tb if f.filename == filename]
    frame = mine[-1] if mine else None
    if isinstance(exc, SyntaxError) and exc.filename == filename:
        line, text = exc.lineno, (exc.text or "").strip()
    else:
        line, text = (frame.lineno, (frame.line or "").strip()) if frame else (None, "")
    message = str(exc)
    if len(message) > 600:
        message = message[:600] + " ..."
    return {
        "type": type(exc).__name__,
        "mro": [c.__name__ for c in type(exc).__mro__][:8],
        "message": message,
        "line": line,
        "text": text[:200],
        "trace": [f"line {f.lineno}: {(f.line or '').strip()[:120]}" for f in mine][-5:],
    }


def _install_guards(job: Job) -> dict[str, int]:
    """Banned-call guards and must_call counters (they do not depend on the source)."""
    from grader import bans

    def on_banned(name: str) -> None:
        _send({"type": "banned", "name": name})

    bans.install(job.banned, job.ban_places, on_banned)
    if job.ban_kernels:
        from grader import dispatch_bans

        dispatch_bans.install(job.ban_kernels, on_banned)
    return bans.install_counters(job.must_call, job.count_places) if job.must_call else {}


def _run_job(job: Job, counts: dict[str, int] | None = None, copies: dict[int, list[Any]] | None = None) -> None:
    import torch

    from grader import bans

    if counts is None:
        counts = _install_guards(job)
    tampered = None  # bound here, before the solution runs, so it cannot swap the check for another
    if job.ban_kernels:
        from grader import dispatch_bans

        tampered = dispatch_bans.tampered
    module = type(sys)("solution")
    module.__file__ = job.filename
    sys.modules["solution"] = module
    import linecache

    linecache.cache[job.filename] = (len(job.source), None, job.source.splitlines(True), job.filename)
    # where each argument is, taken before any of the solution's code runs: an argument
    # re-pointed at other memory while the file loads (x.set_(...)) is a change too
    placed = {index: [_place(a) for a in args] for index, args in (copies or {}).items()}
    _send({"type": "start", "call": -1})
    try:
        code = compile(job.source, job.filename, "exec")
        exec(code, module.__dict__)  # noqa: S102 - this is the sandbox
    except bans.BannedCall as exc:
        _send({"type": "banned", "name": exc.name})
        _send({"type": "done"})
        return
    except BaseException as exc:  # noqa: BLE001 - SystemExit too
        _send({"type": "load_error", "exc": describe_exception(exc, job.filename)})
        _send({"type": "done"})
        return
    _send_tampered(tampered)
    _send({"type": "loaded"})
    missing = [n for n in job.functions if not callable(module.__dict__.get(n))]
    if missing:
        _send({"type": "missing", "names": missing})
    for index, fname, args, names in job.calls:
        func = module.__dict__.get(fname)
        if not callable(func):
            continue
        from grader.cases import fresh

        mine = copies.pop(index) if copies and index in copies else fresh(args)
        before = placed.get(index) or [_place(a) for a in mine]
        _send({"type": "start", "call": index})
        for name in counts:
            counts[name] = 0
        t = time.perf_counter()
        try:
            if job.device != "cpu":
                value, back = _call_on_device(func, mine, job.device)
            else:
                with torch.no_grad():
                    value = func(*mine)
                back = None
        except bans.BannedCall as exc:
            _send({"type": "result", "call": index, "status": "banned", "exc": {"type": "BannedCall", "message": exc.name}})
            continue
        except BaseException as exc:  # noqa: BLE001
            _send({"type": "result", "call": index, "status": "raised", "exc": describe_exception(exc, job.filename)})
            continue
        seconds = time.perf_counter() - t
        wrong = [(n, counts[n], k) for n, k in job.must_call.items() if counts[n] != k]
        if wrong:
            n, got, k = wrong[0]
            _send({"type": "result", "call": index, "status": "banned", "exc": {
                "type": "CallCount", "message": f"called {n} {got} time{'s' if got != 1 else ''}; "
                                                f"this drill requires exactly {k}"}})
            continue
        blobs: list[bytes] = []
        desc = transport.encode_safely(value, blobs)  # an odd object is described, never "raised"
        modified = [n for n, b, a in zip(names, before, mine) if _moved(a, b)]  # the bytes: decided in the parent
        if back is not None:  # a CUDA run worked on copies: compare what came back from the device
            modified = [n for n, a, b in zip(names, mine, back) if not _same(a, b)]
        _send({"type": "result", "call": index, "status": "ok", "value": desc, "modified": modified,
               "seconds": seconds}, blobs)
    if job.fake is not None:
        _run_fake(job, module)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:  # noqa: BLE001
        pass
    _send_tampered(tampered)
    _send({"type": "done"})


def _send_tampered(tampered: Callable[[], str | None] | None) -> None:
    """A banned kernel the solution unregistered (grader.dispatch_bans) is judged `banned`."""
    name = tampered() if tampered is not None else None
    if name is not None:
        _send({"type": "banned", "name": f"{name} (after removing the ban on it)"})


def _place(value: Any) -> Any:
    """Where an argument is and how it is viewed: a tensor's identity, storage,
    shape, strides and dtype; a container's items. (Its bytes are the parent's business.)"""
    import torch

    if isinstance(value, torch.Tensor):
        if value.layout != torch.strided:  # sparse: no strides or storage to compare; its identity and shape
            return ("tensor", id(value), tuple(value.shape), value.dtype, value.layout)
        return ("tensor", id(value), value.data_ptr(), tuple(value.shape), tuple(value.stride()),
                value.storage_offset(), value.dtype)
    if type(value) in (list, tuple):
        return (type(value), id(value), tuple(_place(v) for v in value))
    if type(value) is dict:
        return (dict, id(value), tuple((k, _place(v)) for k, v in value.items()))
    return ("value", id(value))


def _moved(now: Any, before: Any) -> bool:
    try:
        return _place(now) != before
    except BaseException:  # noqa: BLE001 - an argument that can no longer be read was changed
        return True


class DeviceError(RuntimeError):
    """A CUDA run returned a tensor off the inputs' device."""


def _call_on_device(func: Callable, mine: list[Any], device: str) -> tuple[Any, list[Any]]:
    """Call with the arguments copied to `device`; the result and the (possibly modified) arguments come back to the CPU."""
    import torch

    from grader.cuda import device_mismatch, to_device

    on_device = to_device(mine, device)
    with torch.no_grad():
        value = func(*on_device)
    problem = device_mismatch(value, device)
    if problem:
        raise DeviceError(problem + "; make new tensors on the inputs' device (device=x.device, x.new_*, *_like, .to(x))")
    return to_device(value, "cpu"), to_device(on_device, "cpu")


def _run_fake(job: Job, module: Any) -> None:
    """The device case and memory at scale, on fake tensors (grader.fake), after the real calls."""
    from grader import fake

    def started() -> None:
        _send({"type": "start", "call": fake.FAKE_CALL})

    started()
    try:
        runs = fake.run_plan(job.fake, module, job.filename, describe_exception, started)
    except BaseException:  # noqa: BLE001 - a fake-tensor failure must not cost the real verdicts
        runs = []
    _send({"type": "fake", "runs": runs})


def _same(original: Any, now: Any) -> bool:
    import torch

    if isinstance(original, torch.Tensor):
        if not isinstance(now, torch.Tensor) or now.shape != original.shape or now.dtype != original.dtype:
            return False
        if original.is_floating_point():
            return bool(torch.equal(torch.nan_to_num(original, nan=0.5), torch.nan_to_num(now, nan=0.5)))
        return bool(torch.equal(original, now))
    if isinstance(original, (list, tuple)):
        return type(original) is type(now) and len(original) == len(now) and all(_same(a, b) for a, b in zip(original, now))
    return original == now


# ------------------------------------------------- trusted work in a child


def run_json(work: Any, limits: Limits) -> tuple[dict | None, str | None]:
    """Run `work()` (a trusted callable that may run untrusted code, e.g. :try
    tracing) in a limited, confined child; it returns a JSON-able dict sent back
    as one frame. Returns (result, problem): problem names a timeout, crash or overflow."""

    def body(res_w: int, out_w: int, scratch: str) -> None:
        if not _child_prepare(limits, res_w, out_w, scratch):
            return
        try:
            result = work()
        except BaseException as exc:  # noqa: BLE001
            result = {"error": describe_exception(exc, "<work>")}
        _send({"type": "work", "result": result})
        _send({"type": "done"})
        os._exit(0)

    child = _spawn(limits, body)
    reader = transport.FrameReader(limits.result_bytes)
    deadline = child.t0 + limits.case_timeout
    watch = _Watch(child, limits)
    sel = selectors.DefaultSelector()
    sel.register(child.res_r, selectors.EVENT_READ, "result")
    sel.register(child.out_r, selectors.EVENT_READ, "output")
    problem = None
    out_count = 0
    probe = ChildOutcome(pid=child.pid)
    frames_in = channel.Channel(probe, work=True)
    try:
        open_fds = 2
        wait = 0.0
        mark = child.t0
        while open_fds and not probe.finished:
            _check_terminated()
            events = sel.select(timeout=wait)
            stall = time.monotonic() - mark - wait
            if stall > _STALL:
                deadline += watch.stalled(stall)
            for key, _ in events:
                data = os.read(key.fd, 1 << 20)
                if not data:
                    sel.unregister(key.fd)
                    open_fds -= 1
                    continue
                if key.data == "output":
                    out_count += len(data)
                    if out_count > limits.output_bytes:
                        problem = "printed too much"
                        open_fds = 0
                        break
                    continue
                for header, blobs in reader.feed(data):
                    frames_in.feed(header, blobs)
            if not open_fds or probe.finished:
                break
            now = mark = time.monotonic()
            if now >= deadline:
                problem = f"stopped after {limits.case_timeout:g} s"
                break
            if watch.over_budget(probe, now):
                problem = (f"wrote more than {limits.scratch_bytes // 2**20} MiB to disk" if probe.disk_overflow
                           else f"ran more than {limits.threads} threads" if probe.threads_killed
                           else f"used more than {limits.memory_bytes / 2**30:.1f} GiB of memory")
                break
            wait = max(0.0, min(deadline, watch.next_poll) - now)
    except (OverflowError, ValueError, channel.ProtocolError) as exc:
        problem = f"the result channel broke ({exc})"
    finally:
        sel.close()
        _finish(child, probe)
    got = frames_in.result
    if probe.refused:
        problem = "not run: confinement is required and missing here (" + "; ".join(probe.unconfined.values()) + ")"
    if not got and problem is None:
        problem = "the child ended without a result"
    return (got or None), problem


def _child_prepare(limits: Limits, res_w: int, out_w: int, scratch: str, go_r: int | None = None) -> bool:
    """The isolation every child gets, before it runs anything untrusted.
    `go_r` (a standby child's job pipe) is kept open as GO_FD.
    Returns False when the child must not go on (confinement required and missing)."""
    os.setpgid(0, 0)
    high = fcntl.fcntl(go_r, fcntl.F_DUPFD, GO_FD + 1) if go_r is not None else None
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(out_w, 1)
    os.dup2(out_w, 2)
    if res_w != RESULT_FD:
        os.dup2(res_w, RESULT_FD)
    if high is not None:
        os.dup2(high, GO_FD)
        os.closerange(GO_FD + 1, _max_fd())
    else:
        os.closerange(RESULT_FD + 1, _max_fd())
    sys.stdout = open(1, "w", buffering=1, closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", buffering=1, closefd=False)  # noqa: SIM115
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2, signal.SIGCHLD):
        try:
            signal.signal(sig, signal.SIG_DFL)
        except (OSError, ValueError):
            pass
    import torch

    torch.set_num_threads(1)
    _set_limits(limits)
    files = confine.limit_open_files(limits.open_files)  # before seccomp, which forbids setting limits
    if limits.confine:
        conf = confine.apply_child(scratch)
    else:
        os.chdir(scratch)
        conf = confine.Confinement(missing={p: "switched off for this run" for p in confine.CHILD_PIECES})
    conf.missing.pop("open-files", None)
    (conf.enforced if files[0] else conf.missing)["open-files"] = files[1]
    _send({"type": "confined", **conf.to_dict()})
    if limits.require_confinement and conf.missing:
        _send({"type": "refused"})
        _send({"type": "done"})
        return False
    return True
