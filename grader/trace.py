"""`:try` in the REPL: run a buffer on the small example inputs and record the
shape of every tensor the person's own lines created.

The parent (worker or in-process grader) prepares the example case and hands
`run_json` a trusted callable; the child execs the source and calls each
contract function under a `TorchFunctionMode` that records, for every op
called directly from the person's file, the line, the op name and the output
shape. Only shapes, names and lines come back: never tensors or pickles.
"""
from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

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
          variant: dict[str, str] | None = None) -> dict[str, Any]:
    """Trace `source` on the drill's example inputs (under `variant`), or with `at` on the smallest
    failing case (grader.judge.smallest) of a grade on `seed`. Returns a JSON-able dict:
    ``{"drill", "dims", "case", "calls": [{"function", "args", "steps", "returns", "error"}], "error"}``."""
    spec = grader.spec(drill_id, variant)
    try:
        calls = _smallest_calls(grader, spec, seed, at) if at is not None else []
        if not calls:
            at = None
            calls = grader.prepared(spec, seed, example=True).calls
    except Exception as exc:  # noqa: BLE001 - the grader's fault
        return {"drill": drill_id, "dims": {}, "calls": [], "error": f"could not build the example: {exc}"}
    sizes = dict(calls[0].sizes) if calls else {}
    plan = _fake_plan(grader, spec, seed)
    limits = sandbox.Limits(case_timeout=timeout or max(5.0, spec.timeout), total_timeout=30.0,
                            hidden=tuple(getattr(grader, "hidden", ())))

    def work() -> dict[str, Any]:
        return _traced_run(source, filename, calls, plan)

    result, problem = sandbox.run_json(work, limits)
    out: dict[str, Any] = {"drill": drill_id, "dims": sizes, "calls": [], "error": None,
                           "case": f"the smallest failing case of {at.case}" if at is not None else ""}
    if result:
        if "error" in result and "calls" not in result:
            out["error"] = _error_text(result["error"])
        else:
            out["calls"] = result.get("calls", [])
            out["error"] = result.get("load_error")
            for call in out["calls"]:
                _gpu_lines(plan, call)
    if problem and not out["calls"]:
        out["error"] = out["error"] or f"the run did not finish: {problem}"
    out["shape_comments"] = shape_comments.check(source, out)
    return out


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


def _traced_run(source: str, filename: str, calls: list[Any], plan: Any = None) -> dict[str, Any]:
    """Runs in the sandbox child: exec the source, call each function, record shapes."""
    import torch

    from grader.cases.prepare import fresh

    module = new_module(source, filename)
    lines = source.splitlines()
    try:
        run_source(module, source, filename)
    except BaseException as exc:  # noqa: BLE001
        return {"calls": [], "load_error": _error_text(sandbox.describe_exception(exc, filename))}
    out = []
    seen_functions: set[str] = set()
    for call in calls:
        name = call.function.name
        if name in seen_functions:
            continue
        seen_functions.add(name)
        sizes = dict(call.sizes)
        entry: dict[str, Any] = {"function": name, "args": [], "steps": [], "returns": [], "error": None}
        for spec_arg, value in zip(call.function.args, call.args):
            entry["args"].append(_describe(spec_arg.name, value, sizes, tuple(spec_arg.shape or ())))
        func = module.__dict__.get(name)
        if not callable(func):
            entry["error"] = f"{name}() is not defined"
            out.append(entry)
            continue
        recorder = _Recorder(filename, lines, sizes)
        try:
            with torch.no_grad(), recorder.mode():
                value = func(*fresh(call.args))
            split = call.function.tuple_return and isinstance(value, (tuple, list))
            values = value if split else (value,)
            expected = [tuple(r.shape or ()) for r in call.function.returns]
            for i, v in enumerate(values):
                names = expected[i] if i < len(expected) else ()
                entry["returns"].append(_describe(f"return[{i}]" if len(values) > 1 else "return", v, sizes, names))
        except BaseException as exc:  # noqa: BLE001
            entry["error"] = _error_text(sandbox.describe_exception(exc, filename))
        entry["steps"] = recorder.steps
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
    """Collects (line, op, shape) for ops called straight from the person's file."""

    def __init__(self, filename: str, lines: list[str], sizes: dict[str, int]):
        self.filename = filename
        self.lines = lines
        self.sizes = sizes
        self.steps: list[dict[str, Any]] = []
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
        import torch

        tensors = [result] if isinstance(result, torch.Tensor) else \
            [r for r in result if isinstance(r, torch.Tensor)] if isinstance(result, (tuple, list)) else []
        if not tensors:
            return
        line = self._caller_line()
        if line is None:
            return
        op = _op_name(func)
        shape = [int(s) for s in tensors[0].shape]
        key = (line, op, tuple(shape))
        if key in self._index:
            self.steps[self._index[key]]["count"] += 1
            return
        if len(self.steps) >= MAX_STEPS:
            self.truncated = True
            return
        text = self.lines[line - 1].strip() if 0 < line <= len(self.lines) else ""
        self._index[key] = len(self.steps)
        self.steps.append({"line": line, "text": text[:160], "op": op, "shape": shape,
                           "names": named(shape, self.sizes), "dtype": str(tensors[0].dtype).replace("torch.", ""),
                           "count": 1})


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
