# trap: none
# kv_cache_bytes forgets the L layers; decode_step is right.
import math
import torch


def decode_step(q_new, k_new, v_new, k_cache, v_cache):
    k_cache = torch.cat([k_cache, k_new], dim=2)
    v_cache = torch.cat([v_cache, v_new], dim=2)
    scores = q_new @ k_cache.transpose(-2, -1) / math.sqrt(q_new.shape[-1])
    return scores.softmax(-1) @ v_cache, k_cache, v_cache


def kv_cache_bytes(L, H_kv, dh, T, B, bytes_per_elem):
    return 2 * H_kv * dh * T * B * bytes_per_elem
