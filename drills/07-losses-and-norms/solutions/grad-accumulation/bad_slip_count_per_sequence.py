# trap: none
import torch


def micro_batch_losses(losses, mask):
    m = mask.float()
    # divides by the loss tokens of each sequence position across the batch, not the global count
    return ((losses.float() * m).sum(2) / m.sum((0, 2)).clamp(min=1)).sum(1)
