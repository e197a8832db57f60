"""Reference and traps for kv-cache."""
import math

import torch


def decode_step(q_new, k_new, v_new, k_cache, v_cache):
    # layout (B, H, S, dh): the sequence axis is dim 2
    k_cache = torch.cat([k_cache, k_new], dim=2)  # (B, H, t+1, dh)
    v_cache = torch.cat([v_cache, v_new], dim=2)  # (B, H, t+1, dh)
    scores = q_new @ k_cache.transpose(-2, -1) / math.sqrt(q_new.shape[-1])  # (B, H, 1, t+1)
    ctx = torch.softmax(scores, dim=-1) @ v_cache  # (B, H, 1, dh)
    return ctx, k_cache, v_cache


def kv_cache_bytes(L: int, H_kv: int, dh: int, T: int, B: int, bytes_per_elem: int) -> int:
    return 2 * L * H_kv * dh * T * B * bytes_per_elem  # 2: one K and one V per layer


def _attend(q, k, v, scale):
    return torch.softmax(q @ k.transpose(-2, -1) / scale, dim=-1) @ v


def trap_concat_dim_1(q_new, k_new, v_new, k_cache, v_cache):
    k = torch.cat([k_cache, k_new], dim=1)  # the head axis: an error unless t == 1, then 2H heads
    v = torch.cat([v_cache, v_new], dim=1)
    return _attend(q_new, k, v, math.sqrt(q_new.shape[-1])), k, v


def trap_attend_before_append(q_new, k_new, v_new, k_cache, v_cache):
    ctx = _attend(q_new, k_cache, v_cache, math.sqrt(q_new.shape[-1]))  # the new token cannot see itself
    return ctx, torch.cat([k_cache, k_new], dim=2), torch.cat([v_cache, v_new], dim=2)


def trap_prepend(q_new, k_new, v_new, k_cache, v_cache):
    k = torch.cat([k_new, k_cache], dim=2)  # newest first: the cache order is reversed step by step
    v = torch.cat([v_new, v_cache], dim=2)
    return _attend(q_new, k, v, math.sqrt(q_new.shape[-1])), k, v


def trap_no_scale(q_new, k_new, v_new, k_cache, v_cache):
    k = torch.cat([k_cache, k_new], dim=2)
    v = torch.cat([v_cache, v_new], dim=2)
    return _attend(q_new, k, v, 1.0), k, v


def trap_no_factor_2(L: int, H_kv: int, dh: int, T: int, B: int, bytes_per_elem: int) -> int:
    return L * H_kv * dh * T * B * bytes_per_elem  # K only


def trap_elements_not_bytes(L: int, H_kv: int, dh: int, T: int, B: int, bytes_per_elem: int) -> int:
    return 2 * L * H_kv * dh * T * B
