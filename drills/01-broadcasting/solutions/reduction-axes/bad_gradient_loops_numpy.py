# trap: none
# Right in every case, but it cannot train: its backward differs from the reference's (part of the computation leaves autograd).
import math

import numpy as np
import torch


def layer_norm(x, weight, bias, eps: float = 1e-5):
    B, T, d = x.shape
    out = torch.empty_like(x)
    for b in range(B):
        for t in range(T):
            row = x[b, t].double()
            mu = row.sum() / d
            var = ((row - mu) ** 2).sum() / d
            out[b, t] = ((row - mu) / math.sqrt(float(var) + eps) * weight.double() + bias.double()).to(x.dtype)
    return out


def batch_stats(x):
    a = x.double().numpy().reshape(-1, x.shape[-1])  # (B*T, d)
    mean = a.mean(axis=0)
    var = a.var(axis=0)  # numpy's default ddof=0 is the biased variance
    return torch.from_numpy(mean).to(x.dtype), torch.from_numpy(var).to(x.dtype)
