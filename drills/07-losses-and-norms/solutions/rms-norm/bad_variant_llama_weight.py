# trap: llama-convention
# variant: weight=gemma
# Llama's RMSNorm on a Gemma checkpoint: the weight used as the scale itself.
import torch


def rms_norm(x, weight, eps=1e-6):
    xf = x.to(torch.float32)
    xf = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
    return weight * xf.to(x.dtype)
