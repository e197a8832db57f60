# trap: none
# Masks the keys correctly, but fills with -1e9, which fp16 scores cannot hold:
# masked_fill raises on the fp16 cases.
import math
import torch


def multi_head_attention(Q, K, V, pad_mask, H):
    B, T, d = Q.shape
    S = K.shape[1]
    dh = d // H
    q = Q.view(B, T, H, dh).transpose(1, 2)
    k = K.view(B, S, H, dh).transpose(1, 2)
    v = V.view(B, S, H, dh).transpose(1, 2)
    scores = q @ k.transpose(-2, -1) / math.sqrt(dh)
    scores = scores.masked_fill(pad_mask[:, None, None, :] == 0, -1e9)
    out = scores.softmax(-1) @ v
    return out.transpose(1, 2).reshape(B, T, d)
