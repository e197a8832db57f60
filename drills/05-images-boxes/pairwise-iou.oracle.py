"""The oracle for pairwise-iou: torchvision.ops.box_iou.

Kept apart from the reference so that it is an independent check; every public function
here is an oracle the spec can name (drills/README.md). Arguments come with floating
tensors upcast to float64 (grader/cases/prepare.py)."""
from __future__ import annotations

import torch


def torchvision_box_iou(a: torch.Tensor, b: torch.Tensor, *, box_format: str = "xyxy") -> torch.Tensor:
    """torchvision.ops.box_iou on the boxes converted by torchvision.ops.box_convert from
    `box_format` (xyxy, cxcywh or xywh, torchvision's own names); a pair with zero union
    (0/0 = NaN there) gives 0."""
    from torchvision.ops import box_convert, box_iou

    iou = box_iou(box_convert(a, box_format, "xyxy"), box_convert(b, box_format, "xyxy"))
    return torch.nan_to_num(iou, nan=0.0)
