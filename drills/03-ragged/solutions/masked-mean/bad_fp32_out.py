import torch


def masked_mean(x, mask):
    m = mask.float().unsqueeze(-1)
    return (x * m).sum(1) / m.sum(1).clamp_min(1)
