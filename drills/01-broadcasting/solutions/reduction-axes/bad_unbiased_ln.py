# trap: ln-unbiased-variance
import torch


def layer_norm(x, weight, bias, eps=1e-5):
    mu = x.mean(-1, keepdim=True)
    sd = torch.sqrt(x.var(-1, keepdim=True) + eps)
    return weight * (x - mu) / sd + bias


def batch_stats(x):
    return x.mean((0, 1)), x.var((0, 1), unbiased=False)
