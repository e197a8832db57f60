# variant: causal=top-left
# SDPA's is_causal=True: query i reads keys 0..i, whatever S is.
import math

import torch


def gqa_attention(q, k, v):
    B, H, T, dh = q.shape
    S = k.shape[2]
    group = H // k.shape[1]
    k = k.repeat_interleave(group, dim=1)
    v = v.repeat_interleave(group, dim=1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(dh)
    keep = torch.ones(T, S, dtype=torch.bool, device=q.device).tril()
    scores = scores.masked_fill(~keep, torch.finfo(scores.dtype).min)
    return scores.softmax(dim=-1) @ v
