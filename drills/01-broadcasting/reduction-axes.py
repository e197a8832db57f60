"""Reference and traps for reduction-axes: LayerNorm (per token) against batch statistics (per feature)."""
import torch


def layer_norm(x, weight, bias, eps: float = 1e-5):
    mu = x.mean(-1, keepdim=True)  # (B, T, 1)
    var = ((x - mu) ** 2).mean(-1, keepdim=True)  # (B, T, 1), biased
    return (x - mu) / torch.sqrt(var + eps) * weight + bias  # (B, T, d)


def batch_stats(x):
    mean = x.mean((0, 1))  # (d,)
    var = ((x - mean) ** 2).mean((0, 1))  # (d,), biased
    return mean, var


# ------------------------------------------------------------------- traps


def trap_ln_over_time(x, weight, bias, eps: float = 1e-5):
    """Normalises each feature over the time axis (dim 1) instead of each token over its features."""
    mu = x.mean(1, keepdim=True)  # (B, 1, d)
    var = x.var(1, keepdim=True, unbiased=False)
    return (x - mu) / torch.sqrt(var + eps) * weight + bias


def trap_ln_unbiased(x, weight, bias, eps: float = 1e-5):
    """x.var(-1) with its default correction: divides by d - 1."""
    mu = x.mean(-1, keepdim=True)
    var = x.var(-1, keepdim=True)
    return (x - mu) / torch.sqrt(var + eps) * weight + bias


def trap_ln_no_keepdim(x, weight, bias, eps: float = 1e-5):
    """Statistics of shape (B, T) against x of shape (B, T, d): a broadcast error when T != d."""
    mu = x.mean(-1)  # (B, T)
    var = x.var(-1, unbiased=False)  # (B, T)
    return (x - mu) / torch.sqrt(var + eps) * weight + bias


def trap_ln_eps_outside_sqrt(x, weight, bias, eps: float = 1e-5):
    """Adds eps to the standard deviation instead of to the variance."""
    mu = x.mean(-1, keepdim=True)
    std = x.var(-1, keepdim=True, unbiased=False).sqrt()
    return (x - mu) / (std + eps) * weight + bias


def trap_ln_no_affine(x, weight, bias, eps: float = 1e-5):
    """Normalises correctly but forgets the learned scale and shift."""
    mu = x.mean(-1, keepdim=True)
    var = x.var(-1, keepdim=True, unbiased=False)
    return (x - mu) / torch.sqrt(var + eps)


def trap_ln_over_time_and_features(x, weight, bias, eps: float = 1e-5):
    """One mean and variance per sample over (T, d), as a group norm with one group would."""
    mu = x.mean((1, 2), keepdim=True)  # (B, 1, 1)
    var = x.var((1, 2), keepdim=True, unbiased=False)
    return (x - mu) / torch.sqrt(var + eps) * weight + bias


def trap_stats_unbiased(x):
    """x.var((0, 1)) with its default correction: divides by B*T - 1."""
    return x.mean((0, 1)), x.var((0, 1))


def trap_stats_over_features(x):
    """The LayerNorm axis: one mean per token, shape (B, T)."""
    return x.mean(-1), x.var(-1, unbiased=False)


def trap_stats_over_batch_only(x):
    """Reduces dim 0 only and keeps time: shape (T, d)."""
    return x.mean(0), x.var(0, unbiased=False)


def trap_stats_over_time_only(x):
    """Reduces dim 1 only and keeps the batch: shape (B, d)."""
    return x.mean(1), x.var(1, unbiased=False)


# --------------------------------------------- trap matching: the variants of one mistake


def _norm(x, weight, bias, eps, dims, unbiased, eps_outside=False):
    x = x.double()
    mu = x.mean(dims, keepdim=True)
    var = x.var(dims, keepdim=True, unbiased=unbiased)
    den = var.sqrt() + eps if eps_outside else torch.sqrt(var + eps)
    return (x - mu) / den * weight.double() + bias.double()


def _same(call, got, want) -> bool:
    if not isinstance(got, torch.Tensor) or tuple(got.shape) != tuple(want.shape) or not got.is_floating_point():
        return False
    tol = (2e-2, 2e-2) if call.dtype == torch.float16 else (4e-5, 4e-4)
    return bool(((got.double() - want).abs() <= tol[0] + tol[1] * want.abs()).all())


def _ln_variant(call, got, dims) -> bool:
    x, weight, bias, eps = call.args
    for unbiased in (False, True):
        for outside in (False, True):
            if _same(call, got, _norm(x, weight, bias, eps, dims, unbiased, outside)):
                return True
    return False


def match_ln_over_time(call, got, trap_out) -> bool:
    """Statistics over dim 1, with either variance and eps inside or outside the square root."""
    return _ln_variant(call, got, 1)


def match_ln_over_time_and_features(call, got, trap_out) -> bool:
    return _ln_variant(call, got, (1, 2))


def _stats_mean_over(call, got, dims) -> bool:
    """The returned mean is the mean over `dims` (whichever variance came with it)."""
    got = getattr(got, "items", got)  # a returned list arrives as a SeqValue
    if not isinstance(got, tuple) or len(got) != 2:
        return False
    return _same(call, got[0], call.args[0].double().mean(dims))


def match_stats_over_features(call, got, trap_out) -> bool:
    return _stats_mean_over(call, got, -1)


def match_stats_over_batch_only(call, got, trap_out) -> bool:
    """The batch reduced, time kept: (T, d)."""
    return _stats_mean_over(call, got, 0)


def match_stats_over_time_only(call, got, trap_out) -> bool:
    """Time reduced, the batch kept: (B, d)."""
    return _stats_mean_over(call, got, 1)
