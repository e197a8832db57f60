# trap: token-unit
# variant: unit=sequence
import torch


def micro_batch_losses(losses, mask):
    m = mask.float()
    return (losses.float() * m).sum((1, 2)) / m.sum().clamp(min=1)
