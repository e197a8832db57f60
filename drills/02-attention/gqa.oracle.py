"""The oracle for gqa: torch's SDPA with enable_gqa.

Kept apart from the reference so that it is an independent check; every public function
here is an oracle the spec can name (drills/README.md). Arguments come with floating
tensors upcast to float64 (grader/cases/prepare.py)."""
from __future__ import annotations

import torch
import torch.nn.functional as F


def sdpa_gqa(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """Grouped-query attention: query head h reads kv head h // (H // H_kv)."""
    return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
