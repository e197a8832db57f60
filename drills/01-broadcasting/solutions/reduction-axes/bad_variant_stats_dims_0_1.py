# trap: stats-dims-0-1
# variant: layout=bdt
import torch


def layer_norm(x, weight, bias, eps=1e-5):
    mu = x.mean(dim=1, keepdim=True)
    var = x.var(dim=1, keepdim=True, unbiased=False)
    return (x - mu) / torch.sqrt(var + eps) * weight[:, None] + bias[:, None]


def batch_stats(x):
    flat = x.reshape(-1, x.shape[-1])  # the (B, T, d) habit: one row per (b, t), but here the last axis is time
    return flat.mean(0), flat.var(0, unbiased=False)
