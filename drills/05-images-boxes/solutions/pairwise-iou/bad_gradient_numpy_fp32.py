# trap: none
# Right in every case, but it cannot train: a NumPy round trip, whose .numpy() raises once the inputs require grad.
import numpy as np
import torch


def box_iou(a, b):
    A = a.float().numpy()
    Bx = b.float().numpy()
    area_a = (A[:, 2] - A[:, 0]).clip(0) * (A[:, 3] - A[:, 1]).clip(0)
    area_b = (Bx[:, 2] - Bx[:, 0]).clip(0) * (Bx[:, 3] - Bx[:, 1]).clip(0)
    lt = np.maximum(A[:, None, :2], Bx[None, :, :2])
    rb = np.minimum(A[:, None, 2:], Bx[None, :, 2:])
    wh = (rb - lt).clip(0)
    inter = wh[..., 0] * wh[..., 1]
    union = area_a[:, None] + area_b[None, :] - inter
    iou = inter / np.maximum(union, 1e-9)
    return torch.from_numpy(iou).to(a.dtype)
