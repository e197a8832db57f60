"""The oracle for conv2d-groups: F.conv2d (cross-correlation with bias, stride, padding, dilation, groups).

Kept apart from the reference so that it is an independent check; every public function
here is an oracle the spec can name (drills/README.md). Arguments come with floating
tensors upcast to float64 (grader/cases/prepare.py)."""
from __future__ import annotations

import torch
import torch.nn.functional as F


def torch_conv2d(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, stride: int, padding: int,
                 dilation: int, groups: int, *, layout: str = "nchw") -> torch.Tensor:
    """nn.Conv2d's forward. Under layout="nhwc" x is (B, H, W, C), weight (kh, kw, C // G, C_out) (Keras'
    kernel order) and the answer (B, H_out, W_out, C_out)."""
    if layout == "nhwc":
        out = F.conv2d(x.permute(0, 3, 1, 2), weight.permute(3, 2, 0, 1), bias, stride=stride, padding=padding,
                       dilation=dilation, groups=groups)
        return out.permute(0, 2, 3, 1)
    return F.conv2d(x, weight, bias, stride=stride, padding=padding, dilation=dilation, groups=groups)
