import torch


def bev_scatter(points, feats, lo, hi, res):
    n = round((hi - lo) / res)
    idx = torch.div(points[:, :2] - lo, res, rounding_mode="floor").long()  # (N, 2)
    ok = ((idx >= 0) & (idx < n)).all(dim=1)
    idx, f = idx[ok], feats[ok]
    bev = feats.new_zeros(n, n, feats.shape[1])
    bev.index_put_((idx[:, 0], idx[:, 1]), f, accumulate=True)
    return bev.permute(2, 0, 1)
