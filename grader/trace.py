"""`:try` in the REPL: run a buffer on the small example inputs and record the
shape of every tensor the person's own lines created.

The parent (worker or in-process grader) prepares the example case and hands
`run_json` a trusted callable (picklable, so the zygote forks the child:
grader.sandbox.zygote; it carries the example's arguments and the contract's
names and shapes, never its expected outputs); the child execs the source and
calls each contract function under a `TorchFunctionMode` that records, for
every op called directly from the person's file, the line, the op name and the
output shape. Only shapes, names and lines come back: never tensors or pickles.

The record is the parent's: the child sends each new (line, op, shape) on the
result channel as the op returns, before any more of the solution runs, and the
parent builds the steps from those frames (grader.sandbox.channel checks each),
never from a list the solution could reach and rewrite from its caller's frame.
What the child reports at the end adds only how often each step ran.
"""
from __future__ import annotations

import functools
import inspect
import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterator

from grader import sandbox
from grader.sandbox import quiet
from grader.dims import name_axis, shape_names
from grader.judge import shape_comments
from grader.report import CaseKind, Smallest, exception_text
from grader.sandbox.solution import new_module, run_source

if TYPE_CHECKING:
    from types import FrameType

MAX_STEPS = 400  # per function call; a loop over T prints its pattern, not every turn


def trace(grader: Any, drill_id: str, source: str, filename: str = "<buffer>", seed: int = 1,
          timeout: float | None = None, at: Smallest | None = None,
          variant: dict[str, str] | None = None, gpu: bool = True) -> dict[str, Any]:
    """Trace `source` on the drill's example inputs (under `variant`), or with `at` on the smallest
    failing case (grader.judge.smallest) of a grade on `seed`. Returns a JSON-able dict:
    ``{"drill", "dims", "case", "calls": [{"function", "args", "steps", "returns", "error"}], "error"}``.
    `gpu=False` leaves out each function's device case and memory at scale (`:try`'s "gpu" lines):
    the shape comments read the steps alone."""
    spec = grader.spec(drill_id, variant)
    try:
        calls = _smallest_calls(grader, spec, seed, at) if at is not None else []
        if not calls:
            at = None
            calls = grader.prepared(spec, seed, example=True).calls
    except Exception as exc:  # noqa: BLE001 - the grader's fault
        return {"drill": drill_id, "dims": {}, "calls": [], "error": f"could not build the example: {exc}"}
    sizes = dict(calls[0].sizes) if calls else {}
    plan = _fake_plan(grader, spec, seed) if gpu else None
    limits = sandbox.Limits(case_timeout=timeout or max(5.0, spec.timeout), total_timeout=30.0,
                            hidden=tuple(getattr(grader, "hidden", ())))
    from grader.fake.checks import for_child

    sent = _distinct([_TraceCall.of(c) for c in calls])
    child_plan = None if plan is None else for_child(plan)
    steps: list[dict[str, Any]] = []
    result, problem = sandbox.run_json(functools.partial(_traced_run, source, filename, sent, child_plan), limits,
                                       steps=steps)
    out: dict[str, Any] = {"drill": drill_id, "dims": sizes, "calls": [], "error": None,
                           "case": f"the smallest failing case of {at.case}" if at is not None else ""}
    if result:
        if "error" in result and "calls" not in result:
            out["error"] = _error_text(result["error"])
        else:
            out["calls"] = result.get("calls", [])
            out["error"] = result.get("load_error")
            for index, call in enumerate(out["calls"]):
                _steps_of(call, index, steps, source.splitlines(), sizes)
                _gpu_lines(plan, call)
    if problem and not out["calls"]:
        out["error"] = out["error"] or f"the run did not finish: {problem}"
    out["shape_comments"] = shape_comments.check(source, out)
    return out


@dataclass(frozen=True)
class _TraceCall:
    """What the tracing child needs of one example call: its arguments and the contract's names
    and shapes (sent to the zygote; never the expected output, the case or the spec)."""

    name: str
    args: list[Any]
    sizes: dict[str, int]
    arg_names: tuple[str, ...]
    arg_shapes: tuple[tuple[str, ...], ...]
    return_shapes: tuple[tuple[str, ...], ...]
    tuple_return: bool

    @classmethod
    def of(cls, call: Any) -> _TraceCall:
        fn = call.function
        return cls(fn.name, list(call.args), dict(call.sizes), tuple(a.name for a in fn.args),
                   tuple(tuple(a.shape or ()) for a in fn.args), tuple(tuple(r.shape or ()) for r in fn.returns),
                   bool(fn.tuple_return))


def _distinct(calls: list[_TraceCall]) -> list[_TraceCall]:
    """The first example call of each function (:try traces each function once)."""
    seen: set[str] = set()
    out = []
    for call in calls:
        if call.name not in seen:
            seen.add(call.name)
            out.append(call)
    return out


def _steps_of(call: dict[str, Any], index: int, steps: list[dict[str, Any]], lines: list[str],
              sizes: dict[str, int]) -> None:
    """Function `index`'s steps, built here from the step frames the child sent as each op returned
    (grader.sandbox.channel); the child's own list adds only the counts."""
    counts = call.get("counts")
    mine = [s for s in steps if s["call"] == index]
    built = []
    for k, step in enumerate(mine):
        line = step["line"]
        text = lines[line - 1].strip() if 0 < line <= len(lines) else ""
        count = counts[k] if isinstance(counts, list) and k < len(counts) and isinstance(counts[k], int) \
            and not isinstance(counts[k], bool) and counts[k] > 0 else 1
        built.append({"line": line, "text": text[:160], "op": step["op"], "shape": list(step["shape"]),
                      "names": named(list(step["shape"]), sizes), "dtype": step["dtype"], "count": count})
    call.pop("counts", None)
    call["steps"] = built
    call["truncated"] = bool(call.get("truncated")) or len(mine) >= MAX_STEPS


def _smallest_calls(grader: Any, spec: Any, seed: int, at: Smallest) -> list[Any]:
    """The case `at` names, built at its smallest failing sizes (grader.cases.resize), as the search did."""
    from grader.cases.resize import call_at

    prep = grader.prepared(spec, seed)
    start = next((c for c in prep.calls if c.case.name == at.case and c.function.name == at.function), None)
    if start is None:
        return []
    sizes = {**start.sizes, **at.sizes}
    call = call_at(prep, start, sizes)
    return [call] if call is not None else []


def _fake_plan(grader: Any, spec: Any, seed: int) -> Any:
    """The drill's device/scale plan (grader.fake.checks), or None when it cannot be had."""
    try:
        plan = grader.prepared(spec, seed).fake
    except Exception:  # noqa: BLE001 - :try works without it
        return None
    return plan if plan is not None and getattr(plan, "active", False) else None


def _gpu_lines(plan: Any, call: dict[str, Any]) -> None:
    """The device case and memory at scale of one traced function, as lines of text (call["gpu"])."""
    from grader.fake import scale

    runs = call.pop("fake_runs", None)
    if plan is None or runs is None:
        return
    results, summary, notes = scale.judge(plan, runs, None)
    lines = []
    for res in results:
        if res.kind == CaseKind.DEVICE:
            where = ", ".join(f"{k}={v}" for k, v in res.dims.items())
            lines.append({"ok": res.verdict == "pass", "text": f"device case (inputs on fake cuda:0 at {where}): "
                          + res.verdict + (f": {res.message}" if res.message else "")})
        elif res.verdict != "pass":
            lines.append({"ok": False, "text": f"memory at scale: {res.verdict}: {res.message}"})
    if summary:
        lines.append({"ok": True, "text": summary["text"]})
    lines.extend({"ok": True, "text": n} for n in notes)
    call["gpu"] = lines


def _error_text(exc: Any) -> str:
    return exception_text(exc) if isinstance(exc, dict) else str(exc)


# ------------------------------------------------------------------ child side


def _traced_run(source: str, filename: str, calls: list[_TraceCall], plan: Any = None) -> dict[str, Any]:
    """Runs in the sandbox child: exec the source, call each function, send each new shape at once."""
    import torch

    from grader.cases.prepare import fresh
    from grader.sandbox.wire import _send

    module = new_module(source, filename)
    try:
        run_source(module, source, filename)
    except BaseException as exc:  # noqa: BLE001
        return {"calls": [], "load_error": _error_text(sandbox.describe_exception(exc, filename))}
    out = []
    for index, call in enumerate(calls):
        name = call.name
        sizes = dict(call.sizes)
        entry: dict[str, Any] = {"function": name, "args": [], "counts": [], "returns": [], "error": None}
        for arg_name, shape, value in zip(call.arg_names, call.arg_shapes, call.args):
            entry["args"].append(_describe(arg_name, value, sizes, shape))
        func = module.__dict__.get(name)
        if not callable(func):
            entry["error"] = f"{name}() is not defined"
            out.append(entry)
            continue
        recorder = _Recorder(filename, index, _send)
        try:
            with torch.no_grad(), recorder.mode(), recorder.returns():
                value = func(*fresh(call.args))
            split = call.tuple_return and isinstance(value, (tuple, list))
            values = value if split else (value,)
            for i, v in enumerate(values):
                names = call.return_shapes[i] if i < len(call.return_shapes) else ()
                entry["returns"].append(_describe(f"return[{i}]" if len(values) > 1 else "return", v, sizes, names))
        except BaseException as exc:  # noqa: BLE001
            entry["error"] = _error_text(sandbox.describe_exception(exc, filename))
        entry["counts"] = list(recorder.counts)
        entry["truncated"] = recorder.truncated
        if plan is not None and entry["error"] is None:
            entry["fake_runs"] = _fake_runs(plan, name, module, filename)
        out.append(entry)
    return {"calls": out}


def _fake_runs(plan: Any, name: str, module: Any, filename: str) -> list[dict[str, Any]]:
    """The device case and the scale run of one function, on fake tensors (grader.fake.checks)."""
    import dataclasses

    from grader.fake import checks as fake

    mine = [f for f in plan.functions if f.name == name]
    try:
        with quiet.machinery():
            return fake.run_plan(dataclasses.replace(plan, functions=mine), module, filename, sandbox.describe_exception)
    except Exception:  # noqa: BLE001 - tracing never breaks the run
        return []


def _describe(label: str, value: Any, sizes: dict[str, int], expected_names: tuple[str, ...] = ()) -> dict[str, Any]:
    import torch

    if isinstance(value, torch.Tensor):
        shape = [int(s) for s in value.shape]
        return {"name": label, "shape": shape, "names": named(shape, sizes, expected_names),
                "dtype": str(value.dtype).replace("torch.", "")}
    text = repr(value)
    return {"name": label, "value": text[:60] + ("..." if len(text) > 60 else "")}


def named(shape: list[int], sizes: dict[str, int], expected_names: tuple[str, ...] = ()) -> str:
    """(2, 3, 5) -> '(B, T, S)' using the example's sizes (all distinct)."""
    return shape_names([name_axis(int(s), sizes, expected_names) for s in shape]) if shape else "()"


class _Recorder:
    """Sends each new (line, op, shape) of an op called straight from the person's file as a step
    frame the moment the op returns (the parent keeps the record); counts repeats here."""

    def __init__(self, filename: str, call: int, send: Any):
        self.filename = filename
        self.call = call
        self._send = send  # bound before the solution runs
        self.counts: list[int] = []
        self._index: dict[tuple, int] = {}
        self.truncated = False

    def mode(self) -> Any:
        from torch.overrides import TorchFunctionMode

        recorder = self

        class _Mode(TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):  # noqa: ANN001
                result = func(*args, **(kwargs or {}))
                try:
                    recorder.record(func, result)
                except Exception:  # noqa: BLE001, S110 - tracing never breaks the run
                    pass
                return result

        return _Mode()

    @contextmanager
    def returns(self) -> Iterator[None]:
        """Also a step for each tensor the person's own helper returns to a line of the file: that line
        makes it (`q = _row(q, n.clamp(max=K - 1))  # (B, V)` is right, though its last op makes (B,))."""
        flags = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR
        filename, record = self.filename, self.record_return

        def profile(frame: FrameType, event: str, arg: Any) -> None:
            if event != "return" or frame.f_code.co_filename != filename or frame.f_code.co_flags & flags:
                return
            caller = frame.f_back
            if caller is not None and caller.f_code.co_filename == filename:
                try:
                    record(frame.f_code.co_name, arg, caller.f_lineno)
                except Exception:  # noqa: BLE001, S110 - tracing never breaks the run
                    pass

        before = sys.getprofile()
        sys.setprofile(profile)
        try:
            yield
        finally:
            sys.setprofile(before)

    def record_return(self, name: str, result: Any, line: int) -> None:
        self._step(f"{name}()", result, line)

    def _caller_line(self) -> int | None:
        frame: FrameType | None = sys._getframe(2)
        torch_dir = _torch_dir()
        here = os.path.abspath(__file__)
        while frame is not None:
            code_file = frame.f_code.co_filename
            if code_file == self.filename:
                return frame.f_lineno
            path = os.path.abspath(code_file) if not code_file.startswith("<") else code_file
            if path == here or path.startswith(torch_dir) or "/torch/" in code_file:
                frame = frame.f_back
                continue
            return None  # an op called from some other library (numpy, einops...) on the person's behalf
        return None

    def record(self, func: Any, result: Any) -> None:
        line = self._caller_line()
        if line is not None:
            self._step(_op_name(func), result, line)

    def _step(self, op: str, result: Any, line: int) -> None:
        import torch

        tensors = [result] if isinstance(result, torch.Tensor) else \
            [r for r in result if isinstance(r, torch.Tensor)] if isinstance(result, (tuple, list)) else []
        if not tensors:
            return
        shape = [int(s) for s in tensors[0].shape]
        key = (line, op, tuple(shape))
        if key in self._index:
            self.counts[self._index[key]] += 1
            return
        if len(self.counts) >= MAX_STEPS:
            self.truncated = True
            return
        self._index[key] = len(self.counts)
        self.counts.append(1)
        self._send({"type": "step", "call": self.call, "line": line, "op": op[:80], "shape": shape[:16],
                    "dtype": str(tensors[0].dtype).replace("torch.", "")[:40]})


def _torch_dir() -> str:
    import torch

    return os.path.dirname(os.path.abspath(torch.__file__))


_OPERATORS = {
    "__getitem__": "[...]", "__add__": "+", "__radd__": "+", "__sub__": "-", "__rsub__": "-", "__mul__": "*",
    "__rmul__": "*", "__truediv__": "/", "__rtruediv__": "/", "__matmul__": "@", "__rmatmul__": "@",
    "__eq__": "==", "__ne__": "!=", "__lt__": "<", "__le__": "<=", "__gt__": ">", "__ge__": ">=",
    "__and__": "&", "__or__": "|", "__invert__": "~", "__neg__": "-x", "__pow__": "**", "__rpow__": "**",
    "__floordiv__": "//", "__mod__": "%",
}


def _op_name(func: Any) -> str:
    name = getattr(func, "__name__", None) or str(func)
    if name in _OPERATORS:
        return _OPERATORS[name]
    if name == "__get__":  # a property such as Tensor.T or Tensor.mT
        owner = getattr(func, "__self__", None)
        name = getattr(owner, "__name__", name)
    qual = getattr(func, "__qualname__", "") or ""
    if qual.startswith("_TensorBase.") or qual.startswith("TensorBase.") or qual.startswith("Tensor."):
        return "." + name
    return name
