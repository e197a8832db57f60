import torch


def micro_batch_losses(losses, mask):
    # the way a training loop does it since transformers 4.46: count first, then sum / count per step
    num_items = int(sum(mb.bool().sum() for mb in mask))
    out = []
    for mb_loss, mb_mask in zip(losses, mask):
        keep = mb_mask.bool()
        summed = mb_loss[keep].float().sum()
        out.append(summed / num_items if num_items > 0 else summed * 0)
    return torch.stack(out).to(losses.dtype)
