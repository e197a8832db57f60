"""Reference, input builder, checker and traps for mask-value.

They take the variant keywords (drills/README.md, "Variants"): `mask` says what keep holds
(keep: 1/True where query i may read key j; pad: 1/True where it may not; additive: 0.0 and
finfo(dtype).min, in the dtype of scores) and `dead` what a row with no kept key must be
(either: all zeros or uniform 1/S; zeros: all zeros). The defaults are the contract."""
import torch

from grader.spec import Tolerance

# the spec's tolerances, repeated here for the checker (it compares by itself)
_TOL = {torch.float32: Tolerance(1e-5, 1e-4), torch.float16: Tolerance(2e-3, 1e-2)}


def _kept(keep, mask="keep"):
    """keep read as a bool (B, 1, T, S) mask, True where query i may read key j."""
    if mask == "additive":
        return keep == 0  # 0.0 on kept keys, finfo(dtype).min on masked ones
    return keep.bool() if mask == "keep" else ~keep.bool()


def _finish(p, kept, dead):
    """Under dead=zeros, a row with no kept key is set to zeros (SDPA's _safe_softmax)."""
    return p.masked_fill(~kept.any(-1, keepdim=True), 0.0) if dead == "zeros" else p


def masked_softmax(scores, keep, *, mask="keep", dead="either"):
    kept = _kept(keep, mask)  # (B, 1, T, S), broadcasts over heads
    x = scores.masked_fill(~kept, torch.finfo(scores.dtype).min)  # finite in every dtype
    return _finish(torch.softmax(x, dim=-1), kept, dead)  # a row with no kept key is uniform 1/S, or zeros


def rows_with_a_key(scores, keep, *, mask="keep"):
    """The rows the contract fixes: those with at least one kept key. A row with none may come out
    uniform or zeros (checker: dead="either"), and the two have different gradients."""
    return _kept(keep, mask).any(-1, keepdim=True).expand(scores.shape)


def make_inputs(ctx, *, mask="keep"):
    """Right-padded queries and keys, optionally causal; fully masked rows get large mixed-sign scores.

    params: scale (score spread, default 3), causal (T == S cases), empty (sample 0 has no real key),
    full_queries (no padded query rows, so no fully masked rows unless empty). keep is built as a
    bool keep mask and only then written in the `mask` convention, so every variant draws the same data.
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
    if mask == "additive":  # Hugging Face's additive mask, in the dtype of scores
        written = torch.zeros(keep.shape, dtype=ctx.dtype).masked_fill(~keep, torch.finfo(ctx.dtype).min)
    else:
        written = (keep if mask == "keep" else ~keep).to(ctx.mask_dtype)
    return {"scores": scores.to(ctx.dtype), "keep": written}


def check_masked_softmax(call, got, *, mask="keep", dead="either"):
    from grader.judge.compare import compare_value, fmt_index, fmt_num

    ret = call.function.returns[0]
    exp = call.expected
    if not isinstance(got, torch.Tensor) or tuple(got.shape) != tuple(exp.shape) or got.dtype != call.dtype:
        v = compare_value(ret, exp, got, call, {"float32": _TOL[torch.float32], "float16": _TOL[torch.float16]})
        return v.message or "the result has the wrong type, shape or dtype"
    tol = _TOL.get(call.dtype, _TOL[torch.float32])
    keep = _kept(call.arg_dict()["keep"], mask)
    S = exp.shape[-1]
    no_key = (~keep.any(-1)).expand(exp.shape[:-1])  # (B, H, T): rows with every key masked
    g = got.double()
    finite = torch.isfinite(g).all(-1)
    if not bool(finite.all()):
        first = tuple(int(i) for i in (~finite).nonzero()[0])
        n = int((~finite).sum())
        what = ("every key of that row is masked: a -inf mask value gives exp(-inf - (-inf)) = NaN there"
                if bool(no_key[first]) else "that row has kept keys")
        return f"NaN or inf in {n} rows of (B, H, T); first row {fmt_index(first)}: {what}"
    zero = (g.abs() <= tol.atol).all(-1)
    uniform = ((g - 1.0 / S).abs() <= tol.atol + tol.rtol / S).all(-1)
    bad = no_key & ~zero & ~uniform if dead == "either" else no_key & ~zero
    if bool(bad.any()):
        first = tuple(int(i) for i in bad.nonzero()[0])
        row = g[first]
        wanted = (f"neither all zeros nor uniform 1/S = {fmt_num(1.0 / S)}" if dead == "either"
                  else "not all zeros, as this variant asks")
        guess = {"keep": "an additive mask value that rounds with the score?",
                 "pad": "keep read the contract's way round, True = may read?",
                 "additive": "the mask added to the scores, or read as a boolean keep mask?"}[mask]
        why = f" ({guess})" if dead == "either" else ""
        return (f"{int(bad.sum())} rows have every key masked and are {wanted}; first row {fmt_index(first)} ranges "
                f"from {fmt_num(float(row.min()))} to {fmt_num(float(row.max()))}{why}")
    expected = torch.where(no_key[..., None], g, exp.double())
    v = compare_value(ret, expected, got, call, {"float32": _TOL[torch.float32], "float16": _TOL[torch.float16]})
    if v.verdict != "pass":
        return v.message
    leak = (got != 0) & ~keep & ~no_key[..., None]
    if bool(leak.any()):
        first = tuple(int(i) for i in leak.nonzero()[0])
        return (f"{int(leak.sum())} masked keys in rows that keep some key have weight that is not exactly 0; "
                f"first at {fmt_index(first)}: {fmt_num(float(g[first]))}")
    return None


# ------------------------------------------------------------------ traps
# Each trap reads keep in the variant's convention (`mask`) and, where the mistake leaves it
# room, zeroes the rows with no kept key under dead=zeros, so that it is that one mistake.


def trap_minus_1e9_where(scores, keep, *, mask="keep"):
    return torch.softmax(torch.where(_kept(keep, mask), scores, -1e9), dim=-1)  # -1e9 is -inf in fp16


def trap_neg_inf(scores, keep, *, mask="keep"):
    return torch.softmax(scores.masked_fill(~_kept(keep, mask), float("-inf")), dim=-1)  # NaN rows, left NaN


def trap_minus_1e9_masked_fill(scores, keep, *, mask="keep", dead="either"):
    kept = _kept(keep, mask)
    return _finish(torch.softmax(scores.masked_fill(~kept, -1e9), dim=-1), kept, dead)  # fp16: overflow error


def trap_minus_1e9_additive(scores, keep, *, mask="keep", dead="either"):
    kept = _kept(keep, mask)
    bias = (1.0 - kept.float()) * -1e9  # float32 bias promotes fp16 scores to fp32
    return _finish(torch.softmax(scores + bias, dim=-1), kept, dead)


def trap_additive_finfo_min(scores, keep, *, mask="keep"):
    kept = _kept(keep, mask)  # under mask=additive this bias is keep itself
    bias = torch.zeros(keep.shape, dtype=scores.dtype).masked_fill(~kept, torch.finfo(scores.dtype).min)
    return torch.softmax(scores + bias, dim=-1)


def trap_nan_hidden(scores, keep, *, mask="keep", dead="either"):
    """A backward trap: an additive -inf bias, softmax, then nan_to_num. The forward repairs a row with
    no kept key (NaN -> zeros, which the contract allows); the backward of that row is still NaN."""
    bias = torch.zeros_like(scores).masked_fill(~_kept(keep, mask), float("-inf"))
    return torch.nan_to_num(torch.softmax(scores + bias, dim=-1), nan=0.0)


def trap_softmax_then_zero(scores, keep, *, mask="keep"):
    return torch.softmax(scores, dim=-1) * _kept(keep, mask)  # a row with no kept key is zeros already


def trap_fill_with_zero(scores, keep, *, mask="keep", dead="either"):
    kept = _kept(keep, mask)
    return _finish(torch.softmax(scores.masked_fill(~kept, 0.0), dim=-1), kept, dead)


def trap_keep_convention(scores, keep, *, dead="either"):
    """The contract's reading (keep.bool() kept) of a mask that means otherwise."""
    return masked_softmax(scores, keep, dead=dead)


def trap_uniform_dead_rows(scores, keep, *, mask="keep"):
    """The contract's finite fill alone: a row with no kept key stays uniform 1/S."""
    return masked_softmax(scores, keep, mask=mask)
