import math
import torch


def cross_attention(Q, K, V, enc_pad_mask, H):
    dt = Q.dtype
    Q, K, V = Q.float(), K.float(), V.float()
    B, T, d = Q.shape
    S = K.shape[1]
    dh = d // H
    q = Q.reshape(B, T, H, dh).permute(0, 2, 1, 3)
    k = K.reshape(B, S, H, dh).permute(0, 2, 1, 3)
    v = V.reshape(B, S, H, dh).permute(0, 2, 1, 3)
    bias = (1.0 - enc_pad_mask.float()).view(B, 1, 1, S) * -1e9
    w = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(dh) + bias, dim=-1)
    out = (w @ v).permute(0, 2, 1, 3).reshape(B, T, d)
    return out.to(dt), w.to(dt)
