# trap: fp16-statistics  (the mean of squares in x's dtype, then a division)
import torch


def rms_norm(x, weight, eps=1e-6):
    ms = (x * x).mean(dim=-1, keepdim=True)
    return weight * (x / torch.sqrt(ms + eps))
