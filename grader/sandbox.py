"""The sandbox child: runs one submission on every prepared call.

The parent (the grader process, torch already imported and the cases built)
forks a child per submission. The child puts itself in its own process
group, closes stdin and every inherited descriptor except its result pipe,
sends stdout and stderr to a capped pipe, sets its resource limits, installs
the banned-call guards, runs the solution and sends each result back as
dtype + shape + raw bytes (grader.transport). The parent enforces the
wall-clock deadlines from outside and kills the whole process group.
"""
from __future__ import annotations

import os
import selectors
import signal
import sys
import time
import traceback
from dataclasses import dataclass, field
from typing import Any

from grader import transport

RESULT_FD = 3


@dataclass
class Limits:
    case_timeout: float = 5.0  # seconds per call, wall clock
    total_timeout: float = 60.0  # seconds per submission, wall clock
    memory_bytes: int = 4 * 2**30  # address space on top of the child's size at start
    output_bytes: int = 2**20  # stdout + stderr
    result_bytes: int = 512 * 2**20
    file_bytes: int = 16 * 2**20


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


@dataclass
class Job:
    """Everything the child needs; inherited through fork, never serialised."""

    source: str
    filename: str
    functions: list[str]
    calls: list[tuple[int, str, list[Any], list[str]]]  # (index, function, args, arg names)
    banned: tuple[str, ...] = ()
    ban_places: list[tuple[str, str, str]] = field(default_factory=list)
    trace: bool = False
    must_call: dict[str, int] = field(default_factory=dict)  # name -> exact calls required per call
    count_places: list[tuple[str, str, str]] = field(default_factory=list)


# ------------------------------------------------------------------ parent


def run(job: Job, limits: Limits) -> ChildOutcome:
    """Fork a child for the job and supervise it until it finishes or is killed."""
    res_r, res_w = os.pipe()
    out_r, out_w = os.pipe()
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:  # child
        try:
            os.close(res_r)
            os.close(out_r)
            _child(job, limits, res_w, out_w)
        finally:
            os._exit(70)
    os.close(res_w)
    os.close(out_w)
    try:
        os.setpgid(pid, pid)
    except OSError:
        pass
    try:
        return _supervise(pid, res_r, out_r, job, limits, t0)
    finally:
        _kill_group(pid)
        os.close(res_r)
        os.close(out_r)


def _kill_group(pid: int) -> None:
    for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            target()
        except (ProcessLookupError, PermissionError):
            pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def _supervise(pid: int, res_r: int, out_r: int, job: Job, limits: Limits, t0: float) -> ChildOutcome:
    outcome = ChildOutcome()
    reader = transport.FrameReader(limits.result_bytes)
    sel = selectors.DefaultSelector()
    sel.register(res_r, selectors.EVENT_READ, "result")
    sel.register(out_r, selectors.EVENT_READ, "output")
    out_count = 0
    out_head = bytearray()
    current: int | None = -1  # -1 while the module loads
    call_started = time.monotonic()
    open_fds = 2
    total_deadline = t0 + limits.total_timeout
    while open_fds:
        now = time.monotonic()
        call_deadline = call_started + limits.case_timeout if current is not None else total_deadline
        deadline = min(total_deadline, call_deadline)
        if now >= deadline:
            outcome.timeout_call = current if current is not None else -1
            outcome.timeout_seconds = limits.case_timeout if call_deadline <= total_deadline else limits.total_timeout
            break
        events = sel.select(timeout=deadline - now)
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
                frames = reader.feed(data)
            except (OverflowError, ValueError) as exc:
                outcome.protocol_error = str(exc)
                open_fds = 0
                break
            for header, blobs in frames:
                current = _apply(header, blobs, outcome, current)
                if header.get("type") == "start":
                    call_started = time.monotonic()
                elif header.get("type") == "result":
                    current = None
    outcome.output_head = out_head.decode("utf-8", "replace")
    outcome.elapsed = time.monotonic() - t0
    if outcome.finished and outcome.timeout_call is None and not outcome.output_overflow:
        # let a finished child exit on its own, briefly
        for _ in range(50):
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                _record_status(outcome, status)
                return outcome
            time.sleep(0.002)
    _kill_group(pid)
    return outcome


def _record_status(outcome: ChildOutcome, status: int) -> None:
    if os.WIFSIGNALED(status):
        outcome.signal = os.WTERMSIG(status)
    elif os.WIFEXITED(status):
        outcome.exit_status = os.WEXITSTATUS(status)


def _apply(header: dict, blobs: list[bytes], outcome: ChildOutcome, current: int | None) -> int | None:
    kind = header.get("type")
    if kind == "start":
        return int(header.get("call", -1))
    if kind == "loaded":
        return None
    if kind == "load_error":
        outcome.load_error = header.get("exc") if isinstance(header.get("exc"), dict) else {"type": "Error"}
    elif kind == "missing":
        outcome.missing = [str(n) for n in header.get("names", [])][:20]
    elif kind == "banned":
        outcome.banned = outcome.banned or str(header.get("name"))[:120]
    elif kind == "result":
        idx = int(header.get("call", -1))
        status = header.get("status")
        if status == "ok":
            value = transport.decode(header.get("value"), blobs)
            outcome.calls[idx] = CallOutcome("ok", value, modified=[str(m) for m in header.get("modified", [])][:10],
                                             seconds=float(header.get("seconds", 0.0)))
        elif status == "banned":
            outcome.calls[idx] = CallOutcome("banned", exc=header.get("exc"))
        else:
            outcome.calls[idx] = CallOutcome("raised", exc=header.get("exc") if isinstance(header.get("exc"), dict) else {})
    elif kind == "done":
        outcome.finished = True
    return current


# ------------------------------------------------------------------- child


def _child(job: Job, limits: Limits, res_w: int, out_w: int) -> None:
    _child_prepare(limits, res_w, out_w)
    sys.stdin = open(os.devnull)  # noqa: SIM115
    os.environ["OMP_NUM_THREADS"] = "1"
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    _run_job(job)


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


def _send(header: dict, blobs: list[bytes] = ()) -> None:
    transport.write_frame(RESULT_FD, header, list(blobs))


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


def _run_job(job: Job) -> None:
    import torch

    from grader import bans

    def on_banned(name: str) -> None:
        _send({"type": "banned", "name": name})

    bans.install(job.banned, job.ban_places, on_banned)
    counts = bans.install_counters(job.must_call, job.count_places) if job.must_call else {}
    module = type(sys)("solution")
    module.__file__ = job.filename
    sys.modules["solution"] = module
    import linecache

    linecache.cache[job.filename] = (len(job.source), None, job.source.splitlines(True), job.filename)
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
    _send({"type": "loaded"})
    missing = [n for n in job.functions if not callable(module.__dict__.get(n))]
    if missing:
        _send({"type": "missing", "names": missing})
    for index, fname, args, names in job.calls:
        func = module.__dict__.get(fname)
        if not callable(func):
            continue
        from grader.cases import fresh

        mine = fresh(args)
        _send({"type": "start", "call": index})
        for name in counts:
            counts[name] = 0
        t = time.perf_counter()
        try:
            with torch.no_grad():
                value = func(*mine)
            seconds = time.perf_counter() - t
            wrong = [(n, counts[n], k) for n, k in job.must_call.items() if counts[n] != k]
            if wrong:
                n, got, k = wrong[0]
                _send({"type": "result", "call": index, "status": "banned", "exc": {
                    "type": "CallCount", "message": f"called {n} {got} time{'s' if got != 1 else ''}; "
                                                    f"this drill requires exactly {k}"}})
                continue
            if hasattr(value, "__next__") and not isinstance(value, torch.Tensor):
                value = _GeneratorMarker()
            blobs: list[bytes] = []
            desc = transport.encode(value, blobs)
            modified = [n for n, a, b in zip(names, args, mine) if not _same(a, b)]
            _send({"type": "result", "call": index, "status": "ok", "value": desc, "modified": modified,
                   "seconds": seconds}, blobs)
        except bans.BannedCall as exc:
            _send({"type": "result", "call": index, "status": "banned", "exc": {"type": "BannedCall", "message": exc.name}})
        except BaseException as exc:  # noqa: BLE001
            _send({"type": "result", "call": index, "status": "raised", "exc": describe_exception(exc, job.filename)})
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:  # noqa: BLE001
        pass
    _send({"type": "done"})


class _GeneratorMarker:
    pass


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
    tracing) in a limited child; it returns a JSON-able dict sent back as one
    frame. Returns (result, problem): problem names a timeout, crash or overflow."""
    job = Job(source="", filename="<work>", functions=[], calls=[])
    res_r, res_w = os.pipe()
    out_r, out_w = os.pipe()
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(res_r)
            os.close(out_r)
            _child_prepare(limits, res_w, out_w)
            try:
                result = work()
            except BaseException as exc:  # noqa: BLE001
                result = {"error": describe_exception(exc, "<work>")}
            _send({"type": "work", "result": result})
            _send({"type": "done"})
        finally:
            os._exit(0)
    os.close(res_w)
    os.close(out_w)
    try:
        os.setpgid(pid, pid)
    except OSError:
        pass
    got: dict[str, Any] = {}
    reader = transport.FrameReader(limits.result_bytes)
    deadline = t0 + limits.case_timeout
    sel = selectors.DefaultSelector()
    sel.register(res_r, selectors.EVENT_READ, "result")
    sel.register(out_r, selectors.EVENT_READ, "output")
    problem = None
    out_count = 0
    try:
        open_fds = 2
        while open_fds:
            left = deadline - time.monotonic()
            if left <= 0:
                problem = f"stopped after {limits.case_timeout:g} s"
                break
            for key, _ in sel.select(timeout=left):
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
                for header, _ in reader.feed(data):
                    if header.get("type") == "work":
                        got = header.get("result") or {}
    except (OverflowError, ValueError) as exc:
        problem = str(exc)
    finally:
        _kill_group(pid)
        os.close(res_r)
        os.close(out_r)
    if not got and problem is None:
        problem = "the child ended without a result"
    return (got or None), problem


def _child_prepare(limits: Limits, res_w: int, out_w: int) -> None:
    """The same isolation as a grading child, without running a job."""
    os.setpgid(0, 0)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(out_w, 1)
    os.dup2(out_w, 2)
    if res_w != RESULT_FD:
        os.dup2(res_w, RESULT_FD)
    os.closerange(RESULT_FD + 1, _max_fd())
    sys.stdout = open(1, "w", buffering=1, closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", buffering=1, closefd=False)  # noqa: SIM115
    import torch

    torch.set_num_threads(1)
    _set_limits(limits)
    from grader import confine

    confine.apply_child()
