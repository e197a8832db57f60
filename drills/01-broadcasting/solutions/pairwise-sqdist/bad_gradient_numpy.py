# trap: none
# Right in every case, but it cannot train: a NumPy round trip, whose .numpy() raises once the inputs require grad.
import numpy as np
import torch


def pairwise_sq_dists(A, B):
    a = A.numpy().astype(np.float32)
    b = B.numpy().astype(np.float32)
    d2 = (a * a).sum(1)[:, None] - 2.0 * a @ b.T + (b * b).sum(1)[None, :]
    d2 = np.maximum(d2, 0.0)
    return torch.from_numpy(d2).to(A.dtype)
