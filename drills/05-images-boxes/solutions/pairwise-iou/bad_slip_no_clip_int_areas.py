# trap: none  (no clip, and areas truncated to whole pixels with .long(): two mistakes, the second changes every value)
import torch


def box_iou(a, b):
    area_a = ((a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])).long()
    area_b = ((b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])).long()
    wh = torch.min(a[:, None, 2:], b[None, :, 2:]) - torch.max(a[:, None, :2], b[None, :, :2])
    inter = wh[..., 0] * wh[..., 1]
    union = area_a[:, None] + area_b[None, :] - inter
    return torch.where(union != 0, inter / union, torch.zeros_like(inter))
