"""Invariant checks on a call's result, after its values matched the oracle.

Each check is `check(call, got, options) -> problem or None`. `CHECKS` is the one
list of kinds: grader.judge.invariant_kinds reads it (and each check's docstring,
its meaning) without importing torch, for the parser. A spec can add its own from its reference
file as `py:name` with the same signature.
"""
from __future__ import annotations

from typing import Any, Callable

import torch

from grader.cases.prepare import Call
from grader.judge.compare import fmt_index, fmt_num


def _tensor(got: Any, options: dict) -> torch.Tensor | None:
    item = options.get("item")
    if item is not None and isinstance(got, tuple):
        got = got[int(item)]
    return got if isinstance(got, torch.Tensor) else None


def nonnegative(call: Call, got: Any, options: dict) -> str | None:
    """Every value is >= 0, checked exactly (no tolerance)."""
    t = _tensor(got, options)
    if t is None or not t.is_floating_point():
        return None
    neg = t < 0
    if bool(neg.any()):
        first = tuple(int(i) for i in neg.nonzero()[0])
        return (f"{int(neg.sum())} values are negative (smallest {fmt_num(float(t.min()))} at {fmt_index(first)}); "
                "they must be >= 0 exactly")
    return None


def finite(call: Call, got: Any, options: dict) -> str | None:
    """No NaN or infinity anywhere."""
    t = _tensor(got, options)
    if t is not None and t.is_floating_point() and not bool(torch.isfinite(t).all()):
        return f"{int((~torch.isfinite(t)).sum())} values are NaN or infinite"
    return None


def sums_to_one(call: Call, got: Any, options: dict) -> str | None:
    """Slices along options.axis sum to 1 (rows where options.where_arg has a kept entry)."""
    t = _tensor(got, options)
    if t is None:
        return None
    axis = int(options.get("axis", -1))
    s = t.double().sum(axis)
    rows = torch.ones_like(s, dtype=torch.bool)
    where = options.get("where_arg")
    if where:
        keep = call.arg_dict()[where].bool().any(axis)
        rows = keep.expand_as(s) if keep.shape != s.shape else keep
    tol = float(options.get("atol", 1e-3 if t.dtype == torch.float16 else 1e-5))
    bad = ((s - 1).abs() > tol) & rows
    if bool(bad.any()):
        first = tuple(int(i) for i in bad.nonzero()[0])
        return f"{int(bad.sum())} slices along axis {axis} do not sum to 1 (at {fmt_index(first)}: {fmt_num(float(s[first]))})"
    return None


def zero_where(call: Call, got: Any, options: dict) -> str | None:
    """Output is exactly 0 where the boolean-ish input options.arg is false/0."""
    t = _tensor(got, options)
    if t is None:
        return None
    keep = call.arg_dict()[options["arg"]].bool()
    keep = keep.expand_as(t)
    leak = (t != 0) & ~keep
    if bool(leak.any()):
        first = tuple(int(i) for i in leak.nonzero()[0])
        return f"{int(leak.sum())} masked positions are not exactly 0 (first at {fmt_index(first)})"
    return None


def equals_input(call: Call, got: Any, options: dict) -> str | None:
    """Output equals input options.arg exactly (round trips)."""
    t = _tensor(got, options)
    src = call.arg_dict().get(options.get("arg", ""))
    if t is None or not isinstance(src, torch.Tensor):
        return None
    if t.shape != src.shape or not torch.equal(t.to(src.dtype), src):
        return "the round trip is not exact"
    return None


def diagonal_ones(call: Call, got: Any, options: dict) -> str | None:
    """The diagonal of a square output is 1 (a box with itself has IoU 1)."""
    t = _tensor(got, options)
    if t is None or t.dim() != 2 or t.shape[0] != t.shape[1]:
        return None
    d = t.double().diagonal()
    valid = torch.ones_like(d, dtype=torch.bool)
    if options.get("skip_zero"):
        valid = d != 0
    if bool(((d - 1).abs() > 1e-3)[valid].any()):
        return "a box compared with itself does not give 1"
    return None


def group_zero_mean(call: Call, got: Any, options: dict) -> str | None:
    """Each group of options.group consecutive values has mean 0 (or is all 0)."""
    t = _tensor(got, options)
    if t is None:
        return None
    g = call.sizes.get(str(options.get("group", "G")), 0) if isinstance(options.get("group", "G"), str) else int(options["group"])
    if not g or t.numel() % g:
        return None
    means = t.double().reshape(-1, g).mean(1)
    tol = float(options.get("atol", 1e-3 if t.dtype == torch.float16 else 1e-5))
    if bool((means.abs() > tol).any()):
        i = int((means.abs() > tol).nonzero()[0])
        return f"group {i} does not have zero mean ({fmt_num(float(means[i]))})"
    return None


def values_in(call: Call, got: Any, options: dict) -> str | None:
    """Every value lies in [options.low, options.high]."""
    t = _tensor(got, options)
    if t is None:
        return None
    lo, hi = float(options.get("low", float("-inf"))), float(options.get("high", float("inf")))
    bad = (t.double() < lo) | (t.double() > hi)
    if bool(bad.any()):
        return f"{int(bad.sum())} values fall outside [{lo:g}, {hi:g}]"
    return None


CHECKS: dict[str, Callable[[Call, Any, dict], str | None]] = {
    "nonnegative": nonnegative,
    "finite": finite,
    "sums_to_one": sums_to_one,
    "zero_where": zero_where,
    "equals_input": equals_input,
    "diagonal_ones": diagonal_ones,
    "group_zero_mean": group_zero_mean,
    "values_in": values_in,
}


def first_problem(prep: Any, call: Call, got: Any) -> str | None:
    """The first of the spec's invariants that this result breaks (None: all hold)."""
    for inv in prep.spec.invariants:
        if inv.function and inv.function != call.function.name:
            continue
        check = getattr(prep.reference, inv.kind[3:]) if inv.kind.startswith("py:") else CHECKS[inv.kind]
        problem = check(call, got, inv.options)
        if problem:
            return problem
    return None
