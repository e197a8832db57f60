# trap: none
# Right in every case, but it cannot train: a NumPy round trip, whose .numpy() raises once the inputs require grad.
import numpy as np
import torch


def micro_batch_losses(losses, mask):
    x = losses.double().numpy()
    m = mask.double().numpy()
    total = max(m.sum(), 1.0)
    return torch.from_numpy((x * m).sum(axis=(1, 2)) / total).float()
