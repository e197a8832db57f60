# trap: none
# An additive mask built as (1 - pad_mask) * -1e4: fine for int and float masks,
# but `1 - tensor` is not allowed on a bool tensor, so bool masks raise.
import math
import torch


def multi_head_attention(Q, K, V, pad_mask, H):
    B, T, d = Q.shape
    S = K.shape[1]
    dh = d // H
    q = Q.reshape(B, T, H, dh).permute(0, 2, 1, 3)
    k = K.reshape(B, S, H, dh).permute(0, 2, 1, 3)
    v = V.reshape(B, S, H, dh).permute(0, 2, 1, 3)
    bias = (1 - pad_mask)[:, None, None, :].to(Q.dtype) * -1e4
    scores = q @ k.transpose(-2, -1) / math.sqrt(dh) + bias
    out = scores.softmax(-1) @ v
    return out.permute(0, 2, 1, 3).reshape(B, T, d)
