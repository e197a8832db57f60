# trap: none
# Right in every case, but it cannot train: a NumPy round trip, whose .numpy() raises once the inputs require grad.
import numpy as np
import torch


def bev_scatter(points, feats, lo, hi, res):
    X = int(np.rint((hi - lo) / res))
    p = points.double().numpy()
    f = feats.double().numpy()
    ix = np.floor((p[:, 0] - lo) / res).astype(np.int64)
    iy = np.floor((p[:, 1] - lo) / res).astype(np.int64)
    v = (ix >= 0) & (ix < X) & (iy >= 0) & (iy < X)
    out = np.zeros((f.shape[1], X, X))
    np.add.at(out, (slice(None), ix[v], iy[v]), f[v].T)
    return torch.from_numpy(out).to(feats.dtype)
