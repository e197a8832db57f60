# variant: causal=bottom-right
# flash-attn's causal alignment: the queries are the last T positions; a query with no key gives zeros.
import math

import torch


def gqa_attention(q, k, v):
    B, H, T, dh = q.shape
    H_kv, S = k.shape[1], k.shape[2]
    qg = q.reshape(B, H_kv, H // H_kv, T, dh)  # query heads grouped by the kv head they read
    scores = qg @ k[:, :, None].transpose(-2, -1) / math.sqrt(dh)  # (B, H_kv, G, T, S)
    i = torch.arange(T, device=q.device)[:, None]
    j = torch.arange(S, device=q.device)[None, :]
    keep = j <= i + (S - T)
    scores = scores.masked_fill(~keep, float("-inf"))
    w = torch.nan_to_num(scores.softmax(dim=-1), nan=0.0)  # rows with no key: all -inf, then 0
    return (w @ v[:, :, None]).reshape(B, H, T, dh)
