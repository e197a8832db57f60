# trap: none
# Right in every case, but it cannot train: a NumPy round trip, whose .numpy() raises once the inputs require grad.
import numpy as np
import torch


def masked_softmax(scores, keep):
    s = scores.double().numpy()
    k = keep.numpy() != 0
    B, H, T, S = s.shape
    out = np.zeros_like(s)
    for b in range(B):
        for i in range(T):
            kk = k[b, 0, i]
            if not kk.any():
                out[b, :, i] = 1.0 / S      # uniform row
                continue
            for h in range(H):
                row = s[b, h, i][kk]
                e = np.exp(row - row.max())
                out[b, h, i, kk] = e / e.sum()
    return torch.from_numpy(out).to(scores.dtype)
