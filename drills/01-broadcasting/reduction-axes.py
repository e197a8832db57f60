"""Reference and traps for reduction-axes: LayerNorm (per token) against batch statistics (per feature).

Every function takes the variant keyword (drills/README.md, "Variants"): `layout` is btd for x
(B, T, d), features last (the contract), or bdt for x (B, d, T), channels first as nn.BatchNorm1d
and a Conv1d take it. The default is the contract."""
import torch


def _axes(layout):
    """(feature axis, time axis) of x."""
    return (-1, 1) if layout == "btd" else (1, 2)


def _affine(layout, weight, bias):
    """weight and bias (d,) shaped to broadcast along x's feature axis."""
    return (weight, bias) if layout == "btd" else (weight[:, None], bias[:, None])


def layer_norm(x, weight, bias, eps: float = 1e-5, *, layout="btd"):
    f, _ = _axes(layout)
    w, b = _affine(layout, weight, bias)  # (d,) or (d, 1)
    mu = x.mean(f, keepdim=True)  # (B, T, 1) or (B, 1, T)
    var = ((x - mu) ** 2).mean(f, keepdim=True)  # biased
    return (x - mu) / torch.sqrt(var + eps) * w + b  # x's shape


def batch_stats(x, *, layout="btd"):
    _, t = _axes(layout)
    mean = x.mean((0, t), keepdim=True)  # (1, 1, d) or (1, d, 1): broadcasts against x
    var = ((x - mean) ** 2).mean((0, t))  # (d,), biased
    return mean.reshape(-1), var


# ------------------------------------------------------------------- traps


def trap_ln_over_time(x, weight, bias, eps: float = 1e-5, *, layout="btd"):
    """Normalises each feature over the time axis instead of each token over its features."""
    _, t = _axes(layout)
    w, b = _affine(layout, weight, bias)
    mu = x.mean(t, keepdim=True)  # (B, 1, d) or (B, d, 1)
    var = x.var(t, keepdim=True, unbiased=False)
    return (x - mu) / torch.sqrt(var + eps) * w + b


def trap_ln_over_batch(x, weight, bias, eps: float = 1e-5, *, layout="btd"):
    """BatchNorm's axis in a LayerNorm: each (position, feature) normalised across the B sequences,
    x.mean(0, keepdim=True), shape (1, T, d) or (1, d, T)."""
    w, b = _affine(layout, weight, bias)
    mu = x.mean(0, keepdim=True)
    var = x.var(0, keepdim=True, unbiased=False)
    return (x - mu) / torch.sqrt(var + eps) * w + b


def trap_ln_unbiased(x, weight, bias, eps: float = 1e-5, *, layout="btd"):
    """x.var over the features with its default correction: divides by d - 1."""
    f, _ = _axes(layout)
    w, b = _affine(layout, weight, bias)
    mu = x.mean(f, keepdim=True)
    var = x.var(f, keepdim=True)
    return (x - mu) / torch.sqrt(var + eps) * w + b


def trap_ln_no_keepdim(x, weight, bias, eps: float = 1e-5, *, layout="btd"):
    """Statistics of shape (B, T) against x: a broadcast error under distinct sizes."""
    f, _ = _axes(layout)
    w, b = _affine(layout, weight, bias)
    mu = x.mean(f)  # (B, T)
    var = x.var(f, unbiased=False)  # (B, T)
    return (x - mu) / torch.sqrt(var + eps) * w + b


def trap_ln_eps_outside_sqrt(x, weight, bias, eps: float = 1e-5, *, layout="btd"):
    """Adds eps to the standard deviation instead of to the variance."""
    f, _ = _axes(layout)
    w, b = _affine(layout, weight, bias)
    mu = x.mean(f, keepdim=True)
    std = x.var(f, keepdim=True, unbiased=False).sqrt()
    return (x - mu) / (std + eps) * w + b


def trap_ln_no_affine(x, weight, bias, eps: float = 1e-5, *, layout="btd"):
    """Normalises correctly but forgets the learned scale and shift."""
    f, _ = _axes(layout)
    mu = x.mean(f, keepdim=True)
    var = x.var(f, keepdim=True, unbiased=False)
    return (x - mu) / torch.sqrt(var + eps)


def trap_ln_over_time_and_features(x, weight, bias, eps: float = 1e-5, *, layout="btd"):
    """One mean and variance per sample over dims (1, 2), as a group norm with one group would."""
    w, b = _affine(layout, weight, bias)
    mu = x.mean((1, 2), keepdim=True)  # (B, 1, 1)
    var = x.var((1, 2), keepdim=True, unbiased=False)
    return (x - mu) / torch.sqrt(var + eps) * w + b


def trap_ln_affine_last_axis(x, weight, bias, eps: float = 1e-5, *, layout="btd"):
    """Right statistics, then weight and bias (d,) as they come: against (B, d, T) they meet T, not d
    (added under layout=bdt only; under btd this is the reference)."""
    f, _ = _axes(layout)
    mu = x.mean(f, keepdim=True)
    var = x.var(f, keepdim=True, unbiased=False)
    return (x - mu) / torch.sqrt(var + eps) * weight + bias


def trap_stats_unbiased(x, *, layout="btd"):
    """x.var over batch and time with its default correction: divides by B*T - 1."""
    _, t = _axes(layout)
    return x.mean((0, t)), x.var((0, t))


def trap_stats_over_features(x, *, layout="btd"):
    """The LayerNorm axis: one mean per token, shape (B, T)."""
    f, _ = _axes(layout)
    return x.mean(f), x.var(f, unbiased=False)


def trap_stats_over_batch_only(x, *, layout="btd"):
    """Reduces dim 0 only and keeps the rest: (T, d) or (d, T)."""
    return x.mean(0), x.var(0, unbiased=False)


def trap_stats_over_time_only(x, *, layout="btd"):
    """Reduces the time axis only and keeps the batch: shape (B, d)."""
    _, t = _axes(layout)
    return x.mean(t), x.var(t, unbiased=False)


def trap_stats_dims_0_1(x):
    """x.mean((0, 1)) from memory on (B, d, T): batch and features, one number per time step (T,)."""
    return x.mean((0, 1)), x.var((0, 1), unbiased=False)


# --------------------------------------------- trap matching: the variants of one mistake


def _layout(call) -> str:
    """The layout this call was built under, read from x's shape in the function spec (the variant's)."""
    return "bdt" if tuple(call.function.args[0].shape) == ("B", "d", "T") else "btd"


def _norm(x, weight, bias, eps, dims, unbiased, eps_outside=False, layout="btd"):
    x = x.double()
    w, b = _affine(layout, weight.double(), bias.double())
    mu = x.mean(dims, keepdim=True)
    var = x.var(dims, keepdim=True, unbiased=unbiased)
    den = var.sqrt() + eps if eps_outside else torch.sqrt(var + eps)
    return (x - mu) / den * w + b


def _same(call, got, want) -> bool:
    if not isinstance(got, torch.Tensor) or tuple(got.shape) != tuple(want.shape) or not got.is_floating_point():
        return False
    tol = (2e-2, 2e-2) if call.dtype == torch.float16 else (4e-5, 4e-4)
    return bool(((got.double() - want).abs() <= tol[0] + tol[1] * want.abs()).all())


def _ln_variant(call, got, dims) -> bool:
    x, weight, bias, eps = call.args
    layout = _layout(call)
    count = x.numel() // max(1, x.mean(dims, keepdim=True).numel())  # values per statistic
    for unbiased in (False, True) if count > 1 else (False,):  # one value has no unbiased variance
        for outside in (False, True):
            if _same(call, got, _norm(x, weight, bias, eps, dims, unbiased, outside, layout)):
                return True
    return False


def match_ln_over_time(call, got, trap_out) -> bool:
    """Statistics over the time axis, with either variance and eps inside or outside the square root."""
    return _ln_variant(call, got, _axes(_layout(call))[1])


def match_ln_over_batch(call, got, trap_out) -> bool:
    """Statistics over the batch axis, with either variance and eps inside or outside the square root
    (with the default unbiased variance, a batch of one is 0/0: NaN, which no value matches)."""
    return _ln_variant(call, got, 0)


def match_ln_over_time_and_features(call, got, trap_out) -> bool:
    return _ln_variant(call, got, (1, 2))


def _stats_mean_over(call, got, dims) -> bool:
    """The returned mean is the mean over `dims` (whichever variance came with it)."""
    got = getattr(got, "items", got)  # a returned list arrives as a SeqValue
    if not isinstance(got, tuple) or len(got) != 2:
        return False
    return _same(call, got[0], call.args[0].double().mean(dims))


def match_stats_over_features(call, got, trap_out) -> bool:
    return _stats_mean_over(call, got, _axes(_layout(call))[0])


def match_stats_over_batch_only(call, got, trap_out) -> bool:
    """The batch reduced, the other two axes kept."""
    return _stats_mean_over(call, got, 0)


def match_stats_over_time_only(call, got, trap_out) -> bool:
    """Time reduced, the batch kept: (B, d)."""
    return _stats_mean_over(call, got, _axes(_layout(call))[1])
