# trap: no-mask-wraps
import torch


def bev_scatter(points, feats, lo, hi, res):
    X = round((hi - lo) / res)
    ix = torch.floor((points[:, 0] - lo) / res).long()
    iy = torch.floor((points[:, 1] - lo) / res).long()
    bev = feats.new_zeros(X, X, feats.shape[1])
    bev.index_put_((ix, iy), feats, accumulate=True)
    return bev.permute(2, 0, 1)
