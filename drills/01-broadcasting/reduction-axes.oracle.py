"""The oracle for reduction-axes: F.layer_norm, and torch's mean and biased var over (batch, time).

Kept apart from the reference so that it is an independent check; every public function
here is an oracle the spec can name (drills/README.md). Arguments come with floating
tensors upcast to float64 (grader/cases/prepare.py)."""
from __future__ import annotations

import torch
import torch.nn.functional as F


def layer_norm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float = 1e-5, *,
               layout: str = "btd") -> torch.Tensor:
    """F.layer_norm over the features: the last axis of (B, T, d), or dim 1 of (B, d, T) under layout="bdt"."""
    if layout == "bdt":
        return F.layer_norm(x.transpose(1, 2), (x.shape[1],), weight, bias, eps).transpose(1, 2)
    return F.layer_norm(x, (x.shape[-1],), weight, bias, eps)


def batch_stats(x: torch.Tensor, *, layout: str = "btd") -> tuple[torch.Tensor, torch.Tensor]:
    """Mean and biased variance over batch and time, each (d,): dims (0, 1) of (B, T, d), (0, 2) of (B, d, T)."""
    dims = (0, 2) if layout == "bdt" else (0, 1)
    return x.mean(dims), x.var(dims, unbiased=False)
