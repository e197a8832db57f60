# trap: none
# Right in every case, but it cannot train: a NumPy round trip, whose .numpy() raises once the inputs require grad.
import numpy as np
import torch


def scores_without_einsum(q, k):
    B, T, H, dh = q.shape
    S = k.shape[1]
    out = torch.empty(B, H, T, S, dtype=q.dtype)
    for b in range(B):
        for h in range(H):
            out[b, h] = torch.from_numpy(np.matmul(q[b, :, h].double().numpy(), k[b, :, h].double().numpy().T)).to(q.dtype)
    return out
