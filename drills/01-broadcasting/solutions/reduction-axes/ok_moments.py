import torch


def layer_norm(x, weight, bias, eps=1e-5):
    xf = x.float()
    mu = xf.mean(dim=2, keepdim=True)
    var = (xf * xf).mean(dim=2, keepdim=True) - mu * mu  # E[x^2] - E[x]^2
    return (weight * (xf - mu) / (var + eps).sqrt() + bias).to(x.dtype)


def batch_stats(x):
    flat = x.reshape(-1, x.shape[-1])  # (B*T, d)
    mean = flat.mean(0)
    var = flat.var(0, unbiased=False)
    return (mean, var)
