# trap: swapped-means
import torch
import torch.nn.functional as F


def lm_losses(logits, ids, loss_mask):
    B, T, V = logits.shape
    flat = F.cross_entropy(logits.float().reshape(-1, V), ids.reshape(-1), reduction="none").reshape(B, T)
    m = loss_mask.float()
    return ((flat * m).sum(1) / m.sum(1)).mean(), (flat * m).sum() / m.sum()
