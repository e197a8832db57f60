"""The isolation every sandbox child gets before it runs anything untrusted.

Its own process group, stdin closed, every inherited descriptor closed but
the result pipe (and a standby child's job pipe), stdout and stderr sent to
the capped output pipe, resource limits, the scratch folder as its working
directory, and confinement (grader.sandbox.confine), reported on the result
stream first. `forget_references` then makes the reference solutions
unreachable from the child.
"""
from __future__ import annotations

import fcntl
import os
import signal
import sys

from grader.sandbox import confine
from grader.sandbox.limits import Job, Limits
from grader.sandbox.wire import GO_FD, RESULT_FD, _send


CONFINED: dict = {}  # child only: the "confined" frame it sent, sent again before each run of a reused child


def _child_prepare(limits: Limits, res_w: int, out_w: int, scratch: str, go_r: int | None = None) -> bool:
    """The isolation every child gets, before it runs anything untrusted.
    `go_r` (a standby child's job pipe) is kept open as GO_FD.
    Returns False when the child must not go on (confinement required and missing)."""
    os.setpgid(0, 0)
    try:
        # a batch task does not preempt the one it wakes: a frame this child writes wakes the grader, which
        # reads it at once, and the go a standby pair is written does not stall the grader between the two
        os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux, or refused: only the wake-ups cost more
        pass
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
        conf = confine.apply_child(scratch, limits.hidden)
    else:
        os.chdir(scratch)
        conf = confine.Confinement(missing={p: "switched off for this run" for p in confine.CHILD_PIECES})
    conf.missing.pop("open-files", None)
    (conf.enforced if files[0] else conf.missing)["open-files"] = files[1]
    CONFINED.clear()
    CONFINED.update({"type": "confined", **conf.to_dict()})
    _send(dict(CONFINED))
    if limits.require_confinement and conf.missing:
        _send({"type": "refused"})
        _send({"type": "done"})
        return False
    return True


def _child_setup(job: Job) -> None:
    if job.forget is not None:
        job.forget()
    forget_references()


def forget_references() -> None:
    """Child only: make the reference and oracle modules unreachable, even through
    gc.unfreeze() + gc.get_objects(). The parent froze its objects before the
    fork (gc.freeze), so a reference dropped here would stay listed as frozen
    garbage; emptying each module's namespace frees its functions now instead
    (a full collection would cost ~200 ms of copy-on-write faults). The names
    come from the one place that imports drill files (grader.cases.prepare):
    walking all of sys.modules here would cost ~5 ms of copy-on-write faults."""
    import linecache

    from grader.cases.prepare import DRILL_MODULES

    for name in list(DRILL_MODULES):
        module = sys.modules.pop(name, None)  # the references and oracles are not the solution's to import
        if module is None:
            continue
        try:
            linecache.cache.pop(getattr(module, "__file__", None) or "", None)  # its source, if a traceback read it
            module.__dict__.clear()
            module.__dict__["__name__"] = "emptied"  # still a module, holding nothing of the reference
        except Exception:  # noqa: BLE001, S110 - a module without a namespace has nothing to drop
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
