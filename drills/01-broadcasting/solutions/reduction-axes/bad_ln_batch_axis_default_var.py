# trap: ln-over-batch
# dim=0 where dim=-1 was meant, with torch's default (unbiased) var: a batch of one is 0/0 there.
import torch


def layer_norm(x, weight, bias, eps=1e-5):
    mu = x.mean(dim=0, keepdim=True)
    sigma2 = x.var(dim=0, keepdim=True)
    x_hat = (x - mu) * torch.rsqrt(sigma2 + eps)
    return x_hat * weight + bias


def batch_stats(x):
    return x.mean(dim=(0, 1)), x.var(dim=(0, 1), unbiased=False)
