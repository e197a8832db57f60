# trap: none
# Right values, but the result stays float32 for fp16 inputs (the cast back was forgotten).
import torch


def rms_norm(x, weight, eps=1e-6):
    xf = x.float()
    return xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * weight.float()
