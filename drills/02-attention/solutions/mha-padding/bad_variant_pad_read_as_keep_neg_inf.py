# trap: keep-convention
# variant: mask=pad
# The SDPA habit under nn.MultiheadAttention's convention: True read as "attend", the rest filled
# with -inf. Sequences without padding lose every key, so their rows come out NaN; the rows that
# do attend attend to the padding. One mistake, the mask's direction, not a NaN problem.
import math

import torch
import torch.nn.functional as F


def multi_head_attention(Q, K, V, pad_mask, H: int):
    B, T, d = Q.shape
    S = K.shape[1]
    dh = d // H
    q = Q.view(B, T, H, dh).transpose(1, 2)
    k = K.view(B, S, H, dh).transpose(1, 2)
    v = V.view(B, S, H, dh).transpose(1, 2)
    attn = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(dh)  # (B, H, T, S)
    attn_mask = pad_mask.to(torch.bool).unsqueeze(1).unsqueeze(2)  # (B, 1, 1, S)
    attn = attn.masked_fill(attn_mask.logical_not(), float("-inf"))
    attn = F.softmax(attn, dim=-1)
    out = torch.matmul(attn, v)  # (B, H, T, dh)
    return out.transpose(1, 2).contiguous().view(B, T, d)
