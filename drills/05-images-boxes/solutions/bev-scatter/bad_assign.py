# trap: assign-not-accumulate
import torch


def bev_scatter(points, feats, lo, hi, res):
    X = round((hi - lo) / res)
    ix = torch.floor((points[:, 0] - lo) / res).long()
    iy = torch.floor((points[:, 1] - lo) / res).long()
    v = (ix >= 0) & (ix < X) & (iy >= 0) & (iy < X)
    bev = torch.zeros(feats.shape[1], X, X, dtype=feats.dtype)
    bev[:, ix[v], iy[v]] = feats[v].T
    return bev
