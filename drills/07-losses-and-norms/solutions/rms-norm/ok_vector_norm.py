# The root mean square from the L2 norm: ||x|| / sqrt(d) = sqrt(mean(x**2)).
import math

import torch


def rms_norm(x, weight, eps=1e-6):
    d = x.shape[-1]
    norm = torch.linalg.vector_norm(x.float(), dim=-1, keepdim=True)  # (B, T, 1)
    rms = torch.sqrt(norm.square() / d + eps)
    return (x.float() / rms).to(x.dtype) * weight
