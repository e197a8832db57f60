import torch
import torch.nn.functional as F


def lm_losses(logits, ids, loss_mask):
    B, T, V = logits.shape
    flat = F.cross_entropy(logits.float().reshape(-1, V), ids.reshape(-1), reduction="none").reshape(B, T)
    m = loss_mask.float()
    tok = (flat * m).sum() / m.sum()
    seq = ((flat * m).sum(1) / m.sum(1).clamp_min(1)).mean()
    return tok, seq
