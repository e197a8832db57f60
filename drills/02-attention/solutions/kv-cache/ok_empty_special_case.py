import torch


def decode_step(q_new, k_new, v_new, k_cache, v_cache):
    if k_cache.shape[2] == 0:                 # first step: the cache is just the new token
        k, v = k_new.clone(), v_new.clone()
    else:
        k = torch.cat([k_cache, k_new], dim=2)
        v = torch.cat([v_cache, v_new], dim=2)
    s = (q_new.double() @ k.double().transpose(-1, -2)) / q_new.shape[-1] ** 0.5
    ctx = (s.softmax(-1) @ v.double()).to(q_new.dtype)
    return ctx, k, v


def kv_cache_bytes(L, H_kv, dh, T, B, bytes_per_elem):
    k_bytes = L * H_kv * dh * T * B * bytes_per_elem
    v_bytes = k_bytes
    return k_bytes + v_bytes
