"""Reference and traps for rms-norm.

Every function takes the variant keyword (drills/README.md, "Variants"): `convention` says how the
weight is applied (llama: x_hat cast to x's dtype, then times weight, as LlamaRMSNorm does; gemma:
x_hat * (1 + weight) in float32, cast after, as GemmaRMSNorm does). The default is the contract."""
import torch


def _up(x):
    """x in float32 or better: the statistics of a fp16 row must not be taken in fp16."""
    return x if x.dtype == torch.float64 else x.float()


def _affine(xhat, x, weight, convention):
    """xhat (float32 or better) scaled by the weight under the convention, in x's dtype."""
    if convention == "gemma":
        return (xhat * (1.0 + _up(weight))).to(x.dtype)  # (1 + w) in float32, cast after
    return xhat.to(x.dtype) * weight  # cast first, then the weight (x's dtype)


def rms_norm(x, weight, eps: float = 1e-6, *, convention="llama"):
    xf = _up(x)  # (B, T, d)
    ms = xf.pow(2).mean(-1, keepdim=True)  # (B, T, 1): mean of squares over the features
    return _affine(xf * torch.rsqrt(ms + eps), x, weight, convention)  # (B, T, d)


# ------------------------------------------------------------------- traps


def trap_detached_rms(x, weight, eps: float = 1e-6, *, convention="llama"):
    """A backward trap: the normaliser detached. The same values; the gradient misses the path through it."""
    xf = _up(x)
    ms = xf.pow(2).mean(-1, keepdim=True)
    return _affine(xf * torch.rsqrt(ms + eps).detach(), x, weight, convention)


def trap_fp16_statistics(x, weight, eps: float = 1e-6, *, convention="llama"):
    """The mean of squares in x's own dtype: in fp16 x**2 overflows past 255.9, so such a row is
    divided by inf and comes out as zeros."""
    ms = x.pow(2).mean(-1, keepdim=True)  # fp16 in, fp16 squares
    return _affine(_up(x * torch.rsqrt(ms + eps)), x, weight, convention)


def trap_eps_outside_sqrt(x, weight, eps: float = 1e-6, *, convention="llama"):
    """x / (rms + eps) instead of x / sqrt(ms + eps)."""
    xf = _up(x)
    rms = xf.pow(2).mean(-1, keepdim=True).sqrt()
    return _affine(xf / (rms + eps), x, weight, convention)


def trap_mean_over_time(x, weight, eps: float = 1e-6, *, convention="llama"):
    """The mean of squares over dim 1 (time), one statistic per (sample, feature)."""
    xf = _up(x)
    ms = xf.pow(2).mean(1, keepdim=True)  # (B, 1, d)
    return _affine(xf * torch.rsqrt(ms + eps), x, weight, convention)


def trap_gemma_convention(x, weight, eps: float = 1e-6):
    """Gemma's x_hat * (1 + weight) where the weight multiplies as it is."""
    return rms_norm(x, weight, eps, convention="gemma")


def trap_llama_convention(x, weight, eps: float = 1e-6):
    """Llama's x_hat * weight where Gemma's (1 + weight) is asked for."""
    return rms_norm(x, weight, eps, convention="llama")


# ------------------------------------------------------------------- inputs


def make_x(ctx, shape, dtype, scale=1.0, style="normal"):
    """x (B, T, d). normal: randn * scale; zero-row: the same with token (0, 0) and the last token all
    zeros; large: every other token drawn uniform in [-1000, 1000] (in fp16 its squares overflow)."""
    B, T, d = shape
    x = torch.randn(shape, generator=ctx.gen, dtype=torch.float32) * float(scale)
    if style == "zero-row":
        x[0, 0] = 0.0
        x[-1, -1] = 0.0
    elif style == "large":
        big = torch.rand(shape, generator=ctx.gen, dtype=torch.float32) * 2000.0 - 1000.0
        x[:, ::2] = big[:, ::2]
        x[0, 0, 0] = 1000.0  # at least one square far past fp16's largest finite value
    return x.to(dtype)
