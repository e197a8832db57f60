# trap: attend-before-append
import math
import torch


def decode_step(q_new, k_new, v_new, k_cache, v_cache):
    w = torch.softmax(q_new @ k_cache.transpose(-2, -1) / math.sqrt(q_new.shape[-1]), -1)
    ctx = w @ v_cache
    return ctx, torch.cat([k_cache, k_new], 2), torch.cat([v_cache, v_new], 2)


def kv_cache_bytes(L, H_kv, dh, T, B, bytes_per_elem):
    return 2 * L * H_kv * dh * T * B * bytes_per_elem
