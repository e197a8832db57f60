"""Forking a sandbox child, and making sure none outlives the grader.

`_spawn` forks a child with its result and output pipes and a fresh scratch
folder; `_finish` kills its process group, reaps it and whatever it left
behind, and removes the folder. `_LIVE` and `_SCRATCH` are what the atexit
hook (grader.sandbox.standby) finishes when a run is cut short. SIGTERM and
SIGHUP unwind like Ctrl-C (`Terminated`).
"""
from __future__ import annotations

import functools
import gc
import os
import signal
import threading
import time
from dataclasses import dataclass
from typing import Any

from grader import roomy
from grader.sandbox import scratch as scratch_dir
from grader.sandbox import confine
from grader.sandbox.limits import ChildOutcome, Limits
from grader.sandbox.reaping import _boot_ticks, _kill_group, reap_orphans
from grader.sandbox.zygote import ZYGOTE, Body


@functools.lru_cache(maxsize=1)
def parent_ready() -> bool:
    """Once per process: become a child subreaper and load what the child's
    confinement needs (so the hot path forks a warm process). Returns whether
    orphans will be re-parented to us."""
    confine.warm()
    ZYGOTE.start()
    for name in ("grader.bans.calls", "grader.cases.prepare", "linecache", "torch.overrides"):
        __import__(name)
    scratch_dir.sweep_stale()  # folders left by a grader that was killed before it could clean up
    exit_on_signals()
    return confine.become_subreaper()


class Terminated(SystemExit):
    """SIGTERM or SIGHUP arrived: unwind like Ctrl-C (every child killed, every
    scratch folder removed, at the latest by the atexit hook), exit 128 + signal."""


_EXIT_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


def exit_on_signals() -> None:
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
    arena: Any = None  # the shared mapping holding its call arguments (grader.sandbox.inputs)
    unclean: str = ""  # why it was forked from this process rather than the zygote ("": from the zygote)


def _spawn(limits: Limits, body: Body, close_in_child: tuple[int, ...] = (),
           close_in_parent: tuple[int, ...] = ()) -> _Child:
    """A child that prepares itself and runs `body(res_w, out_w, scratch)`: forked from the zygote
    (grader.sandbox.zygote), which never loaded a drill, or, where it cannot serve, from this process."""
    parent_ready()
    scratch = scratch_dir.make()
    _SCRATCH.add(scratch)  # from now on the atexit hook removes it, whatever interrupts what follows
    res_r, res_w = os.pipe()
    out_r, out_w = os.pipe()
    since = _boot_ticks()
    pid, unclean = ZYGOTE.fork(body, res_w, out_w, scratch)  # the first waits for the zygote's start: off the clock
    t0 = time.monotonic()
    if pid is None:
        pid = _fork_here(body, res_r, res_w, out_r, out_w, scratch, close_in_child)
    for fd in (res_w, out_w, *close_in_parent):
        os.close(fd)
    try:
        os.setpgid(pid, pid)
    except OSError:
        pass
    child = _LIVE[pid] = _Child(pid, res_r, out_r, scratch, since, t0, unclean=unclean)
    _check_terminated()  # now that _LIVE knows the child, so the atexit hook finishes it
    return child


def _fork_here(body: Body, res_r: int, res_w: int, out_r: int, out_w: int, scratch: str,
               close_in_child: tuple[int, ...]) -> int:
    """Fork the child from this process (no zygote): it holds a copy of all this process holds."""
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
            roomy.call(body, res_w, out_w, scratch)  # torch's dispatch is deep: grader.roomy
        finally:
            os._exit(70)
    return pid


_LIVE: dict[int, _Child] = {}  # children not finished yet: the atexit hook finishes them


_SCRATCH: set[str] = set()  # scratch folders not removed yet


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
        orphans = reap_orphans(child.since_ticks, exclude=child.pid, keep=ZYGOTE.pid)
        if outcome is not None:
            outcome.orphans = orphans
    scratch_dir.remove(child.scratch)
    _SCRATCH.discard(child.scratch)
    _LIVE.pop(child.pid, None)


def _close(arena: Any) -> None:
    if arena is not None:
        try:
            arena.close()
        except (BufferError, OSError):
            pass
