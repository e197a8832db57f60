# variant: mask=pad
# nn.MultiheadAttention's key_padding_mask convention: True marks a padded key, to be ignored.
import math

import torch


def multi_head_attention(Q, K, V, pad_mask, H: int):
    B, T, d = Q.shape
    S, dh = K.shape[1], d // H
    q = Q.reshape(B, T, H, dh).transpose(1, 2)
    k = K.reshape(B, S, H, dh).transpose(1, 2)
    v = V.reshape(B, S, H, dh).transpose(1, 2)
    scores = q @ k.transpose(-2, -1) / math.sqrt(dh)
    ignore = pad_mask.bool()[:, None, None, :]  # (B, 1, 1, S): True = padding
    scores = scores.masked_fill(ignore, torch.finfo(scores.dtype).min)
    out = torch.softmax(scores, dim=-1) @ v
    return out.transpose(1, 2).reshape(B, T, d)
