# trap: ln-no-affine  (normalised in float32 and cast back, but weight and bias never applied)
import torch


def layer_norm(x, weight, bias, eps=1e-5):
    h = x.float()
    mu = h.mean(-1, keepdim=True)
    var = (h - mu).pow(2).mean(-1, keepdim=True)
    return ((h - mu) / (var + eps).sqrt()).to(x.dtype)


def batch_stats(x):
    mean = x.mean(dim=(0, 1))
    return mean, ((x - mean) ** 2).mean(dim=(0, 1))
