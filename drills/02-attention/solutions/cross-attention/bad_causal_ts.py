# trap: causal-mask-ts
import math
import torch


def cross_attention(Q, K, V, enc_pad_mask, H):
    B, T, d = Q.shape
    S = K.shape[1]
    dh = d // H
    q = Q.reshape(B, T, H, dh).transpose(1, 2)
    k = K.reshape(B, S, H, dh).transpose(1, 2)
    v = V.reshape(B, S, H, dh).transpose(1, 2)
    s = q @ k.transpose(-2, -1) / math.sqrt(dh)
    causal = torch.tril(torch.ones(T, S, dtype=torch.bool))
    keep = causal & enc_pad_mask.bool()[:, None, None, :]
    w = s.masked_fill(~keep, torch.finfo(s.dtype).min).softmax(-1)
    return (w @ v).transpose(1, 2).reshape(B, T, d), w
