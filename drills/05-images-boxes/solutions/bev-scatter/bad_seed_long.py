# trap: truncate-toward-zero
import torch


def bev_scatter(points, feats, lo, hi, res):
    X = Y = round((hi - lo) / res)
    ix = ((points[:, 0] - lo) / res).long()
    iy = ((points[:, 1] - lo) / res).long()
    valid = (ix >= 0) & (ix < X) & (iy >= 0) & (iy < Y)
    flat = ix[valid] * Y + iy[valid]
    bev = torch.zeros(feats.shape[1], X * Y, dtype=feats.dtype)
    bev.index_add_(1, flat, feats[valid].T)
    return bev.reshape(-1, X, Y)
