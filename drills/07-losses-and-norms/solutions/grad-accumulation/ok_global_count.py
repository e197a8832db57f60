import torch


def micro_batch_losses(losses, mask):
    m = mask.float()
    num_items_in_batch = m.sum().clamp(min=1)  # loss tokens of the whole accumulated batch
    return (losses.float() * m).sum(dim=(1, 2)) / num_items_in_batch
