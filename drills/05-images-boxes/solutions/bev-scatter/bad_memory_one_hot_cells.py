# trap: none
# Scatters by a one-hot (N, X*Y) matrix product: right on every case, 30 GiB at a 256 x 256 grid
import torch


def bev_scatter(points, feats, lo: float, hi: float, res: float):
    X = Y = round((hi - lo) / res)
    ix = torch.floor((points[:, 0] - lo) / res).long()
    iy = torch.floor((points[:, 1] - lo) / res).long()
    valid = (ix >= 0) & (ix < X) & (iy >= 0) & (iy < Y)
    flat = torch.where(valid, ix * Y + iy, X * Y)
    onehot = (flat[:, None] == torch.arange(X * Y + 1, device=flat.device)).to(feats.dtype)  # (N, X*Y + 1)
    return (feats.T @ onehot)[:, : X * Y].reshape(-1, X, Y)
