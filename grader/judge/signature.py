"""A failure's signature: does a solution's wrong result show a trap's mistake, however written?

grader.judge.attribution asks this of each case a trap fails. A solution need not
return the trap function's exact values to make its mistake; it must fail the
way the trap fails:

- **the same shape** (tensor for tensor, tuple for tuple), and for each tensor
  a dtype the contract accepts when the trap's is one too (a loss computed in
  float32 and returned in the input's fp16, where the trap returns float32),
  or else the trap's own dtype;
- **the same values**, within four times the case's tolerance; or
- **the same wrong positions**: every position where the solution differs
  from the oracle is one where the trap does, with the trap's value there,
  and the solution shows the mistake on at least half the positions the trap
  shows it (an unclipped intersection guarded by `union > 0` rather than the
  trap's `union != 0` is right on the degenerate pairs the trap gets wrong,
  and wrong, the trap's way, on every other pair).

A second mistake shows as positions where the solution is wrong and the trap
is not (or is wrong another way): then the signature is not the trap's. One
exception: where the solution is NaN or inf and the trap finite but wrong in that
row (the last axis), the same mistake written with -inf instead of finfo.min
explains it (a mask turned around empties whole rows, which a softmax makes NaN
where the trap spreads them evenly); the trap is then judged on the finite
positions, and the attribution names it only beside a case that shows the
trap's finite values (shows_finite_values), and only when no trap of the drill
matches without this reading (grader.judge.attribution: a drill whose lesson is
-inf against -1e9 keeps its -inf trap).

`dtype_slip` tells apart a failure for a separate, visible reason: the
solution's result has the right shape and the wrong dtype, and once cast to
the dtype the contract wants it is what the trap explains (the trap's values
where the trap fails, the oracle's where it passes).
"""
from __future__ import annotations

from typing import Any

import torch

from grader.cases.prepare import Call
from grader.judge.compare import expected_dtypes, outputs_close, tolerance_for
from grader.spec import ReturnSpec, Tolerance
from grader.transport import SeqValue

MIN_SHARE = 0.5  # the least share of the trap's wrong positions the solution must get wrong its way


def _items(value: Any) -> Any:
    return value.items if isinstance(value, SeqValue) else value


def _returns(call: Call, n: int) -> tuple[ReturnSpec | None, ...]:
    rets = call.function.returns
    return tuple(rets) if len(rets) == n else (None,) * n


def parts(call: Call, got: Any, trap: Any, oracle: Any) -> list[tuple[ReturnSpec | None, Any, Any, Any]] | None:
    """The results side by side, item by item: (return spec, solution, trap, oracle);
    None when the solution's structure is not the trap's."""
    got, trap, oracle = _items(got), _items(trap), _items(oracle)
    if isinstance(trap, tuple) and call.function.tuple_return:
        if not isinstance(got, tuple) or len(got) != len(trap):
            return None
        exp = oracle if isinstance(oracle, tuple) and len(oracle) == len(trap) else (None,) * len(trap)
        return [(r, g, t, e) for r, g, t, e in zip(_returns(call, len(trap)), got, trap, exp)]
    return [(call.function.returns[0] if call.function.returns else None, got, trap, oracle)]


def same_shapes(call: Call, got: Any, trap: Any) -> bool:
    """The solution's result has the trap's structure and tensor shapes (what a `match: py:`
    check also requires: a matcher that reads values alone would accept swapped outputs)."""
    items = parts(call, got, trap, None)
    if items is None:
        return False
    for _, g, t, _ in items:
        if isinstance(t, torch.Tensor) != isinstance(g, torch.Tensor):
            if isinstance(t, torch.Tensor) and t.dim() == 0 and isinstance(g, (int, float)):
                continue
            return False
        if isinstance(t, torch.Tensor) and tuple(g.shape) != tuple(t.shape):
            return False
    return True


def _dtype_fits(ret: ReturnSpec | None, call: Call, g: torch.Tensor, t: torch.Tensor) -> bool:
    if g.dtype == t.dtype:
        return True
    if ret is None or not ret.is_tensor:
        return False
    allowed = expected_dtypes(ret, call)
    return g.dtype in allowed and t.dtype in allowed


def _agree(x: torch.Tensor, y: torch.Tensor, tol: Tolerance, factor: float) -> torch.Tensor:
    """Elementwise: x is y within `factor` times the tolerance (non-finite values must be equal)."""
    if not (x.is_floating_point() or y.is_floating_point()):
        return x.long() == y.long()
    a, b = x.double(), y.double()
    fin = torch.isfinite(a) & torch.isfinite(b)
    close = (a - b).abs() <= factor * (tol.atol + tol.rtol * b.abs())
    same_nonfinite = (a == b) | (torch.isnan(a) & torch.isnan(b))
    return torch.where(fin, close, same_nonfinite & ~fin)


def _tolerance(call: Call, tolerances: dict[str, Tolerance]) -> Tolerance:
    return Tolerance(0.0, 0.0) if call.function.exact else tolerance_for(call, tolerances)


def has_signature(call: Call, got: Any, trap: Any, tolerances: dict[str, Tolerance], nonfinite: bool = False) -> bool:
    """Does the solution's result on this case (one the trap fails) show the trap's mistake?
    (The module docstring: same shape, an accepted dtype, the same values or the same wrong positions;
    with `nonfinite`, NaN or inf in the trap's wrong rows counts as the trap's mistake too.)"""
    items = parts(call, got, trap, call.expected)
    if items is None:
        return False
    tol = _tolerance(call, tolerances)
    wrong_total = trap_wrong_total = 0
    for ret, g, t, e in items:
        if not isinstance(t, torch.Tensor) or not isinstance(g, torch.Tensor):
            if not outputs_close(g, t, call, tolerances):
                return False
            continue
        if tuple(g.shape) != tuple(t.shape) or not _dtype_fits(ret, call, g, t):
            return False
        like_trap = _agree(g, t, tol, 4.0)
        if bool(like_trap.all()):
            continue
        if not isinstance(e, torch.Tensor) or tuple(e.shape) != tuple(t.shape):
            return False  # no oracle to read the positions against: the values must be the trap's
        sol_wrong = ~_agree(g, e, tol, 1.0)
        trap_wrong = ~_agree(t, e, tol, 1.0)
        gone = _nonfinite_for_finite(g, t) & sol_wrong & _wrong_rows(trap_wrong) if nonfinite else \
            torch.zeros(g.shape, dtype=torch.bool)
        if bool((sol_wrong & ~trap_wrong & ~gone).any()):
            return False  # wrong where the trap is right: a second mistake
        if not bool(like_trap[sol_wrong & ~gone].all()):
            return False  # wrong another way, where the solution's values are finite: a second mistake
        wrong_total += int(sol_wrong.sum())
        trap_wrong_total += int(trap_wrong.sum())
    # the mistake must show on enough of the trap's positions: fewer is a narrower slip
    return not trap_wrong_total or wrong_total >= MIN_SHARE * trap_wrong_total


def shows_finite_values(call: Call, got: Any, trap: Any, tolerances: dict[str, Tolerance]) -> bool:
    """Whether a result with the trap's signature (has_signature) shows the trap's own finite values
    somewhere it is wrong, not only NaN or inf in the trap's wrong rows: the attribution needs one
    such case before it names a trap (a solution that is NaN everywhere shows no mistake of a trap's)."""
    items = parts(call, got, trap, call.expected)
    if items is None:
        return False
    tol = _tolerance(call, tolerances)
    nonfinite = False
    for _, g, t, e in items:
        if not isinstance(t, torch.Tensor) or not isinstance(g, torch.Tensor) or not isinstance(e, torch.Tensor):
            return True
        if tuple(g.shape) != tuple(t.shape) or tuple(e.shape) != tuple(t.shape):
            return True
        if bool((~_agree(g, e, tol, 1.0) & _agree(g, t, tol, 4.0) & torch.isfinite(g.double())).any()):
            return True
        nonfinite = nonfinite or bool(_nonfinite_for_finite(g, t).any())
    return not nonfinite  # the trap's values everywhere (a dtype slip, say): nothing was taken on trust


def _wrong_rows(trap_wrong: torch.Tensor) -> torch.Tensor:
    """Every position of a row (the last axis) where the trap is wrong somewhere: a row a softmax
    emptied is NaN as a whole, even where the trap's spread-out value happens to be close."""
    if trap_wrong.dim() == 0:
        return trap_wrong
    return trap_wrong.any(dim=-1, keepdim=True).expand_as(trap_wrong)


def _nonfinite_for_finite(g: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    """Positions where the solution is NaN or inf and the trap finite. Where the trap is wrong
    there too, the same mistake written with another fill explains them: a mask turned around
    and filled with -inf empties a row the trap (filling with finfo.min) spreads evenly, so the
    softmax gives NaN where the trap gives the mean. The trap is judged on the finite positions."""
    if not (g.is_floating_point() and t.is_floating_point()):
        return torch.zeros(g.shape, dtype=torch.bool)
    return ~torch.isfinite(g) & torch.isfinite(t)


def dtype_slip(call: Call, got: Any, trap: Any, trap_passes: bool,
               tolerances: dict[str, Tolerance]) -> str | None:
    """A failure for a separate, visible reason: the text of that reason ("dtype int64,
    expected float32") when the solution's only other fault on this case is its dtype."""
    reference = call.expected if trap_passes else trap
    items = parts(call, got, reference, call.expected)
    if items is None:
        return None
    reasons = []
    cast = []
    for ret, g, t, _ in items:
        if isinstance(t, torch.Tensor) and isinstance(g, torch.Tensor) and ret is not None and ret.is_tensor:
            allowed = expected_dtypes(ret, call)
            if tuple(g.shape) != tuple(t.shape):
                return None
            if g.dtype not in allowed:
                want = " or ".join(str(d).replace("torch.", "") for d in allowed)
                reasons.append(f"dtype {str(g.dtype).replace('torch.', '')}, expected {want}")
                cast.append(g.to(t.dtype))
                continue
        cast.append(g)
    if not reasons:
        return None
    cast_got: Any = tuple(cast) if len(items) > 1 or isinstance(_items(got), tuple) else cast[0]
    if trap_passes:
        fits = outputs_close(cast_got, call.expected, call, tolerances)
    else:
        fits = has_signature(call, cast_got, trap, tolerances)
    return "; ".join(reasons) if fits else None
