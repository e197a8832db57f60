# trap: none
# partial: truncate-toward-zero
# A pillar scatter as detection code writes it: cell indices by .long() (truncation toward zero,
# so points less than a cell below lo land in cell 0) and the grid size by int(), which truncates
# (0.35 - -0.35) / 0.1 = 6.999999999999999 to 6: two independent mistakes.
import torch


def bev_scatter(points, feats, lo, hi, res):
    nx = int((hi - lo) / res)
    coords = ((points[:, :2] - lo) / res).long()  # (N, 2)
    keep = (coords[:, 0] >= 0) & (coords[:, 0] < nx) & (coords[:, 1] >= 0) & (coords[:, 1] < nx)
    coords, f = coords[keep], feats[keep]
    canvas = torch.zeros(f.shape[1], nx * nx, dtype=feats.dtype, device=feats.device)
    canvas.index_add_(1, coords[:, 0] * nx + coords[:, 1], f.t())
    return canvas.view(-1, nx, nx)
