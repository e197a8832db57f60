# variant: layout=bthd
# flash-attn's layout: q (B, T, H, dh), k and v (B, S, H_kv, dh), the output (B, T, H, dh).
import math

import torch


def gqa_attention(q, k, v):
    B, T, H, dh = q.shape
    group = H // k.shape[2]
    k = k.repeat_interleave(group, dim=2)  # (B, S, H, dh)
    v = v.repeat_interleave(group, dim=2)
    scores = torch.einsum("bthd,bshd->bhts", q, k) / math.sqrt(dh)
    w = scores.softmax(dim=-1)
    return torch.einsum("bhts,bshd->bthd", w, v)
