# trap: ln-unbiased-variance  (torch's default var, divided by d - 1, applied through rsqrt)
import torch


def layer_norm(x, weight, bias, eps=1e-5):
    centred = x - x.mean(dim=-1, keepdim=True)
    return centred * torch.rsqrt(x.var(dim=-1, keepdim=True) + eps) * weight + bias


def batch_stats(x):
    flat = x.reshape(-1, x.shape[-1])
    return flat.mean(0), flat.var(0, unbiased=False)
