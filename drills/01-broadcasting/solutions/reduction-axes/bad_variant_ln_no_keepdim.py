# trap: ln-no-keepdim
# variant: layout=bdt
import torch


def layer_norm(x, weight, bias, eps=1e-5):
    mu = x.mean(dim=1)
    var = x.var(dim=1, unbiased=False)
    return (x - mu) / torch.sqrt(var + eps) * weight[:, None] + bias[:, None]


def batch_stats(x):
    return x.mean(dim=(0, 2)), x.var(dim=(0, 2), unbiased=False)
