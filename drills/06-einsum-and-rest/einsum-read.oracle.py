"""The oracle for einsum-read: torch.einsum.

Kept apart from the reference so that it is an independent check; every public function
here is an oracle the spec can name (drills/README.md). Arguments come with floating
tensors upcast to float64 (grader/cases/prepare.py)."""
from __future__ import annotations

import torch


def einsum_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """torch.einsum("bthd,bshd->bhts", q, k): (B, T, H, dh) x (B, S, H, dh) -> (B, H, T, S)."""
    return torch.einsum("bthd,bshd->bhts", q, k)
