# trap: gemma-convention
# Gemma's RMSNorm copied for a Llama checkpoint.
import torch


def rms_norm(x, weight, eps=1e-6):
    xf = x.float()
    out = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
    return (out * (1.0 + weight.float())).type_as(x)
