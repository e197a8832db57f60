"""Attention oracles: torch's own scaled_dot_product_attention."""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F


def _split(x: torch.Tensor, H: int) -> torch.Tensor:
    B, L, d = x.shape
    return x.reshape(B, L, H, d // H).transpose(1, 2)


def sdpa_mha(Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor, pad_mask: torch.Tensor, H: int) -> torch.Tensor:
    """Multi-head attention through SDPA with a (B, 1, 1, S) boolean keep mask."""
    B, T, d = Q.shape
    keep = pad_mask.bool()[:, None, None, :]
    out = F.scaled_dot_product_attention(_split(Q, H), _split(K, H), _split(V, H), attn_mask=keep)
    return out.transpose(1, 2).reshape(B, T, d)


def sdpa_cross_attention(Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor, enc_pad_mask: torch.Tensor, H: int):
    """Cross-attention: the output through SDPA, the (B, H, T, S) weights from the softmax formula."""
    B, T, d = Q.shape
    q, k = _split(Q, H), _split(K, H)
    keep = enc_pad_mask.bool()[:, None, None, :]  # (B, 1, 1, S): encoder padding only, no causal part
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(d // H)
    weights = torch.softmax(scores.masked_fill(~keep, float("-inf")), dim=-1)  # every sample has a real key
    return sdpa_mha(Q, K, V, enc_pad_mask, H), weights


def sdpa_gqa(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """Grouped-query attention: query head h reads kv head h // (H // H_kv)."""
    return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)


def sdpa_decode_step(q_new: torch.Tensor, k_new: torch.Tensor, v_new: torch.Tensor, k_cache: torch.Tensor,
                     v_cache: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """One decode step: append the new key/value on the sequence axis (dim 2), attend over the grown cache."""
    k = torch.cat([k_cache, k_new], dim=2)
    v = torch.cat([v_cache, v_new], dim=2)
    return F.scaled_dot_product_attention(q_new, k, v), k, v


ORACLES = {
    "sdpa_mha": sdpa_mha,
    "sdpa_cross_attention": sdpa_cross_attention,
    "sdpa_gqa": sdpa_gqa,
    "sdpa_decode_step": sdpa_decode_step,
}
