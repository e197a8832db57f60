"""The oracle for cross-attention: the output through torch's SDPA (the shared
grader.oracles.attention.sdpa_mha), the weights from the softmax formula.

Kept apart from the reference so that it is an independent check; every public function
here is an oracle the spec can name (drills/README.md). Arguments come with floating
tensors upcast to float64 (grader/cases/prepare.py)."""
from __future__ import annotations

import math

import torch

from grader.oracles.attention import sdpa_mha


def _split(x: torch.Tensor, H: int) -> torch.Tensor:
    B, L, d = x.shape
    return x.reshape(B, L, H, d // H).transpose(1, 2)


def sdpa_cross_attention(Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor, enc_pad_mask: torch.Tensor, H: int, *,
                         mask: str = "keep", weights: str = "heads"):
    """Cross-attention: the output through SDPA, the (B, H, T, S) weights from the softmax formula;
    `mask` pad: enc_pad_mask is True on padding; `weights` mean: averaged over heads, (B, T, S)."""
    B, T, d = Q.shape
    q, k = _split(Q, H), _split(K, H)
    real = enc_pad_mask.bool() if mask == "keep" else ~enc_pad_mask.bool()
    keep = real[:, None, None, :]  # (B, 1, 1, S): encoder padding only, no causal part
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(d // H)
    w = torch.softmax(scores.masked_fill(~keep, float("-inf")), dim=-1)  # every sample has a real key
    return sdpa_mha(Q, K, V, enc_pad_mask, H, mask=mask), (w.mean(dim=1) if weights == "mean" else w)
