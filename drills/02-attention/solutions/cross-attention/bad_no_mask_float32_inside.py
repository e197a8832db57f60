# trap: no-mask  (the encoder padding never masked; worked in float32 and both results cast back)
import math

import torch


def cross_attention(Q, K, V, enc_pad_mask, H):
    B, T, d = Q.shape
    S = K.shape[1]
    dh = d // H
    q = Q.float().reshape(B, T, H, dh).permute(0, 2, 1, 3)
    k = K.float().reshape(B, S, H, dh).permute(0, 2, 1, 3)
    v = V.float().reshape(B, S, H, dh).permute(0, 2, 1, 3)
    w = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(dh), dim=-1)
    out = (w @ v).permute(0, 2, 1, 3).reshape(B, T, d)
    return out.to(Q.dtype), w.to(Q.dtype)
