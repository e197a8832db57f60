# trap: none
# torchvision's box_iou convention: areas and overlaps in float32 for fp16 boxes,
# and the float32 result is returned. This contract keeps the input dtype.
import torch


def box_iou(a, b):
    a, b = a.float(), b.float()
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    lt = torch.max(a[:, None, :2], b[:, :2])
    rb = torch.min(a[:, None, 2:], b[:, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    union = area_a[:, None] + area_b - inter
    return torch.where(union > 0, inter / union.clamp(min=1e-12), torch.zeros_like(inter))
