# trap: unclamped-count  (no guard on the count, plus a separate slip: the count in float32 turns fp16 results into float32)
import torch


def masked_mean(x, mask):
    keep = mask.bool().unsqueeze(-1)
    total = x.masked_fill(~keep, 0).sum(dim=1)
    count = keep.float().sum(dim=1)
    return total / count
