"""Fake tensors: does a function run with its inputs on a GPU, and how much
memory does it need at production sizes? (docs/DRILLS.md: `scale:`; docs/CLI.md: the device and scale cases)

The one module that touches torch's private fake-tensor API
(`torch._subclasses.fake_tensor.FakeTensorMode`), with grader.fake.views (a faster
rule for one kind of op, checked against torch's before use). A fake tensor has a shape,
a dtype and a device but no data: an op on fake tensors computes only the
metadata of its result, so a CUDA device is emulated on a CPU-only machine
(a CPU tensor meeting a CUDA one raises exactly the real device error) and a
6 GB intermediate costs nothing. `problem()` says whether the API works
here; when it does not, every caller degrades to "no device/scale check"
with a note, never a crash.

Two halves:
- in the grader (trusted): `plan()` runs a drill's reference under fake
  tensors, once per drill, and records for each function whether the device
  case applies (and why not), the argument sketches at the small and scale
  sizes, the reference's output shapes and its peak bytes;
- in the sandbox child: `run_plan()` runs the solution's functions the same
  way and returns plain JSON-able dicts (grader.fake.scale judges them).
"""
from __future__ import annotations

import functools
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

import torch

from grader.fake import FAKE_CALL  # noqa: F401 - the call index the child announces for the fake checks
from grader.report import class_name, safe_message
from grader.fake.meter import TooManyOps, fast_refusals, ints, is_device_mix, make_meter, needs_values, watch_data

MAX_OPS = 3_000  # tensor operations per fake run: more means a Python loop over a production-size dim
MAX_SECONDS = 1.5  # CPU seconds: a run stops there too (each fake op costs ~0.1 ms), well inside the case deadline
GROWTH_SECONDS = 1.5  # CPU seconds the runs at doubled sizes of one function share, on top of its run at scale
GROWTH_BAND = 1.25  # a solution peaking within this factor of the reference at scale is not run at doubled sizes


@functools.lru_cache(maxsize=1)
def settle_autograd() -> None:
    """Run one tiny backward while this process sees no CUDA device, before any fake one appears.

    Torch's autograd engine decides once per process, at its first backward, whether to start a thread
    for each non-CPU device; fake CUDA tensors make it count devices where there are none, and once it
    has started those threads no process forked from this one can run a backward ("autograd's
    threading in combination with fork-based multiprocessing"), while a reused sandbox child holding
    them is never reused (grader.sandbox.reuse). Settled here, with no device counted, it never starts
    any, and the gradient case (grader.cases.gradient) runs in any child forked later. With a real GPU
    there is nothing to settle: that process keeps autograd as torch starts it."""
    import glob

    try:
        if glob.glob("/dev/nvidia[0-9]*") or glob.glob("/dev/kfd"):
            return  # a GPU is here (read from /dev, not asked of CUDA: asking would start its driver in this process)
        x = torch.zeros(1, requires_grad=True)
        torch.autograd.grad([x * 1.0], [x], [torch.ones(1)])
    except Exception:  # noqa: BLE001, S110 - best effort: the gradient case says when it cannot run
        pass


def backward_problem() -> str | None:
    """None when the gradient case (grader.cases.gradient) can run here: a process forked from this one
    runs a backward, as the sandbox child does (settle_autograd keeps autograd from starting the device
    threads that would stop it); else why not, in one line. `drill doctor` says it."""
    import os
    import select
    import signal

    settle_autograd()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the forked child
        said = b"no"
        try:
            os.close(r)
            with torch.autograd.set_multithreading_enabled(False):
                x = torch.ones(3, requires_grad=True)
                (g,) = torch.autograd.grad([(x * x).sum()], [x])
            said = b"ok" if bool((g == 2).all()) else b"a wrong gradient"
        except BaseException as exc:  # noqa: BLE001 - what failed is the answer
            said = f"{type(exc).__name__}: {exc}"[:200].encode()
        finally:
            try:
                os.write(w, said)
            finally:
                os._exit(0)
    os.close(w)
    ready = select.select([r], [], [], 10.0)[0]
    said = os.read(r, 300) if ready else b""
    os.close(r)
    if not ready:
        os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    if said == b"ok":
        return None
    why = "did not finish within 10 s" if not ready else f"failed: {said.decode('utf-8', 'replace')}"
    return f"a backward in a process forked from this one {why}: the gradient case cannot run here"


@functools.lru_cache(maxsize=1)
def problem() -> str | None:
    """None when fake tensors work here (they follow devices and sizes); else why not, in one line."""
    settle_autograd()
    try:
        from torch._subclasses.fake_tensor import FakeTensorMode
        from torch.utils._python_dispatch import TorchDispatchMode  # noqa: F401

        with FakeTensorMode(allow_non_fake_inputs=True):
            x = torch.empty(2, 3, device="cuda")
            y = (x + 1).sum(0)
            try:
                x + torch.ones(3)
                mixed = False
            except Exception:  # noqa: BLE001 - the device error is what we want
                mixed = True
        if y.device.type != "cuda" or tuple(y.shape) != (3,) or not mixed:
            return f"torch {torch.__version__}: fake tensors do not emulate devices as expected"
    except Exception as exc:  # noqa: BLE001 - a private API: any failure means "not here"
        return f"torch {torch.__version__}: fake tensors are not usable ({type(exc).__name__}: {str(exc)[:120]})"
    return None


# ------------------------------------------------------------- sketches


@dataclass(frozen=True)
class Sketch:
    """A tensor argument as shape + dtype; made fresh (fake) for every run."""

    shape: tuple[int, ...]
    dtype: torch.dtype


def sketch(value: Any) -> Any:
    """Real tensors -> Sketch (recursively in lists and tuples); other values as they are."""
    if isinstance(value, torch.Tensor):
        return Sketch(tuple(int(s) for s in value.shape), value.dtype)
    if isinstance(value, tuple) and not isinstance(value, torch.Size):
        return tuple(sketch(v) for v in value)
    if isinstance(value, list):
        return [sketch(v) for v in value]
    return value


def has_tensor(value: Any) -> bool:
    if isinstance(value, (Sketch, torch.Tensor)):
        return True
    if isinstance(value, (list, tuple)):
        return any(has_tensor(v) for v in value)
    return False


def sketch_bytes(value: Any) -> int:
    """The bytes of every tensor in value (sketches or real tensors, inside lists and tuples)."""
    if isinstance(value, Sketch):
        numel = 1
        for s in value.shape:
            numel *= int(s)
        return numel * value.dtype.itemsize
    if isinstance(value, torch.Tensor):
        return int(value.numel()) * value.element_size()
    if isinstance(value, (list, tuple)):
        return sum(sketch_bytes(v) for v in value)
    return 0


def _build(value: Any, device: str) -> Any:
    if isinstance(value, Sketch):
        return torch.empty(value.shape, dtype=value.dtype, device=device)
    if isinstance(value, tuple):
        return tuple(_build(v, device) for v in value)
    if isinstance(value, list):
        return [_build(v, device) for v in value]
    return value


# ------------------------------------------------------------- one run


def run(func: Callable, args: list[Any], device: str, filename: str, shape_env: bool = False,
        max_ops: int = MAX_OPS, describe: Callable[[BaseException, str], dict] | None = None,
        max_seconds: float = MAX_SECONDS, cache: bool = True, built: Built | None = None) -> dict[str, Any]:
    """Call func on fake tensors shaped like `args` (sketches) on `device`. Returns
    {status: ok|raised|too_many_ops, outputs, peak, culprit, ops, exc, made_at}. `cache=False`: without
    torch's fake-tensor dispatch cache (a sandbox child meets each op once, at sizes its parent never ran:
    every lookup misses, and building the entry it never uses again is a third of the run). `built`: the
    mode and fake arguments made ahead for this very run (`build`), else made here."""
    mode, fake_args = built or build(args, device, shape_env, cache)
    meter = make_meter(filename, max_ops, max_seconds)
    result: dict[str, Any] = {"device": device}
    try:
        with warnings.catch_warnings(), torch.no_grad(), fast_refusals(max_ops), watch_data(meter), mode, meter:
            warnings.simplefilter("ignore")  # torch's own notes about fake kernels; the real runs showed the solution's
            out = func(*fake_args)
        result["status"] = "ok"
        result["outputs"] = describe_outputs(out)
        items = list(out) if isinstance(out, (tuple, list)) else [out]
        result["fresh_bytes"] = fresh_bytes(items, fake_args)
        on_cpu = [t for t in items if isinstance(t, torch.Tensor) and t.device.type == "cpu"]
        where = meter._cpu_origin(on_cpu) if on_cpu and device != "cpu" else None
        if where:
            result["made_at"] = list(where)  # the line that made the result on the CPU
        moved = meter.moved_origin(on_cpu) if on_cpu and device != "cpu" else None
        if moved is not None:
            result["data_moved"] = list(moved)  # left on the CPU by fake tensors, not by the code
        del out, items, on_cpu
    except TooManyOps:
        result["status"] = "too_many_ops"
    except BaseException as exc:  # noqa: BLE001 - the solution's (or the reference's) error is data
        result["status"] = "raised"
        result["exc"] = describe(exc, filename) if describe else {"type": class_name(type(exc)),
                                                                  "message": safe_message(exc)}
        kind, text = str(result["exc"].get("type", "")), str(result["exc"].get("message", ""))
        result["exc"]["device_mix"] = is_device_mix(kind, text)
        result["exc"]["needs_values"] = needs_values(kind, text)
        if meter.mixed_at:
            result["made_at"] = list(meter.mixed_at)
        if meter.moved_mix is not None and result["exc"]["device_mix"]:
            result["data_moved"] = list(meter.moved_mix)  # the device error is the fake run's, not the code's
    result["peak"] = meter.peak
    result["culprit"] = list(meter.culprit[0]) + [meter.culprit[1], meter.culprit[2]] if meter.culprit else None
    result["ops"] = meter.ops
    result["unknown_bytes"] = meter.unknown
    result["upper_bound"] = meter.bounded
    return result


Built = tuple  # (a FakeTensorMode, the fake arguments made under it): what `build` gives, for one run only


def build(args: list[Any], device: str, shape_env: bool = False, cache: bool = True) -> Built:
    """A fresh fake-tensor mode and, under it, fake tensors shaped like `args` (sketches) on `device`: what
    one `run` calls its function on (a solution may write to its arguments: never used twice)."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    from grader.fake import views

    settle_autograd()
    views.install()  # the plain-size rule for view and _unsafe_view, once per process (its docstring)
    env = None
    if shape_env:
        from torch.fx.experimental.symbolic_shapes import ShapeEnv

        _warm_shape_env()
        env = ShapeEnv()
    mode = FakeTensorMode(allow_non_fake_inputs=True, shape_env=env, allow_fallback_kernels=False)
    if env is not None or not cache:
        # a fresh ShapeEnv's symbols never meet again: its dispatch cache only misses, and each miss builds
        # and checks an entry (half the time of a nonzero-heavy run); the results are the same without it
        mode.cache_enabled = False
    with mode:
        fake_args = [_build(a, device) for a in args]
    return mode, fake_args


@functools.lru_cache(maxsize=1)
def _warm_shape_env() -> None:
    """The first symbolic size imports sympy and friends (a second or more): pay it once, off any deadline."""
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.experimental.symbolic_shapes import ShapeEnv

    try:
        with FakeTensorMode(shape_env=ShapeEnv()):
            x = torch.empty(4)
            (x > 0).nonzero()[:, 0] + 1
    except Exception:  # noqa: BLE001, S110 - only a warm-up; the real run reports its own errors
        pass


def fresh_bytes(items: list[Any], args: list[Any]) -> int:
    """Bytes of the returned tensors' own storage, not shared with an argument: made during the
    run, so alive at its end, so never more than an honest meter's peak (grader.fake.scale checks)."""
    from torch.utils._pytree import tree_leaves

    inputs = {_storage_key(t) for t in tree_leaves(args) if isinstance(t, torch.Tensor)}
    seen: set[int] = set()
    total = 0
    for t in items:
        key = _storage_key(t) if isinstance(t, torch.Tensor) else None
        if key is None or key in inputs or key in seen:
            continue
        seen.add(key)
        try:
            total += int(t.untyped_storage().nbytes())
        except Exception:  # noqa: BLE001, S112 - a data-dependent size: not counted
            continue
    return total


def _storage_key(t: Any) -> int | None:
    try:
        return int(t.untyped_storage()._cdata)
    except Exception:  # noqa: BLE001 - no storage (sparse, nested)
        return None


def describe_outputs(out: Any) -> list[dict[str, Any]]:
    """Each returned value (a tuple is spread): tensors as shape (None: data-dependent), dtype, device."""
    items = list(out) if isinstance(out, (tuple, list)) and not isinstance(out, torch.Size) else [out]
    described = []
    for item in items:
        if isinstance(item, torch.Tensor):
            shape = [s if s >= 0 else None for s in ints(item.shape)]
            described.append({"shape": shape, "dtype": str(item.dtype).replace("torch.", ""), "device": str(item.device)})
        else:
            described.append({"python": type(item).__name__})
    return described


# ------------------------------------------------------------- the plan


@dataclass
class FunctionPlan:
    name: str
    small_sizes: dict[str, int] = field(default_factory=dict)
    small_args: list[Any] | None = None  # sketches at a small case's sizes (the device check fallback)
    scale_args: list[Any] | None = None  # sketches at the spec's scale sizes
    device: bool = False
    why_no_device: str = ""
    device_fault: bool = False  # the reference itself breaks on a GPU: a drill bug
    scale: bool = False
    why_no_scale: str = ""
    shape_env: bool = False
    expected_small: list[dict[str, Any]] | None = None
    expected_scale: list[dict[str, Any]] | None = None
    reference_peak: int | None = None
    reference_upper_bound: bool = False  # the reference's peak counts data-dependent sizes at their upper bound
    grown_args: dict[str, list[Any]] = field(default_factory=dict)  # dim -> sketches at the scale sizes, dim doubled
    reference_grown: dict[str, int] = field(default_factory=dict)  # dim -> the reference's peak there
    input_bytes: int = 0  # the tensor arguments' own bytes at the scale sizes (grader.fake.growth.floor)
    input_grown: dict[str, int] = field(default_factory=dict)  # dim -> the tensor arguments' bytes there
    trap_growth: dict[str, dict[str, float]] = field(default_factory=dict)  # memory trap id -> its growth exponents
    real: Any = None  # grader.fake.real.Probe: real inputs at reduced sizes, for code fake tensors cannot follow
    why_no_real: str = ""
    reference_runs: list[dict[str, Any]] = field(default_factory=list)  # the reference's own runs, as run_plan gives

    @property
    def run_device(self) -> str:
        """Where this function's fake runs put their tensors: CUDA when it has a device case, else the CPU."""
        return "cuda" if self.device else "cpu"


@dataclass
class Plan:
    """What the child runs after the real cases, and what the grader compares it with."""

    problem: str | None  # fake tensors unusable here: no device/scale check at all
    sizes: dict[str, int] = field(default_factory=dict)  # the scale sizes
    max_bytes: int | None = None  # a peak above this is `memory` whatever its growth (spec `scale: {max_bytes}`)
    grown: dict[str, dict[str, int]] = field(default_factory=dict)  # dim -> the scale sizes with it doubled
    functions: list[FunctionPlan] = field(default_factory=list)

    @property
    def active(self) -> bool:
        return self.problem is None and any(f.device or f.scale for f in self.functions)


def for_child(the_plan: Plan) -> Plan:
    """The plan as a sandbox child needs it to run the solution's fake runs: the sketches and what
    applies, the reference's peak (which decides the runs at doubled sizes, `_grown_runs`); not the
    reference's outputs, runs or the traps' growth, which only the grader compares with."""
    import dataclasses

    return dataclasses.replace(the_plan, functions=[
        dataclasses.replace(fp, expected_small=None, expected_scale=None, reference_runs=[], reference_grown={},
                            trap_growth={}) for fp in the_plan.functions])


def plan(spec: Any, prep: Any, scale_args: Callable[[Any, dict[str, int]], tuple[list[Any] | None, str]],
         grown: dict[str, dict[str, int]] | None = None) -> Plan:
    """Run the reference under fake tensors; decide per function what applies.
    `scale_args(fn, sizes)` gives (sketches at those sizes, why not); `grown` maps each
    dimension to the scale sizes with it doubled (grader.fake.scale.grown_sizes)."""
    why = problem()
    if why is not None:
        return Plan(why)
    scale = getattr(spec, "scale", None)
    out = Plan(None, dict(scale.dims) if scale else {}, scale.max_bytes if scale else None, dict(grown or {}))
    filename = str(spec.reference_path)
    for fn in spec.functions:
        fp = FunctionPlan(fn.name)
        out.functions.append(fp)
        call = next((c for c in prep.calls if c.function.name == fn.name), None)
        func = getattr(prep.reference, fn.name, None)
        if func is not None:  # the reference under the drill's variant (grader.cases.prepare.with_kwargs)
            from grader.cases.prepare import with_kwargs

            func = with_kwargs(func, getattr(spec, "call_kwargs", {}))
        if call is None or func is None:
            fp.why_no_device = fp.why_no_scale = "no case runs it"
            continue
        fp.small_args = [sketch(a) for a in call.args]
        fp.small_sizes = dict(call.sizes)
        if not has_tensor(fp.small_args):
            fp.why_no_device = fp.why_no_scale = "it takes no tensors"
            continue
        opt_out = getattr(spec, "no_device_case", "")
        device = "cpu"
        if opt_out:
            fp.why_no_device = f"opted out: {opt_out}"
        else:
            first = _reference_run(func, fp.small_args, "cuda", filename, fp)
            if first["status"] == "ok":
                outputs = first["outputs"]
                on_cpu = [i for i, o in enumerate(outputs) if o.get("device", "cuda").startswith("cpu")]
                if on_cpu:
                    fp.device_fault = True
                    fp.why_no_device = (f"the reference returns output {on_cpu[0]} on the CPU when its inputs are "
                                        "on cuda:0; fix the reference")
                else:
                    fp.device, fp.expected_small, device = True, outputs, "cuda"
                    fp.reference_runs = [dict(first, sizes="small")]
            else:
                fp.why_no_device = _why_not(first, "the reference")
                fp.device_fault = bool((first.get("exc") or {}).get("device_mix"))
        if not scale:
            fp.why_no_scale = "the spec declares no scale: sizes"
            continue
        args, why_not = scale_args(fn, out.sizes)
        if args is None:
            fp.why_no_scale = why_not
            continue
        big = _reference_run(func, args, device, filename, fp)
        if big["status"] != "ok":
            fp.why_no_scale = _why_not(big, "the reference", at_scale=True)
            continue
        if big["unknown_bytes"]:
            fp.why_no_scale = ("the reference makes tensors whose sizes depend on the values with no upper bound "
                               "(repeat_interleave, nms), so its peak cannot be counted without data")
            continue  # the device case, if any, runs at the small sizes
        fp.scale, fp.scale_args, fp.expected_scale = True, args, big["outputs"]
        fp.reference_runs = [dict(big, sizes="scale")]  # at its own peak: no runs at doubled sizes (_grown_runs)
        fp.reference_peak = int(big["peak"])
        fp.input_bytes = sketch_bytes(args)
        fp.reference_upper_bound = bool(big["upper_bound"])
        _plan_growth(spec, prep, fn, fp, out, args, device, filename, scale_args)
        _plan_real(spec, prep, fn, fp, out, func, filename)
    return out


def _plan_real(spec: Any, prep: Any, fn: Any, fp: FunctionPlan, out: Plan, func: Callable, filename: str) -> None:
    """The reference's real inputs and peaks at reduced sizes (grader.fake.real), for a solution that
    fake tensors cannot follow: sizes chosen from how the larger of its peak and its inputs grows."""
    from grader.fake import real
    from grader.fake.growth import exponents, floor

    base, grown = floor(int(fp.reference_peak or 0), fp.reference_grown, fp.input_bytes, fp.input_grown)
    fp.real, fp.why_no_real = real.probe(spec, fn, prep.reference, func, filename, out.sizes, list(fp.grown_args),
                                         exponents(base, grown), base)


def reference_results(the_plan: Plan) -> list[dict[str, Any]]:
    """What run_plan gives for the reference itself, known from the plan that ran it (once per drill and
    variant, under a longer time budget): `drill validate` grades the reference file without repeating them."""
    return [{"function": fp.name, "runs": list(fp.reference_runs)} for fp in the_plan.functions
            if (fp.device or fp.scale) and fp.reference_runs]


def _plan_growth(spec: Any, prep: Any, fn: Any, fp: FunctionPlan, out: Plan, args: list[Any], device: str,
                 filename: str, scale_args: Callable[[Any, dict[str, int]], tuple[list[Any] | None, str]]) -> None:
    """The reference (and each memory trap) at the scale sizes with one dimension doubled at a time.
    A dimension the function's arguments do not change is left out (its exponent is 0 for everyone);
    one the reference cannot run at is left out too (its growth is not compared)."""
    from grader.cases.prepare import with_kwargs

    kwargs = getattr(spec, "call_kwargs", {})  # the reference and the traps under the drill's variant, as in plan()
    traps = {t.id: getattr(prep.reference, t.function, None) for t in getattr(spec, "traps", ())
             if getattr(t, "memory", False) and t.replaces == fn.name}
    traps = {tid: with_kwargs(f, kwargs) if callable(f) else f for tid, f in traps.items()}
    trap_base = {tid: _reference_run(f, args, device, filename, fp) for tid, f in traps.items() if callable(f)}
    trap_grown: dict[str, dict[str, int]] = {tid: {} for tid in trap_base}
    func = with_kwargs(getattr(prep.reference, fn.name), kwargs)
    for dim, sizes in out.grown.items():
        grown_args, _why = scale_args(fn, sizes)
        if grown_args is None or grown_args == args:
            continue
        res = _reference_run(func, grown_args, device, filename, fp)
        if res["status"] != "ok" or res["unknown_bytes"]:
            continue
        fp.grown_args[dim] = grown_args
        fp.reference_grown[dim] = int(res["peak"])
        fp.input_grown[dim] = sketch_bytes(grown_args)
        for tid, base in trap_base.items():
            if base["status"] == "ok" and not base["unknown_bytes"]:
                t = _reference_run(traps[tid] or func, grown_args, device, filename, fp)
                if t["status"] == "ok" and not t["unknown_bytes"]:
                    trap_grown[tid][dim] = int(t["peak"])
    from grader.fake.growth import exponents

    for tid, base in trap_base.items():
        if base["status"] == "ok" and not base["unknown_bytes"] and set(trap_grown[tid]) == set(fp.grown_args):
            fp.trap_growth[tid] = exponents(int(base["peak"]), trap_grown[tid])


def _reference_run(func: Callable, args: list[Any], device: str, filename: str, fp: FunctionPlan) -> dict[str, Any]:
    slow_ok = 30.0  # trusted and run once per drill: only the op count bounds it, not a busy machine
    res = run(func, args, device, filename, shape_env=fp.shape_env, max_seconds=slow_ok)
    if res["status"] == "raised" and res["exc"]["needs_values"] and not fp.shape_env:
        again = run(func, args, device, filename, shape_env=True, max_seconds=slow_ok)  # nonzero-style sizes: symbols
        if again["status"] == "ok":
            fp.shape_env = True
            return again
    return res


def value_reader(text: str) -> str:
    """What in the code needed values, in a person's words, from a fake-tensor error text."""
    if "_local_scalar_dense" in text or "GuardOnDataDependent" in text:
        return ".item(), int(), float() or an `if` on a tensor"
    if "nonzero" in text or "DynamicOutputShape" in text:
        return "an op whose output size depends on the values: nonzero, a boolean-mask index, unique"
    if "numpy" in text:
        return ".numpy()"
    if "tolist" in text:
        return ".tolist()"
    return text


def _why_not(res: dict[str, Any], who: str, at_scale: bool = False) -> str:
    if res["status"] == "too_many_ops":
        return f"{who} makes more than {MAX_OPS} tensor operations (or runs {MAX_SECONDS:g} s) at the scale sizes (a Python loop)"
    exc = res.get("exc") or {}
    text = f"{exc.get('type', 'Exception')}: {str(exc.get('message', '')).splitlines()[0][:160] if exc.get('message') else ''}"
    if exc.get("device_mix"):
        return f"{who} mixes CPU and CUDA tensors ({text}); fix the reference"
    if exc.get("needs_values"):
        return f"{who} reads tensor values ({value_reader(text)}), which fake tensors do not have"
    where = " at the scale sizes" if at_scale else " on fake CUDA tensors"
    return f"{who} raised{where}: {text}"


# ------------------------------------------------------------- the child


def prebuild(the_plan: Plan, cache: bool = True) -> dict[str, Built]:
    """The mode and fake arguments of each function's first run (`_first_args`), made ahead: a standby
    sandbox child makes them while it waits for its source (a few milliseconds of the run's own)."""
    return {fp.name: build(_first_args(fp), fp.run_device, fp.shape_env, cache)
            for fp in the_plan.functions if fp.device or fp.scale}


def _first_args(fp: FunctionPlan) -> list[Any]:
    return (fp.scale_args if fp.scale else fp.small_args) or []


def run_plan(the_plan: Plan, module: Any, filename: str,
             describe: Callable[[BaseException, str], dict] | None = None,
             started: Callable[[], None] | None = None, cache: bool = True,
             built: dict[str, Built] | None = None) -> list[dict[str, Any]]:
    """In the sandbox child, after the real cases: each function's fake runs
    (`started()` is called before each function: its own case deadline; `cache`: as in `run`; `built`:
    `prebuild`'s, made under the same plan and `cache`, each used once)."""
    results = []
    built = dict(built or {})
    for fp in the_plan.functions:
        func = module.__dict__.get(fp.name)
        if not callable(func) or not (fp.device or fp.scale):
            continue
        if started is not None:
            started()
        try:
            results.append({"function": fp.name,
                            "runs": _function_runs(fp, func, filename, describe, cache, built.pop(fp.name, None))})
        except BaseException as exc:  # noqa: BLE001 - said in the report as a check that did not run, never silence
            results.append({"function": fp.name, "runs": [],
                            "failed": f"{class_name(type(exc))}: {safe_message(exc)[:300]}"})
    return results


def _function_runs(fp: FunctionPlan, func: Callable, filename: str,
                   describe: Callable[[BaseException, str], dict] | None, cache: bool = True,
                   built: Built | None = None) -> list[dict[str, Any]]:
    device = fp.run_device
    runs = []
    if fp.scale:
        big = run(func, fp.scale_args or [], device, filename, fp.shape_env, describe=describe, cache=cache,
                  built=built)
        big["sizes"] = "scale"
        runs.append(big)
        runs.extend(_grown_runs(fp, func, big, device, filename, cache))
        if fp.real is not None and fake_lost(big):  # measured for real at reduced sizes instead
            from grader.fake import real

            runs.extend(real.runs(fp.real, func, filename))
        if big["status"] == "too_many_ops" and fp.device:
            small = run(func, fp.small_args or [], device, filename, fp.shape_env, describe=describe,
                        max_seconds=MAX_SECONDS / 2, cache=cache)
            small["sizes"] = "small"
            runs.append(small)
    else:
        small = run(func, fp.small_args or [], device, filename, fp.shape_env, describe=describe, cache=cache,
                    built=built)
        small["sizes"] = "small"
        runs.append(small)
    return runs


def fake_lost(run: dict[str, Any]) -> bool:
    """Fake tensors could not follow the code at the scale sizes (it read a value, or they raised where the
    code need not, or they cannot count a size): not a ban, a limit of the run, or a device mix of the code's."""
    if run.get("status") == "ok":
        return bool(run.get("unknown_bytes"))
    if run.get("status") != "raised":
        return False
    exc = run.get("exc") or {}
    if exc.get("type") in ("BannedCall", "CallCount"):
        return False
    return not exc.get("device_mix") or bool(run.get("data_moved"))


def _grown_runs(fp: FunctionPlan, func: Callable, big: dict[str, Any], device: str, filename: str,
                cache: bool = True) -> list[dict]:
    """The solution at the scale sizes with each dimension doubled, when its peak at scale is more
    than GROWTH_BAND times the reference's (closer than that, the growth is not what sets it apart
    at production sizes, and the warm verdict keeps its single fake run). Only the peak comes back."""
    if big["status"] != "ok" or big["unknown_bytes"] or not fp.grown_args:
        return []
    if big["peak"] <= GROWTH_BAND * (fp.reference_peak or 0):
        return []
    import time

    deadline = time.thread_time() + GROWTH_SECONDS  # CPU seconds, as the meter counts: load does not shrink them
    out = []
    for dim, args in fp.grown_args.items():
        left = deadline - time.thread_time()
        if left <= 0.05:
            out.append({"sizes": "grown", "dim": dim, "status": "too_many_ops"})
            continue
        res = run(func, args, device, filename, fp.shape_env, max_seconds=min(MAX_SECONDS, left), cache=cache)
        out.append({"sizes": "grown", "dim": dim, "status": res["status"], "peak": res["peak"],
                    "unknown_bytes": res["unknown_bytes"]})
    return out
