# trap: mean-over-time
import torch


def rms_norm(x, weight, eps=1e-6):
    xf = x.float()
    ms = xf.pow(2).mean(dim=1, keepdim=True)
    return (xf * torch.rsqrt(ms + eps)).to(x.dtype) * weight
