# trap: ln-over-time
import torch


def layer_norm(x, weight, bias, eps=1e-5):
    mean = x.mean(dim=1, keepdim=True)
    std = x.std(dim=1, keepdim=True)
    return weight * (x - mean) / (std + eps) + bias


def batch_stats(x):
    return x.mean((0, 1)), x.var((0, 1), unbiased=False)
