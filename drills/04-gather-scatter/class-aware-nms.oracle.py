"""The oracle for class-aware-nms: greedy NMS inside each class, one box at a time, in float64.

Kept apart from the reference so that it is an independent check; every public function
here is an oracle the spec can name (drills/README.md). Arguments come with floating
tensors upcast to float64 (grader/cases/prepare.py)."""
from __future__ import annotations

import torch


def _iou(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """IoU of one box a (4,) against boxes b (M, 4), float64."""
    w = (torch.minimum(a[2], b[:, 2]) - torch.maximum(a[0], b[:, 0])).clamp(min=0)
    h = (torch.minimum(a[3], b[:, 3]) - torch.maximum(a[1], b[:, 1])).clamp(min=0)
    inter = w * h
    area_a = (a[2] - a[0]) * (a[3] - a[1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    return inter / (area_a + area_b - inter)


def per_class_nms(boxes: torch.Tensor, scores: torch.Tensor, classes: torch.Tensor, iou_threshold: float, *,
                  box_format: str = "xyxy") -> torch.Tensor:
    """Greedy NMS run separately inside each class, in float64 (no coordinate offsets), on the
    boxes converted from `box_format` (xyxy or cxcywh) by torchvision.ops.box_convert.

    Not torchvision's batched_nms: its CPU path offsets by classes * (boxes.max() + 1),
    which lets classes collide once coordinates are negative.
    """
    from torchvision.ops import box_convert

    boxes = box_convert(boxes.double(), box_format, "xyxy")
    scores = scores.double()
    kept: list[int] = []
    for c in torch.unique(classes).tolist():
        idx = torch.nonzero(classes == c).flatten()
        order = idx[torch.argsort(scores[idx], descending=True, stable=True)].tolist()
        alive = list(order)
        while alive:
            i = alive.pop(0)
            kept.append(i)
            if alive:
                rest = torch.tensor(alive)
                ious = _iou(boxes[i], boxes[rest])
                alive = [j for j, v in zip(alive, ious.tolist()) if not v > iou_threshold]
    out = torch.tensor(kept, dtype=torch.int64)
    if out.numel() == 0:
        return out
    return out[torch.argsort(scores[out], descending=True, stable=True)]
