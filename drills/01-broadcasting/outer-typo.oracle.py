"""The oracle for outer-typo: the per-sample squared error written out with the target's axis dropped.

Kept apart from the reference so that it is an independent check; every public function
here is an oracle the spec can name (drills/README.md). Arguments come with floating
tensors upcast to float64 (grader/cases/prepare.py)."""
from __future__ import annotations

import torch


def mse_per_sample(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Mean over samples of (pred[i] - target[i, 0]) ** 2: a 0-d tensor."""
    return ((pred - target[:, 0]) ** 2).mean()
