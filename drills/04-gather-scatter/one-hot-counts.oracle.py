"""The oracle for one-hot-counts: F.one_hot and torch.bincount.

Kept apart from the reference so that it is an independent check; every public function
here is an oracle the spec can name (drills/README.md). Arguments come with floating
tensors upcast to float64 (grader/cases/prepare.py)."""
from __future__ import annotations

import torch
import torch.nn.functional as F


def one_hot_torch(labels: torch.Tensor, K: int) -> torch.Tensor:
    return F.one_hot(labels, K).to(torch.float32)


def class_counts_bincount(labels: torch.Tensor, K: int) -> torch.Tensor:
    return torch.bincount(labels, minlength=K).to(torch.int64)
