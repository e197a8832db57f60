# trap: scale-by-d
import math
import torch


def cross_attention(Q, K, V, enc_pad_mask, H):
    B, T, d = Q.shape
    S = K.shape[1]
    q = Q.reshape(B, T, H, -1).transpose(1, 2)
    k = K.reshape(B, S, H, -1).transpose(1, 2)
    v = V.reshape(B, S, H, -1).transpose(1, 2)
    s = q @ k.transpose(-2, -1) / math.sqrt(d)
    s = s.masked_fill(~enc_pad_mask.bool()[:, None, None, :], torch.finfo(s.dtype).min)
    w = s.softmax(-1)
    return (w @ v).transpose(1, 2).reshape(B, T, d), w
