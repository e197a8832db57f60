"""The parent's side of the result channel: every frame checked before it counts.

The sandbox child writes frames (grader.transport framing) on one pipe. Its
trusted code writes them in a fixed order; the solution, running in the same
process, can write anything to the same descriptor. So the parent accepts a
frame only when its type may come at that point, every field has the type
and size it must have, and a returned value is nested no deeper than the
child ever encodes. Anything else raises `ProtocolError`, which the sandbox
records as the solution's fault (verdict `error`): a forged frame can never
turn a run into `internal`, and an ill-typed one never reaches code that
would trip over it.

The order the child writes (`grader.sandbox.child._run_job`):

    confined, then either  refused, done          (confinement required and missing)
    or  start -1, banned*, then one of
            load_error, done  |  (banned seen) done  |  loaded, missing?, call*, done
    where a call is  start i, banned*, result i   (i increasing, in the job's order)

A `work` run (`sandbox.run_json`) is  confined, (refused, done | step*, work, done); a step is
one op the `:try` tracer recorded (grader.trace), kept here as it arrives.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from grader import transport
from grader.fake import FAKE_CALL, GRADIENT_CALL
from grader.sandbox.limits import CallOutcome

MAX_VALUE_DEPTH = 8  # containers inside a returned value; the child's encoder stops at 5
MAX_STEPS = 4000  # step frames one work run may send (grader.trace sends at most 400 per function)
_EXC_KEYS = {"type", "mro", "message", "line", "text", "trace"}


class ProtocolError(Exception):
    """A frame out of sequence, ill-typed or too deep: the solution wrote on the channel."""


def _str(value: Any, what: str, limit: int = 4000) -> str:
    if not isinstance(value, str) or len(value) > limit:
        raise ProtocolError(f"{what} is not a string of at most {limit} characters")
    return value


def _int(value: Any, what: str, low: int = -2**62, high: int = 2**62) -> int:
    """An integer within [low, high]: a 400-digit one is a forged frame, never an OverflowError downstream."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise ProtocolError(f"{what} is not an integer")
    if not low <= value <= high:
        raise ProtocolError(f"{what} is out of range")
    return value


def _bool(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise ProtocolError(f"{what} is not true or false")
    return value


def _strings(value: Any, what: str, count: int, limit: int = 400) -> list[str]:
    if not isinstance(value, list) or len(value) > count:
        raise ProtocolError(f"{what} is not a list of at most {count} strings")
    return [_str(v, what, limit) for v in value]


def _str_map(value: Any, what: str) -> dict[str, str]:
    if not isinstance(value, dict) or len(value) > 20:
        raise ProtocolError(f"{what} is not a small object of strings")
    return {_str(k, what, 40): _str(v, what, 400) for k, v in value.items()}


def check_exc(value: Any) -> dict[str, Any]:
    """An exception description (sandbox.describe_exception)."""
    if not isinstance(value, dict) or not set(value) <= _EXC_KEYS:
        raise ProtocolError("an exception description with unknown fields")
    out: dict[str, Any] = {"type": _str(value.get("type", "Exception"), "exception type", 200)}
    if "mro" in value:
        out["mro"] = _strings(value["mro"], "exception classes", 16, 200)
    out["message"] = _str(value.get("message", ""), "exception message", 4000)
    line = value.get("line")
    out["line"] = None if line is None else _int(line, "exception line", 0, 10**9)
    out["text"] = _str(value.get("text", ""), "exception source line", 400)
    out["trace"] = _strings(value.get("trace", []), "exception trace", 10)
    return out


def check_value(desc: Any, blobs: int, depth: int = 0) -> None:
    """A returned value's description (transport.encode), nested at most MAX_VALUE_DEPTH."""
    if depth > MAX_VALUE_DEPTH:
        raise ProtocolError("a returned value nested too deeply")
    if not isinstance(desc, dict):
        raise ProtocolError("a returned value that is not described by an object")
    kind = desc.get("t")
    if kind == "tensor":
        _check_tensor(desc, blobs)
    elif kind in ("oversized", "foreign"):
        _check_unsent(desc)
    elif kind == "bool":
        if not isinstance(desc.get("v"), bool):
            raise ProtocolError("a bool that is not true or false")
    elif kind in ("int", "float"):
        _str(desc.get("v"), kind, 5000)
        if "via" in desc:
            _str(desc.get("via"), "type name", 200)
    elif kind in ("tuple", "list"):
        items = desc.get("items")
        if not isinstance(items, list) or len(items) > 64:
            raise ProtocolError("a sequence of more than 64 items")
        for item in items:
            check_value(item, blobs, depth + 1)
    elif kind != "none":
        raise ProtocolError("a returned value of an unknown kind")


def _check_tensor(desc: dict[str, Any], blobs: int) -> None:
    if desc.get("dtype") not in transport.DTYPE_NAMES:
        raise ProtocolError("a tensor of an unknown dtype")
    _shape(desc.get("shape"))
    if not 0 <= _int(desc.get("blob"), "tensor blob") < blobs:
        raise ProtocolError("a tensor whose bytes are missing")


def _check_unsent(desc: dict[str, Any]) -> None:
    """A value described but not sent: too big ("oversized"), or of a type the transport does not carry."""
    _str(desc.get("type", ""), "type name", 200)
    _str(desc.get("detail", ""), "detail", 400)
    if desc.get("shape") is not None:
        _shape(desc.get("shape"))
    if desc.get("dtype") is not None:
        _str(desc.get("dtype"), "dtype", 60)


def _shape(value: Any) -> None:
    if not isinstance(value, list) or len(value) > 32:
        raise ProtocolError("a shape that is not a short list")
    for size in value:
        if _int(size, "a size") < 0 or size > 2**62:
            raise ProtocolError("a size out of range")


class Channel:
    """Checks the frames of one run in order and records them on a ChildOutcome.

    `calls` is the job's call order as (index, function name, argument names);
    `functions` the names the job asks for. `feed` raises ProtocolError."""

    def __init__(self, outcome: Any, calls: Sequence[tuple[int, str, list[str]]] = (), functions: Sequence[str] = (),
                 work: bool = False, fake: bool = False, gradient: Sequence[tuple[int, int]] = ()):
        self.outcome = outcome
        self.fake = fake  # the job asked for the fake-tensor runs (grader.fake.checks), after the calls
        # the gradient case (grader.cases.gradient): (call index, inputs that require grad), in order, after
        # the calls and the fake-tensor runs, last; the child sends one frame per entry
        self.gradient = list(gradient)
        self.gradient_next = 0
        self.starts = 0  # every "start" frame: each one opens a new case deadline
        self.order = [i for i, _, _ in calls]
        self.args = {i: set(names) for i, _, names in calls}
        self.functions = set(functions)
        self.work = work
        self.phase = "begin"
        self.current: int | None = None  # the call under way (-1 while the file loads)
        self.position = -1  # where in `order` the last call started
        self.banned_at_load = False
        self.result: dict[str, Any] | None = None  # a work run's result
        self.steps: list[dict[str, Any]] = []  # a work run's step frames, as they came (grader.trace)

    def feed(self, header: Any, blobs: list[bytes]) -> None:
        if not isinstance(header, dict):
            raise ProtocolError("a frame that is not an object")
        kind = header.get("type")
        if not isinstance(kind, str):
            raise ProtocolError("a frame without a type")
        if blobs and not (kind in ("result", "gradient") and header.get("status") == "ok"):
            raise ProtocolError(f"a {kind!r} frame carrying bytes")
        handler = getattr(self, f"_{self.phase}_{kind}", None)
        if handler is None:
            raise ProtocolError(f"a {kind[:40]!r} frame out of sequence")
        allowed = _KEYS.get(kind, set()) | {"type", "blob_sizes"}
        if not set(header) <= allowed:
            raise ProtocolError(f"a {kind!r} frame with unknown fields")
        handler(header, blobs)

    # -- begin: the child's trusted set-up reports its confinement first
    def _begin_confined(self, h: dict, _b: list) -> None:
        self.outcome.confined = _str_map(h.get("enforced", {}), "confinement")
        self.outcome.unconfined = _str_map(h.get("missing", {}), "confinement")
        self.phase = "confined"

    def _confined_refused(self, h: dict, _b: list) -> None:
        self.outcome.refused = True
        self.phase = "ending"

    def _confined_start(self, h: dict, _b: list) -> None:
        if self.work or _int(h.get("call"), "call") != -1:
            raise ProtocolError("the first call is not the file's loading")
        self.starts += 1
        self.current = -1
        self.phase = "loading"

    def _confined_step(self, h: dict, _b: list) -> None:
        if not self.work:
            raise ProtocolError("a 'step' frame in a grading run")
        if len(self.steps) >= MAX_STEPS:
            raise ProtocolError(f"more than {MAX_STEPS} steps")
        shape = h.get("shape")
        if not isinstance(shape, list) or len(shape) > 16:
            raise ProtocolError("a step's shape is not a list of at most 16 sizes")
        self.steps.append({"call": _int(h.get("call"), "a step's call", 0, 1024),
                           "line": _int(h.get("line"), "a step's line", 1, 10**6),
                           "op": _str(h.get("op"), "a step's op", 80),
                           "shape": [_int(n, "a step's size", 0, 2**62) for n in shape],
                           "dtype": _str(h.get("dtype"), "a step's dtype", 40)})

    def _confined_work(self, h: dict, _b: list) -> None:
        if not self.work:
            raise ProtocolError("a 'work' frame in a grading run")
        result = h.get("result")
        if not isinstance(result, dict):
            raise ProtocolError("a work result that is not an object")
        self.result = result
        self.phase = "ending"

    # -- loading the solution file
    def _loading_banned(self, h: dict, _b: list) -> None:
        self._banned(h)
        self.banned_at_load = True

    def _loading_load_error(self, h: dict, _b: list) -> None:
        self.outcome.load_error = check_exc(h.get("exc"))
        self.phase = "ending"

    def _loading_done(self, h: dict, _b: list) -> None:
        if not self.banned_at_load:
            raise ProtocolError("'done' before the file finished loading")
        self._done(h)

    def _loading_loaded(self, h: dict, _b: list) -> None:
        self.current = None
        self.phase = "loaded"

    # -- between calls
    def _loaded_missing(self, h: dict, _b: list) -> None:
        if self.position != -1 or self.outcome.missing:
            raise ProtocolError("'missing' after the calls began")
        names = _strings(h.get("names"), "missing names", 64)
        if not set(names) <= self.functions:
            raise ProtocolError("'missing' names a function the drill does not ask for")
        self.outcome.missing = names[:20]

    def _loaded_start(self, h: dict, _b: list) -> None:
        index = _int(h.get("call"), "call")
        self.starts += 1
        if self.gradient and index == GRADIENT_CALL and self.gradient_next == 0:
            if self.fake:
                raise ProtocolError("the gradient case began before the fake-tensor runs")
            self._start_gradient(index)
            return
        if self.fake and index == FAKE_CALL:
            self.current = index
            self.phase = "faking"
            return
        later = self.order[self.position + 1:]
        if index not in later:
            raise ProtocolError(f"call {index} started out of order")
        self.position += later.index(index) + 1
        self.current = index
        self.phase = "calling"

    def _loaded_banned(self, h: dict, _b: list) -> None:
        self._banned(h)

    def _loaded_done(self, h: dict, _b: list) -> None:
        if self.gradient:  # the child always sends the gradient case the parent asked for
            raise ProtocolError("'done' without the gradient case the grader asked for")
        if self.fake:  # the child always sends the report the parent asked for (grader.sandbox.child._run_fake)
            raise ProtocolError("'done' without the fake-tensor report the grader asked for")
        self._done(h)

    # -- during a call
    def _calling_banned(self, h: dict, _b: list) -> None:
        self._banned(h)

    def _calling_result(self, h: dict, blobs: list[bytes]) -> None:
        index = _int(h.get("call"), "call")
        if index != self.current:
            raise ProtocolError(f"a result for call {index} while call {self.current} runs")
        status = h.get("status")
        if status == "ok":
            check_value(h.get("value"), len(blobs))
            modified = _strings(h.get("modified", []), "modified arguments", 32, 200)
            if not set(modified) <= self.args.get(index, set()):
                raise ProtocolError("'modified' names an argument the call does not have")
            seconds = h.get("seconds", 0.0)
            if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or not math.isfinite(seconds) \
                    or seconds < 0:
                raise ProtocolError("a call time that is not a finite number")
            try:
                value = transport.decode(h.get("value"), blobs)
            except Exception as exc:  # noqa: BLE001 - whatever a forged value trips over is a forged value
                raise ProtocolError(f"a returned value that cannot be rebuilt ({type(exc).__name__})") from exc
            self.outcome.calls[index] = CallOutcome("ok", value, modified=modified, seconds=float(seconds))
        elif status in ("banned", "raised"):
            if "value" in h or "modified" in h or "seconds" in h:
                raise ProtocolError(f"a {status!r} result with a value")
            self.outcome.calls[index] = CallOutcome(status, exc=check_exc(h.get("exc")))
        else:
            raise ProtocolError("a result with an unknown status")
        self.current = None
        self.phase = "loaded"

    # -- the gradient case (grader.cases.gradient), after the calls: one frame per planned call, in order
    def _grading_gradient(self, h: dict, blobs: list[bytes]) -> None:
        index = _int(h.get("call"), "call")
        if self.gradient_next >= len(self.gradient) or index != self.gradient[self.gradient_next][0]:
            raise ProtocolError(f"a gradient for call {index} out of order")
        wanted = self.gradient[self.gradient_next][1]
        status = h.get("status")
        entry: dict[str, Any] = {"status": status}
        if status == "ok":
            descs = h.get("grads")
            if not isinstance(descs, list) or len(descs) != wanted:
                raise ProtocolError("a gradient frame with another number of gradients than asked for")
            grads: list[Any] = []
            for desc in descs:
                if desc is None:
                    grads.append(None)
                    continue
                check_value(desc, len(blobs))
                try:
                    value = transport.decode(desc, blobs)
                except Exception as exc:  # noqa: BLE001 - whatever a forged gradient trips over is forged
                    raise ProtocolError(f"a gradient that cannot be rebuilt ({type(exc).__name__})") from exc
                grads.append(value)
            entry["grads"] = grads
        elif status in ("raised", "backward"):
            if blobs or "grads" in h:
                raise ProtocolError(f"a {status!r} gradient frame with gradients")
            entry["text"] = _str(h.get("text", ""), "why the gradient case failed", 600)
            if "line" in h:
                entry["line"] = _int(h.get("line"), "line")
                entry["source"] = _str(h.get("source", ""), "the line's text", 200)
        else:
            raise ProtocolError("a gradient frame with an unknown status")
        assert self.outcome.gradients is not None
        self.outcome.gradients[index] = entry
        self.gradient_next += 1

    def _grading_banned(self, h: dict, _b: list) -> None:
        self._banned(h)

    def _start_gradient(self, index: int) -> None:
        self.current = index
        self.phase = "grading"
        self.outcome.gradients = {}

    def skip_gradient(self) -> None:
        """The parent told a reused child to skip its gradient case (grader.sandbox.reuse.answer): no gradient
        frame may come, and "done" ends the run."""
        self.gradient = []
        self.gradient_next = 0

    def _grading_done(self, h: dict, _b: list) -> None:
        if self.gradient_next != len(self.gradient):
            raise ProtocolError("'done' before every gradient came back")
        self._done(h)

    # -- the fake-tensor runs (grader.fake.checks), after the calls: one "start" per function, one report
    def _faking_start(self, h: dict, _b: list) -> None:
        if _int(h.get("call"), "call") != FAKE_CALL:
            raise ProtocolError("a call started during the fake-tensor runs")
        self.starts += 1

    def _faking_banned(self, h: dict, _b: list) -> None:
        self._banned(h)

    def _faking_fake(self, h: dict, _b: list) -> None:
        self.outcome.fake = check_fake_report(h.get("runs"), self.functions)
        if "failed" in h:
            self.outcome.fake_failed = _str(h.get("failed"), "why the fake-tensor runs failed", 400)
        self.current = None
        self.phase = "faked"

    def _faked_banned(self, h: dict, _b: list) -> None:
        self._banned(h)

    def _faked_start(self, h: dict, _b: list) -> None:
        if not self.gradient or _int(h.get("call"), "call") != GRADIENT_CALL:
            raise ProtocolError("a call started after the fake-tensor runs")
        self.starts += 1
        self._start_gradient(GRADIENT_CALL)

    def _faked_done(self, h: dict, _b: list) -> None:
        if self.gradient:  # the child always sends the gradient case the parent asked for
            raise ProtocolError("'done' without the gradient case the grader asked for")
        self._done(h)

    # -- the end
    def _ending_done(self, h: dict, _b: list) -> None:
        self._done(h)

    def _banned(self, h: dict) -> None:
        name = _str(h.get("name"), "banned name", 400)
        self.outcome.banned = self.outcome.banned or name[:120]

    def _done(self, h: dict | None = None) -> None:
        if h and "tampered" in h:  # names of the grader's code the solution replaced (grader.sandbox.intact)
            self.outcome.tampered = _strings(h.get("tampered"), "replaced names", 16, 200)
        if h and "reusable" in h:  # a reused child (grader.sandbox.reuse): the run left it as it found it
            self.outcome.reusable = _bool(h.get("reusable"), "reusable")
        self.outcome.finished = True
        self.phase = "done"


_KEYS = {
    "confined": {"enforced", "missing"}, "start": {"call"}, "banned": {"name"}, "load_error": {"exc"},
    "missing": {"names"}, "result": {"call", "status", "value", "modified", "seconds", "exc"}, "work": {"result"},
    "step": {"call", "line", "op", "shape", "dtype"},
    "fake": {"runs", "failed"}, "done": {"tampered", "reusable"},
    "gradient": {"call", "status", "grads", "text", "line", "source"},
}


# -- the fake-tensor report (grader.fake.checks.run_plan): every field typed and ranged
_RUN_KEYS = {"device", "sizes", "status", "outputs", "peak", "culprit", "ops", "unknown_bytes", "upper_bound",
             "exc", "made_at", "fresh_bytes", "why", "data_moved"}
_MAX_BYTES = 2**100  # fake tensors can be absurd (an N^3 intermediate at production N); a 400-digit one is forged


def check_fake_report(value: Any, functions: set[str]) -> list[dict[str, Any]]:
    """The fake-tensor report, rebuilt from checked fields only: one entry per function
    the job asks for, each with at most two runs (grader.fake.checks.run_plan)."""
    if not isinstance(value, list) or len(value) > 64:
        raise ProtocolError("a fake-tensor report that is not a short list")
    out: list[dict[str, Any]] = []
    for entry in value:
        if not isinstance(entry, dict) or not set(entry) <= {"function", "runs", "failed"}:
            raise ProtocolError("a fake-tensor report entry with unknown fields")
        name = _str(entry.get("function"), "fake-tensor function", 200)
        if name not in functions or any(e["function"] == name for e in out):
            raise ProtocolError("a fake-tensor report for a function the drill does not ask for, or twice")
        runs = entry.get("runs")
        if not isinstance(runs, list) or len(runs) > 3 + 2 * _MAX_GROWN:
            raise ProtocolError("a fake-tensor report with more runs of one function than the plan asks for")
        checked: dict[str, Any] = {"function": name, "runs": [_check_fake_run(r) for r in runs]}
        if "failed" in entry:
            checked["failed"] = _str(entry.get("failed"), "why a fake-tensor run failed", 400)
        out.append(checked)
    return out


_MAX_GROWN = 32  # runs at the scale sizes with one dimension doubled (grader.fake.checks._grown_runs)
_GROWN_KEYS = {"sizes", "dim", "status", "peak", "unknown_bytes"}


def _check_grown_run(run: dict[str, Any]) -> dict[str, Any]:
    """A run with one dimension doubled: only its peak comes back (grader.fake.growth)."""
    if not set(run) <= _GROWN_KEYS or run.get("status") not in ("ok", "raised", "too_many_ops"):
        raise ProtocolError("a fake-tensor run at doubled sizes with unknown fields or status")
    return {"sizes": "grown", "dim": _str(run.get("dim"), "a doubled dimension", 40), "status": run["status"],
            "peak": _int(run.get("peak") or 0, "fake-tensor peak", 0, _MAX_BYTES),
            "unknown_bytes": _bool(run.get("unknown_bytes") or False, "unknown_bytes")}


def _check_real_run(run: dict[str, Any]) -> dict[str, Any]:
    """A run on real CPU tensors at reduced sizes (grader.fake.real.runs): only its status and peak come back."""
    if not set(run) <= _GROWN_KEYS - {"unknown_bytes"} or run.get("status") not in ("ok", "raised", "too_many_ops"):
        raise ProtocolError("a real-tensor memory run with unknown fields or status")
    return {"sizes": "real", "dim": _str(run.get("dim", ""), "a doubled dimension", 40), "status": run["status"],
            "peak": _int(run.get("peak") or 0, "real-tensor peak", 0, _MAX_BYTES)}


def _check_fake_run(run: Any) -> dict[str, Any]:
    if isinstance(run, dict) and run.get("sizes") == "grown":
        return _check_grown_run(run)
    if isinstance(run, dict) and run.get("sizes") == "real":
        return _check_real_run(run)
    if not isinstance(run, dict) or not set(run) <= _RUN_KEYS:
        raise ProtocolError("a fake-tensor run with unknown fields")
    status = run.get("status")
    if status not in ("ok", "raised", "too_many_ops") or run.get("sizes") not in ("scale", "small") \
            or run.get("device") not in ("cpu", "cuda"):
        raise ProtocolError("a fake-tensor run of an unknown status, size or device")
    out: dict[str, Any] = {"status": status, "sizes": run["sizes"], "device": run["device"],
                           "peak": _int(run.get("peak"), "fake-tensor peak", 0, _MAX_BYTES),
                           "ops": _int(run.get("ops"), "fake-tensor op count", 0, 10**9),
                           "unknown_bytes": _bool(run.get("unknown_bytes"), "unknown_bytes"),
                           "upper_bound": _bool(run.get("upper_bound"), "upper_bound")}
    if "fresh_bytes" in run:
        out["fresh_bytes"] = _int(run.get("fresh_bytes"), "fake-tensor result bytes", 0, _MAX_BYTES)
    culprit = run.get("culprit")
    if culprit is not None:
        if not isinstance(culprit, list) or not 2 <= len(culprit) <= 34:
            raise ProtocolError("a fake-tensor culprit that is not a short list")
        shape = [_int(s, "a culprit size", -1, _MAX_BYTES) for s in culprit[:-2]]
        culprit = shape + [_str(culprit[-2], "a culprit dtype", 60), _int(culprit[-1], "culprit bytes", 0, _MAX_BYTES)]
    out["culprit"] = culprit
    if status == "ok":
        outputs = run.get("outputs")
        if not isinstance(outputs, list) or len(outputs) > 64:
            raise ProtocolError("fake-tensor outputs that are not a short list")
        out["outputs"] = [_check_fake_output(o) for o in outputs]
    if status == "raised":
        exc = run.get("exc")
        if not isinstance(exc, dict):
            raise ProtocolError("a fake-tensor raise without its exception")
        flags = {k: _bool(exc.get(k, False), k) for k in ("device_mix", "needs_values")}
        out["exc"] = {**check_exc({k: v for k, v in exc.items() if k not in flags}), **flags}
    for key, what in (("made_at", "origin"), ("data_moved", "`.data` assignment")):
        if run.get(key) is not None:
            out[key] = _line_and_text(run.get(key), what)
    return out


def _line_and_text(value: Any, what: str) -> list:
    """[line, source text]: where a fake run's CPU tensor was made, or its `.data` assignment."""
    if not isinstance(value, list) or len(value) != 2:
        raise ProtocolError(f"a fake-tensor {what} that is not [line, text]")
    return [_int(value[0], f"{what} line", 0, 10**9), _str(value[1], f"{what} text", 400)]


def _check_fake_output(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ProtocolError("a fake-tensor output that is not an object")
    if set(value) == {"python"}:
        return {"python": _str(value["python"], "type name", 200)}
    if set(value) != {"shape", "dtype", "device"} or not isinstance(value["shape"], list) or len(value["shape"]) > 32:
        raise ProtocolError("a fake-tensor output with unknown fields")
    shape = [None if s is None else _int(s, "a size", 0, _MAX_BYTES) for s in value["shape"]]
    return {"shape": shape, "dtype": _str(value["dtype"], "dtype", 60), "device": _str(value["device"], "device", 60)}
