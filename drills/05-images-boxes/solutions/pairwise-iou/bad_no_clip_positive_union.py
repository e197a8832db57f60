# trap: no-clip  (no clip on the overlap, written per column, guarded by union > 0 rather than != 0)
import torch


def box_iou(a, b):
    ax1, ay1, ax2, ay2 = a.unbind(-1)
    bx1, by1, bx2, by2 = b.unbind(-1)
    iw = torch.min(ax2[:, None], bx2[None, :]) - torch.max(ax1[:, None], bx1[None, :])
    ih = torch.min(ay2[:, None], by2[None, :]) - torch.max(ay1[:, None], by1[None, :])
    inter = iw * ih
    union = ((ax2 - ax1) * (ay2 - ay1))[:, None] + ((bx2 - bx1) * (by2 - by1))[None, :] - inter
    return torch.where(union > 0, inter / union.clamp(min=1e-12), torch.zeros_like(inter))
