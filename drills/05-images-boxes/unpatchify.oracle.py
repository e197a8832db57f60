"""The oracle for unpatchify: F.fold.

Kept apart from the reference so that it is an independent check; every public function
here is an oracle the spec can name (drills/README.md). Arguments come with floating
tensors upcast to float64 (grader/cases/prepare.py)."""
from __future__ import annotations

import torch
import torch.nn.functional as F


def fold_unpatchify(tokens: torch.Tensor, C: int, H: int, W: int, P: int, *, content: str = "cpp",
                    layout: str = "nchw") -> torch.Tensor:
    """(B, N, C*P*P) -> (B, C, H, W): the exact inverse of unfold_patchify (patches do not overlap).
    Tokens hold (C, P, P), fold's own order, or (P, P, C) under content="ppc"; the images come
    out (B, H, W, C) under layout="nhwc"."""
    if content == "ppc":
        B, N, _ = tokens.shape
        tokens = tokens.reshape(B, N, P * P, C).transpose(2, 3).reshape(B, N, -1)  # to (C, P, P) inside
    images = F.fold(tokens.transpose(1, 2), output_size=(H, W), kernel_size=P, stride=P)
    return images.permute(0, 2, 3, 1) if layout == "nhwc" else images
