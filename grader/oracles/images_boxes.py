"""Images-and-boxes oracles: torch's own unfold/fold/conv2d and torchvision's box_iou.

Every oracle receives floating tensors upcast to float64 (grader.cases.prepare.upcast).
"""
from __future__ import annotations

import torch
import torch.nn.functional as F


def unfold_patchify(images: torch.Tensor, P: int) -> torch.Tensor:
    """(B, C, H, W) -> (B, N, C*P*P): non-overlapping P x P patches, row-major grid, (C, P, P) content."""
    return F.unfold(images, kernel_size=P, stride=P).transpose(1, 2)


def fold_unpatchify(tokens: torch.Tensor, C: int, H: int, W: int, P: int) -> torch.Tensor:
    """(B, N, C*P*P) -> (B, C, H, W): the exact inverse of unfold_patchify (patches do not overlap)."""
    return F.fold(tokens.transpose(1, 2), output_size=(H, W), kernel_size=P, stride=P)


def conv2d_oracle(x: torch.Tensor, weight: torch.Tensor, stride: int, padding: int) -> torch.Tensor:
    """Cross-correlation as nn.Conv2d computes it, no bias."""
    return F.conv2d(x, weight, stride=stride, padding=padding)


def box_iou_oracle(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """torchvision.ops.box_iou; a pair with zero union (0/0 = NaN there) gives 0."""
    from torchvision.ops import box_iou

    iou = box_iou(a, b)
    return torch.nan_to_num(iou, nan=0.0)


ORACLES = {
    "unfold_patchify": unfold_patchify,
    "fold_unpatchify": fold_unpatchify,
    "conv2d": conv2d_oracle,
    "torchvision_box_iou": box_iou_oracle,
}
