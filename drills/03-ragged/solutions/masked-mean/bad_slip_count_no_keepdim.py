# trap: none
# The count per sample is (B,) without keepdim, so it does not line up with the (B, d) sums.
import torch


def masked_mean(x, mask):
    m = mask.to(x.dtype)
    total = (x * m[..., None]).sum(1)  # (B, d)
    count = m.sum(1).clamp_min(1)  # (B,)
    return total / count
