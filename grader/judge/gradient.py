"""The gradient case, judged: the solution's input gradients against the reference's
(grader/cases/gradient.py), told in the person's terms.

Per call, each input that requires grad, in order of what a person must fix first:
- the forward raised once its inputs required grad (an in-place write on a leaf, `.numpy()` on a
  tensor that requires grad): an error of this case;
- the backward raised (an in-place write to a tensor autograd saved): an error, with the line the
  child found under anomaly detection when it could;
- no gradient reaches an input where the reference's is not zero (`.detach()`, `.data`, `no_grad`,
  a NumPy round trip, an integer cast): wrong, "no gradient reaches x"; where the reference's is
  zero too, None is zero and right;
- NaN or inf in the gradient: wrong, with how many positions and what the reference has there;
- values: wrong where they differ beyond the tolerance of the forward's dtype, at least
  GRADIENT_FLOOR, scaled by the gradient's magnitude (atol · max(1, max |g_ref|) + rtol · |g_ref|).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch

from grader.report import CaseKind, CaseResult

if TYPE_CHECKING:
    from grader.cases.gradient import GradCase
    from grader.cases.prepare import Call

FLOAT32_TOLERANCE = (1.0e-5, 1.0e-4)  # (atol, rtol) when the spec names none for float32
# A float32 backward cancels more than its forward (softmax's dS = P * (dP - rowsum) near a one-hot P), so
# two correct routes differ by more than the forward's tolerance: gradients are held to at least 1e-3 of the
# larger of 1 and their largest magnitude. A wrong backward (a missed factor, a lost term) is off by far more.
GRADIENT_FLOOR = 1.0e-3


def judge(case: GradCase, call: Call, got: dict[str, Any] | None, tolerance: tuple[float, float]) -> CaseResult:
    """One call's gradient case from the child's frame `got` (None: it never came back)."""
    res = CaseResult(call.name, case.function, "pass", dims=dict(call.sizes), kind=CaseKind.GRADIENT)
    if got is None:
        res.verdict, res.message = "error", "gradient case: not finished (the run ended before it)"
        return res
    status = got.get("status")
    if status == "raised":
        res.verdict = "error"
        res.message = f"gradient case: the forward raises once its inputs require grad: {got.get('text', '')}"
        return res
    if status == "backward":
        res.verdict = "error"
        text = str(got.get("text", "")).split(" Hint:")[0].strip()  # the hint is torch's: we followed it
        line = f"line {got['line']} ({got.get('source', '')})" if got.get("line") else ""
        if "modified by an inplace operation" in text and line:
            res.message = (f"gradient case: backward fails: a tensor {line} saves for the backward is written "
                           f"in place afterwards ({text})")
        else:
            res.message = f"gradient case: backward fails{f' at {line}' if line else ''}: {text}"
        return res
    grads = got.get("grads") or []
    problems = []
    for name, expected, g in zip(case.names, case.expected, grads + [None] * (len(case.names) - len(grads))):
        problem = _input_problem(name, expected, g, tolerance)
        if problem:
            problems.append(problem)
    if problems:
        res.verdict = "wrong"
        res.message = "gradient case: " + "; ".join(problems)
    return res


def _input_problem(name: str, expected: torch.Tensor, got: Any, tolerance: tuple[float, float]) -> str:
    nonzero = bool((expected != 0).any())
    if got is None:
        return f"no gradient reaches {name} (its gradient is None), where the reference's is not zero" if nonzero else ""
    if not isinstance(got, torch.Tensor):
        return f"the gradient of {name} is not a tensor"
    if tuple(got.shape) != tuple(expected.shape):
        return f"the gradient of {name} has shape {tuple(got.shape)}, where {name} is {tuple(expected.shape)}"
    g = got.detach().to(torch.float64)
    e = expected.to(torch.float64)
    bad = ~torch.isfinite(g)
    if bool(bad.any()):
        n, total = int(bad.sum()), g.numel()
        kind = "NaN" if bool(torch.isnan(g).any()) else "inf"
        zero_there = int((e[bad] == 0).sum())
        where = (f"; the reference's gradient is 0 at {'all' if zero_there == n else zero_there} of them"
                 if zero_there else "")
        return f"{kind} in the gradient of {name} at {n} of {total} positions{where}"
    atol, rtol = max(tolerance[0], GRADIENT_FLOOR), max(tolerance[1], GRADIENT_FLOOR)
    scale = max(1.0, float(e.abs().max())) if e.numel() else 1.0
    off = (g - e).abs() > atol * scale + rtol * e.abs()
    if bool(off.any()):
        err = float((g - e).abs().max())
        if not nonzero and not bool((g != 0).any()):
            return ""
        if nonzero and not bool((g != 0).any()):
            return f"the gradient of {name} is all zeros, where the reference's is not"
        return (f"the gradient of {name} differs at {int(off.sum())} of {g.numel()} positions "
                f"(max error {err:.3g}, the reference's largest {float(e.abs().max()):.3g})")
    return ""
