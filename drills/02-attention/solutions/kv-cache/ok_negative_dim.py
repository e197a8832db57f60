import math
import torch


def decode_step(q_new, k_new, v_new, k_cache, v_cache):
    k_cache = torch.cat((k_cache, k_new), dim=-2)
    v_cache = torch.cat((v_cache, v_new), dim=-2)
    s = torch.einsum("bhqd,bhkd->bhqk", q_new, k_cache) / math.sqrt(q_new.size(-1))
    ctx = torch.einsum("bhqk,bhkd->bhqd", s.softmax(-1), v_cache)
    return ctx, k_cache, v_cache


def kv_cache_bytes(L, H_kv, dh, T, B, bytes_per_elem):
    return math.prod([2, L, H_kv, dh, T, B, bytes_per_elem])
