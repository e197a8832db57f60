"""Memory growth measured on real CPU tensors, where fake tensors cannot follow the code.

The scale check (grader.fake.checks) runs a solution on fake tensors at production
sizes. Code that reads a value (`int(lengths.max())`, `float(A.abs().max())`), or
that fake tensors cannot run, stops there; without a second way it would only be
told "scale: not checked". So the plan also holds a `Probe`: real inputs, drawn by
the drill's own generators at sizes reduced from the scale sizes (every large
dimension divided by the same power of two, until the larger of the reference's
peak and the inputs' bytes is about BUDGET), and at those sizes with each named
dimension doubled, beside the reference's peaks there, measured the same way.
In the sandbox child, only when the fake run could not follow the code, the
solution runs on copies of those inputs under the same live-bytes meter
(grader.fake.meter) and its peaks come back; grader.fake.scale judges their
growth as it judges the fake run's (grader.fake.growth).

Torch is imported at the top: only the grading path (the trusted plan, the
sandbox child) imports this module.
"""
from __future__ import annotations

import random
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

import torch

from grader.fake.meter import TooManyOps, make_meter

BUDGET = 1 << 20  # bytes the larger of the reference's peak and the inputs' should come to at the reduced sizes
MAX_OPS = 3_000  # tensor operations per real run, as a fake run (grader.fake.checks.MAX_OPS)
MAX_SECONDS = 0.5  # CPU seconds per real run of a solution (a reduced run takes milliseconds)
TOTAL_SECONDS = 1.0  # CPU seconds all the real runs of one function share, as the fake runs at doubled sizes do


@dataclass
class Probe:
    """One function's real inputs at the reduced sizes (and with each dimension doubled), and the reference's peaks there."""

    sizes: dict[str, int]
    args: list[Any]
    grown: dict[str, list[Any]] = field(default_factory=dict)  # dim -> the inputs with it doubled
    reference_peak: int = 0
    reference_grown: dict[str, int] = field(default_factory=dict)
    input_bytes: int = 0
    input_grown: dict[str, int] = field(default_factory=dict)


def reduced_sizes(spec: Any, scale: dict[str, int], exps: dict[str, float], base: int) -> dict[str, int]:
    """The scale sizes with every named dimension divided by the same power of two (never below the
    largest size its cases draw, nor below 1) until `base` bytes, growing with `exps`, come to BUDGET."""
    named = {n: int(scale[n]) for n, r in spec.dims.items() if not r.derived and int(scale.get(n, 0)) >= 1}
    floor = {n: max(1, min(named[n], int(spec.dims[n].high or 1))) for n in named}
    sizes = dict(named)
    for k in range(1, 40):
        sizes = {n: max(floor[n], named[n] >> k) for n in named}
        estimate = float(base)
        for n, e in exps.items():
            if n in sizes and named[n]:
                estimate *= (sizes[n] / named[n]) ** e
        if estimate <= BUDGET or sizes == floor:
            break
    return with_derived(spec, {**{k: v for k, v in scale.items() if k not in spec.dims}, **sizes})


def with_derived(spec: Any, sizes: dict[str, int]) -> dict[str, int]:
    """sizes with the derived dimensions following their formulas."""
    from grader.dims import eval_expr

    out = dict(sizes)
    for rule in spec.dims.values():
        if rule.derived:
            out[rule.name] = eval_expr(rule.expr or "0", out)
    return out


def build_args(spec: Any, fn: Any, reference: Any, sizes: dict[str, int], seed: int = 1) -> list[Any]:
    """fn's arguments drawn for real at `sizes` by the drill's generators (float32, bool masks, the
    example case's params, as the scale sketches are): deterministic for the same sizes."""
    from grader.cases import generators
    from grader.cases import prepare as cases

    base = cases._example_case(spec)
    ctx = generators.Context(torch.Generator().manual_seed(seed), random.Random(seed), dict(sizes),
                             cases.DTYPES["float32"], cases.DTYPES["bool"], base.params, base, {}, {}, reference)
    return cases._make_args(spec, fn, ctx)


def probe(spec: Any, fn: Any, reference: Any, func: Callable, filename: str, scale: dict[str, int],
          grown_dims: list[str], exps: dict[str, float], base: int) -> tuple[Probe | None, str]:
    """(the function's Probe, "") or (None, why not): built and measured in the trusted plan, once per drill."""
    try:
        sizes = reduced_sizes(spec, scale, exps, base)
        args = build_args(spec, fn, reference, sizes)
    except Exception as exc:  # noqa: BLE001 - an author's generator that cannot draw these sizes
        return None, f"the inputs could not be built at reduced sizes ({type(exc).__name__}: {str(exc)[:120]})"
    first = measure(func, args, filename, max_seconds=30.0)
    if first["status"] != "ok":
        return None, f"the reference did not run on real inputs at {sizes} ({first.get('why', first['status'])})"
    out = Probe(sizes, args, reference_peak=int(first["peak"]), input_bytes=tensor_bytes(args))
    for dim in grown_dims:
        if sizes.get(dim, 0) < 1 or dim not in spec.dims or spec.dims[dim].derived:
            continue
        try:
            bigger = with_derived(spec, {**sizes, dim: 2 * sizes[dim]})
            grown_args = build_args(spec, fn, reference, bigger)
        except Exception:  # noqa: BLE001, S112 - a dimension the generators cannot double here: not compared
            continue
        res = measure(func, grown_args, filename, max_seconds=30.0)
        if res["status"] != "ok":
            continue
        out.grown[dim] = grown_args
        out.reference_grown[dim] = int(res["peak"])
        out.input_grown[dim] = tensor_bytes(grown_args)
    return out, ""


def measure(func: Callable, args: list[Any], filename: str, max_ops: int = MAX_OPS,
            max_seconds: float = MAX_SECONDS) -> dict[str, Any]:
    """Call func on fresh copies of args (real CPU tensors) under the live-bytes meter:
    {status: ok|raised|too_many_ops, peak, why}. The copies are made before the meter
    starts, so the inputs count as they do on fake tensors: only what a view of them keeps."""
    copies = [_copy(a) for a in args]
    meter = make_meter(filename, max_ops, max_seconds)
    result: dict[str, Any] = {}
    try:
        with warnings.catch_warnings(), torch.no_grad(), meter:
            warnings.simplefilter("ignore")
            out = func(*copies)
        del out
        result["status"] = "ok"
    except TooManyOps:
        result["status"] = "too_many_ops"
    except BaseException as exc:  # noqa: BLE001 - the solution's error is data
        result["status"] = "raised"
        result["why"] = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0][:160] if str(exc).strip() else ''}"
    result["peak"] = int(meter.peak)
    return result


def tensor_bytes(value: Any) -> int:
    """The bytes of every tensor in value (inside lists and tuples)."""
    if isinstance(value, torch.Tensor):
        return int(value.numel()) * value.element_size()
    if isinstance(value, (list, tuple)):
        return sum(tensor_bytes(v) for v in value)
    return 0


def _copy(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.clone()
    if isinstance(value, tuple) and not isinstance(value, torch.Size):
        return tuple(_copy(v) for v in value)
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def runs(the_probe: Probe, func: Callable, filename: str) -> list[dict[str, Any]]:
    """In the sandbox child: the solution's peaks at the reduced sizes and with each dimension doubled
    (`sizes: "real"`, `dim` "" for the reduced sizes themselves); only the peaks and statuses come back."""
    import time

    deadline = time.thread_time() + TOTAL_SECONDS  # CPU seconds, as the meter counts: load does not shrink them
    out = []
    for dim, args in [("", the_probe.args), *the_probe.grown.items()]:
        left = deadline - time.thread_time()
        res = measure(func, args, filename, max_seconds=min(MAX_SECONDS, left)) if left > 0.05 \
            else {"status": "too_many_ops", "peak": 0}
        out.append({"sizes": "real", "dim": dim, "status": res["status"], "peak": res["peak"]})
        if not dim and res["status"] != "ok":
            break
    return out
