# trap: keep-convention
# variant: mask=pad
# Written the SDPA way (True = attend) where memory_key_padding_mask has True on padding, with
# -inf as the fill: an encoder sequence without padding has every key hidden and a NaN row.
import math

import torch


def cross_attention(Q, K, V, enc_pad_mask, H):
    B, T, d = Q.shape
    S = K.shape[1]
    dh = d // H
    q = Q.reshape(B, T, H, dh).permute(0, 2, 1, 3)
    k = K.reshape(B, S, H, dh).permute(0, 2, 1, 3)
    v = V.reshape(B, S, H, dh).permute(0, 2, 1, 3)
    scores = q @ k.transpose(-2, -1) / math.sqrt(dh)  # (B, H, T, S)
    keep = enc_pad_mask.bool()[:, None, None, :]
    scores = torch.where(keep, scores, torch.tensor(float("-inf"), dtype=scores.dtype))
    w = torch.softmax(scores, dim=-1)
    out = (w @ v).permute(0, 2, 1, 3).reshape(B, T, d)
    return out, w
