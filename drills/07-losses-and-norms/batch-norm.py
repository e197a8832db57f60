"""Reference and traps for batch-norm.

x is (B, C, H, W); running_mean, running_var, weight and bias are (C,) float32. Training:
normalise with the batch mean and biased variance over (B, H, W), and update the running stats;
eval: normalise with the running stats and return them unchanged. y is in x's dtype, the new
stats in float32; the statistics are taken in float32 (or better) with two passes.

Every function takes the variant keyword (drills/README.md, "Variants"): `convention` says how
the running stats move (pytorch: new = (1 - m) * old + m * batch with the unbiased batch variance,
nn.BatchNorm2d's; keras: new = m * old + (1 - m) * batch with the biased one, Keras's
BatchNormalization). The default is the contract."""
import torch

DIMS = (0, 2, 3)  # every axis but the channels


def _up(t):
    return t if t.dtype == torch.float64 else t.float()


def _ch(v):
    """(C,) -> (1, C, 1, 1), to broadcast against x."""
    return v[None, :, None, None]


def _two_pass(xf):
    mean = xf.mean(DIMS)  # (C,)
    var = ((xf - _ch(mean)) ** 2).mean(DIMS)  # (C,), biased
    return mean, var


def _one_pass(x):
    """E[x^2] - E[x]^2 in x's own dtype: catastrophic cancellation when |mean| >> std."""
    mean = x.mean(DIMS)
    return _up(mean), _up((x * x).mean(DIMS) - mean * mean)


def _normalise(x, mean, var, weight, bias, eps):
    y = (_up(x) - _ch(mean)) / torch.sqrt(_ch(var) + eps) * _ch(_up(weight)) + _ch(_up(bias))
    return y.to(x.dtype)


def _update(old, batch, m, convention):
    if convention == "keras":
        return m * old + (1.0 - m) * batch
    return (1.0 - m) * old + m * batch


def _batch_norm(x, running_mean, running_var, weight, bias, training, momentum, eps, convention="pytorch",
                running_unbiased=None, normalise_unbiased=False, batch_in_eval=False, one_pass=False):
    rm, rv = running_mean, running_var
    if not training and not batch_in_eval:
        return _normalise(x, rm, rv, weight, bias, eps), rm.clone(), rv.clone()
    mean, var = _one_pass(x) if one_pass else _two_pass(_up(x))
    n = x.numel() // x.shape[1]  # values per channel, B * H * W
    unbiased = var * (n / (n - 1))
    y = _normalise(x, mean, unbiased if normalise_unbiased else var, weight, bias, eps)
    if not training:  # batch statistics used in eval; the running stats left alone
        return y, rm.clone(), rv.clone()
    if running_unbiased is None:
        running_unbiased = convention == "pytorch"
    new_mean = _update(_up(rm), mean, momentum, convention)
    new_var = _update(_up(rv), unbiased if running_unbiased else var, momentum, convention)
    return y, new_mean.to(rm.dtype), new_var.to(rv.dtype)


def batch_norm(x, running_mean, running_var, weight, bias, training: bool, momentum: float = 0.1,
               eps: float = 1e-5, *, convention="pytorch"):
    return _batch_norm(x, running_mean, running_var, weight, bias, training, momentum, eps, convention)


def only_the_output(x, running_mean, running_var, *rest, **kwargs):
    """The gradient case's mask per output (spec: gradient_where): y, never the running statistics, whose
    update torch makes under no_grad (a solution may or may not detach it: both are right)."""
    return torch.ones_like(x), torch.zeros_like(running_mean), torch.zeros_like(running_var)


# ------------------------------------------------------------------- traps


def trap_biased_running_var(x, running_mean, running_var, weight, bias, training: bool, momentum: float = 0.1,
                            eps: float = 1e-5):
    """The running variance moved toward the biased batch variance (PyTorch's stores the unbiased one)."""
    return _batch_norm(x, running_mean, running_var, weight, bias, training, momentum, eps, "pytorch",
                       running_unbiased=False)


def trap_unbiased_running_var(x, running_mean, running_var, weight, bias, training: bool, momentum: float = 0.1,
                              eps: float = 1e-5):
    """Keras's momentum with PyTorch's unbiased variance in the running update (Keras keeps the biased one)."""
    return _batch_norm(x, running_mean, running_var, weight, bias, training, momentum, eps, "keras",
                       running_unbiased=True)


def trap_unbiased_normalisation(x, running_mean, running_var, weight, bias, training: bool, momentum: float = 0.1,
                                eps: float = 1e-5, *, convention="pytorch"):
    """The batch normalised with the unbiased variance (n - 1); the running update itself right."""
    return _batch_norm(x, running_mean, running_var, weight, bias, training, momentum, eps, convention,
                       normalise_unbiased=True)


def trap_batch_stats_in_eval(x, running_mean, running_var, weight, bias, training: bool, momentum: float = 0.1,
                             eps: float = 1e-5, *, convention="pytorch"):
    """Eval normalised with the batch's own statistics instead of the running ones."""
    return _batch_norm(x, running_mean, running_var, weight, bias, training, momentum, eps, convention,
                       batch_in_eval=True)


def trap_one_pass_variance(x, running_mean, running_var, weight, bias, training: bool, momentum: float = 0.1,
                           eps: float = 1e-5, *, convention="pytorch"):
    """var = E[x^2] - E[x]^2 in x's dtype: every digit lost when the mean is large against the spread."""
    return _batch_norm(x, running_mean, running_var, weight, bias, training, momentum, eps, convention,
                       one_pass=True)


def trap_keras_convention(x, running_mean, running_var, weight, bias, training: bool, momentum: float = 0.1,
                          eps: float = 1e-5):
    """Keras's update, new = m * old + (1 - m) * batch with the biased variance, where PyTorch's is asked for."""
    return batch_norm(x, running_mean, running_var, weight, bias, training, momentum, eps, convention="keras")


def trap_pytorch_convention(x, running_mean, running_var, weight, bias, training: bool, momentum: float = 0.1,
                            eps: float = 1e-5):
    """PyTorch's update, new = (1 - m) * old + m * batch with the unbiased variance, where Keras's is asked for."""
    return batch_norm(x, running_mean, running_var, weight, bias, training, momentum, eps, convention="pytorch")


# ------------------------------------------------------- trap matching


def _args(call):
    x, rm, rv, w, b, training, m, eps = call.args[:8]
    return x.double(), rm.double(), rv.double(), w.double(), b.double(), bool(training), float(m), float(eps)


def _close(call, got, want, factor=4.0) -> bool:
    if not isinstance(got, torch.Tensor) or tuple(got.shape) != tuple(want.shape) or not got.is_floating_point():
        return False
    tol = (2e-3, 1e-2) if call.dtype == torch.float16 else (2e-3, 1e-4)
    g = got.double()
    ok = (g - want).abs() <= factor * (tol[0] + tol[1] * want.abs())
    ok = ok | (torch.isnan(g) & torch.isnan(want))
    return bool(ok.all())


def _convention(call) -> str:
    """The variant this call was built under, read from the momentum generator's options."""
    momentum = next(a for a in call.function.args if a.name == "momentum")
    return str(momentum.options.get("convention", "pytorch"))


def _triple(got):
    got = getattr(got, "items", got)
    return got if isinstance(got, tuple) and len(got) == 3 else None


def match_batch_stats_in_eval(call, got, trap_out) -> bool:
    """y normalised with the batch's statistics in eval, whether the running stats come back
    unchanged or moved toward the batch's (the training branch run in eval)."""
    got = _triple(got)
    x, rm, rv, w, b, training, m, eps = _args(call)
    if got is None or training:
        return False
    mean = x.mean(DIMS)
    var = ((x - _ch(mean)) ** 2).mean(DIMS)
    n = x.numel() // x.shape[1]
    y = (x - _ch(mean)) / torch.sqrt(_ch(var) + eps) * _ch(w) + _ch(b)
    if not _close(call, got[0], y):
        return False
    conv = _convention(call)
    stats = [(rm, rv)]
    for unbiased in (True, False):
        v = var * n / (n - 1) if unbiased else var
        stats.append((_update(rm, mean, m, conv), _update(rv, v, m, conv)))
    return any(_close(call, got[1], a) and _close(call, got[2], c) for a, c in stats)


def match_one_pass_variance(call, got, trap_out) -> bool:
    """The mean right and every variance off by no more than cancellation in E[x^2] - E[x]^2 leaves
    (64 roundings of E[x^2] in float32, or in x's dtype: the same mistake with or without an upcast):
    the one read back from the running variance, and the one y was normalised with, read back from y
    (a channel whose one-pass variance came out below -eps is NaN in y, and counts)."""
    got = _triple(got)
    x, rm, rv, w, b, training, m, eps = _args(call)
    if got is None or not training or not all(isinstance(t, torch.Tensor) for t in got):
        return False
    mean = x.mean(DIMS)
    var = ((x - _ch(mean)) ** 2).mean(DIMS)
    n = x.numel() // x.shape[1]
    conv = _convention(call)
    if not _close(call, got[1], _update(rm, mean, m, conv)):
        return False
    low = torch.float16 if call.dtype == torch.float16 else torch.float32
    band = 64 * torch.finfo(low).eps * (x * x).mean(DIMS) + 1e-6  # (C,)
    # the running variance
    nv = got[2].double()
    share = (1.0 - m) if conv == "keras" else m  # the batch's share of the new value
    v_run = (nv - _update(rv, torch.zeros_like(rv), m, conv)) / share
    if conv == "pytorch":
        v_run = v_run * (n - 1) / n
    slack = 8 * torch.finfo(torch.float32).eps * nv.abs() / share
    if not bool(((v_run - var).abs() <= band + slack).all()):
        return False
    # y, channel by channel: (y - bias) / weight = s * (x - m) for a mean m within float rounding of the
    # batch mean and s = 1 / sqrt(v + eps) with v in the band (fitted by least squares)
    y = got[0].double()
    if tuple(y.shape) != tuple(x.shape):
        return False
    nan_channel = torch.isnan(y).all(0).all(-1).all(-1)  # (C,)
    live = ~nan_channel & (w.abs() > 0.05)
    z = (y - _ch(b)) / _ch(w)
    xc = x - _ch(mean)
    scale = (z * xc).mean(DIMS) / var.clamp_min(1e-300)  # (C,)
    shift = z.mean(DIMS)  # = scale * (mean - m)
    v_y = 1.0 / scale.clamp_min(1e-300) ** 2 - eps
    m_y = mean - shift / scale.clamp_min(1e-300)
    mean_band = 64 * torch.finfo(low).eps * mean.abs() + 1e-6
    if not bool((((v_y - var).abs() <= band) & ((m_y - mean).abs() <= mean_band) & (scale > 0))[live].all()):
        return False
    want = (_ch(scale) * xc + _ch(shift)) * _ch(w) + _ch(b)
    keep = _ch(live).expand_as(y)
    return _close(call, y[keep], want[keep], factor=8.0)


# ------------------------------------------------------------------- inputs


def make_x(ctx, shape, dtype, scale=1.0, offset=0.0):
    """x (B, C, H, W): each channel's values standardised to a biased std drawn in [0.8, 1.3) (times
    `scale`), then shifted by offset plus a per-channel shift in [-0.5, 0.5). A batch's spread is then
    never small by chance (with B*H*W = 2 a channel could otherwise hold two nearly equal values, where
    float32 rounding of a mean near 3000 would be amplified), and never exactly 1: an integer variance
    is what a one-pass E[x^2] - E[x]^2, whose terms near 9e6 round to integers in float32, could hit."""
    C = shape[1]
    # drawn in float32, worked in float64, rounded once at the end: a float32 mean or norm sums in the order
    # the CPU's vector width gives (AVX2 and AVX-512 differ in the last bits), and every machine of a team
    # session must build the same bytes (tests/grader/golden_cases.py); float64's last bits do not survive the rounding
    z = torch.randn(shape, generator=ctx.gen, dtype=torch.float32).double()
    z = z - z.mean(DIMS, keepdim=True)
    std = z.pow(2).mean(DIMS, keepdim=True).sqrt().clamp_min(1e-6)
    target = torch.rand(C, generator=ctx.gen, dtype=torch.float32).double() * 0.5 + 0.8
    shift = torch.rand(C, generator=ctx.gen, dtype=torch.float32).double() - 0.5
    x = z / std * _ch(target) * float(scale) + float(offset) + _ch(shift)
    return x.to(dtype)


def make_running(ctx, shape, dtype, stat="mean", far=False):
    """running_mean near 0 (or near 5, far from the batch), running_var in [0.5, 1.5) (or [4, 9)), float32."""
    far = bool(ctx.params.get("far", far))
    u = torch.rand(shape, generator=ctx.gen, dtype=torch.float32)
    if stat == "mean":
        return (u - 0.5) * 0.2 + (5.0 if far else 0.0)
    return u * 5.0 + 4.0 if far else u + 0.5


def make_momentum(ctx, shape, dtype, value=0.1, convention="pytorch"):
    """The momentum argument for a PyTorch-style momentum `value` (the batch's share of the update):
    `value` itself under pytorch, 1 - value under keras (where momentum is the old value's share)."""
    value = float(value)
    return value if convention == "pytorch" else round(1.0 - value, 12)
