# variant: weights=mean
# nn.MultiheadAttention's default: the weights come back averaged over heads, (B, T, S).
import math

import torch


def cross_attention(Q, K, V, enc_pad_mask, H):
    B, T, d = Q.shape
    S, dh = K.shape[1], d // H
    q = Q.reshape(B, T, H, dh).transpose(1, 2)
    k = K.reshape(B, S, H, dh).transpose(1, 2)
    v = V.reshape(B, S, H, dh).transpose(1, 2)
    scores = q @ k.transpose(-2, -1) / math.sqrt(dh)  # (B, H, T, S)
    scores = scores.masked_fill(~enc_pad_mask.bool()[:, None, None, :], torch.finfo(scores.dtype).min)
    w = scores.softmax(dim=-1)
    out = (w @ v).transpose(1, 2).reshape(B, T, d)
    return out, w.mean(dim=1)
