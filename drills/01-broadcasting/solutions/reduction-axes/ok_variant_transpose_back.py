# variant: layout=bdt
# move the features last, do it the usual way, move them back
import torch


def layer_norm(x, weight, bias, eps=1e-5):
    h = x.transpose(1, 2)  # (B, T, d)
    mu = h.mean(-1, keepdim=True)
    var = ((h - mu) ** 2).mean(-1, keepdim=True)
    out = (h - mu) * torch.rsqrt(var + eps) * weight + bias
    return out.transpose(1, 2)


def batch_stats(x):
    h = x.transpose(1, 2).reshape(-1, x.shape[1])  # (B*T, d)
    mean = h.mean(0)
    return mean, ((h - mean) ** 2).mean(0)
