import torch


def box_iou(a, b):
    x1 = torch.max(a[:, None, 0], b[:, 0])
    y1 = torch.max(a[:, None, 1], b[:, 1])
    x2 = torch.min(a[:, None, 2], b[:, 2])
    y2 = torch.min(a[:, None, 3], b[:, 3])
    inter = (x2 - x1).clamp(0) * (y2 - y1).clamp(0)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    return inter / (area_a[:, None] + area_b - inter + 1e-6)
