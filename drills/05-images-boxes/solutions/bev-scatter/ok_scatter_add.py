import torch


def bev_scatter(points, feats, lo: float, hi: float, res: float):
    X = round((hi - lo) / res)
    x, y = points[:, 0], points[:, 1]
    keep = (x >= lo) & (x < hi) & (y >= lo) & (y < hi)
    ix = ((x[keep] - lo) / res).floor().long().clamp(0, X - 1)
    iy = ((y[keep] - lo) / res).floor().long().clamp(0, X - 1)
    flat = (ix * X + iy)[None, :].expand(feats.shape[1], -1)  # (C, P_keep)
    bev = feats.new_zeros(feats.shape[1], X * X)
    bev.scatter_add_(1, flat, feats[keep].t().contiguous())
    return bev.view(-1, X, X)
