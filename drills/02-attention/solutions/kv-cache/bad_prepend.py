# trap: prepend
import torch


def decode_step(q_new, k_new, v_new, k_cache, v_cache):
    k = torch.cat([k_new, k_cache], dim=2)
    v = torch.cat([v_new, v_cache], dim=2)
    ctx = torch.softmax(q_new @ k.mT / q_new.shape[-1] ** 0.5, dim=-1) @ v
    return ctx, k, v


def kv_cache_bytes(L, H_kv, dh, T, B, bytes_per_elem):
    return 2 * L * H_kv * dh * T * B * bytes_per_elem
