# trap: detached-rms
# The rms computed under no_grad "because it is only a scale": the values are right, the gradient of x is not.
import torch


def rms_norm(x, weight, eps: float = 1e-6):
    xf = x.float()
    with torch.no_grad():
        inv = torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + eps)  # (B, T, 1)
    return (xf * inv).to(x.dtype) * weight
