# trap: fp16-statistics
# meta-llama's RMSNorm._norm without the .float() its forward wraps it in.
import torch


def rms_norm(x, weight, eps=1e-6):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight
