# trap: none  (no clip, and a 1e-6 union clamp that blows degenerate pairs up to 1e9: two mistakes)
# partial: no-clip
import torch


def box_iou(a, b):
    area1 = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area2 = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    iw = torch.min(a[:, 2:3], b[:, 2]) - torch.max(a[:, 0:1], b[:, 0])
    ih = torch.min(a[:, 3:4], b[:, 3]) - torch.max(a[:, 1:2], b[:, 1])
    inter = iw * ih
    return inter / (area1[:, None] + area2 - inter).clamp(min=1e-6)
