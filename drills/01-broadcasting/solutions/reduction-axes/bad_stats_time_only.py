# trap: stats-over-time-only
import torch


def layer_norm(x, weight, bias, eps=1e-5):
    mu = x.mean(-1, keepdim=True)
    var = ((x - mu) ** 2).mean(-1, keepdim=True)
    return (x - mu) / torch.sqrt(var + eps) * weight + bias


def batch_stats(x):
    return x.mean(1), x.var(1, unbiased=False)
