"""The oracle for kv-cache: torch.cat onto the cache, then torch's SDPA.

Kept apart from the reference so that it is an independent check; every public function
here is an oracle the spec can name (drills/README.md). Arguments come with floating
tensors upcast to float64 (grader/cases/prepare.py). The keywords are the variant's
(kv-cache.yaml): `layout` bhsd or bshd, `scale` sqrt_dh or none."""
from __future__ import annotations

import torch
import torch.nn.functional as F


def sdpa_decode_step(q_new: torch.Tensor, k_new: torch.Tensor, v_new: torch.Tensor, k_cache: torch.Tensor,
                     v_cache: torch.Tensor, *, layout: str = "bhsd",
                     scale: str = "sqrt_dh") -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """One decode step: append the new key/value on the sequence axis, attend over the grown cache."""
    if layout == "bshd":  # (B, S, H, dh), as flash_attn_with_kvcache takes it: SDPA wants (B, H, S, dh)
        ctx, k, v = sdpa_decode_step(q_new.transpose(1, 2), k_new.transpose(1, 2), v_new.transpose(1, 2),
                                     k_cache.transpose(1, 2), v_cache.transpose(1, 2), scale=scale)
        return ctx.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
    k = torch.cat([k_cache, k_new], dim=2)
    v = torch.cat([v_cache, v_new], dim=2)
    return F.scaled_dot_product_attention(q_new, k, v, scale=None if scale == "sqrt_dh" else 1.0), k, v
