# trap: assign-not-accumulate  (a (X, Y, C) grid written with index_put_ and no accumulate: one point per cell survives)
import torch


def bev_scatter(points, feats, lo, hi, res):
    X = round((hi - lo) / res)
    cell = torch.floor((points[:, :2] - lo) / res).long()
    ok = ((cell >= 0) & (cell < X)).all(dim=1)
    grid = torch.zeros(X, X, feats.shape[1], dtype=feats.dtype, device=feats.device)
    grid.index_put_((cell[ok, 0], cell[ok, 1]), feats[ok])
    return grid.permute(2, 0, 1)
