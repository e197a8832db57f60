import torch
import torch.nn.functional as F


def lm_losses(logits, ids, loss_mask):
    nll = F.cross_entropy(logits.transpose(1, 2), ids, reduction="none")  # (B, T) in logits' dtype
    keep = loss_mask.bool()
    tok = nll[keep].sum() / keep.sum()
    seq = (torch.where(keep, nll, torch.zeros_like(nll)).sum(1) / keep.sum(1)).mean()
    return tok.to(logits.dtype), seq.to(logits.dtype)
