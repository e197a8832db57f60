# variant: layout=bshd
# flash-attn's kv cache layout, (B, S, H, dh) as in Meta's Llama code: grow on dim 1, transpose to attend.
import math

import torch


def decode_step(q_new, k_new, v_new, k_cache, v_cache):
    k_cache = torch.cat([k_cache, k_new], dim=1)            # (B, t+1, H, dh)
    v_cache = torch.cat([v_cache, v_new], dim=1)
    q, k, v = (x.transpose(1, 2) for x in (q_new, k_cache, v_cache))   # (B, H, ., dh)
    scores = q @ k.transpose(2, 3) / math.sqrt(q.shape[-1])             # (B, H, 1, t+1)
    ctx = scores.softmax(dim=-1) @ v                                    # (B, H, 1, dh)
    return ctx.transpose(1, 2), k_cache, v_cache


def kv_cache_bytes(L, H_kv, dh, T, B, bytes_per_elem):
    return 2 * L * H_kv * dh * T * B * bytes_per_elem
