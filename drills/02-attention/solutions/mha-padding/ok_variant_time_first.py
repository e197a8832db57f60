# variant: layout=tbd
# nn.MultiheadAttention's default layout (batch_first=False): Q is (T, B, d), K and V are (S, B, d).
import math

import torch


def multi_head_attention(Q, K, V, pad_mask, H: int):
    T, B, d = Q.shape
    S, dh = K.shape[0], d // H
    q = Q.reshape(T, B, H, dh).permute(1, 2, 0, 3)  # (B, H, T, dh)
    k = K.reshape(S, B, H, dh).permute(1, 2, 0, 3)
    v = V.reshape(S, B, H, dh).permute(1, 2, 0, 3)
    scores = q @ k.transpose(-2, -1) / math.sqrt(dh)  # (B, H, T, S)
    keep = pad_mask.bool()[:, None, None, :]
    scores = scores.masked_fill(~keep, torch.finfo(scores.dtype).min)
    out = torch.softmax(scores, dim=-1) @ v  # (B, H, T, dh)
    return out.permute(2, 0, 1, 3).reshape(T, B, d)
