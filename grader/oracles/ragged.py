"""Ragged-data oracles: torch's own cross-entropy for the loss drills."""
from __future__ import annotations

import torch
import torch.nn.functional as F


def lm_losses_ce(logits: torch.Tensor, ids: torch.Tensor, loss_mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Token-mean and sequence-mean cross-entropy from F.cross_entropy(reduction="none")."""
    B, T, V = logits.shape
    per_token = F.cross_entropy(logits.reshape(B * T, V), ids.reshape(B * T), reduction="none").reshape(B, T)
    m = loss_mask.to(per_token.dtype)
    token_mean = (per_token * m).sum() / m.sum()
    seq_mean = ((per_token * m).sum(1) / m.sum(1)).mean()
    return token_mean, seq_mean


ORACLES = {
    "lm_losses_ce": lm_losses_ce,
}
