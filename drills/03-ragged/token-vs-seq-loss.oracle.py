"""The oracle for token-vs-seq-loss: F.cross_entropy(reduction="none"), then the two means.

Kept apart from the reference so that it is an independent check; every public function
here is an oracle the spec can name (drills/README.md). Arguments come with floating
tensors upcast to float64 (grader/cases/prepare.py)."""
from __future__ import annotations

import torch
import torch.nn.functional as F


def lm_losses_ce(logits: torch.Tensor, ids: torch.Tensor, loss_mask: torch.Tensor, *,
                 shift: str = "none", labels: str = "mask") -> tuple[torch.Tensor, torch.Tensor]:
    """Token-mean and sequence-mean cross-entropy from F.cross_entropy(reduction="none"); `shift`
    next: Hugging Face's causal-LM shift, logits[..., :-1, :] against labels[..., 1:]; `labels`
    ignore: the loss positions are the labels that are not -100, cross_entropy's ignore_index
    (loss_mask is then the attention mask and is not used)."""
    if labels == "ignore":
        loss_mask = ids != -100
    if shift == "next":
        logits, ids, loss_mask = logits[..., :-1, :].contiguous(), ids[..., 1:].contiguous(), loss_mask[..., 1:]
    B, T, V = logits.shape
    per_token = F.cross_entropy(logits.reshape(B * T, V), ids.reshape(B * T), reduction="none").reshape(B, T)
    m = loss_mask.to(per_token.dtype)
    token_mean = (per_token * m).sum() / m.sum()
    seq_mean = ((per_token * m).sum(1) / m.sum(1)).mean()
    return token_mean, seq_mean
