# variant: box_format=xywh
# COCO's bbox is (x, y, w, h) from the top-left corner: the box spans [x, x + w] x [y, y + h].
import torch


def box_iou(a, b):
    ax1, ay1 = a[:, 0, None], a[:, 1, None]  # (N, 1)
    ax2, ay2 = ax1 + a[:, 2, None], ay1 + a[:, 3, None]
    bx1, by1 = b[:, 0], b[:, 1]  # (M,)
    bx2, by2 = bx1 + b[:, 2], by1 + b[:, 3]
    iw = (torch.minimum(ax2, bx2) - torch.maximum(ax1, bx1)).clamp(min=0)  # (N, M)
    ih = (torch.minimum(ay2, by2) - torch.maximum(ay1, by1)).clamp(min=0)
    inter = iw * ih
    union = (a[:, 2] * a[:, 3])[:, None] + b[:, 2] * b[:, 3] - inter
    return inter / union.clamp(min=torch.finfo(union.dtype).tiny)
