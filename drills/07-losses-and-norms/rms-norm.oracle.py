"""The oracle for rms-norm: the formula in float64.

Kept apart from the reference so that it is an independent check; every public function
here is an oracle the spec can name (drills/README.md). Arguments come with floating
tensors upcast to float64 (grader/cases/prepare.py)."""
from __future__ import annotations

import torch


def rms_norm_formula(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6, *,
                     convention: str = "llama") -> torch.Tensor:
    """x / sqrt(mean(x^2 over the last axis) + eps), times weight (llama) or (1 + weight) (gemma)."""
    x, weight = x.double(), weight.double()
    rms = torch.sqrt((x * x).sum(-1, keepdim=True) / x.shape[-1] + eps)
    scale = 1.0 + weight if convention == "gemma" else weight
    return x / rms * scale
