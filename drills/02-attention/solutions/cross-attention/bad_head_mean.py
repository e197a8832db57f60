# trap: weights-head-averaged
import math
import torch


def cross_attention(Q, K, V, enc_pad_mask, H):
    B, T, d = Q.shape
    S = K.shape[1]
    dh = d // H
    q = Q.reshape(B, T, H, dh).transpose(1, 2)
    k = K.reshape(B, S, H, dh).transpose(1, 2)
    v = V.reshape(B, S, H, dh).transpose(1, 2)
    s = (q @ k.transpose(-2, -1)) * dh ** -0.5
    s = s.masked_fill(enc_pad_mask[:, None, None, :] == 0, -1e4)
    w = torch.softmax(s, -1)
    out = (w @ v).transpose(1, 2).reshape(B, T, d)
    return out, w.mean(1)
