# trap: none
# Cell indices from round() instead of floor(): a point in the upper half of a cell
# lands in the next one.
import torch


def bev_scatter(points, feats, lo, hi, res):
    X = Y = round((hi - lo) / res)
    ix = torch.round((points[:, 0] - lo) / res).long()
    iy = torch.round((points[:, 1] - lo) / res).long()
    ok = (ix >= 0) & (ix < X) & (iy >= 0) & (iy < Y)
    bev = torch.zeros(feats.shape[1], X * Y, dtype=feats.dtype)
    bev.index_add_(1, ix[ok] * Y + iy[ok], feats[ok].T)
    return bev.view(-1, X, Y)
