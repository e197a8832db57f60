"""The oracle for gqa: torch's SDPA with enable_gqa.

Kept apart from the reference so that it is an independent check; every public function
here is an oracle the spec can name (drills/README.md). Arguments come with floating
tensors upcast to float64 (grader/cases/prepare.py)."""
from __future__ import annotations

import torch
import torch.nn.functional as F


def sdpa_gqa(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, *, layout: str = "bhtd",
             causal: str = "none") -> torch.Tensor:
    """Grouped-query attention: query head h reads kv head h // (H // H_kv). `layout` bthd: (B, T, H, dh)
    in and out; `causal` top-left: SDPA's own is_causal; bottom-right: a (T, S) mask aligned to the last
    key, with the queries that see no key set to zero (flash-attn's convention)."""
    if layout == "bthd":
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
    T, S = q.shape[-2], k.shape[-2]
    if causal == "top-left":
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
    elif causal == "bottom-right":
        keep = torch.ones(T, S, dtype=torch.bool).tril(diagonal=S - T)
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=keep, enable_gqa=True)
        out = torch.where(keep.any(dim=-1)[:, None], torch.nan_to_num(out, nan=0.0), torch.zeros_like(out))
    else:
        out = F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
    return out.transpose(1, 2) if layout == "bthd" else out
