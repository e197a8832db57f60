# trap: all-positions
import torch


def micro_batch_losses(losses, mask):
    masked = losses.float() * mask.float()
    return masked.sum(dim=(1, 2)) / masked.numel()
