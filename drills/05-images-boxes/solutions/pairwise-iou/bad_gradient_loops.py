# trap: none
# Right in every case, but it cannot train: no gradient reaches a or b (its values leave autograd on the way: .item(), .tolist(), .detach() or a NumPy copy).
import torch


def box_iou(a, b):
    N, M = a.shape[0], b.shape[0]
    out = torch.zeros(N, M, dtype=a.dtype)
    for i in range(N):
        ax1, ay1, ax2, ay2 = a[i].tolist()
        for j in range(M):
            bx1, by1, bx2, by2 = b[j].tolist()
            w = max(0.0, min(ax2, bx2) - max(ax1, bx1))
            h = max(0.0, min(ay2, by2) - max(ay1, by1))
            inter = w * h
            union = (ax2 - ax1) * (ay2 - ay1) + (bx2 - bx1) * (by2 - by1) - inter
            out[i, j] = inter / union if union > 0 else 0.0
    return out
