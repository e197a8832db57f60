# trap: none
# Right attention, but the heads are merged with .view after transpose(1, 2),
# which raises on the non-contiguous result.
import math
import torch


def cross_attention(Q, K, V, enc_pad_mask, H):
    B, T, d = Q.shape
    S = K.shape[1]
    dh = d // H
    q = Q.view(B, T, H, dh).transpose(1, 2)
    k = K.view(B, S, H, dh).transpose(1, 2)
    v = V.view(B, S, H, dh).transpose(1, 2)
    scores = q @ k.transpose(-2, -1) / math.sqrt(dh)
    keep = enc_pad_mask.bool()[:, None, None, :]
    scores = scores.masked_fill(~keep, torch.finfo(scores.dtype).min)
    weights = scores.softmax(dim=-1)
    out = (weights @ v).transpose(1, 2).view(B, T, d)
    return out, weights
