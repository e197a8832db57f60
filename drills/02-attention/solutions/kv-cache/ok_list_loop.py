import torch


def decode_step(q_new, k_new, v_new, k_cache, v_cache):
    k = torch.cat([k_cache, k_new], 2)
    v = torch.cat([v_cache, v_new], 2)
    B, H = q_new.shape[:2]
    ctx = torch.zeros_like(q_new)
    scale = q_new.shape[-1] ** 0.5
    for b in range(B):
        for h in range(H):
            w = torch.softmax(q_new[b, h] @ k[b, h].T / scale, dim=-1)   # (1, t+1)
            ctx[b, h] = w @ v[b, h]
    return ctx, k, v


def kv_cache_bytes(L, H_kv, dh, T, B, bytes_per_elem):
    return int(torch.tensor([2, L, H_kv, dh, T, B, bytes_per_elem], dtype=torch.int64).prod())
