# trap: none
# The sum of squares instead of their mean: every token is sqrt(d) times too small.
import torch


def rms_norm(x, weight, eps=1e-6):
    xf = x.float()
    ss = xf.pow(2).sum(-1, keepdim=True)
    return (xf * torch.rsqrt(ss + eps)).to(x.dtype) * weight
