# trap: zeroed-then-mean
import torch


def masked_mean(x, mask):
    return (x * mask.unsqueeze(-1).to(x.dtype)).mean(dim=1)
