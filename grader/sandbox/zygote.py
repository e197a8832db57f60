"""The zygote: the process sandbox children are forked from, which never loaded a drill.

A child forked straight from the grader holds a copy of everything the grader
holds: the catalogue, the reference and oracle modules, the expected outputs,
the spec and variant of the job, the request that named them, its command line
(`drill check --variant ...`), and the bytes of whatever was freed. Dropping
references in the child (grader.sandbox.prepare.forget_references) hides
objects from `gc`, not bytes from a scan of memory, nor the callers' frames.

So the grader starts, once per process, a zygote (`main` below): a
fresh interpreter that imports torch and the sandbox's own modules and nothing
of any drill. For each child the grader sends it what that child runs (the
child function of grader.sandbox.child and its arguments, pickled: the
source, the call arguments' layout, the guards' names, the limits; never a
spec, a variant, an expected value or a reference) and the descriptors it
needs (result and output pipes, the job pipe, the arguments' memory file)
over a socket. The zygote forks an intermediate process, which forks the child
and exits at once: the child is re-parented to the grader, which is a child
subreaper (grader.sandbox.spawn.parent_ready), so the grader waits for it,
reaps it and reads its exit status as if it had forked it itself. Its command
line is the zygote's (`python -c "...zygote import main..." FD PID`).

A job's fake-tensor plan (grader.fake.checks.Plan, as Job.for_child strips it: real inputs at reduced
sizes, no reference output) is most of its bytes; the zygote keeps the last KEPT_PLANS it was sent,
so each is sent once, not with every child (_Kept).

Where the zygote cannot start or cannot take a job (a case argument that
does not pickle), the grader forks the child itself as before; the run's
confinement then names "zygote" as not enforced (grader.sandbox.supervise).
"""
from __future__ import annotations

import dataclasses
import gc
import os
import pickle
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

_MAX_FDS = 16
# `-m` would import this module twice; sys.path[0] made absolute first: `-c` leaves it "" (the working
# folder), and a child works in its scratch folder, where a relative package path would find the solution's files
_COMMAND = "import os, sys; sys.path[0] = os.getcwd(); from grader.sandbox.zygote import main; sys.exit(main(sys.argv))"
START_SECONDS = 180.0  # for the zygote's `import torch` on a loaded machine


@dataclass
class Body:
    """What a sandbox child runs: `target(res_w, out_w, scratch, **kwargs)`, plus, by name, the job
    pipe (`go_r`) and the arguments' shared memory (`arena` for one, `arenas` for a list). Picklable
    when `kwargs` are; the pipe and the memory go as descriptors."""

    target: Callable[..., None]
    kwargs: dict[str, Any] = field(default_factory=dict)
    go_r: int | None = None
    arenas: list[Any] = field(default_factory=list)
    many: bool = False  # the target takes `arenas` (a list); else `arena` (one or None), when there are any
    takes_arena: bool = False

    def __call__(self, res_w: int, out_w: int, scratch: str) -> None:
        """In the child: the target, every argument by name."""
        self.target(res_w=res_w, out_w=out_w, scratch=scratch, **self.kwargs, **self._extra(self.go_r, self.arenas))

    def _extra(self, go_r: int | None, arenas: list[Any]) -> dict[str, Any]:
        extra: dict[str, Any] = {}
        if go_r is not None:
            extra["go_r"] = go_r
        if self.many:
            extra["arenas"] = arenas
        elif self.takes_arena:
            extra["arena"] = arenas[0] if arenas else None
        return extra


# ================================================================ the grader's side


class Zygote:
    """The grader's handle on its zygote process: started once per process (a forked copy of the
    grader, such as a `drill validate --jobs` worker, starts its own), asked for one child at a time."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._owner = 0
        self._proc: subprocess.Popen | None = None
        self._sock: socket.socket | None = None
        self._ready = False
        self._known: set[str] = set()  # modules the zygote was told to import
        self._kept: OrderedDict[int, Any] = OrderedDict()  # id(plan) -> fake-tensor plan the zygote keeps (_Kept)
        self.why_not: str | None = None  # why children are not forked from it, when they are not

    def start(self) -> None:
        """Start the zygote in the background (it imports torch); idempotent within a process."""
        with self._lock:
            self._start()

    def _start(self) -> None:
        if self._owner == os.getpid():
            return
        self._owner = os.getpid()
        self._proc, self._sock, self._ready, self.why_not = None, None, False, None
        self._known = set()
        self._kept = OrderedDict()
        if os.environ.get("DRILL_NO_ZYGOTE"):
            self.why_not = "switched off (DRILL_NO_ZYGOTE)"
            return
        from grader.sandbox import confine

        if not confine.become_subreaper():
            self.why_not = "this process cannot be a child subreaper, so a child forked elsewhere would not be its own"
            return
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        root = str(Path(__file__).resolve().parent.parent.parent)
        env = dict(os.environ)
        env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-c", _COMMAND, str(theirs.fileno()), str(os.getpid())],
                pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, cwd=root, env=env)
        except OSError as exc:
            mine.close()
            self.why_not = f"the zygote could not be started ({exc})"
            return
        finally:
            theirs.close()
        self._sock = mine

    def fork(self, body: Body, res_w: int, out_w: int, scratch: str) -> tuple[int | None, str]:
        """A child running `body`, forked by the zygote and now this process's own child: its pid.
        None when the zygote cannot serve, and why: the caller forks it itself."""
        if os.environ.get("DRILL_NO_ZYGOTE"):
            return None, "switched off (DRILL_NO_ZYGOTE)"
        with self._lock:
            self._start()
            if self._sock is None:
                return None, self.why_not or "no zygote"
            if any(a is not None and a.fd < 0 for a in body.arenas):
                return None, "the arguments' memory is no memory file (memfd_create failed) and cannot be sent"
            modules = _modules_to_share(self._known, body)
            kept, dropped = self._keep(body)
            try:
                payload = pickle.dumps((_portable(body, kept), scratch, modules, dropped),
                                       protocol=pickle.HIGHEST_PROTOCOL)
            except Exception as exc:  # noqa: BLE001 - an argument that does not pickle: forked here instead
                self._unkeep(kept)
                return None, f"this job could not be sent to the zygote ({type(exc).__name__})"
            fds = [res_w, out_w, *([body.go_r] if body.go_r is not None else []),
                   *(a.fd for a in body.arenas if a is not None)]
            try:
                if not self._ready:
                    self._wait_ready()
                self._sock.settimeout(START_SECONDS)
                socket.send_fds(self._sock, [struct.pack("=Q", len(payload))], fds)
                self._sock.sendall(payload)
                answer = _read_exactly(self._sock, 8)
            except (OSError, EOFError) as exc:
                self._stop(f"the zygote stopped answering ({type(exc).__name__}: {exc})")
                return None, self.why_not or ""
            self._known.update(modules)
            pid = struct.unpack("=q", answer)[0]
            if pid <= 0:
                self._unkeep(kept)
                return None, "the zygote could not fork this child"
            return pid, ""

    def _unkeep(self, kept: dict[int, bool]) -> None:
        """The plans of a fork that failed may never have been stored there: each is sent whole next time."""
        for key in kept:
            self._kept.pop(key, None)

    def _keep(self, body: Body) -> tuple[dict[int, bool], list[int]]:
        """The fake-tensor plans of `body`'s jobs, by id: True for one the zygote is sent now (it keeps
        it), False for one it kept already; and the ids it is to drop (at most KEPT_PLANS are kept).
        A plan (a drill's, under a variant: grader.engine caches them) holds real inputs at reduced sizes
        (grader.fake.real), most of a job's bytes: sent once, not with every child."""
        kept: dict[int, bool] = {}
        for job in _jobs(body.kwargs):
            if job.fake is None:
                continue
            key = id(job.fake)
            kept[key] = key not in self._kept
            self._kept[key] = job.fake  # held here, so the id stays this plan's while the zygote keeps it
            self._kept.move_to_end(key)
        dropped = []
        while len(self._kept) > KEPT_PLANS:
            key, _ = self._kept.popitem(last=False)
            dropped.append(key)
            kept.pop(key, None)
        return kept, dropped

    def _wait_ready(self) -> None:
        assert self._sock is not None
        self._sock.settimeout(START_SECONDS)
        if _read_exactly(self._sock, 1) != b"R":
            raise EOFError("the zygote did not say it was ready")
        self._ready = True

    def _stop(self, why: str) -> None:
        self.why_not = why
        sock, proc, self._sock, self._proc = self._sock, self._proc, None, None
        if sock is not None:
            sock.close()
        if proc is not None:
            proc.kill()
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:  # pragma: no cover
                pass

    def close(self) -> None:
        """End the zygote (it also ends on its own when this process does)."""
        with self._lock:
            if self._owner == os.getpid():
                self._stop("closed")
                self.why_not = None
                self._owner = 0

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None and self._owner == os.getpid() else None


ZYGOTE = Zygote()


@dataclass(frozen=True)
class _Sent:
    """`Body` as the zygote receives it: the descriptors arrive beside it, in this order."""

    target: Callable[..., None]
    kwargs: dict[str, Any]
    has_go: bool
    arena_sizes: list[int | None]
    many: bool
    takes_arena: bool
    environ: dict[str, str]  # the grader's environment now, as a child forked from it would have it


_NOT_SHARED = ("_drill_", "__main__", "__mp_main__", "solution", "drills", "trainer", "tests", "conftest", "_pytest",
               "pytest", "pluggy", "emptied",
               # the CLI's own libraries (its commands, terminal, scheduler, settings): no solution's business, and
               # importing them in the zygote cost a cold `drill check` some 0.2 s before its child was forked
               "typer", "click", "pydantic", "pydantic_core", "annotated_types", "annotated_doc", "typing_inspection",
               "fsrs", "prompt_toolkit", "wcwidth", "platformdirs", "shellingham")


def _modules_to_share(known: set[str], body: Body) -> list[str]:
    """Modules this process has imported that the zygote was not told of yet, in import order: it
    imports them before forking, so a child finds the libraries loaded as in a child forked from here
    (the banned-call guards wrap what is loaded and hook what is not: grader.bans.calls). Never a
    drill's module, nor one loaded from a hidden folder, nor the CLI's or the tests' own."""
    limits = body.kwargs.get("limits")
    hidden = tuple(str(h).rstrip("/") + "/" for h in getattr(limits, "hidden", ()))
    out = []
    for name, module in list(sys.modules.items()):
        if name in known or name.split(".")[0].startswith(_NOT_SHARED):
            continue
        where = getattr(module, "__file__", None)
        if isinstance(where, str) and hidden and os.path.realpath(where).startswith(hidden):
            continue
        out.append(name)
    return out


def _portable(body: Body, kept: dict[int, bool]) -> _Sent:
    """What the zygote is sent: each job as a child needs it (grader.sandbox.limits.Job.for_child: no
    callables of the grader's, nothing of the reference's fake runs but its peak), its fake-tensor plan
    as a _Kept (whole only where `kept` says the zygote does not hold it yet)."""
    kwargs = {k: _for_child(v, kept) for k, v in body.kwargs.items()}
    return _Sent(body.target, kwargs, body.go_r is not None,
                 [len(a) if a is not None else None for a in body.arenas], body.many, body.takes_arena,
                 dict(os.environ))


@dataclass(frozen=True)
class _Kept:
    """A job's fake-tensor plan as the zygote is sent it: its key, and the plan itself the first time."""

    key: int
    plan: Any = None


KEPT_PLANS = 16  # plans the zygote keeps (the grader caches its prepared cases 16 deep too)


def _jobs(kwargs: dict[str, Any]) -> list[Any]:
    from grader.sandbox.limits import Job

    return [v for value in kwargs.values() for v in (value if isinstance(value, list) else [value])
            if isinstance(v, Job)]


def _for_child(value: Any, kept: dict[int, bool]) -> Any:
    from grader.sandbox.limits import Job

    def one(job: Job) -> Job:
        child = job.for_child()
        if job.fake is None or id(job.fake) not in kept:
            return child
        return dataclasses.replace(child, fake=_Kept(id(job.fake), child.fake if kept[id(job.fake)] else None))

    if isinstance(value, Job):
        return one(value)
    if isinstance(value, list) and value and all(isinstance(v, Job) for v in value):
        return [one(v) for v in value]
    return value


def _read_exactly(sock: socket.socket, size: int) -> bytes:
    data = bytearray()
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise EOFError("the socket closed")
        data += chunk
    return bytes(data)


# ================================================================ the zygote's side


def main(argv: list[str]) -> int:
    """The zygote process (`_COMMAND` FD GRADER_PID): warm up, then fork a child per request. It ends,
    quietly, when the grader's end of the socket closes (the grader ended, even killed outright)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the grader's whole group: the grader decides
    fd, grader = int(argv[1]), int(argv[2])
    sock = socket.socket(fileno=fd)
    if os.getppid() != grader:
        return 0
    try:
        _warm()
        gc.collect()
        gc.freeze()  # the children's collections leave these objects (and their pages) alone
        sock.sendall(b"R")
        _serve(sock, grader)
    except OSError:
        pass  # the grader is gone
    return 0


def _serve(sock: socket.socket, grader: int) -> None:
    while True:
        head, fds, _, _ = socket.recv_fds(sock, 8, _MAX_FDS)
        if not head:
            return
        try:
            head += _read_exactly(sock, 8 - len(head))
            payload = _read_exactly(sock, struct.unpack("=Q", head)[0])
        except EOFError:
            return
        pid = -1
        try:
            sent, scratch, modules, dropped = pickle.loads(payload)  # noqa: S301 - from the grader that started this process
            _unkept(sent, dropped)
            _load(modules)
            _prime(sent)
            _rehearse_ways(sent)
            pid = _fork(sent, scratch, fds, grader, sock)
        except Exception:  # noqa: BLE001, S110 - answered -1: the grader forks this child itself
            pass
        finally:
            for one in fds:
                os.close(one)
        sock.sendall(struct.pack("=q", pid))


_PLANS: dict[int, Any] = {}  # the fake-tensor plans the grader sent once (_Kept), by key


def _unkept(sent: _Sent, dropped: list[int]) -> None:
    """Each job's fake-tensor plan in place of its _Kept (stored here when sent whole); the plans the
    grader no longer keeps dropped. A key not held here (cannot happen while both sides agree) raises:
    the grader then forks the child itself."""
    for key in dropped:
        _PLANS.pop(key, None)
    for job in _jobs(sent.kwargs):
        if isinstance(job.fake, _Kept):
            if job.fake.plan is not None:
                _PLANS[job.fake.key] = job.fake.plan
            job.fake = _PLANS[job.fake.key]


def _load(modules: list[str]) -> None:
    """Import what the grader has loaded (`_modules_to_share`); a module that fails here is skipped."""
    import importlib
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in modules:
            if name in sys.modules:
                continue
            try:
                importlib.import_module(name)
            except BaseException:  # noqa: BLE001, S112 - a module the grader loaded some other way
                continue


_PRIMED: set[tuple[str, ...]] = set()  # the banned sets whose helpers' callers are noted here


def _prime(sent: _Sent) -> None:
    """What the grader worked out for its own use and a child forked from it inherits, worked out here
    once: which library functions may still call a banned function's helpers (grader.bans.calls.locations
    notes them; the guards the child installs look them up), and where torch keeps Python implementations
    of the banned kernels (grader.bans.dispatch.python_routes: some 40 ms a child, walking torch's modules
    and disassembling their helpers, when it is not found here)."""
    from grader.bans import calls, dispatch

    for job in _jobs(sent.kwargs):
        if job.banned and job.ban_places and job.banned not in _PRIMED:
            try:
                calls.locations(job.banned, with_helpers=True)
            except Exception:  # noqa: BLE001, S110 - the guards then refuse every caller, as unprimed
                pass
            _PRIMED.add(job.banned)
        if job.ban_kernels:
            try:
                dispatch.python_routes(tuple(sorted(job.ban_kernels.items())))  # cached: once per banned set
            except Exception:  # noqa: BLE001, S110 - the child then finds them itself
                pass


_REHEARSED: set[tuple[str, bool]] = set()  # the fake-tensor ways rehearsed here (grader.sandbox.rehearse.ways_of)


def _rehearse_ways(sent: _Sent) -> None:
    """Rehearse, once each, the fake-tensor ways this request's jobs run in and this process has not
    rehearsed yet (on the CPU, with symbolic sizes: grader.sandbox.rehearse), before forking its child."""
    from grader.sandbox import rehearse

    wanted: set[tuple[str, bool]] = set()
    for job in _jobs(sent.kwargs):
        wanted |= rehearse.ways_of(job.fake)
    new = tuple(sorted(wanted - _REHEARSED))
    if new:
        rehearse.rehearse(real=False, gradient=False, fake=True, ways=new)
        _REHEARSED.update(new)


def _warm() -> None:
    """What every child needs, loaded once here: torch, the child's runtime, the guards, and what torch
    sets up lazily on first use (ops resolved, their fake-tensor rules, autograd's engine): the rehearsal
    each standby child runs again (grader.sandbox.rehearse), here with fake CUDA tensors of plain sizes;
    the other ways a job's fake runs may go are rehearsed when a job first needs them (_rehearse_ways)."""
    import linecache  # noqa: F401
    import torch

    torch.set_num_threads(1)  # no parallel op has run here: the children's pools start afresh
    import torch.overrides  # noqa: F401

    from grader.bans import calls  # noqa: F401
    from grader.cases import prepare  # noqa: F401
    from grader.sandbox import child, clean, confine, rehearse  # noqa: F401

    confine.warm()
    rehearse.rehearse(real=True, gradient=True, fake=True)
    _REHEARSED.update(rehearse.WAYS)


def _fork(sent: _Sent, scratch: str, fds: list[int], grader: int, sock: socket.socket) -> int:
    """Fork an intermediate process that forks the child and exits, so the child is re-parented to
    the grader (a child subreaper). Returns the child's pid once that has happened."""
    limits = sent.kwargs.get("limits")
    if limits is not None:
        from grader.sandbox import confine

        confine.reads_for(tuple(limits.hidden))  # worked out here once, not in every child
    r, w = os.pipe()
    middle = os.fork()
    if middle == 0:
        try:
            os.close(r)
            me = os.getpid()  # read here: the child may first run after this process has gone
            pid = os.fork()
            if pid == 0:
                os.close(w)
                _child(sent, scratch, fds, grader, sock, me)
            os.write(w, struct.pack("=q", pid))
        finally:
            os._exit(0)
    os.close(w)
    data = b""
    while len(data) < 8:
        chunk = os.read(r, 8 - len(data))
        if not chunk:
            break
        data += chunk
    os.close(r)
    os.waitpid(middle, 0)  # gone: its child is the grader's now
    return struct.unpack("=q", data)[0] if len(data) == 8 else -1


def _reparented(middle: int) -> None:
    """Wait until the intermediate process `middle` has gone (it exits at once), whether or not
    it has gone already."""
    while os.getppid() == middle:
        time.sleep(0.0001)


def _child(sent: _Sent, scratch: str, fds: list[int], grader: int, sock: socket.socket, middle: int) -> None:
    """The sandbox child, forked from the zygote by the intermediate process `middle`: once
    re-parented to the grader, run the body. (`middle` is not the child's own getppid(): on a
    loaded machine the intermediate process can exit before the child first runs, and a child
    that read its parent then would wait for a change that has already happened.)"""
    import mmap

    from grader import roomy

    try:
        sock.close()
        _reparented(middle)
        from grader.sandbox import confine

        confine.die_with_parent(grader)  # exits unless re-parented to the grader
        os.environ.clear()
        os.environ.update(sent.environ)
        res_w, out_w, rest = fds[0], fds[1], list(fds[2:])
        go_r = rest.pop(0) if sent.has_go else None
        arenas: list[Any] = []
        for size in sent.arena_sizes:
            if size is None:
                arenas.append(None)
                continue
            one = rest.pop(0)
            arenas.append(mmap.mmap(one, size, flags=mmap.MAP_SHARED))
            os.close(one)
        body = Body(sent.target, sent.kwargs, go_r, arenas, sent.many, sent.takes_arena)
        roomy.call(body, res_w, out_w, scratch)  # torch's dispatch is deep: grader.roomy
    finally:
        os._exit(70)

