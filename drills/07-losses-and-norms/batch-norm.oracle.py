"""The oracle for batch-norm: F.batch_norm on float64 copies of the running stats.

Kept apart from the reference so that it is an independent check; every public function
here is an oracle the spec can name (drills/README.md). Arguments come with floating
tensors upcast to float64 (grader/cases/prepare.py)."""
from __future__ import annotations

import torch
import torch.nn.functional as F


def batch_norm_torch(x: torch.Tensor, running_mean: torch.Tensor, running_var: torch.Tensor, weight: torch.Tensor,
                     bias: torch.Tensor, training: bool, momentum: float = 0.1, eps: float = 1e-5, *,
                     convention: str = "pytorch") -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """F.batch_norm updates the copies in place (PyTorch's rule, unbiased variance). keras: its
    momentum is the old value's share, so F.batch_norm gets 1 - momentum for y and the mean, and the
    running variance is moved toward the biased batch variance, x.var(unbiased=False)."""
    x = x.double()
    rm, rv = running_mean.double().clone(), running_var.double().clone()
    old_var = rv.clone()
    torch_momentum = momentum if convention == "pytorch" else 1.0 - momentum
    y = F.batch_norm(x, rm, rv, weight.double(), bias.double(), training, torch_momentum, eps)
    if convention == "keras" and training:
        var = x.transpose(0, 1).reshape(x.shape[1], -1).var(dim=1, unbiased=False)
        rv = momentum * old_var + (1.0 - momentum) * var
    return y, rm, rv
