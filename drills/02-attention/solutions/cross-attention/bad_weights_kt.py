# trap: weights-transposed
import math
import torch


def cross_attention(Q, K, V, enc_pad_mask, H):
    B, T, d = Q.shape
    S = K.shape[1]
    dh = d // H
    q = Q.reshape(B, T, H, dh).transpose(1, 2)
    k = K.reshape(B, S, H, dh).transpose(1, 2)
    v = V.reshape(B, S, H, dh).transpose(1, 2)
    s = k @ q.transpose(-2, -1) / math.sqrt(dh)                   # (B, H, S, T)
    s = s.masked_fill(~enc_pad_mask.bool()[:, None, :, None], torch.finfo(s.dtype).min)
    w = s.softmax(dim=-2)                                         # over keys
    out = (w.transpose(-2, -1) @ v).transpose(1, 2).reshape(B, T, d)
    return out, w
