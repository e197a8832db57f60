"""The oracle for patchify: F.unfold.

Kept apart from the reference so that it is an independent check; every public function
here is an oracle the spec can name (drills/README.md). Arguments come with floating
tensors upcast to float64 (grader/cases/prepare.py)."""
from __future__ import annotations

import torch
import torch.nn.functional as F


def unfold_patchify(images: torch.Tensor, P: int, *, content: str = "cpp", layout: str = "nchw") -> torch.Tensor:
    """(B, C, H, W) -> (B, N, C*P*P): non-overlapping P x P patches, row-major grid, content in
    (C, P, P) order (unfold's own), or (P, P, C) under content="ppc"; images (B, H, W, C) under
    layout="nhwc"."""
    if layout == "nhwc":
        images = images.permute(0, 3, 1, 2)
    tokens = F.unfold(images, kernel_size=P, stride=P).transpose(1, 2)  # (B, N, C*P*P), (C, P, P) inside
    if content == "ppc":
        B, N, _ = tokens.shape
        tokens = tokens.reshape(B, N, images.shape[1], P * P).transpose(2, 3).reshape(B, N, -1)
    return tokens
