"""The oracle for pairwise-sqdist: torch.cdist, without its matmul shortcut.

Kept apart from the reference so that it is an independent check; every public function
here is an oracle the spec can name (drills/README.md). Arguments come with floating
tensors upcast to float64 (grader/cases/prepare.py)."""
from __future__ import annotations

import torch


def cdist_squared(A: torch.Tensor, B: torch.Tensor, *, points: str = "rows") -> torch.Tensor:
    """torch.cdist(A, B) ** 2 without the matmul shortcut (no cancellation, exact 0 for equal rows).
    Under points="columns", A is (d, N) and B (d, M): cdist takes their transposes."""
    if points == "columns":
        A, B = A.T, B.T
    return torch.cdist(A, B, compute_mode="donot_use_mm_for_euclid_dist") ** 2
