"""Oracles for part 6 (einsum and the rest): library implementations named by specs."""
from __future__ import annotations

import torch

# Each engineer adds their drill's oracles below and registers them in ORACLES at the end.


# ---------------------------------------------------------------- einsum-read

def einsum_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """torch.einsum("bthd,bshd->bhts", q, k): (B, T, H, dh) x (B, S, H, dh) -> (B, H, T, S)."""
    return torch.einsum("bthd,bshd->bhts", q, k)


ORACLES = {
    "einsum_scores": einsum_scores,
}
