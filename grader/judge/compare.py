"""Comparison of one call's result with the oracle, in a fixed order.

raised? -> exact shape -> dtype -> NaN/inf positions -> values -> (invariants
and trap matching happen in grader.engine). The output is never broadcast or
squeezed to fit: a (B, T, 1) answer to a (B, T) question is a shape verdict.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy
import torch

from grader.cases.prepare import DTYPES, Call, ExpectedRaise
from grader.dims import explain_shape, shape_names
from grader.spec import ReturnSpec, Tolerance
from grader.transport import Foreign, Oversized, SeqValue


@dataclass
class Verdict:
    verdict: str  # pass | wrong | error
    message: str = ""
    expected_shape: list[int] | None = None
    got_shape: list[int] | None = None
    line: int | None = None
    shape_names: tuple[str, ...] | None = None  # set on a shape verdict: the expected shape's names
    prefix: str = ""  # "output of the returned tuple: " before the shape sentence


def fmt_index(idx: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(i) for i in idx) + "]"


def fmt_num(x: float) -> str:
    if x != x:
        return "nan"
    if x in (float("inf"), float("-inf")):
        return "inf" if x > 0 else "-inf"
    if abs(x) >= 1e4 or (abs(x) < 1e-3 and x != 0):
        return f"{x:.3g}"
    return f"{x:.4g}"


def tolerance_for(call: Call, tolerances: dict[str, Tolerance]) -> Tolerance:
    name = str(call.dtype).replace("torch.", "")
    return tolerances.get(name, Tolerance(1e-5, 1e-4))


def expected_dtypes(ret: ReturnSpec, call: Call) -> tuple[torch.dtype, ...]:
    word = ret.dtype or "float"
    if word == "float":
        return (call.dtype,)
    if word == "loss":
        return (call.dtype, torch.float32) if call.dtype != torch.float32 else (torch.float32,)
    if word == "mask":
        return (call.mask_dtype,)
    return (DTYPES[word],)


def compare_call(call: Call, got: Any, tolerances: dict[str, Tolerance], checker: Any = None) -> Verdict:
    """Compare a decoded result with the call's expected value."""
    fn = call.function
    expected = call.expected
    if isinstance(expected, ExpectedRaise):
        return Verdict("wrong", f"expected {_one_of(expected.types)} here, but it returned {_describe(got)}")
    if fn.tuple_return:
        items = got.items if isinstance(got, SeqValue) else got
        if not isinstance(items, tuple):
            return Verdict("wrong", f"expected a tuple of {len(fn.returns)} ({_ret_names(fn.returns)}), got {_describe(got)}")
        if len(items) != len(fn.returns):
            return Verdict("wrong", f"expected a tuple of {len(fn.returns)} ({_ret_names(fn.returns)}), "
                                    f"got a tuple of {len(items)}")
        for i, (ret, exp, g) in enumerate(zip(fn.returns, expected, items)):
            v = compare_value(ret, exp, g, call, tolerances)
            if v.verdict != "pass":
                label = ret.name or f"item {i}"
                v.prefix = f"{label} of the returned tuple: "
                v.message = v.prefix + v.message
                return v
        return Verdict("pass", got_shape=None)
    return compare_value(fn.returns[0], expected, got, call, tolerances)


def _ret_names(rets: tuple[ReturnSpec, ...]) -> str:
    return ", ".join(r.name or (shape_names(r.shape) if r.shape is not None else str(r.type)) for r in rets)


def _one_of(types: tuple[str, ...]) -> str:
    return " or ".join(types)


def _describe(value: Any) -> str:
    if isinstance(value, torch.Tensor):
        return f"a tensor of shape {tuple(value.shape)} ({str(value.dtype).replace('torch.', '')})"
    if isinstance(value, Foreign):
        extra = f" of shape {value.shape}" if value.shape is not None else ""
        return f"a {value.type_name}{extra}"
    if isinstance(value, Oversized):
        return f"a tensor of shape {value.shape}"
    if isinstance(value, SeqValue):
        return f"a list {_short(list(value.items))}"
    if isinstance(value, tuple):
        return f"a tuple {_short(value)}"
    if value is None:
        return "None (did the function forget to return?)"
    return f"{type(value).__name__} {_short(value)}"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def compare_value(ret: ReturnSpec, expected: Any, got: Any, call: Call, tolerances: dict[str, Tolerance]) -> Verdict:
    if ret.is_tensor:
        return _compare_tensor(ret, expected, got, call, tolerances)
    return _compare_python(ret, expected, got, call, tolerances)


def _compare_python(ret: ReturnSpec, expected: Any, got: Any, call: Call, tolerances: dict[str, Tolerance]) -> Verdict:
    typ = ret.type or ""
    if typ == "int":
        return _compare_int(expected, got)
    if typ == "float":
        if isinstance(got, torch.Tensor) and got.numel() == 1:
            got = float(got.item())
        if isinstance(got, bool) or not isinstance(got, (int, float)):
            return Verdict("wrong", f"expected a Python float, got {_describe(got)}")
        tol = tolerance_for(call, tolerances)
        if abs(got - expected) > tol.atol + tol.rtol * abs(expected):
            return Verdict("wrong", f"expected {fmt_num(expected)}, got {fmt_num(got)}")
        return Verdict("pass")
    if typ == "tuple[int, ...]":
        return _compare_int_tuple(expected, got)
    if typ == "bool":
        if not isinstance(got, bool):
            return Verdict("wrong", f"expected True or False, got {_describe(got)}")
        return Verdict("pass") if got == expected else Verdict("wrong", f"expected {expected}, got {got}")
    if typ in ("list[int]", "list[float]", "list[list[int]]"):
        items = list(got.items) if isinstance(got, SeqValue) else got
        if not isinstance(items, list) or _plain(items) != _plain(expected):
            return Verdict("wrong", f"expected {_short(expected)}, got {_describe(got)}")
        return Verdict("pass")
    return Verdict("pass") if got == expected else Verdict("wrong", f"expected {_short(expected)}, got {_describe(got)}")


def _compare_int(expected: Any, got: Any) -> Verdict:
    if isinstance(got, bool) or not isinstance(got, int):
        if isinstance(got, torch.Tensor) and got.numel() == 1 and not got.is_floating_point():
            got = int(got.item())
        else:
            return Verdict("wrong", f"expected a Python int, got {_describe(got)}")
    if got != expected:
        return Verdict("wrong", f"expected {expected}, got {got}" + _ratio(got, expected))
    return Verdict("pass")


def _compare_int_tuple(expected: Any, got: Any) -> Verdict:
    if isinstance(got, SeqValue):
        return Verdict("wrong", f"expected a tuple, got a list {_short(list(got.items))}: return tuple(...)")
    if not isinstance(got, tuple) or not all(isinstance(v, int) and not isinstance(v, bool) for v in got):
        return Verdict("wrong", f"expected a tuple of ints, got {_describe(got)}")
    if tuple(got) != tuple(expected):
        return Verdict("wrong", f"expected {tuple(expected)}, got {tuple(got)}")
    return Verdict("pass")


def _plain(v: Any) -> Any:
    if isinstance(v, SeqValue):
        return [_plain(x) for x in v.items]
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v


def _ratio(got: int, expected: int) -> str:
    if expected and got and got % expected == 0:
        return f" ({got // expected}x too large)"
    if expected and got and expected % got == 0:
        return f" ({expected // got}x too small)"
    return ""


def _compare_tensor(ret: ReturnSpec, expected: Any, got: Any, call: Call, tolerances: dict[str, Tolerance]) -> Verdict:
    exp_shape = [int(s) for s in expected.shape]
    names = tuple(ret.shape or ())
    if isinstance(got, Oversized):
        return Verdict("wrong", "shape: " + explain_shape(names, tuple(exp_shape), got.shape, call.sizes),
                       exp_shape, list(got.shape), shape_names=names)
    if isinstance(got, Foreign) and got.type_name == "numpy.ndarray":
        return Verdict("wrong", f"returned a numpy array of shape {got.shape}; return a torch tensor (torch.from_numpy(...))",
                       exp_shape, list(got.shape) if got.shape else None)
    if not isinstance(got, torch.Tensor):
        if not exp_shape and isinstance(got, (float, int)) and not isinstance(got, bool):
            return Verdict("wrong", f"returned a Python {type(got).__name__}; return a 0-d tensor (do not call .item())",
                           exp_shape)
        return Verdict("wrong", f"expected a tensor of shape {shape_names(names)}, got {_describe(got)}", exp_shape)
    got_shape = [int(s) for s in got.shape]
    if got_shape != exp_shape:
        return Verdict("wrong", "shape: " + explain_shape(names, tuple(exp_shape), tuple(got_shape), call.sizes),
                       exp_shape, got_shape, shape_names=names)
    allowed = expected_dtypes(ret, call)
    if got.dtype not in allowed:
        want = " or ".join(str(d).replace("torch.", "") for d in allowed)
        why = ""
        if ret.dtype == "float" and call.dtype == torch.float16:
            why = " (fp16 in, fp16 out)"
        elif ret.dtype in ("int64", "bool"):
            why = f" ({ret.dtype} as the contract says)"
        return Verdict("wrong", f"dtype: expected {want}{why}, got {str(got.dtype).replace('torch.', '')}", exp_shape, got_shape)
    if not got.is_floating_point() or not expected.is_floating_point():
        return _compare_exact(expected, got, exp_shape, got_shape)
    return _compare_float(expected, got, call, tolerances, exp_shape, got_shape)


def _compare_exact(expected: torch.Tensor, got: torch.Tensor, exp_shape: list[int], got_shape: list[int]) -> Verdict:
    e = expected.to(got.dtype) if expected.dtype != got.dtype else expected
    diff = e != got
    n = int(diff.sum())
    if n == 0:
        return Verdict("pass", expected_shape=exp_shape, got_shape=got_shape)
    first = tuple(int(i) for i in diff.nonzero()[0]) if diff.dim() else ()
    exp_v = e[first].item() if first or e.dim() == 0 else e.item()
    got_v = got[first].item() if first or got.dim() == 0 else got.item()
    return Verdict("wrong", f"values differ at {n} of {diff.numel()} positions; "
                            f"first at {fmt_index(first)}: expected {exp_v}, got {got_v}",
                   exp_shape, got_shape)


def _compare_float(expected: torch.Tensor, got: torch.Tensor, call: Call, tolerances: dict[str, Tolerance],
                   exp_shape: list[int], got_shape: list[int]) -> Verdict:
    e = expected.double()
    g = got.double()
    tol = Tolerance(0.0, 0.0) if call.function.exact else tolerance_for(call, tolerances)
    if within(e, g, tol.atol, tol.rtol):
        return Verdict("pass", expected_shape=exp_shape, got_shape=got_shape)
    e_fin, g_fin = torch.isfinite(e), torch.isfinite(g)
    for bad, finite_expected in ((e_fin & ~g_fin, True), (~e_fin & g_fin, False)):
        if not bool(bad.any()):
            continue
        n = int(bad.sum())
        first = tuple(int(i) for i in bad.nonzero()[0]) if bad.dim() else ()
        gv = g[first].item() if bad.dim() else g.item()
        ev = e[first].item() if bad.dim() else e.item()
        if finite_expected:
            what = "NaN" if gv != gv else fmt_num(gv)
            text = (f"non-finite values: {what} at {n} of {bad.numel()} positions where a finite value was "
                    f"expected; first at {fmt_index(first)} (expected {fmt_num(ev)})")
        else:
            text = (f"finite values at {n} of {bad.numel()} positions where {fmt_num(ev)} was expected; "
                    f"first at {fmt_index(first)} (got {fmt_num(gv)})")
        return Verdict("wrong", text, exp_shape, got_shape)
    both_nonfinite = ~e_fin
    if bool(both_nonfinite.any()) and not bool(torch.equal(e[both_nonfinite], g[both_nonfinite])):
        differ = both_nonfinite & ~((e == g) | (torch.isnan(e) & torch.isnan(g)))
        first = tuple(int(i) for i in differ.nonzero()[0]) if differ.dim() else ()
        ev = e[first].item() if differ.dim() else e.item()
        gv = g[first].item() if differ.dim() else g.item()
        return Verdict("wrong", f"non-finite values differ at {int(differ.sum())} positions; first at "
                                f"{fmt_index(first)} (expected {fmt_num(ev)}, got {fmt_num(gv)})", exp_shape, got_shape)
    err = (g - e).abs()
    err = torch.where(e_fin, err, torch.zeros_like(err))
    limit = tol.atol + tol.rtol * e.abs()
    bad = err > limit
    n = int(bad.sum())
    if n == 0:
        return Verdict("pass", expected_shape=exp_shape, got_shape=got_shape)
    flat = int(torch.argmax(torch.where(bad, err, torch.zeros_like(err)).reshape(-1)))
    where = tuple(int(i) for i in torch.unravel_index(torch.tensor(flat), e.shape)) if e.dim() else ()
    worst_abs = float(err.reshape(-1)[flat])
    ev = float(e.reshape(-1)[flat])
    gv = float(g.reshape(-1)[flat])
    msg = (f"values differ at {n} of {bad.numel()} positions; max abs error {fmt_num(worst_abs)} at {fmt_index(where)} "
           f"(expected {fmt_num(ev)}, got {fmt_num(gv)})")
    nonzero = bad & (e != 0)  # a relative error against an expected 0 means nothing
    if bool(nonzero.any()):
        rel = err / e.abs().clamp_min(1e-300)
        msg += f"; max rel error {fmt_num(float(torch.where(nonzero, rel, torch.zeros_like(rel)).max()))}"
        if int(nonzero.sum()) < n:
            msg += f" (where the expected value is not 0; it is 0 at {n - int(nonzero.sum())} of them)"
    else:
        msg += "; the expected value is 0 at every differing position, so only the absolute error counts"
    ratio = _constant_ratio(e, g)
    if ratio:
        msg += f"; every value is {ratio} the expected one"
    return Verdict("wrong", msg, exp_shape, got_shape)


def within(want: torch.Tensor, got: torch.Tensor, atol: float, rtol: float) -> bool:
    """Whether every value of `got` is finite and within atol + rtol * |want| of `want`'s (both float64, one
    shape, on the CPU): the passing case of a comparison, read with NumPy, whose few calls on the small tensors
    of the cases cost a fraction of torch's. False says only "look closer" (a non-finite value, one too far)."""
    try:
        w, g = want.numpy(), got.numpy()
    except (RuntimeError, TypeError):  # a tensor NumPy cannot view (one that requires grad): torch's path says
        return False
    with numpy.errstate(invalid="ignore", over="ignore"):  # a NaN or inf in `got` fails the comparison itself
        return bool(numpy.isfinite(w).all() and (numpy.abs(g - w) <= atol + rtol * numpy.abs(w)).all())


def _constant_ratio(e: torch.Tensor, g: torch.Tensor) -> str:
    mask = e.abs() > 1e-6
    if int(mask.sum()) < 2:
        return ""
    r = g[mask] / e[mask]
    if float(r.std()) < 1e-3 * max(1.0, float(r.abs().mean())):
        val = float(r.mean())
        if abs(val - 1) > 1e-3:
            return f"{val:.4g} times"
    return ""


def outputs_close(a: Any, b: Any, call: Call, tolerances: dict[str, Tolerance]) -> bool:
    """Do two results agree (same structure, shape, values within tolerance)? Used for trap matching."""
    if isinstance(a, SeqValue):
        a = a.items
    if isinstance(b, SeqValue):
        b = b.items
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        if a.shape != b.shape:
            return False
        if a.is_floating_point() or b.is_floating_point():
            x, y = a.double(), b.double()
            fin = torch.isfinite(x) & torch.isfinite(y)
            if not torch.equal(torch.isfinite(x), torch.isfinite(y)):
                return False
            tol = tolerance_for(call, tolerances)
            return bool(((x - y).abs()[fin] <= tol.atol * 4 + tol.rtol * 4 * y.abs()[fin]).all())
        return bool(torch.equal(a.long(), b.long()))
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(outputs_close(x, y, call, tolerances) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, (int, float)):
        return abs(a - b) <= 1e-6 * max(1.0, abs(b))
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        # a tensor against a Python value: only a 0-d tensor can stand for a number
        t, v = (a, b) if isinstance(a, torch.Tensor) else (b, a)
        if t.dim() != 0 or isinstance(v, bool) or not isinstance(v, (int, float)):
            return False
        return abs(float(t) - float(v)) <= 1e-6 * max(1.0, abs(float(v)))
    return a == b
