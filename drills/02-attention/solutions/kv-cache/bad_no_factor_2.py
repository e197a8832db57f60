# trap: no-factor-2
import torch


def decode_step(q_new, k_new, v_new, k_cache, v_cache):
    k = torch.cat([k_cache, k_new], dim=2)
    v = torch.cat([v_cache, v_new], dim=2)
    ctx = torch.softmax(q_new @ k.mT / q_new.shape[-1] ** 0.5, dim=-1) @ v
    return ctx, k, v


def kv_cache_bytes(L, H_kv, dh, T, B, bytes_per_elem):
    return L * H_kv * dh * T * B * bytes_per_elem
