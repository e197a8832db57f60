"""The parent's side of a run: the one loop that reads a child's frames and
output and enforces its deadlines and budgets.

What is waiting on the pipes is read before the clock is looked at; a stall
of this process (Ctrl-Z) gives the child back the time it did not spend on
the CPU; the watchdog (`_Watch`) polls /proc for resident size, threads and
disk held. Frames go to a grader.channel.Channel: a grading run's calls, or
one `work` result (`run_json`, e.g. :try tracing). In-place modification is
decided here from the shared arguments (grader.inputs).
"""
from __future__ import annotations

import os
import selectors
import time
from typing import Any

from grader import channel, inputs, transport
from grader import scratch as scratch_dir
from grader.sandbox import confine
from grader.sandbox.child import _child
from grader.sandbox.limits import ChildOutcome, Job, Limits
from grader.sandbox.prepare import _child_prepare
from grader.sandbox.reaping import _TICKS, _kill_group, _statm, proc_stat, resident_bytes
from grader.sandbox.solution import describe_exception
from grader.sandbox.spawn import _check_terminated, _Child, _close, _finish, _spawn
from grader.sandbox.standby import STANDBY
from grader.sandbox.wire import _send


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
