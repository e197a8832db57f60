# trap: unclamped-count
import torch


def masked_mean(x, mask):
    m = mask.to(x.dtype).unsqueeze(-1)
    return (x * m).sum(1) / m.sum(1)
