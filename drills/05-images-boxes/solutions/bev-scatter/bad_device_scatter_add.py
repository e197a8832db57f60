# device: mixes CPU tensors with the inputs (correct on a CPU, an error on a GPU)
import torch


def bev_scatter(points, feats, lo: float, hi: float, res: float):
    X = round((hi - lo) / res)
    x, y = points[:, 0], points[:, 1]
    keep = (x >= lo) & (x < hi) & (y >= lo) & (y < hi)
    ix = ((x[keep] - lo) / res).floor().long().clamp(0, X - 1)
    iy = ((y[keep] - lo) / res).floor().long().clamp(0, X - 1)
    flat = (ix * X + iy)[None, :].expand(feats.shape[1], -1)  # (C, P_keep)
    bev = torch.zeros(feats.shape[1], X * X, dtype=feats.dtype)
    bev.scatter_add_(1, flat, feats[keep].t().contiguous())
    return bev.view(-1, X, X)
