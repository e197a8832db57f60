# trap: stats-over-batch-only  (reduces dim 0 alone, with torch's default unbiased variance: (T, d))
import torch


def layer_norm(x, weight, bias, eps=1e-5):
    mu = x.mean(-1, keepdim=True)
    var = x.var(-1, keepdim=True, unbiased=False)
    return (x - mu) / torch.sqrt(var + eps) * weight + bias


def batch_stats(x):
    return x.mean(dim=0), x.var(dim=0)
