# trap: none
# Right on every case, but the one-hot (N, X*Y) matrix it multiplies by is 30 GiB at a 256 x 256 grid
import torch


def bev_scatter(points, feats, lo, hi, res):
    X = round((hi - lo) / res)
    ix = torch.floor((points[:, 0].float() - lo) / res).long()
    iy = torch.floor((points[:, 1].float() - lo) / res).long()
    valid = (ix >= 0) & (ix < X) & (iy >= 0) & (iy < X)
    cell = torch.where(valid, ix * X + iy, torch.zeros_like(ix))
    onehot = (cell[:, None] == torch.arange(X * X, device=cell.device)[None, :]) & valid[:, None]  # (N, X*X)
    out = feats.float().T @ onehot.float()  # (C, X*X)
    return out.reshape(-1, X, X).to(feats.dtype)
