"""Reference, input builder, checker and traps for mask-value."""
import torch

from grader.spec import Tolerance

# the spec's tolerances, repeated here for the checker (it compares by itself)
_TOL = {torch.float32: Tolerance(1e-5, 1e-4), torch.float16: Tolerance(2e-3, 1e-2)}


def masked_softmax(scores, keep):
    keep = keep.bool()  # (B, 1, T, S), broadcasts over heads
    x = scores.masked_fill(~keep, torch.finfo(scores.dtype).min)  # finite in every dtype
    return torch.softmax(x, dim=-1)  # a row with no kept key is uniform 1/S


def make_inputs(ctx):
    """Right-padded queries and keys, optionally causal; fully masked rows get large mixed-sign scores.

    params: scale (score spread, default 3), causal (T == S cases), empty (sample 0 has no real key),
    full_queries (no padded query rows, so no fully masked rows unless empty).
    """
    B, H, T, S = (ctx.sizes[n] for n in ("B", "H", "T", "S"))
    p = ctx.params
    scale = float(p.get("scale", 3.0))
    q_len = [ctx.rng.randint(1, T) for _ in range(B)]
    k_len = [ctx.rng.randint(1, S - 1) for _ in range(B)]
    if B > 1:
        q_len[0] = T
        k_len[0] = S
    if not p.get("full_queries"):
        q_len[-1] = ctx.rng.randint(1, T - 1)  # padded queries: rows with every key masked
    else:
        q_len = [T] * B
    if p.get("empty"):
        k_len[-1] = 0
    keep = torch.zeros(B, 1, T, S, dtype=torch.bool)
    for b in range(B):
        keep[b, 0, : q_len[b], : k_len[b]] = True
    if p.get("causal"):
        keep &= torch.ones(T, S, dtype=torch.bool).tril()
    scores = torch.randn(B, H, T, S, generator=ctx.gen) * scale
    dead = ~keep.any(-1)  # (B, 1, T)
    rows = dead.expand(B, H, T)
    # magnitudes above 16 (and 32) where an additive finfo.min (or -1e9) bias rounds differently per key
    scores[..., 0][rows] = 40.0
    scores[..., 1][rows] = -40.0
    scores[..., 2][rows] = 20.0
    return {"scores": scores.to(ctx.dtype), "keep": keep.to(ctx.mask_dtype)}


def check_masked_softmax(call, got):
    from grader.judge.compare import compare_value, fmt_index, fmt_num

    ret = call.function.returns[0]
    exp = call.expected
    if not isinstance(got, torch.Tensor) or tuple(got.shape) != tuple(exp.shape) or got.dtype != call.dtype:
        v = compare_value(ret, exp, got, call, {"float32": _TOL[torch.float32], "float16": _TOL[torch.float16]})
        return v.message or "the result has the wrong type, shape or dtype"
    tol = _TOL.get(call.dtype, _TOL[torch.float32])
    keep = call.arg_dict()["keep"].bool()
    S = exp.shape[-1]
    dead = (~keep.any(-1)).expand(exp.shape[:-1])  # (B, H, T): rows with every key masked
    g = got.double()
    finite = torch.isfinite(g).all(-1)
    if not bool(finite.all()):
        first = tuple(int(i) for i in (~finite).nonzero()[0])
        n = int((~finite).sum())
        what = ("every key of that row is masked: a -inf mask value gives exp(-inf - (-inf)) = NaN there"
                if bool(dead[first]) else "that row has kept keys")
        return f"NaN or inf in {n} rows of (B, H, T); first row {fmt_index(first)}: {what}"
    zero = (g.abs() <= tol.atol).all(-1)
    uniform = ((g - 1.0 / S).abs() <= tol.atol + tol.rtol / S).all(-1)
    bad = dead & ~zero & ~uniform
    if bool(bad.any()):
        first = tuple(int(i) for i in bad.nonzero()[0])
        row = g[first]
        return (f"{int(bad.sum())} rows have every key masked and are neither all zeros nor uniform 1/S = "
                f"{fmt_num(1.0 / S)}; first row {fmt_index(first)} ranges from {fmt_num(float(row.min()))} to "
                f"{fmt_num(float(row.max()))} (an additive mask value that rounds with the score?)")
    expected = torch.where(dead[..., None], g, exp.double())
    v = compare_value(ret, expected, got, call, {"float32": _TOL[torch.float32], "float16": _TOL[torch.float16]})
    if v.verdict != "pass":
        return v.message
    leak = (got != 0) & ~keep & ~dead[..., None]
    if bool(leak.any()):
        first = tuple(int(i) for i in leak.nonzero()[0])
        return (f"{int(leak.sum())} masked keys in rows that keep some key have weight that is not exactly 0; "
                f"first at {fmt_index(first)}: {fmt_num(float(g[first]))}")
    return None


# ------------------------------------------------------------------ traps


def trap_minus_1e9_where(scores, keep):
    return torch.softmax(torch.where(keep.bool(), scores, -1e9), dim=-1)  # -1e9 is -inf in fp16


def trap_neg_inf(scores, keep):
    return torch.softmax(scores.masked_fill(~keep.bool(), float("-inf")), dim=-1)


def trap_minus_1e9_masked_fill(scores, keep):
    return torch.softmax(scores.masked_fill(~keep.bool(), -1e9), dim=-1)  # fp16: overflow error


def trap_minus_1e9_additive(scores, keep):
    bias = (1.0 - keep.float()) * -1e9  # float32 bias promotes fp16 scores to fp32
    return torch.softmax(scores + bias, dim=-1)


def trap_additive_finfo_min(scores, keep):
    bias = torch.zeros(keep.shape, dtype=scores.dtype).masked_fill(~keep.bool(), torch.finfo(scores.dtype).min)
    return torch.softmax(scores + bias, dim=-1)


def trap_softmax_then_zero(scores, keep):
    return torch.softmax(scores, dim=-1) * keep.bool()


def trap_fill_with_zero(scores, keep):
    return torch.softmax(scores.masked_fill(~keep.bool(), 0.0), dim=-1)
