# trap: none
# Right in every case, but it cannot train: a NumPy round trip, whose .numpy() raises once the inputs require grad.
import numpy as np
import torch


def cross_attention(Q, K, V, enc_pad_mask, H):
    q, k, v = (t.double().numpy() for t in (Q, K, V))
    m = enc_pad_mask.numpy() != 0
    B, T, d = q.shape
    S = k.shape[1]
    dh = d // H
    q = q.reshape(B, T, H, dh).transpose(0, 2, 1, 3)
    k = k.reshape(B, S, H, dh).transpose(0, 2, 1, 3)
    v = v.reshape(B, S, H, dh).transpose(0, 2, 1, 3)
    s = q @ k.transpose(0, 1, 3, 2) / np.sqrt(dh)
    s = np.where(m[:, None, None, :], s, -np.inf)
    e = np.exp(s - s.max(-1, keepdims=True))
    w = e / e.sum(-1, keepdims=True)
    out = (w @ v).transpose(0, 2, 1, 3).reshape(B, T, d)
    return torch.from_numpy(out).to(Q.dtype), torch.from_numpy(w).to(Q.dtype)
