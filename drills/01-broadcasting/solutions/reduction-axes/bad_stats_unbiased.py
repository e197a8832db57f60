# trap: stats-unbiased-variance
import torch


def layer_norm(x, weight, bias, eps=1e-5):
    mu = x.mean(-1, keepdim=True)
    var = ((x - mu) ** 2).mean(-1, keepdim=True)
    return (x - mu) / torch.sqrt(var + eps) * weight + bias


def batch_stats(x):
    flat = x.reshape(-1, x.shape[-1])
    return flat.mean(0), flat.std(0) ** 2
