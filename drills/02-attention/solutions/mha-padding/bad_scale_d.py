# trap: none  (scale by sqrt(d), and an fp32 mask bias that breaks fp16: two mistakes, so no single trap is named)
# partial: scale-by-d
import math
import torch


def multi_head_attention(Q, K, V, pad_mask, H):
    B, T, d = Q.shape
    S = K.shape[1]
    q = Q.reshape(B, T, H, -1).permute(0, 2, 1, 3)
    k = K.reshape(B, S, H, -1).permute(0, 2, 1, 3)
    v = V.reshape(B, S, H, -1).permute(0, 2, 1, 3)
    s = q @ k.transpose(-1, -2) / math.sqrt(d)
    s = s + (1 - pad_mask.float())[:, None, None, :] * -1e4
    return (s.softmax(-1) @ v).permute(0, 2, 1, 3).reshape(B, T, d)
