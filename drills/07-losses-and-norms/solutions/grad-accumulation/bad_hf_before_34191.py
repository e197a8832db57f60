# trap: mean-of-means
# Hugging Face's Trainer before PR #34191: each micro-batch's loss is its own masked mean
# (cross_entropy's default reduction), then divided by gradient_accumulation_steps.
import torch


def micro_batch_losses(losses, mask):
    gradient_accumulation_steps = losses.shape[0]
    out = []
    for i in range(gradient_accumulation_steps):
        m = mask[i].float()
        loss = (losses[i].float() * m).sum() / m.sum().clamp(min=1)
        out.append(loss / gradient_accumulation_steps)
    return torch.stack(out)
