# variant: box_format=cxcywh
# DETR's boxes are (cx, cy, w, h): convert to corners first, then the usual IoU.
import torch
from torchvision.ops import box_convert


def box_iou(a, b):
    a = box_convert(a, "cxcywh", "xyxy")  # (N, 4)
    b = box_convert(b, "cxcywh", "xyxy")  # (M, 4)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    lt = torch.max(a[:, None, :2], b[:, :2])  # (N, M, 2)
    rb = torch.min(a[:, None, 2:], b[:, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    union = area_a[:, None] + area_b - inter
    safe = torch.where(union > 0, union, torch.ones_like(union))  # a where on both sides: no 0/0 in the backward
    return torch.where(union > 0, inter / safe, torch.zeros_like(inter))
