"""Reference and traps for kv-cache.

decode_step and its traps take the variant keywords (drills/README.md, "Variants"): `layout`
is the caches' layout (bhsd: (B, H, S, dh), Hugging Face's DynamicCache and SDPA, the contract;
bshd: (B, S, H, dh), flash-attn's kv cache and Meta's Llama reference code), and `scale` the
score scale (sqrt_dh: 1/sqrt(dh), the contract; none: plain q.k, as T5 has it)."""
import math

import torch


def _heads_first(layout, *xs):
    """(B, S, H, dh) tensors as (B, H, S, dh) under bshd (and back: the swap is its own inverse)."""
    return tuple(x.transpose(1, 2) for x in xs) if layout == "bshd" else xs


def _divisor(q_new, scale):
    return math.sqrt(q_new.shape[-1]) if scale == "sqrt_dh" else 1.0


def decode_step(q_new, k_new, v_new, k_cache, v_cache, *, layout="bhsd", scale="sqrt_dh"):
    seq = 1 if layout == "bshd" else 2  # the sequence axis: dim 2 of (B, H, S, dh), dim 1 of (B, S, H, dh)
    k_cache = torch.cat([k_cache, k_new], dim=seq)  # t+1 positions
    v_cache = torch.cat([v_cache, v_new], dim=seq)
    q, k, v = _heads_first(layout, q_new, k_cache, v_cache)  # (B, H, 1 | t+1, dh)
    scores = q @ k.transpose(-2, -1) / _divisor(q_new, scale)  # (B, H, 1, t+1)
    ctx = torch.softmax(scores, dim=-1) @ v  # (B, H, 1, dh)
    return _heads_first(layout, ctx)[0], k_cache, v_cache


def kv_cache_bytes(L: int, H_kv: int, dh: int, T: int, B: int, bytes_per_elem: int) -> int:
    return 2 * L * H_kv * dh * T * B * bytes_per_elem  # 2: one K and one V per layer


def _attend(q, k, v, divisor, layout="bhsd"):
    q, k, v = _heads_first(layout, q, k, v)
    return _heads_first(layout, torch.softmax(q @ k.transpose(-2, -1) / divisor, dim=-1) @ v)[0]


def trap_concat_dim_1(q_new, k_new, v_new, k_cache, v_cache, *, scale="sqrt_dh"):
    k = torch.cat([k_cache, k_new], dim=1)  # the head axis: an error unless t == 1, then 2H heads
    v = torch.cat([v_cache, v_new], dim=1)
    return _attend(q_new, k, v, _divisor(q_new, scale)), k, v


def trap_attend_before_append(q_new, k_new, v_new, k_cache, v_cache, *, layout="bhsd", scale="sqrt_dh"):
    seq = 1 if layout == "bshd" else 2
    ctx = _attend(q_new, k_cache, v_cache, _divisor(q_new, scale), layout)  # the new token cannot see itself
    return ctx, torch.cat([k_cache, k_new], dim=seq), torch.cat([v_cache, v_new], dim=seq)


def trap_prepend(q_new, k_new, v_new, k_cache, v_cache, *, layout="bhsd", scale="sqrt_dh"):
    seq = 1 if layout == "bshd" else 2
    k = torch.cat([k_new, k_cache], dim=seq)  # newest first: the cache order is reversed step by step
    v = torch.cat([v_new, v_cache], dim=seq)
    return _attend(q_new, k, v, _divisor(q_new, scale), layout), k, v


def trap_no_scale(q_new, k_new, v_new, k_cache, v_cache, *, layout="bhsd"):
    return decode_step(q_new, k_new, v_new, k_cache, v_cache, layout=layout, scale="none")


def trap_heads_first_layout(q_new, k_new, v_new, k_cache, v_cache, *, scale="sqrt_dh"):
    """The contract's (B, H, S, dh) reading of a (B, S, H, dh) cache: the concat lands on the heads."""
    return decode_step(q_new, k_new, v_new, k_cache, v_cache, scale=scale)


def trap_attend_over_heads(q_new, k_new, v_new, k_cache, v_cache, *, scale="sqrt_dh"):
    """The (B, S, H, dh) cache grown on the right axis, then attended without moving heads forward."""
    k = torch.cat([k_cache, k_new], dim=1)
    v = torch.cat([v_cache, v_new], dim=1)
    scores = q_new @ k.transpose(-2, -1) / _divisor(q_new, scale)  # (B, t+1, H, H): heads against heads
    return torch.softmax(scores, dim=-1) @ v, k, v


def trap_sqrt_dh_scale(q_new, k_new, v_new, k_cache, v_cache, *, layout="bhsd"):
    """The contract's 1/sqrt(dh) where the variant's scores are unscaled."""
    return decode_step(q_new, k_new, v_new, k_cache, v_cache, layout=layout)


def trap_no_factor_2(L: int, H_kv: int, dh: int, T: int, B: int, bytes_per_elem: int) -> int:
    return L * H_kv * dh * T * B * bytes_per_elem  # K only


def trap_elements_not_bytes(L: int, H_kv: int, dh: int, T: int, B: int, bytes_per_elem: int) -> int:
    return 2 * L * H_kv * dh * T * B
