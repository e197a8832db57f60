# trap: none
# The cells are right, but the map is returned channels-last, (X, Y, C).
import torch


def bev_scatter(points, feats, lo, hi, res):
    X = Y = round((hi - lo) / res)
    ix = torch.floor((points[:, 0] - lo) / res).long()
    iy = torch.floor((points[:, 1] - lo) / res).long()
    ok = (ix >= 0) & (ix < X) & (iy >= 0) & (iy < Y)
    bev = torch.zeros(X, Y, feats.shape[1], dtype=feats.dtype)
    bev.index_put_((ix[ok], iy[ok]), feats[ok], accumulate=True)
    return bev
