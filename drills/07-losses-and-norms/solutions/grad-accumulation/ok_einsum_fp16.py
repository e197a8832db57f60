import torch


def micro_batch_losses(losses, mask):
    m = mask.to(losses.dtype)
    sums = torch.einsum("nbt,nbt->n", losses.float(), m.float())
    total = m.float().sum()
    return torch.where(total > 0, sums / total.clamp_min(1), torch.zeros_like(sums)).to(losses.dtype)
