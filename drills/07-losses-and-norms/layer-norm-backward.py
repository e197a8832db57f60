"""Reference and traps for layer-norm-backward.

The forward is y = (x - mean) / D * weight + bias over the last axis; every function returns
(dx, dweight, dbias) for an upstream gradient dy, computed in float32 (or better) and returned in
dy's dtype. With c = x - mean, g = dy * weight and f = (dD/dc_j) / c_j:

    dx = (g - mean(g)) / D - c * sum(g * c) * f / D**2,  dweight = sum_N dy * c / D,  dbias = sum_N dy.

Every function takes the variant keyword (drills/README.md, "Variants"): `convention` says what D
is (torch: sqrt(biased var + eps), F.layer_norm's, so f = 1 / (d * D) and the last term of dx is
x_hat * mean(g * x_hat) / D; annotated: the unbiased std + eps, the Annotated Transformer's
LayerNorm, so f = 1 / ((d - 1) * std), taken as 0 on a constant row as torch's std backward does).
The default is the contract."""
import torch


def _up(t):
    return t if t.dtype == torch.float64 else t.float()


def _stats(x, eps, convention, unbiased=False):
    """c = x - mean (N, d), the denominator D (N, 1) and f (N, 1), in float32 or better."""
    xf = _up(x)
    d = x.shape[-1]
    c = xf - xf.mean(-1, keepdim=True)
    ss = (c * c).sum(-1, keepdim=True)
    if convention == "annotated":
        std = torch.sqrt(ss / (d - 1))  # unbiased, as x.std(-1) has it
        f = torch.where(std > 0, 1.0 / ((d - 1) * std.clamp_min(1e-30)), torch.zeros_like(std))
        return c, std + eps, f
    D = torch.sqrt(ss / (d - 1 if unbiased else d) + eps)
    return c, D, 1.0 / (d * D)


def _grads(dy, x, weight, eps, convention, unbiased=False, variance_term=True, mean_term=True, dw_normalised=True):
    c, D, f = _stats(x, eps, convention, unbiased)
    dyf = _up(dy)
    g = dyf * _up(weight)  # (N, d)
    dx = g - g.mean(-1, keepdim=True) if mean_term else g
    dx = dx / D
    if variance_term:
        dx = dx - c * (g * c).sum(-1, keepdim=True) * f / D**2  # the variance's dependence on x
    dweight = (dyf * (c / D if dw_normalised else _up(x))).sum(0)  # (d,)
    dbias = dyf.sum(0)  # (d,)
    return dx.to(dy.dtype), dweight.to(dy.dtype), dbias.to(dy.dtype)


def layer_norm_backward(dy, x, weight, eps: float = 1e-5, *, convention="torch"):
    return _grads(dy, x, weight, eps, convention)


# ------------------------------------------------------------------- traps


def trap_no_variance_term(dy, x, weight, eps: float = 1e-5, *, convention="torch"):
    """dx = (g - mean(g)) / D: the variance treated as a constant, the x_hat * mean(g * x_hat) term missing."""
    return _grads(dy, x, weight, eps, convention, variance_term=False)


def trap_no_mean_term(dy, x, weight, eps: float = 1e-5, *, convention="torch"):
    """dx without the mean(g) term: the mean treated as a constant."""
    return _grads(dy, x, weight, eps, convention, mean_term=False)


def trap_dweight_unnormalised(dy, x, weight, eps: float = 1e-5, *, convention="torch"):
    """dweight = sum_N dy * x, the raw input instead of x_hat."""
    return _grads(dy, x, weight, eps, convention, dw_normalised=False)


def trap_unbiased_variance(dy, x, weight, eps: float = 1e-5):
    """x.var(-1) with its default correction (d - 1) in the standard backward formula."""
    return _grads(dy, x, weight, eps, "torch", unbiased=True)


def trap_torch_convention(dy, x, weight, eps: float = 1e-5):
    """F.layer_norm's gradients (eps inside the root of the biased variance) where the Annotated
    Transformer's std + eps is asked for."""
    return _grads(dy, x, weight, eps, "torch")


# ------------------------------------------------------- trap matching


def _close(call, got, want) -> bool:
    if not isinstance(got, torch.Tensor) or tuple(got.shape) != tuple(want.shape) or not got.is_floating_point():
        return False
    tol = (2e-2, 2e-2) if call.dtype == torch.float16 else (4e-5, 4e-4)
    return bool(((got.double() - want).abs() <= tol[0] + tol[1] * want.abs()).all())


def match_unbiased_variance(call, got, trap_out) -> bool:
    """The unbiased variance, plugged into the standard formula (the trap) or differentiated through
    (the last term of dx then divides sum(g * c) by (d - 1) * D**3 instead of d * D**3)."""
    got = getattr(got, "items", got)
    if not isinstance(got, tuple) or len(got) != 3:
        return False
    dy, x, weight, eps = call.args[:4]
    dy, x, weight = dy.double(), x.double(), weight.double()
    d = x.shape[-1]
    c = x - x.mean(-1, keepdim=True)
    D = torch.sqrt((c * c).sum(-1, keepdim=True) / (d - 1) + eps)
    g = dy * weight
    gc = (g * c).sum(-1, keepdim=True)
    dweight, dbias = (dy * c / D).sum(0), dy.sum(0)
    if not (_close(call, got[1], dweight) and _close(call, got[2], dbias)):
        return False
    base = (g - g.mean(-1, keepdim=True)) / D
    return any(_close(call, got[0], base - c * gc / (n * D**3)) for n in (d, d - 1))


# ------------------------------------------------------------------- inputs


def make_x(ctx, shape, dtype, scale=1.0, offset=0.0, style="normal"):
    """x (N, d): randn * scale + offset; constant-row: row 0 holds one value (variance 0)."""
    x = torch.randn(shape, generator=ctx.gen, dtype=torch.float32) * float(scale) + float(offset)
    if style == "constant-row":
        x[0] = float(offset) + 0.75
    return x.to(dtype)
