"""Reference and traps for gqa."""
import math

import torch


def gqa_attention(q, k, v):
    B, H, T, dh = q.shape
    H_kv, S = k.shape[1], k.shape[2]
    group = H // H_kv  # query heads per kv head
    # query heads h*group .. h*group + group - 1 share kv head h (repeat_interleave semantics)
    k = k[:, :, None].expand(B, H_kv, group, S, dh).reshape(B, H, S, dh)
    v = v[:, :, None].expand(B, H_kv, group, S, dh).reshape(B, H, S, dh)
    scores = q @ k.transpose(-2, -1) / math.sqrt(dh)  # (B, H, T, S)
    return torch.softmax(scores, dim=-1) @ v  # (B, H, T, dh)


def _attend(q, k, v, scale, dim=-1):
    return torch.softmax(q @ k.transpose(-2, -1) / scale, dim=dim) @ v


def trap_repeat_tiles(q, k, v):
    group = q.shape[1] // k.shape[1]
    k = k.repeat(1, group, 1, 1)  # heads 0, H_kv, 2*H_kv, ... share kv head 0
    v = v.repeat(1, group, 1, 1)
    return _attend(q, k, v, math.sqrt(q.shape[-1]))


def trap_softmax_over_queries(q, k, v):
    group = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
    return _attend(q, k, v, math.sqrt(q.shape[-1]), dim=-2)


def trap_no_scale(q, k, v):
    group = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
    return _attend(q, k, v, 1.0)
