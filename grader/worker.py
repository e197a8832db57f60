"""The long-lived grader worker and its client.

`python -m grader.worker` imports torch once, keeps one `Grader` (prepared
cases cached per drill and seed) and forks one sandbox child per submission.
It speaks newline-delimited JSON: one request per line on stdin, one response
per line on stdout. Nothing else is ever written to stdout (stray prints go
to stderr).

Protocol
--------
On start, once torch is imported and the confinement probed, the worker
writes one hello line::

    {"id": 0, "ok": true, "ready": true, "pid": 123, "seconds": 4.1,
     "enforced": {"filesystem": "...", ...}, "not_enforced": {"network": "..."}}

Then, for each request (every request may carry an "id", echoed back)::

    {"id": 1, "op": "grade", "drill": "my-drill", "source": "...",
     "filename": "<buffer>", "seed": 11,          # seed null: this worker's seed for the drill
     "variant": {"mask": "pad"},                  # optional: axis -> value (grader.spec.variants); {} the default
     "comments": false}                           # optional: leave the shape comments out (default true)
    -> {"id": 1, "ok": true, "report": {...Report.to_dict(wire=True): docs/CLI.md's
        object plus the trap's "why", "output" (what it printed) and "alone"}}

    {"id": 9, "op": "comments", "drill": ID, "source": "...", "filename": "<buffer>", "seed": S,
     "variant": {...}}                            -> {"id": 9, "ok": true, "shape_comments": [...]}
       (the report's "shape_comments" on their own: the REPL shows the verdict first and asks
       for these after it, since they cost a traced run of their own)

    {"id": 2, "op": "ping"}                       -> {"id": 2, "ok": true, "pid": 123, "protocol": 1}
    {"id": 3, "op": "prepare", "drill": ID, "seed": S}
                                                  -> {"id": 3, "ok": true, "seed": S, "calls": 8}
    {"id": 4, "op": "trace", "drill": ID, "source": "...", "filename": "<buffer>"}
                                                  -> {"id": 4, "ok": true, "trace": {...}}
       ("at": a "smallest" answer and "seed": the grade's seed run it on that case instead
       of the example)
       (grader.trace.trace(grader, drill_id, source, filename); an error when
       that module is absent)
    {"id": 5, "op": "probe"}                      -> {"id": 5, "ok": true, "features": [
                                                       {"name", "enforced", "detail"}...]}
    {"id": 6, "op": "shutdown"}                   -> {"id": 6, "ok": true, "bye": true}, then it exits
    {"id": 8, "op": "smallest", "report": {...a grade's report}, "source": "...", "filename": "<buffer>"}
                                                  -> {"id": 8, "ok": true, "smallest": {...} or null}
       (grader.judge.smallest on the case the report shows, within its time budget; the
       standby child waiting for the next grade is kept, so that grade stays warm)
    {"id": 7, "op": "cases", "drill": ID, "seed": S, "variant": {...}}
                                                  -> {"id": 7, "ok": true, "seed": S, "cases": "3f9a0c1d2e4b5a69"}
       (grader.cases.case_hash: a hash of the prepared cases, which `drill team` records)

A null seed means the worker's session seed for that drill, chosen at random
once per worker, so a person's repeated submissions are graded on the same
cases (and "seed" in the report says which). "prepare" builds the cases and
grades an empty file once; after answering a grade or prepare, the worker
forks the next sandbox child ahead of time (it waits, confined, for the
source), so the next submission of that drill and seed skips the fork.

Any failure answers ``{"id": n, "ok": false, "error": "..."}`` (an unknown
drill id or variant also carries ``"kind": "usage"``, and ``"variant": true`` for a variant)
and the worker carries on. End of
stdin ends the worker.

`WorkerClient` (importable without torch) starts the worker in the
background at once, restarts it when it dies (retrying the request once) and
turns an unanswerable grade into a report with verdict ``internal``::

    client = WorkerClient()                     # returns at once; torch loads in the worker
    report = client.grade("my-drill", source, "<buffer>", seed=None, timeout=120)
    client.trace(drill, source, filename)       # grader.trace's dict, or {"error": ...}
    client.smallest(report, source, filename)   # grader.report.Smallest, or None
    client.shape_comments(drill, source, filename, seed)  # a report's shape_comments, asked for after it
    client.prepare(drill, seed)                 # warm the cases and the standby child
    client.case_hash(drill, seed)               # grader.cases.case_hash of those cases, or None
    client.request({"op": "ping"})              # any raw request -> its response
    client.wait_ready()                         # the hello (what is enforced)
    client.close()                              # never waits on a request in flight

`grade` raises grader.errors.UnknownDrill, the catalogue's own error, for an unknown drill id.
"""
from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO, Any

from grader.errors import UnknownDrill, UsageError
from grader.report import Report, Smallest, internal_report

PROTOCOL = 1


# ===================================================================== worker


class Worker:
    """Answers requests with one in-process Grader (torch imported on creation)."""

    def __init__(self) -> None:
        from grader import sandbox

        sandbox.ZYGOTE.start()  # before torch is imported here: the zygote imports it at the same time
        from grader.engine import Grader

        self.grader = Grader()
        self.session_seeds: dict[str, int] = {}  # drill -> the seed used when a request gives none
        sandbox.parent_ready()

    def after_answer(self, request: Any) -> None:
        """Idle work once an answer is out: fork the next sandbox child ahead of time."""
        if isinstance(request, dict) and request.get("op") in ("grade", "prepare"):
            from grader import sandbox

            try:
                sandbox.prefork()
            except Exception:  # noqa: BLE001, S110 - an optimisation; the next grade forks afresh
                pass

    def handle(self, request: Any) -> dict[str, Any]:
        if not isinstance(request, dict):
            return {"id": None, "ok": False, "error": "a request must be a JSON object"}
        rid = request.get("id")
        op = request.get("op")
        handler = getattr(self, f"op_{op}", None) if isinstance(op, str) else None
        if handler is None:
            return {"id": rid, "ok": False, "error": f"unknown op {op!r}"}
        try:
            answer = handler(request)
        except UnknownDrill as exc:
            return {"id": rid, "ok": False, "kind": "usage", "error": str(exc)}
        except UsageError as exc:  # an unknown variant axis or value
            return {"id": rid, "ok": False, "kind": "usage", "variant": True, "error": str(exc)}
        except Exception as exc:  # noqa: BLE001 - the worker must survive anything
            return {"id": rid, "ok": False, "error": f"{type(exc).__name__}: {exc}"}
        return {"id": rid, "ok": True, **answer}

    # ---------------------------------------------------------------- ops

    def op_ping(self, request: dict) -> dict[str, Any]:
        return {"pid": os.getpid(), "protocol": PROTOCOL}

    def op_grade(self, request: dict) -> dict[str, Any]:
        drill, source = _text(request, "drill"), _text(request, "source")
        filename = str(request.get("filename") or "<buffer>")
        report = self.grader.grade(drill, source, filename, self._seed_for(drill, request),
                                   variant=_variant(request), comments=request.get("comments") is not False)
        return {"report": report.to_dict(wire=True)}

    def op_comments(self, request: dict) -> dict[str, Any]:
        drill, source = _text(request, "drill"), _text(request, "source")
        found = self.grader.shape_comments(drill, source, str(request.get("filename") or "<buffer>"),
                                           self._seed_for(drill, request), _variant(request))
        return {"shape_comments": found}

    def op_prepare(self, request: dict) -> dict[str, Any]:
        spec = self.grader.spec(_text(request, "drill"), _variant(request))
        seed = self._seed_for(spec.id, request)
        prep = self.grader.prepared(spec, seed)
        if spec.banned:
            self.grader.ban_places(spec)
        self.grader.grade_prepared(prep, "", "<warm-up>")  # an empty file: records the job for the standby child
        return {"seed": seed, "calls": len(prep.calls)}

    def op_cases(self, request: dict) -> dict[str, Any]:
        from grader.cases.case_hash import case_hash

        spec = self.grader.spec(_text(request, "drill"), _variant(request))
        seed = self._seed_for(spec.id, request)
        return {"seed": seed, "cases": case_hash(self.grader.prepared(spec, seed))}

    def _seed_for(self, drill: str, request: dict) -> int:
        """The request's seed, or this worker's session seed for the drill (chosen once),
        so repeated submissions reuse the prepared cases and the standby child."""
        from grader.cases.prepare import new_seed

        seed = _seed(request)
        if seed is None:
            seed = self.session_seeds.setdefault(drill, new_seed())
        return seed

    def op_trace(self, request: dict) -> dict[str, Any]:
        from grader import trace
        at = Smallest.from_dict(request.get("at"))  # :try on the smallest failing case, graded on `seed`
        seed = _seed(request)
        result = trace.trace(self.grader, _text(request, "drill"), _text(request, "source"),
                             str(request.get("filename") or "<buffer>"), seed=seed if seed is not None else 1,
                             at=at, variant=_variant(request))
        return {"trace": result}

    def op_smallest(self, request: dict) -> dict[str, Any]:
        report = Report.from_dict(request.get("report"))
        budget = request.get("budget")
        found = self.grader.smallest(report, _text(request, "source"), str(request.get("filename") or "<buffer>"),
                                     **({"budget": float(budget)} if isinstance(budget, (int, float)) else {}))
        return {"smallest": found.to_dict() if found is not None else None}

    def op_probe(self, request: dict) -> dict[str, Any]:
        from grader.sandbox import confine

        return {"features": [{"name": f.name, "enforced": f.enforced, "detail": f.detail} for f in confine.probe()]}

    def op_shutdown(self, request: dict) -> dict[str, Any]:
        return {"bye": True}


def _text(request: dict, key: str) -> str:
    value = request.get(key)
    if not isinstance(value, str):
        raise ValueError(f"{key!r} must be a string")
    return value


def _variant(request: dict) -> dict[str, str]:
    variant = request.get("variant") or {}
    if not isinstance(variant, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in variant.items()):
        raise ValueError("'variant' must be an object of text values (axis -> value)")
    return variant


def _seed(request: dict) -> int | None:
    seed = request.get("seed")
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError("'seed' must be an integer or null")
    return seed


def _protocol_channel() -> IO[str]:
    """Keep the real stdout for responses; send fd 1 (stray prints) to stderr."""
    channel = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return channel


def _hello(started: float) -> dict[str, Any]:
    from grader.sandbox import confine

    features = confine.probe()
    return {
        "id": 0, "ok": True, "ready": True, "pid": os.getpid(), "protocol": PROTOCOL,
        "seconds": round(time.monotonic() - started, 3),
        "enforced": {f.name: f.detail for f in features if f.enforced and f.name in confine.PIECES},
        "not_enforced": {f.name: f.detail for f in features if not f.enforced and f.name in confine.PIECES},
    }


def main() -> int:
    started = time.monotonic()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C belongs to the REPL, which asks first
    channel = _protocol_channel()
    worker = Worker()
    channel.write(json.dumps(_hello(started)) + "\n")
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except ValueError as exc:
            answer: dict[str, Any] = {"id": None, "ok": False, "error": f"not JSON: {exc}"}
        else:
            answer = worker.handle(request)
        try:
            channel.write(json.dumps(answer) + "\n")
        except (TypeError, ValueError) as exc:
            channel.write(json.dumps({"id": answer.get("id"), "ok": False, "error": f"unencodable answer: {exc}"}) + "\n")
        if isinstance(request, dict) and request.get("op") == "shutdown" and answer.get("ok"):
            break
        worker.after_answer(request)
    from grader import sandbox

    sandbox.STANDBY.discard()
    return 0


# ===================================================================== client


class WorkerError(Exception):
    """The worker could not answer (it died twice, timed out, or never started)."""

    final: bool = False  # True when retrying would only fail the same way (a timeout)


class WorkerClient:
    """Talks to `python -m grader.worker`. Importing this module does not import torch.

    The worker starts in the background on construction; the first request
    blocks until it is ready. A worker that dies is restarted and the request
    retried once; a grade that cannot be answered comes back as an `internal`
    report, never as an exception.
    """

    def __init__(self, command: list[str] | None = None, env: dict[str, str] | None = None,
                 start_timeout: float = 180.0):
        self.command = command or [sys.executable, "-m", "grader.worker"]
        self.env = env
        self.start_timeout = start_timeout
        self.hello: dict[str, Any] = {}
        self.restarts = 0
        self._lock = threading.Lock()
        self._next_id = 1
        self._proc: subprocess.Popen | None = None
        self._buf = bytearray()
        self._ready = False
        self._stderr: IO[bytes] | None = None
        self._closed = False
        self._start()

    # ------------------------------------------------------------- public

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    def wait_ready(self, timeout: float | None = None) -> dict[str, Any]:
        """Block until the worker has said hello; returns the hello."""
        with self._lock:
            self._ensure_ready(time.monotonic() + (timeout or self.start_timeout))
            return dict(self.hello)

    def request(self, payload: dict[str, Any], timeout: float = 120.0) -> dict[str, Any]:
        """Send one request; returns the response ({"ok": false, "error"} when unanswerable)."""
        with self._lock:
            for attempt in (1, 2):
                if self._closed:
                    return {"id": payload.get("id"), "ok": False, "error": "the worker client is closed"}
                try:
                    return self._exchange(payload, timeout)
                except WorkerError as exc:
                    self._stop()
                    if attempt == 2 or exc.final or self._closed:
                        return {"id": payload.get("id"), "ok": False, "error": str(exc)}
                    self.restarts += 1
                    self._start()
        return {"ok": False, "error": "unreachable"}  # pragma: no cover

    def grade(self, drill_id: str, source: str, filename: str = "<buffer>", seed: int | None = None,
              timeout: float = 120.0, variant: dict[str, str] | None = None, comments: bool = True) -> Report:
        """The worker's Report, under `variant` (the default when None); verdict `internal` when it cannot
        answer. `comments=False`: without the shape comments (ask `shape_comments` after)."""
        t0 = time.monotonic()
        request: dict[str, Any] = {"op": "grade", "drill": drill_id, "source": source, "filename": filename,
                                   "seed": seed, "variant": dict(variant or {})}
        if not comments:
            request["comments"] = False
        answer = self.request(request, timeout)
        if answer.get("ok") and isinstance(answer.get("report"), dict):
            return Report.from_dict(answer["report"])
        if answer.get("kind") == "usage" and answer.get("variant"):
            raise UsageError(str(answer.get("error")))
        if answer.get("kind") == "usage":
            raise UnknownDrill(str(answer.get("error")))  # the catalogue's own error, its message kept
        return internal_report(drill_id, seed, f"the grader could not answer: {answer.get('error')}",
                               time.monotonic() - t0)

    def prepare(self, drill_id: str, seed: int | None = None, timeout: float = 120.0,
                variant: dict[str, str] | None = None) -> dict[str, Any]:
        return self.request({"op": "prepare", "drill": drill_id, "seed": seed, "variant": dict(variant or {})}, timeout)

    def case_hash(self, drill_id: str, seed: int | None, timeout: float = 120.0,
                  variant: dict[str, str] | None = None) -> str | None:
        """The hash of the cases this drill is graded on with ``seed`` under ``variant``; None when
        the worker cannot say."""
        answer = self.request({"op": "cases", "drill": drill_id, "seed": seed, "variant": dict(variant or {})}, timeout)
        cases = answer.get("cases") if answer.get("ok") else None
        return cases if isinstance(cases, str) else None

    def trace(self, drill_id: str, source: str, filename: str = "<buffer>", timeout: float = 120.0,
              at: Smallest | None = None, seed: int | None = None,
              variant: dict[str, str] | None = None) -> dict[str, Any]:
        request: dict[str, Any] = {"op": "trace", "drill": drill_id, "source": source, "filename": filename,
                                   "variant": dict(variant or {})}
        if at is not None:
            request.update(at=at.to_dict(), seed=seed)
        answer = self.request(request, timeout)
        if answer.get("ok"):
            return answer.get("trace") or {}
        return {"error": answer.get("error", "the grader could not answer")}

    def smallest(self, report: Report, source: str, filename: str = "<buffer>",
                 timeout: float = 60.0) -> Smallest | None:
        """The smallest failing sizes of the case `report` shows (grader.judge.smallest); None
        when there is nothing to shrink or the worker cannot say."""
        answer = self.request({"op": "smallest", "report": report.to_dict(wire=True), "source": source,
                               "filename": filename}, timeout)
        return Smallest.from_dict(answer.get("smallest")) if answer.get("ok") else None

    def shape_comments(self, drill_id: str, source: str, filename: str = "<buffer>", seed: int | None = None,
                       timeout: float = 60.0, variant: dict[str, str] | None = None) -> list[dict[str, Any]] | None:
        """A report's shape comments on their own (grader.judge.shape_comments); None when the worker cannot say."""
        answer = self.request({"op": "comments", "drill": drill_id, "source": source, "filename": filename,
                               "seed": seed, "variant": dict(variant or {})}, timeout)
        found = answer.get("shape_comments") if answer.get("ok") else None
        return [c for c in found if isinstance(c, dict)] if isinstance(found, list) else None

    def ping(self, timeout: float = 120.0) -> dict[str, Any]:
        return self.request({"op": "ping"}, timeout)

    def close(self) -> None:
        """Shut the worker down; a request still in flight gets an error at once."""
        self._closed = True
        if not self._lock.acquire(timeout=0.2):
            proc = self._proc  # busy: end it, the waiting request sees the pipe close
            if proc is not None and proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            return
        try:
            if self._proc and self._proc.poll() is None and self._ready:
                try:
                    self._send({"id": 0, "op": "shutdown"})
                    self._proc.wait(timeout=2)
                except (OSError, subprocess.TimeoutExpired, WorkerError):
                    pass
            self._stop()
        finally:
            self._lock.release()

    def __enter__(self) -> WorkerClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:  # pragma: no cover - best effort
        try:
            self._stop()
        except Exception:  # noqa: BLE001, S110 - best-effort cleanup at interpreter exit; nothing to report to
            pass

    # ------------------------------------------------------------ private

    def _start(self) -> None:
        env = dict(os.environ if self.env is None else self.env)
        root = str(Path(__file__).resolve().parent.parent)
        env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the worker; _stop closes it
        self._buf = bytearray()
        self._ready = False
        self._proc = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=self._stderr, env=env, start_new_session=True, close_fds=True)

    def _stop(self) -> None:
        proc, self._proc = self._proc, None
        self._ready = False
        if proc is not None:
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    proc.kill()
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:  # pragma: no cover
                pass
            for stream in (proc.stdin, proc.stdout):
                if stream is None:
                    continue
                try:
                    stream.close()
                except (OSError, AttributeError):
                    pass
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def _ensure_ready(self, deadline: float) -> None:
        if self._proc is None:
            self._start()
        if self._ready:
            return
        hello = self._read_line(deadline, "starting")
        if not hello.get("ready"):
            raise WorkerError(f"the worker said {hello!r} instead of hello")
        self.hello = hello
        self._ready = True

    def _exchange(self, payload: dict[str, Any], timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        self._ensure_ready(max(deadline, time.monotonic() + self.start_timeout))
        rid = self._next_id
        self._next_id += 1
        self._send({**payload, "id": rid})
        while True:
            answer = self._read_line(deadline, "answering")
            if answer.get("id") == rid:
                return answer

    def _send(self, payload: dict[str, Any]) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        try:
            self._proc.stdin.write(json.dumps(payload).encode() + b"\n")
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError) as exc:
            raise WorkerError(f"the worker is gone ({exc}){self._stderr_tail()}") from exc

    def _read_line(self, deadline: float, doing: str) -> dict[str, Any]:
        assert self._proc is not None and self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while b"\n" not in self._buf:
                left = deadline - time.monotonic()
                if left <= 0:
                    exc = WorkerError(f"the worker took longer than allowed while {doing}")
                    exc.final = True  # retrying would take as long again
                    raise exc
                if not sel.select(timeout=left):
                    continue
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    self._proc.wait(timeout=5)
                    raise WorkerError(f"the worker stopped (exit status {self._proc.returncode}) while {doing}"
                                      f"{self._stderr_tail()}")
                self._buf += chunk
        line, _, rest = bytes(self._buf).partition(b"\n")
        self._buf = bytearray(rest)
        try:
            answer = json.loads(line)
        except ValueError as exc:
            raise WorkerError(f"the worker sent something that is not JSON: {line[:80]!r}") from exc
        return answer if isinstance(answer, dict) else {"ok": False, "error": "not an object"}

    def _stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        try:
            self._stderr.seek(0, os.SEEK_END)
            size = self._stderr.tell()
            self._stderr.seek(max(0, size - 600))
            tail = self._stderr.read().decode("utf-8", "replace").strip()
        except OSError:
            return ""
        return f": {tail.splitlines()[-1]}" if tail else ""


if __name__ == "__main__":
    sys.exit(main())
