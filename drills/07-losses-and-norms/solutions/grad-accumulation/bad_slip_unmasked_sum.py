# trap: none
import torch


def micro_batch_losses(losses, mask):
    # the mask is counted, but the padding's losses are still summed
    total = mask.float().sum().clamp(min=1)
    return losses.float().sum(dim=(1, 2)) / total
