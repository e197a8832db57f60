# The mean of squares as a matmul with a ones vector made on the CPU (right on a CPU, an error on a GPU).
import torch


def rms_norm(x, weight, eps=1e-6):
    xf = x.float()
    d = x.shape[-1]
    ms = xf.pow(2) @ torch.ones(d, 1) / d  # (B, T, 1)
    return (xf * torch.rsqrt(ms + eps)).to(x.dtype) * weight
