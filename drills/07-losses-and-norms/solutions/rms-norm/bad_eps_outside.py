# trap: eps-outside-sqrt
import math

import torch


def rms_norm(x, weight, eps=1e-6):
    xf = x.float()
    rms = xf.norm(dim=-1, keepdim=True) / math.sqrt(x.shape[-1])
    return (xf / (rms + eps)).to(x.dtype) * weight
