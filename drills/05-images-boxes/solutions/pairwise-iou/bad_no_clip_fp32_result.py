# trap: no-clip  (no clip on the overlap, plus a second, separate slip: it upcasts and returns float32 for fp16 boxes)
import torch


def box_iou(a, b):
    a, b = a.float(), b.float()
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    lt = torch.max(a[:, None, :2], b[None, :, :2])
    rb = torch.min(a[:, None, 2:], b[None, :, 2:])
    wh = rb - lt
    inter = wh[..., 0] * wh[..., 1]
    union = area_a[:, None] + area_b[None, :] - inter
    iou = inter / torch.where(union == 0, torch.ones_like(union), union)
    return iou.masked_fill(union == 0, 0.0)
