"""The oracle for im2col: F.conv2d (cross-correlation, no bias).

Kept apart from the reference so that it is an independent check; every public function
here is an oracle the spec can name (drills/README.md). Arguments come with floating
tensors upcast to float64 (grader/cases/prepare.py)."""
from __future__ import annotations

import torch
import torch.nn.functional as F


def conv2d(x: torch.Tensor, weight: torch.Tensor, stride: int, padding: int, *, layout: str = "nchw") -> torch.Tensor:
    """Cross-correlation as nn.Conv2d computes it, no bias. Under layout="nhwc", x is (B, H, W, C),
    weight (k, k, C, C_out) and the answer (B, H_out, W_out, C_out)."""
    if layout == "nhwc":
        out = F.conv2d(x.permute(0, 3, 1, 2), weight.permute(3, 2, 0, 1), stride=stride, padding=padding)
        return out.permute(0, 2, 3, 1)
    return F.conv2d(x, weight, stride=stride, padding=padding)
