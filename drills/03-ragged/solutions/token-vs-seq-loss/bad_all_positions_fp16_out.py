# trap: all-positions  (the mask never used; cross_entropy in float32, both losses cast back to the input's dtype)
import torch.nn.functional as F


def lm_losses(logits, ids, loss_mask):
    B, T, V = logits.shape
    nll = F.cross_entropy(logits.float().reshape(B * T, V), ids.reshape(-1), reduction="none").view(B, T)
    return nll.mean().to(logits.dtype), nll.mean(dim=1).mean().to(logits.dtype)
