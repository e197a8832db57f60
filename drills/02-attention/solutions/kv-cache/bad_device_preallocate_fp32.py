# device: mixes CPU tensors with the inputs (correct on a CPU, an error on a GPU)
import torch


def decode_step(q_new, k_new, v_new, k_cache, v_cache):
    B, H, t, dh = k_cache.shape
    k = torch.empty(B, H, t + 1, dh, dtype=k_cache.dtype)
    v = torch.empty_like(k)
    k[:, :, :t] = k_cache
    k[:, :, t:] = k_new
    v[:, :, :t] = v_cache
    v[:, :, t:] = v_new
    s = (q_new.float() @ k.float().transpose(2, 3)) * dh ** -0.5   # (B, H, 1, t+1)
    w = torch.exp(s - s.max(-1, keepdim=True).values)
    w = w / w.sum(-1, keepdim=True)
    ctx = (w @ v.float()).to(q_new.dtype)
    return ctx, k, v


def kv_cache_bytes(L: int, H_kv: int, dh: int, T: int, B: int, bytes_per_elem: int) -> int:
    per_token_per_layer = 2 * H_kv * dh * bytes_per_elem     # K and V
    return per_token_per_layer * L * T * B
