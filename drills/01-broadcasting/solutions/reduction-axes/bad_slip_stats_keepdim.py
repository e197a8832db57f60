# trap: none
# layer_norm is right; batch_stats keeps the reduced axes: (1, 1, d) instead of (d,).
import torch


def layer_norm(x, weight, bias, eps=1e-5):
    mu = x.mean(-1, keepdim=True)
    var = x.var(-1, keepdim=True, unbiased=False)
    return (x - mu) / torch.sqrt(var + eps) * weight + bias


def batch_stats(x):
    mean = x.mean((0, 1), keepdim=True)
    var = ((x - mean) ** 2).mean((0, 1), keepdim=True)
    return mean, var
