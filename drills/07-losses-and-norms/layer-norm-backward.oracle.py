"""The oracle for layer-norm-backward: torch.autograd.grad through the float64 forward.

Kept apart from the reference so that it is an independent check; every public function
here is an oracle the spec can name (drills/README.md). Arguments come with floating
tensors upcast to float64 (grader/cases/prepare.py)."""
from __future__ import annotations

import torch
import torch.nn.functional as F


def layer_norm_autograd(dy: torch.Tensor, x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-5, *,
                        convention: str = "torch") -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(dx, dweight, dbias) of sum(y * dy): y = F.layer_norm(x, (d,), weight, bias, eps) (torch), or
    weight * (x - mean) / (x.std(-1) + eps) + bias, the Annotated Transformer's LayerNorm (annotated);
    bias is zeros (no gradient depends on its value)."""
    d = x.shape[-1]
    with torch.enable_grad():
        x = x.detach().double().requires_grad_(True)
        w = weight.detach().double().requires_grad_(True)
        b = torch.zeros(d, dtype=torch.float64, requires_grad=True)
        if convention == "annotated":
            mean = x.mean(-1, keepdim=True)
            std = x.std(-1, keepdim=True)
            y = w * (x - mean) / (std + eps) + b
        else:
            y = F.layer_norm(x, (d,), w, b, eps)
        dx, dw, db = torch.autograd.grad(y, (x, w, b), dy.detach().double())
    return dx, dw, db
