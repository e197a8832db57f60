"""The parent's side of a run: the one loop that reads a child's frames and
output and enforces its deadlines and budgets.

What is waiting on the pipes is read before the clock is looked at; a stall
of this process (Ctrl-Z) gives the child back the time it did not spend on
the CPU; the watchdog (`_Watch`) polls /proc for resident size, threads and
disk held. Frames go to a grader.sandbox.channel.Channel: a grading run's calls, or
one `work` result (`run_json`, e.g. :try tracing). In-place modification is
decided here from the shared arguments (grader.sandbox.inputs).
"""
from __future__ import annotations

import os
import selectors
import time
from typing import Any, Callable

from grader import transport
from grader.fake import GRADIENT_CALL
from grader.report import bytes_text
from grader.sandbox import channel
from grader.sandbox import inputs
from grader.sandbox import scratch as scratch_dir
from grader.sandbox import split
from grader.sandbox import confine
from grader.sandbox.child import _child, _work_child
from grader.sandbox.limits import ChildOutcome, Job, Limits
from grader.sandbox.reaping import _TICKS, _kill_group, _statm, proc_stat, resident_bytes
from grader.sandbox.spawn import _check_terminated, _Child, _close, _finish, _spawn
from grader.sandbox.reuse import REUSE
from grader.sandbox.standby import STANDBY
from grader.sandbox.zygote import Body


def run(job: Job, limits: Limits, moot: Callable[[ChildOutcome], bool] | None = None) -> ChildOutcome:
    """Run the job in a child (the standby one when it was forked for this very
    job, else a fresh fork) and supervise it until it finishes or is killed. Standby
    children forked for the job's two halves (grader.sandbox.split) run it side by side.

    `moot(outcome)`, asked once when the child starts its gradient case (the last part of a run,
    grader.sandbox.child), says whether the real cases already decide the verdict (one failed): the
    child is then stopped there, `outcome.gradient_skipped` and finished, instead of spending the
    backward passes nobody will read. A reused child (grader.sandbox.reuse), kept only after a whole
    run, is told to skip the case instead (grader.sandbox.reuse.answer) and runs to its "done"."""
    layout = inputs.layout_for(job.calls)
    children = STANDBY.take(job, limits)
    STANDBY.remember(job, limits)
    if len(children) == 2:
        return _run_split(job, limits, moot, layout, children[0], children[1])
    child = children[0] if children else None
    from_standby = child is not None
    if child is None:
        child = REUSE.take(job, limits, layout)  # only inside REUSE.enabled() (drill validate's samples)
    if child is None:
        arena = layout.arena()
        child = _spawn(limits, Body(_child, {"job": job, "limits": limits, "layout": layout},
                                    arenas=[arena], takes_arena=True))
        child.arena = arena
    outcome: ChildOutcome | None = None
    try:
        outcome = _supervise(child, limits, job, moot, REUSE.answer if REUSE.owns(child) else None)
        outcome.from_standby = from_standby
        _confinement(outcome, child)
        return outcome
    finally:
        if not REUSE.keep(child, outcome):  # a reused child that may take the next file is not finished
            _finish(child, outcome)
            if outcome is not None:
                _modified_in_parent(outcome, layout, child.arena)
            _close(child.arena)


def _confinement(outcome: ChildOutcome, child: _Child) -> None:
    """What the watchdog enforces from outside, and a child forked from the grader itself, on the outcome."""
    outside = confine.watched()  # what the watchdog enforces from here
    outcome.confined.update(outside.enforced)
    outcome.unconfined.update(outside.missing)
    if child.unclean:
        outcome.unconfined["zygote"] = (f"forked from the grader itself ({child.unclean}): the drill's "
                                        "content it loaded is in the child's memory")


def _run_split(job: Job, limits: Limits, moot: Callable[[ChildOutcome], bool] | None, layout: inputs.Layout,
               main_child: _Child, side_child: _Child) -> ChildOutcome:
    """The job's two halves (grader.sandbox.split), each in its standby child, read by the one loop;
    one outcome, merged. A main child that ends before the point where one child would have run the
    fake-tensor runs stops the side, whose report would be dropped."""
    main_job, side_job = split.parts(job)
    main: ChildOutcome | None = None
    side: ChildOutcome | None = None
    try:
        reads = [_start(main_child, limits, main_job, moot), _start(side_child, limits, side_job)]

        def ended(read: _Pipes) -> None:
            if read is reads[0] and not split.reached_fake(read.outcome):
                _kill_group(side_child.pid)

        _loop(reads, ended)
        main, side = (_end(read) for read in reads)
        outcome = split.merge(main, side)
        outcome.from_standby = True
        _confinement(outcome, main_child)
        return outcome
    finally:
        _finish(side_child, side)
        _close(side_child.arena)
        _finish(main_child, main)
        if main is not None:
            _modified_in_parent(main, layout, main_child.arena)
        _close(main_child.arena)


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
        # the child's own address-space size now (a standby child: set up, its source not yet run), not this
        # process's: a child forked by the zygote (grader.sandbox.zygote) starts from the zygote's size
        self.vm_start = _statm(child.pid)[0] or _statm(os.getpid())[0]
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
        # deleted files it still maps: read every 4th poll, from the 4th (/proc/<pid>/maps of a torch process, and
        # this process's own to tell what the child inherited, cost milliseconds: a warm verdict's run ends near
        # the first poll); a run that ends sooner has them read at its end when its address space grew (over_at_end)
        return self._threads_over(outcome) or self._disk_over(outcome, with_maps=self.polls % 4 == 0)

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
        try:
            if scratch_dir.over_budget(self.child.scratch, self.child.pid, self.limits.scratch_bytes,
                                       self.limits.scratch_files, self.limits.file_bytes, with_maps=with_maps):
                outcome.disk_overflow = True
        except PermissionError:  # prctl(PR_SET_DUMPABLE, 0) where seccomp could not refuse it (a grader not root)
            outcome.hidden_fds = True
        return outcome.disk_overflow or outcome.hidden_fds

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


def _supervise(child: _Child, limits: Limits, job: Job, moot: Callable[[ChildOutcome], bool] | None = None,
               answer: Callable[[_Child, bool], None] | None = None) -> ChildOutcome:
    """A grading run: frames are the job's calls, each with its own deadline. `answer`: a reused child,
    told at its gradient case whether to run it (grader.sandbox.reuse.answer) instead of being stopped."""
    read = _start(child, limits, job, moot, answer)
    _loop([read])
    return _end(read)


def _start(child: _Child, limits: Limits, job: Job, moot: Callable[[ChildOutcome], bool] | None = None,
           answer: Callable[[_Child, bool], None] | None = None) -> _Pipes:
    """A grading run's reading, before the loop: its outcome, channel and watchdog."""
    outcome = ChildOutcome(pid=child.pid)
    frames_in = channel.Channel(outcome, [(i, f, n) for i, f, _, n in job.calls], job.functions,
                                fake=job.fake is not None,
                                gradient=[(g.index, len(g.wrt)) for g in job.gradient])
    return _Pipes(child, limits, outcome, frames_in, _Watch(child, limits), False, moot if job.gradient else None,
                  answer)


def _end(read: _Pipes) -> ChildOutcome:
    """A grading run's outcome, after the loop: how the child ended."""
    if read.broken is not None:
        read.outcome.protocol_error = read.broken[:200]
    return _after(read.child, read.limits, read.outcome, read.frames_in.current, read.watch, read.call_started)


class _Pipes:
    """A child's two pipes as the loop reads them: its output (counted, the head
    kept) and its result frames (fed to a grader.sandbox.channel.Channel); its watchdog."""

    def __init__(self, child: _Child, limits: Limits, outcome: ChildOutcome, frames_in: channel.Channel,
                 watch: _Watch, work: bool, moot: Callable[[ChildOutcome], bool] | None = None,
                 answer: Callable[[_Child, bool], None] | None = None):
        self.moot = moot  # asked once, when the gradient case starts (run's docstring)
        self.answer = answer  # a reused child's: told whether to run its gradient case (_supervise)
        self.child = child
        self.limits = limits
        self.outcome = outcome
        self.frames_in = frames_in
        self.watch = watch
        self.work = work
        self.reader = transport.FrameReader(limits.result_bytes)
        self.sel: selectors.BaseSelector | None = None
        self.open = 2
        self.out_count = 0
        self.out_head = bytearray()
        self.broken: str | None = None  # why the result channel broke
        self.call_started = child.t0  # when the last "start" frame came

    def register(self, sel: selectors.BaseSelector) -> None:
        self.sel = sel
        sel.register(self.child.res_r, selectors.EVENT_READ, (self, "result"))
        sel.register(self.child.out_r, selectors.EVENT_READ, (self, "output"))

    def unregister(self) -> None:
        for fd in (self.child.res_r, self.child.out_r):
            try:
                self.sel.unregister(fd)  # type: ignore[union-attr]
            except (KeyError, ValueError):  # already, at its end of file
                pass
        self.open = 0

    def ended(self) -> None:
        """Its reading is over: where the child was, what it printed and how long it ran, on the outcome."""
        self.outcome.running_call = self.frames_in.current
        self.outcome.output_head = self.out_head.decode("utf-8", "replace")
        self.outcome.elapsed = time.monotonic() - self.child.t0

    def read(self, key: selectors.SelectorKey) -> bool:
        """Read what one pipe holds. False when reading is over: the child is done
        (then the watchdog looks at what it still holds), printed too much, or broke the channel."""
        try:
            data = os.read(key.fd, 1 << 20)
        except OSError:
            data = b""
        if not data:
            self.sel.unregister(key.fd)  # type: ignore[union-attr]
            self.open -= 1
            return True
        if key.data[1] == "output":
            self.out_count += len(data)
            if len(self.out_head) < 4096:
                self.out_head += data[: 4096 - len(self.out_head)]
            if self.out_count > self.limits.output_bytes:
                self.outcome.output_overflow = True
                return False
            return True
        try:
            for header, blobs in self.reader.feed(data):
                starts = self.frames_in.starts
                self.frames_in.feed(header, blobs)
                if self.frames_in.starts != starts:
                    self.call_started = time.monotonic()
                    if self.frames_in.current == GRADIENT_CALL and self._moot():
                        break  # finished: what it printed is read and its budgets looked at, as at "done"
        except (OverflowError, ValueError, channel.ProtocolError) as exc:
            self.broken = str(exc)
            return False
        if self.outcome.finished:
            # done: do not wait for the pipes to close (a left-behind process may hold them)
            if not self.work:
                self.out_count = _drain(self.child.out_r, self.out_head, self.out_count, self.outcome, self.limits)
                self.watch.over_at_end(self.outcome)
            return False
        return True


    def _moot(self) -> bool:
        """Whether to stop the child at the start of its gradient case (run's `moot`): then the run is over,
        its outcome finished with the gradient case skipped; the child is killed as at its "done". A reused
        child is told instead (`answer`), and the run goes on to its "done" without the case."""
        moot, self.moot = self.moot, None
        skip = moot is not None and moot(self.outcome)
        if self.answer is not None:
            self.answer(self.child, not skip)  # it waits for this byte, whatever the answer
        if not skip:
            return False
        self.outcome.gradient_skipped = True
        self.outcome.gradients = None
        if self.answer is not None:
            self.frames_in.skip_gradient()
            return False
        self.outcome.finished = True
        self.frames_in.current = None
        return True


def _loop(reads: list[_Pipes], ended: Callable[[_Pipes], None] | None = None) -> None:
    """The one select loop, over one child or several: read each child's output and frames (its
    channel fills its outcome) until it is done, its pipes close or it is stopped (a deadline, a
    budget, too much output, a broken channel); `ended(read)` as each one's reading ends. A `work`
    run (run_json) is not looked at further once its "done" frame is in."""
    sel = selectors.DefaultSelector()
    for read in reads:
        read.register(sel)
    active = list(reads)

    def end(read: _Pipes) -> None:
        read.unregister()
        active.remove(read)
        read.ended()
        if ended is not None:
            ended(read)

    wait = 0.0
    mark = min(read.child.t0 for read in reads)  # since when this process has been waiting (this turn's select, or the start)
    try:
        while active:
            _check_terminated()
            events = sel.select(timeout=wait)
            woke = time.monotonic()
            if woke - mark - wait > _STALL:  # stopped meanwhile (Ctrl-Z, SIGSTOP, a suspend)
                for read in active:
                    read.call_started += read.watch.stalled(woke - mark - wait)
            # what is waiting is read before the clock is looked at: a child that answered
            # while this process was stopped has answered in time
            for key, _ in events:
                read = key.data[0]
                if read in active and not read.read(key):
                    end(read)
            for read in [r for r in active if not r.open]:
                end(read)
            now = mark = time.monotonic()
            if now - woke > _STALL:  # stopped while reading (reading takes milliseconds)
                for read in active:
                    read.call_started += read.watch.stalled(now - woke)
            wait = float("inf")
            for read in list(active):
                deadline = _deadline(read.outcome, read.frames_in.current, read.limits, read.watch,
                                     read.call_started, now, loading=read.frames_in.starts == 0)
                if deadline is None or read.watch.over_budget(read.outcome, now):
                    end(read)
                    continue
                wait = min(wait, max(0.0, min(deadline, read.watch.next_poll) - now))
            wait = 0.0 if wait == float("inf") else wait
    finally:
        sel.close()
        for read in active:  # interrupted (Ctrl-C, SIGTERM): what was read so far is kept
            read.ended()


def _deadline(outcome: ChildOutcome, current: int | None, limits: Limits, watch: _Watch, call_started: float,
              now: float, loading: bool = False) -> float | None:
    """The next deadline: the call's under way, the file's load (a call's time from the child's
    start, as the message says: a child that stalls before the file's first line is not waited
    on for the whole submission), or between calls the submission's. None, with the timeout
    recorded, when it is past."""
    if current is not None or loading:
        call_deadline = call_started + limits.case_timeout
    else:
        call_deadline = watch.total_deadline
    deadline = min(watch.total_deadline, call_deadline)
    if now < deadline:
        return deadline
    outcome.timeout_call = current if current is not None else -1
    outcome.timeout_seconds = limits.case_timeout if call_deadline <= watch.total_deadline else limits.total_timeout
    return None


def _after(child: _Child, limits: Limits, outcome: ChildOutcome, current: int | None, watch: _Watch,
           call_started: float) -> ChildOutcome:
    """After a grading run's loop: learn how a child that closed its pipes early
    ended (or wait it out), and kill one that was stopped."""
    stopped = outcome.stopped
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


def run_json(work: Any, limits: Limits, steps: list[dict[str, Any]] | None = None) -> tuple[dict | None, str | None]:
    """Run `work()` (a trusted callable that may run untrusted code, e.g. :try
    tracing) in a limited, confined child; it returns a JSON-able dict sent back
    as one frame. Returns (result, problem): problem names a timeout, crash or overflow.
    The same loop as a grading run, its frames read as one `work` result, under
    one deadline (limits.case_timeout) for the whole run. `steps` receives the step frames the
    child sent as it ran (grader.trace), checked by the channel."""
    child = _spawn(limits, Body(_work_child, {"work": work, "limits": limits}))
    probe = ChildOutcome(pid=child.pid)
    frames_in = channel.Channel(probe, work=True)
    try:
        watch = _Watch(child, limits)
        watch.total_deadline = child.t0 + limits.case_timeout
        read = _Pipes(child, limits, probe, frames_in, watch, True)
        _loop([read])
    finally:
        _finish(child, probe)
    problem = _work_problem(probe, limits, read.broken)
    got = frames_in.result
    if steps is not None:
        steps.extend(frames_in.steps)
    if probe.refused:
        problem = "not run: confinement is required and missing here (" + "; ".join(probe.unconfined.values()) + ")"
    if not got and problem is None:
        problem = "the child ended without a result"
    return (got or None), problem


def _work_problem(probe: ChildOutcome, limits: Limits, broken: str | None) -> str | None:
    """Why a work run was stopped, in words; None when it was not."""
    if broken is not None:
        return f"the result channel broke ({broken})"
    if probe.output_overflow:
        return "printed too much"
    if probe.timeout_call is not None:
        return f"stopped after {limits.case_timeout:g} s"
    if probe.disk_overflow or probe.hidden_fds:
        return f"wrote more than {limits.scratch_bytes // 2**20} MiB to disk, or hid what it holds from the grader"
    if probe.threads_killed:
        return f"ran more than {limits.threads} threads"
    if probe.memory_killed:
        return f"used more than {bytes_text(limits.memory_bytes)} of memory"
    return None
