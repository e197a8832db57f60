# trap: concat-dim-1
import math
import torch


def decode_step(q_new, k_new, v_new, k_cache, v_cache):
    k_cache = torch.cat([k_cache, k_new], dim=1)
    v_cache = torch.cat([v_cache, v_new], dim=1)
    w = torch.softmax(q_new @ k_cache.transpose(-2, -1) / math.sqrt(q_new.shape[-1]), -1)
    return w @ v_cache, k_cache, v_cache


def kv_cache_bytes(L, H_kv, dh, T, B, bytes_per_elem):
    return 2 * L * H_kv * dh * T * B * bytes_per_elem
