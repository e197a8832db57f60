# trap: none
# layer_norm divides by sqrt(var) with eps left out; batch_stats is right.
import torch


def layer_norm(x, weight, bias, eps=1e-5):
    mu = x.mean(-1, keepdim=True)
    var = ((x - mu) ** 2).mean(-1, keepdim=True)
    return (x - mu) / torch.sqrt(var) * weight + bias


def batch_stats(x):
    mean = x.mean((0, 1))
    return mean, ((x - mean) ** 2).mean((0, 1))
