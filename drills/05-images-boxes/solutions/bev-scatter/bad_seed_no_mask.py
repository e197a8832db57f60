# trap: no-mask-truncated
import torch


def bev_scatter(points, feats, lo, hi, res):
    X = Y = round((hi - lo) / res)
    ix = ((points[:, 0] - lo) / res).long()
    iy = ((points[:, 1] - lo) / res).long()
    flat = ix * Y + iy
    bev = torch.zeros(feats.shape[1], X * Y, dtype=feats.dtype)
    bev.index_add_(1, flat, feats.T)
    return bev.reshape(-1, X, Y)
