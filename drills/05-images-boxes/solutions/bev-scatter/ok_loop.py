import math
import torch


def bev_scatter(points, feats, lo, hi, res):
    X = Y = int(round((hi - lo) / res))
    C = feats.shape[1]
    out = torch.zeros(C, X, Y, dtype=feats.dtype)
    for p in range(points.shape[0]):
        x, y = points[p, 0].item(), points[p, 1].item()
        i = math.floor((x - lo) / res)
        j = math.floor((y - lo) / res)
        if 0 <= i < X and 0 <= j < Y:
            out[:, i, j] += feats[p]
    return out
