# trap: prepend  (the new key and value put in front of the cache; attention written with einsum)
import torch


def decode_step(q_new, k_new, v_new, k_cache, v_cache):
    k = torch.cat((k_new, k_cache), dim=-2)
    v = torch.cat((v_new, v_cache), dim=-2)
    scores = torch.einsum("bhqd,bhkd->bhqk", q_new, k) / q_new.shape[-1] ** 0.5
    ctx = torch.einsum("bhqk,bhkd->bhqd", scores.softmax(-1), v)
    return ctx, k, v


def kv_cache_bytes(L, H_kv, dh, T, B, bytes_per_elem):
    return 2 * L * H_kv * dh * T * B * bytes_per_elem
