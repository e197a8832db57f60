# trap: grid-size-truncated
import torch


def bev_scatter(points, feats, lo, hi, res):
    X = int((hi - lo) / res)
    ix = torch.floor((points[:, 0] - lo) / res).long()
    iy = torch.floor((points[:, 1] - lo) / res).long()
    v = (ix >= 0) & (ix < X) & (iy >= 0) & (iy < X)
    bev = torch.zeros(feats.shape[1], X * X, dtype=feats.dtype)
    bev.index_add_(1, ix[v] * X + iy[v], feats[v].T)
    return bev.reshape(-1, X, X)
