# trap: none
# The mask gets its new axis in the middle, (B, 1, T), instead of at the end, (B, T, 1).
import torch


def masked_mean(x, mask):
    m = mask.to(x.dtype).unsqueeze(1)
    total = (x * m).sum(1)
    count = mask.to(x.dtype).sum(1, keepdim=True).clamp_min(1)
    return total / count
