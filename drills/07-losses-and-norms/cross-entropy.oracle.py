"""The oracle for cross-entropy: torch's own F.cross_entropy, on inputs upcast to float64.

Kept apart from the reference so that it is an independent check; every public function here is
an oracle the spec can name (drills/README.md)."""
from __future__ import annotations

import torch
import torch.nn.functional as F


def cross_entropy_torch(logits: torch.Tensor, targets: torch.Tensor, label_smoothing: float = 0.0,
                        ignore_index: int = -100, *, smoothing: str = "uniform") -> torch.Tensor:
    """F.cross_entropy over the flattened positions, its NaN for an all-ignored batch replaced by 0.

    smoothing="others" (fairseq: eps/(V-1) on each other class, 1 - eps on the target) is the same
    loss as PyTorch's uniform smoothing with eps' = eps * V / (V - 1): then eps'/V = eps/(V-1) on
    every class and the target keeps 1 - eps' + eps'/V = 1 - eps."""
    V = logits.shape[-1]
    eps = float(label_smoothing)
    if smoothing == "others":
        eps = eps * V / (V - 1)
    loss = F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1), ignore_index=ignore_index,
                           label_smoothing=eps)
    if not bool((targets != ignore_index).any()):
        return torch.zeros_like(loss)  # F.cross_entropy's 0 / 0 NaN; the contract says 0.0
    return loss
