# variant: shift=next
# Hugging Face's causal-LM loss: the logits at t predict the token at t + 1.
import torch
import torch.nn.functional as F


def lm_losses(logits, ids, loss_mask):
    logits, targets, m = logits[:, :-1], ids[:, 1:], loss_mask[:, 1:].float()
    nll = F.cross_entropy(logits.float().transpose(1, 2), targets, reduction="none")  # (B, T - 1)
    token_mean = (nll * m).sum() / m.sum()
    seq_mean = ((nll * m).sum(1) / m.sum(1)).mean()
    return token_mean, seq_mean
