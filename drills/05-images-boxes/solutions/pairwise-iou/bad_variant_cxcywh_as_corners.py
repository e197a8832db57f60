# trap: read-as-corners
# variant: box_format=cxcywh
import torch


def box_iou(a, b):
    lt = torch.max(a[:, None, :2], b[:, :2])  # (N, M, 2)
    rb = torch.min(a[:, None, 2:], b[:, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    area_a = ((a[:, 2] - a[:, 0]).clamp(min=0) * (a[:, 3] - a[:, 1]).clamp(min=0))
    area_b = ((b[:, 2] - b[:, 0]).clamp(min=0) * (b[:, 3] - b[:, 1]).clamp(min=0))
    union = area_a[:, None] + area_b - inter
    return torch.where(union > 0, inter / union.clamp(min=1e-12), torch.zeros_like(union))
