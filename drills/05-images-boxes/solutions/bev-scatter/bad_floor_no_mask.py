# trap: no-validity-mask
import torch


def bev_scatter(points, feats, lo, hi, res):
    X = round((hi - lo) / res)
    ix = torch.floor((points[:, 0] - lo) / res).long()
    iy = torch.floor((points[:, 1] - lo) / res).long()
    out = feats.new_zeros(feats.shape[1], X * X)
    out.index_add_(1, ix * X + iy, feats.t())
    return out.view(-1, X, X)
