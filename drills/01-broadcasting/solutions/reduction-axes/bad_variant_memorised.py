# trap: none
# variant: layout=bdt
# partial: ln-affine-last-axis
# the (B, T, d) answer from memory: wrong axes in both functions, so no single trap explains it
import torch


def layer_norm(x, weight, bias, eps=1e-5):
    mu = x.mean(-1, keepdim=True)
    var = x.var(-1, keepdim=True, unbiased=False)
    return (x - mu) / torch.sqrt(var + eps) * weight + bias


def batch_stats(x):
    return x.mean((0, 1)), x.var((0, 1), unbiased=False)
