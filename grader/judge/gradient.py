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

from grader.judge.compare import within
from grader.report import CaseKind, CaseResult, TrapMatch

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


def match_trap(prep: Any, outcome: Any, tolerance: tuple[float, float]) -> TrapMatch | None:
    """The first backward trap of the drill (a spec trap with `gradient: true`: the reference's forward with
    one classic backward mistake, its gradients computed with the reference's: grader.cases.gradient) that
    explains the gradient case, or None. Only when every real case passed (a wrong forward is told first):
    on every gradient case where the trap's gradients differ from the reference's, the solution's differ
    too and are the trap's (the same NaN and inf positions, the finite values within the tolerance); where
    the trap's agree with the reference's, the solution's case passes; and at least one case shows it."""
    gradients = outcome.gradients or {}
    calls = {c.index: c for c in prep.calls}
    for trap in (t for t in prep.spec.traps if t.gradient):
        explained: list[str] = []
        for case in prep.gradient:
            got, theirs, call = gradients.get(case.index), case.traps.get(trap.id), calls.get(case.index)
            if got is None or call is None or not theirs or got.get("status") != "ok":
                break  # not run, not computable for the trap, or an error of its own: the trap does not say it
            mine = list(got.get("grads") or []) + [None] * len(case.names)
            trap_off = any(_input_problem(n, e, t, tolerance) for n, e, t in zip(case.names, case.expected, theirs))
            mine_off = any(_input_problem(n, e, g, tolerance) for n, e, g in zip(case.names, case.expected, mine))
            if trap_off != mine_off or (trap_off and not all(
                    _same(g, t, e, tolerance) for g, t, e in zip(mine, theirs, case.expected))):
                break
            if trap_off:
                explained.append(call.name)
        else:
            if explained:
                return TrapMatch(trap.id, trap.message, trap.why, explains=tuple(dict.fromkeys(explained)))
    return None


def _same(got: Any, trap: Any, expected: torch.Tensor, tolerance: tuple[float, float]) -> bool:
    """Whether the solution's gradient of an input is the trap's: None reads as zeros, NaN and inf at the
    same positions (inf with its sign), the finite values within the gradient case's tolerance."""
    g = torch.zeros_like(expected, dtype=torch.float64) if got is None else got
    t = torch.zeros_like(expected, dtype=torch.float64) if trap is None else trap
    if not isinstance(g, torch.Tensor) or tuple(g.shape) != tuple(t.shape):
        return False
    g, t = g.detach().to(torch.float64), t.detach().to(torch.float64)
    if not torch.equal(torch.isnan(g), torch.isnan(t)) or not torch.equal(torch.isposinf(g), torch.isposinf(t)) \
            or not torch.equal(torch.isneginf(g), torch.isneginf(t)):
        return False
    finite = torch.isfinite(t)
    return not bool(finite.any()) or not bool(_off(g[finite], t[finite], tolerance).any())


def _bounds(want: torch.Tensor, tolerance: tuple[float, float]) -> tuple[float, float]:
    """(absolute, relative) tolerance of the gradient case against `want`: the forward dtype's, at least
    GRADIENT_FLOOR, the absolute one scaled by the larger of 1 and `want`'s largest magnitude."""
    atol, rtol = max(tolerance[0], GRADIENT_FLOOR), max(tolerance[1], GRADIENT_FLOOR)
    scale = max(1.0, float(want.abs().max())) if want.numel() else 1.0
    return atol * scale, rtol


def _off(got: torch.Tensor, want: torch.Tensor, tolerance: tuple[float, float]) -> torch.Tensor:
    """Where `got` differs from `want` beyond the gradient case's tolerance (`_bounds`), float64 in both."""
    atol, rtol = _bounds(want, tolerance)
    return (got - want).abs() > atol + rtol * want.abs()


def _close(expected: torch.Tensor, got: torch.Tensor, tolerance: tuple[float, float]) -> bool:
    """Whether `got` passes as `expected` with no closer look: every value finite and none off (as `_off`
    counts it), read with NumPy (grader.judge.compare.within). False says only "look closer"."""
    g, e = got.detach().to(torch.float64), expected.detach().to(torch.float64)
    return within(e, g, *_bounds(e, tolerance))


def _input_problem(name: str, expected: torch.Tensor, got: Any, tolerance: tuple[float, float]) -> str:
    if isinstance(got, torch.Tensor) and tuple(got.shape) == tuple(expected.shape) and _close(expected, got, tolerance):
        return ""
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
    off = _off(g, e, tolerance)
    if bool(off.any()):
        err = float((g - e).abs().max())
        if not nonzero and not bool((g != 0).any()):
            return ""
        if nonzero and not bool((g != 0).any()):
            return f"the gradient of {name} is all zeros, where the reference's is not"
        return (f"the gradient of {name} differs at {int(off.sum())} of {g.numel()} positions "
                f"(max error {err:.3g}, the reference's largest {float(e.abs().max()):.3g})")
    return ""
