"""Broadcasting oracles (drills 1-4): torch's own implementations, in float64.

Oracles receive the call's arguments with floating tensors upcast to float64.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F


def broadcast_shapes(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """torch.broadcast_shapes, with an incompatible pair raised as ValueError."""
    try:
        out = torch.broadcast_shapes(tuple(a), tuple(b))
    except RuntimeError as exc:
        raise ValueError(str(exc)) from None
    return tuple(int(s) for s in out)


def mse_per_sample(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Mean over samples of (pred[i] - target[i, 0]) ** 2: a 0-d tensor."""
    return ((pred - target[:, 0]) ** 2).mean()


def cdist_squared(A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
    """torch.cdist(A, B) ** 2 without the matmul shortcut (no cancellation, exact 0 for equal rows)."""
    return torch.cdist(A, B, compute_mode="donot_use_mm_for_euclid_dist") ** 2


def layer_norm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float = 1e-5) -> torch.Tensor:
    return F.layer_norm(x, (x.shape[-1],), weight, bias, eps)


def batch_stats(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Mean and biased variance of (B, T, d) over batch and time, each (d,)."""
    return x.mean((0, 1)), x.var((0, 1), unbiased=False)


ORACLES = {
    "broadcast_shapes": broadcast_shapes,
    "mse_per_sample": mse_per_sample,
    "cdist_squared": cdist_squared,
    "layer_norm": layer_norm,
    "batch_stats": batch_stats,
}
